; What binds a name in a function (nextedit/candidates.py): @bound, a name the function's
; own (a parameter or a local; one in a `type` field is none); @free, a name a Python
; function declares `global`/`nonlocal` (its assignments bind no local).
(variable_declarator name: (identifier) @bound)
(object_pattern (shorthand_property_identifier_pattern) @bound)
(pair_pattern value: (identifier) @bound)
(array_pattern (identifier) @bound)
(rest_pattern (identifier) @bound)
(assignment_pattern left: (identifier) @bound)
(for_in_statement kind: _ left: (identifier) @bound)
(catch_clause parameter: (identifier) @bound)
(arrow_function parameter: (identifier) @bound)
(function_declaration name: (identifier) @bound)
