; inherits: ecmascript
(formal_parameters (identifier) @bound)
