"""The workspace symbol index as the context engine reads it (`workspace.WorkspaceIndex`
implements it; tests give small fakes).

A lookup may also keep module files' imports across requests (a `module_imports`
attribute, a `resolve.ModuleImports`: the workspace index keeps one per session); one
without it has them parsed again per request (`scope.Scope`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sparkls.context.symbols import Symbol


class Lookup(Protocol):
    """Definitions in other files, and which files use a name: the workspace symbol index."""

    def definitions(self, name: str) -> list[tuple[str, Symbol]]:
        """(workspace-relative path, symbol) of every definition named `name`, up to
        some limit: variables last, then by path and line."""
        ...

    def members(self, path: str, container: str, name: str) -> list[Symbol]:
        """The definitions `name` inside `container` in the file `path` (a constructor,
        an interface's call signatures), in file order."""
        ...

    def file_lines(self, path: str) -> list[str] | None:
        """The lines of a workspace file, or None when it cannot be read."""
        ...

    def files_using(self, words: Sequence[str], *, limit: int = 200) -> list[str]:
        """The workspace-relative paths of the files that use any of `words`, sorted, at
        most `limit`: every file whose text as last read from disk holds one of them as
        an identifier (comments and strings included, open buffers' edits not), so
        the caller checks each file itself. [] while the index is not built or once it
        is closed. Reads the database: call it off the event loop."""
        ...
