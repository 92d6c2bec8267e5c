; What binds a name in a function (nextedit/candidates.py): @bound, a name the function's
; own (a parameter or a local; one in a `type` field is none); @free, a name a Python
; function declares `global`/`nonlocal` (its assignments bind no local).
(parameter_declaration (identifier) @bound)
(variadic_parameter_declaration (identifier) @bound)
(short_var_declaration left: (expression_list (identifier) @bound))
(var_spec (identifier) @bound)
(const_spec (identifier) @bound)
(range_clause left: (expression_list (identifier) @bound))
(type_switch_statement alias: (expression_list (identifier) @bound))
