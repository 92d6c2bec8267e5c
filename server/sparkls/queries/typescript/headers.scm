; Shared by the TypeScript and TSX grammars (see documents/languages.py).
; Containers whose first line is shown above a region inside them.
(class_declaration) @scope.container
(abstract_class_declaration) @scope.container
(class) @scope.container
(interface_declaration) @scope.container
(enum_declaration) @scope.container
(internal_module) @scope.container
(module) @scope.container
