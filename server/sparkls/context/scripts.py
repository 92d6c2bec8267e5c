"""JavaScript and TypeScript script paths as module resolution sees them: a path's stem
(`lib/Apply.d.ts` and `lib/Apply.js` are both `lib/Apply`), whether it is a declaration
file, and where it comes in TypeScript's order of extensions for one spec (a `.ts`, then
a declaration, before the JavaScript beside it). Pure: paths in, answers out."""

from __future__ import annotations

import posixpath
import re

# What a module spec may be on disk, past its stem (JS/TS specs drop the extension), in the
# order TypeScript resolves them: a declaration file before the JavaScript beside it.
SCRIPT_EXTENSIONS = ("", ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_DECLARATION = re.compile(r"\.d\.[mc]?ts$")


def script_stem(path: str) -> str:
    """A script's path without its extension: `lib/Apply.d.ts` and `lib/Apply.js` -> `lib/Apply`."""
    return _DECLARATION.sub("", path) if _DECLARATION.search(path) else posixpath.splitext(path)[0]


def is_declaration_file(path: str) -> bool:
    """Whether `path` is a TypeScript declaration file (`.d.ts`, `.d.mts`, `.d.cts`)."""
    return _DECLARATION.search(path) is not None


def resolution_order(path: str) -> int:
    """Where a module file of a spec comes in TypeScript's resolution (`SCRIPT_EXTENSIONS`)."""
    declared = _DECLARATION.search(path)
    extension = declared.group(0) if declared else posixpath.splitext(path)[1]
    return SCRIPT_EXTENSIONS.index(extension) if extension in SCRIPT_EXTENSIONS else len(SCRIPT_EXTENSIONS)
