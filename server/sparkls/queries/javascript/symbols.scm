; inherits: ecmascript
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
; start three levels down, which is also why the variable patterns find no locals. (The
; body of a top-level wrapper function, a UMD bundle's, is a @scan node: ecmascript.)
(class_declaration name: (identifier) @name body: (_) @body) @symbol.class
; class fields holding a function: `onClick = () => {}`
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
    (generator_function body: (_) @body)
  ]) @symbol.function
; any other field: `count = 0;` (an attribute of its class)
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @symbol.variable
