; inherits: ecmascript
; What can be an edit's target region; the smallest one around the range wins.
; @scope.definition: functions, methods, classes, and functions bound to a name.
; @scope.wrapped: a definition whose wrapper (here `export`) is the scope instead.
; class fields holding a function: `onClick = () => {}`
(field_definition
  value: [(arrow_function) (function_expression) (generator_function)]) @scope.definition
