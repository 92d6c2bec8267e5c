; Definitions for the workspace symbol index and the context's definition snippets.
; Capture names (sparkls.context.symbols names no node types; these say it all):
;   @symbol.<kind> the definition (with @name, the defined name, @body when it has
;                  one: the signature is what comes before the body, and @docstring);
;   @wrapper       a node whose lines belong to its @wrapped definition (decorators);
;   @scan          no definition, but may hold some (a module-level `if` or `try`).
; Kinds: function (a method inside a class), class, variable (a constant when its name
; is UPPER_CASE). Definitions inside a function are locals, dropped in code.
;
; Patterns start at most two levels below the file's root, a class, or a @scan node
; (symbols.SCAN_DEPTH), so that function bodies are not searched: a definition sitting
; deeper is matched from its parent (a decorated method from its decorated_definition).
; That is also why a plain assignment pattern finds module and class variables but no
; locals: those start three levels below (def > block > statement).
; A docstring is the body's first statement when that is a string alone.
(function_definition
  name: (identifier) @name
  body: (block . (expression_statement . (string) @docstring .)?) @body) @symbol.function
(decorated_definition
  definition: (function_definition
    name: (identifier) @name
    body: (block . (expression_statement . (string) @docstring .)?) @body) @symbol.function @wrapped) @wrapper

(class_definition
  name: (identifier) @name
  body: (block . (expression_statement . (string) @docstring .)?) @body) @symbol.class
(decorated_definition
  definition: (class_definition
    name: (identifier) @name
    body: (block . (expression_statement . (string) @docstring .)?) @body) @symbol.class @wrapped) @wrapper

; `X = 1`, `X: int = 1`, `X = Y = 1` (X only); not `a, b = ...` or `obj.attr = ...`.
(expression_statement (assignment left: (identifier) @name)) @symbol.variable

; `if TYPE_CHECKING:`, `try: ... except ImportError:`, `with ...:` and their clauses.
(if_statement) @scan
(elif_clause) @scan
(else_clause) @scan
(try_statement) @scan
(except_clause) @scan
(finally_clause) @scan
(with_statement) @scan
