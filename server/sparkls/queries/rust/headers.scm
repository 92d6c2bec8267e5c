; Containers whose first line is shown above a region inside them.
(impl_item) @scope.container
(trait_item) @scope.container
(mod_item) @scope.container
(struct_item) @scope.container
(enum_item) @scope.container
(union_item) @scope.container
