; Containers whose first line is shown above a region inside them.
(class_declaration) @scope.container
(class) @scope.container
