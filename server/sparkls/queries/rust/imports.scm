; `use` declarations and `extern crate`. Only the crate root's own items are looked at
; (import_depth in documents/languages.py): a `use` inside a fn or mod is not one.
(use_declaration) @import
(extern_crate_declaration) @import
