; Import statements; those inside a @scope.definition (function, class) are dropped in code.
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
