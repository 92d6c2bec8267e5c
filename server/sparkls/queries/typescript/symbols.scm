; inherits: ecmascript
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
; Definitions inside a function are locals, dropped in code. Members of an interface,
; object type or enum are symbols with their type as container (variables there are
; attributes, methods methods).
;
; Patterns start at most two levels below the program, a class or namespace, or a
; @scan node (symbols.SCAN_DEPTH), so that function bodies are not searched: their
; statements start three levels down, which is also why the variable patterns find
; no locals.
; overloads and `declare function f(): void;`
(function_signature name: (identifier) @name) @symbol.function
(class_declaration name: (type_identifier) @name body: (_) @body) @symbol.class
(abstract_class_declaration name: (type_identifier) @name body: (_) @body) @symbol.class
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
; any other field: `count = 0;`, `private readonly name: string;` (an attribute of its class)
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @symbol.variable
(interface_declaration name: (type_identifier) @name body: (_) @body) @symbol.type
(enum_declaration name: (identifier) @name body: (_) @body) @symbol.type
(type_alias_declaration name: (type_identifier) @name) @symbol.type
(internal_module name: [(identifier) (nested_identifier)] @name body: (_) @body) @symbol.module
(ambient_declaration (_) @wrapped) @wrapper
; A namespace's exports sit three levels below it; `export declare function` too.
(internal_module body: (_) @scan)
(ambient_declaration) @scan
(decorator) @prefix
; Members of an interface or an object type (`name: string;`, `log(m: string): void;`)
; and of an enum (`Red`, `Green = 2`) are members of their type.
(property_signature name: (property_identifier) @name) @symbol.variable
(method_signature name: (property_identifier) @name) @symbol.function
(enum_body (property_identifier) @name @symbol.variable)
(enum_body (enum_assignment name: (property_identifier) @name) @symbol.variable)
; An interface's call and construct signatures (`<T>(config: Config): R;`, `new (): E;`)
; are members named `(` and `new`: what calling (`new`-ing) a value of that type runs.
(call_signature parameters: (formal_parameters "(" @name)) @symbol.function
(construct_signature "new" @name) @symbol.function
; The object types of a union's or an intersection's arms (`type Change = | { type:
; "added"; item: Item } | { type: "removed"; id: string }`, `Base & { extra: X }`) hold
; members of the alias: their nodes are scanned, however deep the arms nest.
(type_alias_declaration value: [(union_type) (intersection_type)] @scan)
; A wrapper's type argument holds them too: `type TableNodeFactory = Readonly<{ create(table:
; string): TableNode; is(node: OperationNode): node is TableNode }>` (members of the alias)
(type_alias_declaration value: (generic_type type_arguments: (type_arguments) @scan))
(type_arguments [(union_type) (intersection_type)] @scan)
(union_type [(union_type) (intersection_type)] @scan)
(intersection_type [(union_type) (intersection_type)] @scan)
