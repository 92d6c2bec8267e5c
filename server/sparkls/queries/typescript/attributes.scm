; inherits: ecmascript
