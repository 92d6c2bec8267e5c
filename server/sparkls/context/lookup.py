"""The workspace symbol index as the context engine reads it (`workspace.WorkspaceIndex`
implements it; tests give small fakes)."""

from __future__ import annotations

from typing import Protocol

from sparkls.context.symbols import Symbol

class Lookup(Protocol):
    """Definitions in other files: the workspace symbol index."""

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
