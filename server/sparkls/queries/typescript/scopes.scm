; inherits: ecmascript
; Shared by the TypeScript and TSX grammars (see documents/languages.py).
; What can be an edit's target region; the smallest one around the range wins.
; @scope.definition: functions, methods, classes, interfaces, enums, type aliases,
;   namespaces, and functions bound to a name.
; @scope.wrapped: a definition whose wrapper (`export`, `declare`) is the scope instead.
; @scope.prefix: nodes that belong to the definition right after them (a class
;   member's decorators are its siblings in this grammar, not its children).
(function_signature) @scope.definition
(abstract_class_declaration) @scope.definition
(interface_declaration) @scope.definition
(enum_declaration) @scope.definition
(type_alias_declaration) @scope.definition
(internal_module) @scope.definition
(module) @scope.definition
; class fields holding a function: `onClick = () => {}`
(public_field_definition
  value: [(arrow_function) (function_expression) (generator_function)]) @scope.definition
(ambient_declaration (_) @scope.wrapped) @scope.definition
(decorator) @scope.prefix
