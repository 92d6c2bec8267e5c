; inherits: ecmascript
; Shared by the TypeScript and TSX grammars (see documents/languages.py).
(required_parameter pattern: (identifier) @bound)
(optional_parameter pattern: (identifier) @bound)
