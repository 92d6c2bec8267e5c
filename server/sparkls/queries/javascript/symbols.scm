; Definitions for the workspace symbol index and the context's definition snippets.
; Capture names (sparkls.context.symbols names no node types; these say it all):
;   @symbol.<kind> the definition (with @name, the defined name, and @body when it has
;                  one: the signature is what comes before the body); a name captured
;                  as @symbol.import is no definition (`const fs = require("fs")`);
;   @wrapper       a node whose lines belong to its @wrapped definition (`export`);
;   @prefix        a node that belongs to the definition right after it (the comment
;                  lines right above it: JSDoc and plain comments alike).
; Kinds: function (a method inside a class), class, variable (a constant when its name
; is UPPER_CASE). Definitions inside a function are locals, dropped in code.
;
; Patterns start at most two levels below the program, a class, or a @scan node
; (symbols.SCAN_DEPTH), so that function bodies are not searched: their statements
; start three levels down, which is also why the variable patterns find no locals.

(function_declaration name: (identifier) @name body: (_) @body) @symbol.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @symbol.function
(class_declaration name: (identifier) @name body: (_) @body) @symbol.class
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name
  body: (_) @body) @symbol.function
; class fields holding a function: `onClick = () => {}`
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
    (generator_function body: (_) @body)
  ]) @symbol.function

; `const f = () => {}`, `var g = function () {}`, `let C = class {}`. One pattern per
; kind of value: an alternation inside a nested child pattern can match any value
; (seen with tree-sitter 0.26.1).
(lexical_declaration (variable_declarator name: (identifier) @name value: (arrow_function body: (_) @body))) @symbol.function
(lexical_declaration (variable_declarator name: (identifier) @name value: (function_expression body: (_) @body))) @symbol.function
(lexical_declaration (variable_declarator name: (identifier) @name value: (generator_function body: (_) @body))) @symbol.function
(lexical_declaration (variable_declarator name: (identifier) @name value: (class body: (_) @body))) @symbol.class
(variable_declaration (variable_declarator name: (identifier) @name value: (arrow_function body: (_) @body))) @symbol.function
(variable_declaration (variable_declarator name: (identifier) @name value: (function_expression body: (_) @body))) @symbol.function
(variable_declaration (variable_declarator name: (identifier) @name value: (generator_function body: (_) @body))) @symbol.function
(variable_declaration (variable_declarator name: (identifier) @name value: (class body: (_) @body))) @symbol.class
; any other value: `const MAX = 10`, `let count;`
(lexical_declaration (variable_declarator name: (identifier) @name)) @symbol.variable
(variable_declaration (variable_declarator name: (identifier) @name)) @symbol.variable
; `const path = require("node:path")` binds a module, not a definition
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression function: (identifier) @_require (#eq? @_require "require")))) @symbol.import
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression function: (identifier) @_require (#eq? @_require "require")))) @symbol.import

; `exports.f = () => {}`, `module.exports.f = function () {}`, `Foo.prototype.g = ...`
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: (arrow_function body: (_) @body))) @symbol.function
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: (function_expression body: (_) @body))) @symbol.function

(export_statement declaration: (_) @wrapped) @wrapper

(comment) @prefix
