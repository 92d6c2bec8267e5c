; Containers whose first line is shown above a region inside them.
(class_definition) @scope.container
