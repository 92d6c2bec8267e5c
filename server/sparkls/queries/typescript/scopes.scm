; Shared by the TypeScript and TSX grammars (see documents/languages.py).
; What can be an edit's target region; the smallest one around the range wins.
; @scope.definition: functions, methods, classes, interfaces, enums, type aliases,
;   namespaces, and functions bound to a name.
; @scope.wrapped: a definition whose wrapper (`export`, `declare`) is the scope instead.
; @scope.prefix: nodes that belong to the definition right after them (a class
;   member's decorators are its siblings in this grammar, not its children).
(function_declaration) @scope.definition
(generator_function_declaration) @scope.definition
(function_signature) @scope.definition
(class_declaration) @scope.definition
(abstract_class_declaration) @scope.definition
(method_definition) @scope.definition
(interface_declaration) @scope.definition
(enum_declaration) @scope.definition
(type_alias_declaration) @scope.definition
(internal_module) @scope.definition
(module) @scope.definition

; `const f = () => {}`, `var g = function () {}`, `let C = class {}`. One pattern per
; kind of value: an alternation inside a nested child pattern can match any value
; (seen with tree-sitter 0.26.1).
[
  (lexical_declaration (variable_declarator value: (arrow_function)))
  (lexical_declaration (variable_declarator value: (function_expression)))
  (lexical_declaration (variable_declarator value: (generator_function)))
  (lexical_declaration (variable_declarator value: (class)))
  (variable_declaration (variable_declarator value: (arrow_function)))
  (variable_declaration (variable_declarator value: (function_expression)))
  (variable_declaration (variable_declarator value: (generator_function)))
  (variable_declaration (variable_declarator value: (class)))
] @scope.definition
; `exports.f = () => {}`, `Foo.prototype.g = function () {}`
[
  (expression_statement (assignment_expression right: (arrow_function)))
  (expression_statement (assignment_expression right: (function_expression)))
  (expression_statement (assignment_expression right: (generator_function)))
  (expression_statement (assignment_expression right: (class)))
] @scope.definition
; class fields holding a function: `onClick = () => {}`
(public_field_definition
  value: [(arrow_function) (function_expression) (generator_function)]) @scope.definition

; An exported or ambient declaration is edited with its `export` / `declare` keyword.
(export_statement declaration: (_) @scope.wrapped) @scope.definition
(export_statement
  value: [(arrow_function) (function_expression) (generator_function) (class)]) @scope.definition
(ambient_declaration (_) @scope.wrapped) @scope.definition

(decorator) @scope.prefix
