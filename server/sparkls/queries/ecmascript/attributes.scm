; Attributes a class's methods assign: `this.x = ...`. Captures
; (sparkls.context.symbols):
;   @attribute  the statement, whose lines the attribute's definition spans;
;   @name       the attribute's name.
; The class an attribute belongs to is the innermost class around the statement.
; Fields a class body declares come from symbols.scm (a variable inside a class).
(expression_statement
  (assignment_expression
    left: (member_expression object: (this) property: (property_identifier) @name))) @attribute
