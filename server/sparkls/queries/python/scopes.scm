; What can be an edit's target region; the smallest one around the range wins.
; @scope.definition: functions, methods and classes.
; @scope.wrapped: a definition whose wrapper (here its decorators) is the scope instead.
(function_definition) @scope.definition
(class_definition) @scope.definition
(decorated_definition definition: (_) @scope.wrapped) @scope.definition
