; inherits: ecmascript
; Parameter properties: `constructor(private readonly name: string, public x?: number)`
; declares and assigns `name` and `x`: the parameter is the statement.
(method_definition
  name: (property_identifier) @_constructor
  parameters: (formal_parameters
    [
      (required_parameter (accessibility_modifier) pattern: (identifier) @name)
      (required_parameter "readonly" pattern: (identifier) @name)
      (optional_parameter (accessibility_modifier) pattern: (identifier) @name)
      (optional_parameter "readonly" pattern: (identifier) @name)
    ] @attribute)
  (#eq? @_constructor "constructor"))
