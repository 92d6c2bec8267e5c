; What binds a name in a function (nextedit/candidates.py): @bound, a name the function's
; own (a parameter or a local; one in a `type` field is none); @free, a name a Python
; function declares `global`/`nonlocal` (its assignments bind no local).
(parameter pattern: (identifier) @bound)
(closure_parameters (identifier) @bound)
(let_declaration pattern: (identifier) @bound)
(tuple_pattern (identifier) @bound)
(mut_pattern (identifier) @bound)
(tuple_struct_pattern (identifier) @bound)
(field_pattern (shorthand_field_identifier) @bound)
(field_pattern pattern: (identifier) @bound)
(for_expression pattern: (identifier) @bound)
(let_condition pattern: (identifier) @bound)
(match_pattern (identifier) @bound)
(function_item name: (identifier) @bound)
