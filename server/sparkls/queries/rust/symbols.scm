; Definitions for the workspace symbol index and the context's definition snippets.
; Capture names (sparkls.context.symbols names no node types; these say it all):
;   @symbol.<kind> the definition (with @name, the defined name, and @body when it has
;                  one: the signature is what comes before the body);
;   @scope         a block that holds members but defines no name of its own (an impl
;                  block); its @name is its members' container;
;   @prefix        a node that belongs to the item right after it (outer attributes
;                  and `///` / `/** */` doc comments);
;   @scan          no definition, but may hold some (an `extern` block).
; Kinds: function (a method inside an impl or trait), type (struct, enum, union,
; trait, type alias), module, constant (const, static), macro (macro_rules!).
; Definitions inside a function are locals, dropped in code.
;
; Patterns start at most two levels below the file's root, an impl, trait or module,
; or a @scan node (symbols.SCAN_DEPTH), so that function bodies are not searched:
; their statements start three levels down (fn > block > statement).

(function_item name: (identifier) @name body: (_) @body) @symbol.function
(function_signature_item name: (identifier) @name) @symbol.function

(struct_item name: (type_identifier) @name) @symbol.type
(struct_item name: (type_identifier) @name body: (_) @body) @symbol.type
(enum_item name: (type_identifier) @name body: (_) @body) @symbol.type
(union_item name: (type_identifier) @name body: (_) @body) @symbol.type
(trait_item name: (type_identifier) @name body: (_) @body) @symbol.type
(type_item name: (type_identifier) @name) @symbol.type

(mod_item name: (identifier) @name) @symbol.module
(mod_item name: (identifier) @name body: (_) @body) @symbol.module

(const_item name: (identifier) @name) @symbol.constant
(static_item name: (identifier) @name) @symbol.constant

(macro_definition name: (identifier) @name) @symbol.macro

; `impl Greeter`, `impl<T> Display for Greeter<T>`, `impl a::Greeter`
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (scoped_type_identifier name: (type_identifier) @name)
  ]) @scope

(attribute_item) @prefix
(line_comment outer: (outer_doc_comment_marker)) @prefix
(block_comment outer: (outer_doc_comment_marker)) @prefix

; `extern "C" { ... }` holds its functions three levels below the file.
(foreign_mod_item) @scan
