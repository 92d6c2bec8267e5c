; What can be an edit's target region; the smallest one around the range wins.
; @scope.definition: functions, impl blocks, structs, enums, unions, traits, modules,
;   type aliases and macro_rules.
; @scope.prefix: nodes that belong to the item right after them: outer attributes and
;   `///` doc comments (which are `#[doc]` attributes), siblings of the item here.
(function_item) @scope.definition
(function_signature_item) @scope.definition
(impl_item) @scope.definition
(struct_item) @scope.definition
(enum_item) @scope.definition
(union_item) @scope.definition
(trait_item) @scope.definition
(mod_item) @scope.definition
(type_item) @scope.definition
(macro_definition) @scope.definition

(attribute_item) @scope.prefix
(line_comment outer: (outer_doc_comment_marker)) @scope.prefix
(block_comment outer: (outer_doc_comment_marker)) @scope.prefix
