; Import declarations (Go has them at the top level only).
(import_declaration) @import
