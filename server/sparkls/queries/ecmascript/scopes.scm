; Region patterns shared by the JavaScript and TypeScript/TSX grammars (same node
; types in both). Each grammar's scopes.scm inherits these and adds its own.
(function_declaration) @scope.definition
(generator_function_declaration) @scope.definition
(class_declaration) @scope.definition
(method_definition) @scope.definition
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
; An exported declaration is edited with its `export` keyword (and decorators).
(export_statement declaration: (_) @scope.wrapped) @scope.definition
(export_statement
  value: [(arrow_function) (function_expression) (generator_function) (class)]) @scope.definition
