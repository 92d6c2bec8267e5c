; Containers whose first line is shown above a region inside them: the struct or
; interface type around a field or method specification.
(type_spec) @scope.container
