; Shared by the TypeScript and TSX grammars (see documents/languages.py).
; Definitions for the workspace symbol index and the context's definition snippets.
; Capture names (sparkls.context.symbols names no node types; these say it all):
;   @symbol.<kind> the definition (with @name, the defined name, and @body when it has
;                  one: the signature is what comes before the body); a name captured
;                  as @symbol.import is no definition (`const fs = require("fs")`);
;   @wrapper       a node whose lines belong to its @wrapped definition (`export`,
;                  `declare`);
;   @prefix        a node that belongs to the definition right after it (the comment
;                  lines right above it, and a class member's decorators, which are
;                  its siblings in this grammar);
;   @scan          no definition, but may hold some (a namespace's body, `declare`).
; Kinds: function (a method inside a class), class, type (interface, enum, type
; alias), module (namespace), variable (a constant when its name is UPPER_CASE).
; Definitions inside a function are locals, dropped in code. Interface members are
; part of their interface, not symbols of their own.
;
; Patterns start at most two levels below the program, a class or namespace, or a
; @scan node (symbols.SCAN_DEPTH), so that function bodies are not searched: their
; statements start three levels down, which is also why the variable patterns find
; no locals.

(function_declaration name: (identifier) @name body: (_) @body) @symbol.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @symbol.function
; overloads and `declare function f(): void;`
(function_signature name: (identifier) @name) @symbol.function
(class_declaration name: (type_identifier) @name body: (_) @body) @symbol.class
(abstract_class_declaration name: (type_identifier) @name body: (_) @body) @symbol.class
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name
  body: (_) @body) @symbol.function
(abstract_method_signature
  name: [(property_identifier) (private_property_identifier)] @name) @symbol.function
; class fields holding a function: `onClick = () => {}`
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
    (generator_function body: (_) @body)
  ]) @symbol.function

(interface_declaration name: (type_identifier) @name body: (_) @body) @symbol.type
(enum_declaration name: (identifier) @name body: (_) @body) @symbol.type
(type_alias_declaration name: (type_identifier) @name) @symbol.type
(internal_module name: [(identifier) (nested_identifier)] @name body: (_) @body) @symbol.module

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
; any other value: `const MAX = 10`, `let count: number;`
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
(ambient_declaration (_) @wrapped) @wrapper

; A namespace's exports sit three levels below it; `export declare function` too.
(internal_module body: (_) @scan)
(ambient_declaration) @scan

(comment) @prefix
(decorator) @prefix
