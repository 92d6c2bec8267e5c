; Attributes a class's methods assign: `self.x = ...`, `self.x: int = ...`,
; `self.a, self.b = ...`, `(self.a, self.b) = ...`, `self.n += 1` (also through `cls`). Captures (sparkls.context.symbols):
;   @attribute  the statement, whose lines the attribute's definition spans;
;   @name       the attribute's name.
; The class an attribute belongs to is the innermost class around the statement.
; Attributes a class body assigns (`x: int = 0`) come from symbols.scm (a variable
; inside a class).
(expression_statement
  (assignment
    left: (attribute object: (identifier) @_self attribute: (identifier) @name)
    (#any-of? @_self "self" "cls"))) @attribute
(expression_statement
  (assignment
    left: (pattern_list (attribute object: (identifier) @_self attribute: (identifier) @name))
    (#any-of? @_self "self" "cls"))) @attribute
; `(self.a, self.b) = state`, `[self.a, self.b] = ...`
(expression_statement
  (assignment
    left: (tuple_pattern (attribute object: (identifier) @_self attribute: (identifier) @name))
    (#any-of? @_self "self" "cls"))) @attribute
(expression_statement
  (assignment
    left: (list_pattern (attribute object: (identifier) @_self attribute: (identifier) @name))
    (#any-of? @_self "self" "cls"))) @attribute
(expression_statement
  (augmented_assignment
    left: (attribute object: (identifier) @_self attribute: (identifier) @name)
    (#any-of? @_self "self" "cls"))) @attribute
