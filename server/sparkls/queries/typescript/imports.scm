; inherits: javascript
; Shared by the TypeScript and TSX grammars (see documents/languages.py): JavaScript's
; imports (ES `import`, CommonJS `require(...)`), plus TypeScript's own below.
; `import fs = require("fs")` is an import_statement; `import A = B.C` is an alias.
(import_alias) @import
