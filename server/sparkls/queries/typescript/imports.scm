; Shared by the TypeScript and TSX grammars (see documents/languages.py).
; ES imports and CommonJS `require(...)` declarations. Only the program's own
; statements are looked at (import_depth in documents/languages.py), so a `require`
; inside a function is not an import of the file.
(import_statement) @import

(lexical_declaration
  (variable_declarator
    value: (call_expression
      function: (identifier) @_require
      (#eq? @_require "require")))) @import
(variable_declaration
  (variable_declarator
    value: (call_expression
      function: (identifier) @_require
      (#eq? @_require "require")))) @import
; `require("./side-effect");`
(expression_statement
  (call_expression
    function: (identifier) @_require
    (#eq? @_require "require"))) @import
; `import fs = require("fs")` is an import_statement; `import A = B.C` is an alias.
(import_alias) @import
