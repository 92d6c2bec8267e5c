; Definitions for the workspace symbol index and the context's definition snippets.
; Capture names (sparkls.context.symbols names no node types; these say it all):
;   @symbol.<kind> the definition (with @name, the defined name, @body when it has
;                  one: the signature is what comes before the body, and @receiver,
;                  the type a method belongs to);
;   @wrapper       a node whose lines belong to its @wrapped definition (a `type`,
;                  `const` or `var` declaration of a single spec);
;   @prefix        a node that belongs to the definition right after it (the comment
;                  lines right above it: Go's doc comments);
;   @scan          no definition, but may hold some (a grouped `var ( ... )`).
; Kinds: function, method (its receiver's type is its container), type (struct,
; interface, any other type or alias), constant, variable. Definitions inside a
; function are locals, dropped in code.
;
; Patterns start at most two levels below the file's root or a @scan node
; (symbols.SCAN_DEPTH), so that function bodies are not searched: their statements
; start four levels down (func > block > statement_list > statement).

(function_declaration name: (identifier) @name body: (_) @body) @symbol.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name
  body: (_) @body) @symbol.method

(type_spec name: (type_identifier) @name) @symbol.type
(type_spec name: (type_identifier) @name type: [(struct_type) (interface_type)] @body) @symbol.type
(type_alias name: (type_identifier) @name) @symbol.type

; `const A, B = 1, 2` names two constants; with the `name:` field the query gives the
; first name only (tree-sitter 0.26.1). The values are inside an expression_list, so
; the spec's own identifiers are its names.
(const_spec (identifier) @name) @symbol.constant
(var_spec (identifier) @name) @symbol.variable

(type_declaration . [(type_spec) (type_alias)] @wrapped .) @wrapper
(const_declaration . (const_spec) @wrapped .) @wrapper
(var_declaration . (var_spec) @wrapped .) @wrapper

(comment) @prefix

; A grouped `var ( ... )` holds its specs one level deeper than `const ( ... )`.
(var_spec_list) @scan

; A struct's fields (`Name string`, `Addr, Host string`: one per name) and an
; interface's methods are members of their type. The field list sits three levels
; below the type declaration, so the pattern names it. (Attributes outright: those of a
; table's anonymous struct, below, sit in a variable, not a type.)
(field_declaration_list (field_declaration (field_identifier) @name) @symbol.attribute)
(method_elem name: (field_identifier) @name) @symbol.function

; A table of anonymous structs (`var tests = []struct{ in, want string }{...}`, a test's
; cases): the variable holds the struct's fields as members (`tt.want` is tests' `want`);
; its signature is the struct, its body the cases.
(var_spec
  name: (identifier) @name
  value: (expression_list
    (composite_literal type: (slice_type element: (struct_type)) body: (_) @body))) @symbol.object
(composite_literal type: (slice_type element: (struct_type (field_declaration_list) @scan)))
