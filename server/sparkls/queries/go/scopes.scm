; What can be an edit's target region; the smallest one around the range wins.
; @scope.definition: functions, methods, and type declarations (a grouped
;   `type ( ... )` declaration and each type in it).
(function_declaration) @scope.definition
(method_declaration) @scope.definition
(type_declaration) @scope.definition
(type_spec) @scope.definition
(type_alias) @scope.definition
