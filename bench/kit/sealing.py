"""Wire text for tests: the guard's seal over a test's own words or a feature's draft.

The model clients take only the guard's output (`sparkls.guard.Wire`); a test that
talks to a transport directly makes its request here, through the same guard.
"""

from __future__ import annotations

from pathlib import Path

from sparkls.guard import Draft, Earlier, Guard, Section, Wire

EVERYWHERE = Path("/")  # a workspace that holds every path: only exclusions and redaction apply


def wire(instructions: str, text: str = "", history: tuple[tuple[str, str], ...] = ()) -> Wire:
    """A request of the test's own words (sent as they are)."""
    turns = tuple(Earlier("user" if role == "user" else "assistant", said) for role, said in history)
    return Guard(None).seal(Draft(instructions, (Section.of(text),) if text else (), turns))


def seal(draft: Draft, root: Path = EVERYWHERE) -> Wire:
    """`draft` as the guard of a workspace at `root` sends it."""
    return Guard(root).seal(draft)


def environment(store, fast, settings=None, *, root: Path | None = None, deep=None, lookup=None):  # type: ignore[no-untyped-def]
    """A request environment over `store` and the (stub) tier sessions, as the server builds one."""
    from sparkls.config import Settings
    from sparkls.guard.exclusions import PathFilter
    from sparkls.request.environment import RequestEnv

    folders = (str(root),) if root is not None else ()
    return RequestEnv(
        store=store, settings=settings or Settings(), guard=Guard(root, PathFilter(), folders), fast=fast, deep=deep,
        lookup=lookup, folders=folders,
    )
