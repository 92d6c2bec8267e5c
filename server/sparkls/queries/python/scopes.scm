; Node kinds that can be an edit's target region, innermost first wins.
; @scope.definition: functions, methods and classes (with their decorators).
(function_definition) @scope.definition
(class_definition) @scope.definition
(decorated_definition) @scope.definition
