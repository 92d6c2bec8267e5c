"""What a request to a model is made of, before the guard has seen it: typed parts.

A feature never writes wire text. It writes a `Draft`: fixed instructions, then
sections (joined by a blank line on the wire), each a run of parts that say where
their text came from:

- `Fixed`: sparkls's own words (headings, fences, markers, fixed instructions);
- `FromFile`: text of a file or an open document, with its path (and the editor's
  URI when it is an open buffer), its lines, and whether the model is to rewrite it;
- `FromUser`: the user's words (an instruction, a comment instruction);
- `FromEditor`: what the editor reported (diagnostics);
- `FromModel`: a model's earlier answer, sent back in a conversation;
- `Earlier`: an earlier turn of the conversation (a user turn the guard sealed
  before, or the model's answer).

Only `guard.Guard.seal` turns a draft into the `Wire` the transport sends; this module
has no policy in it, only the shapes, and `fenced`/`lines_of` helpers that keep
the framing (fence length, tags) in one place. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from sparkls.guard.wire import ToolOutput


@dataclass(frozen=True, slots=True)
class Fixed:
    """sparkls's own text: never redacted, never refused."""

    text: str


@dataclass(frozen=True, slots=True)
class FromFile:
    """Text from a file. `path` is as the model sees it (workspace-relative, or
    absolute outside); `uri` is the editor's URI when the text is an open buffer
    (checked against the exclusions by its name and its real target), else the text
    was read from disk at `path` (which must also lie inside the workspace).
    `rewrite`: the model is asked to rewrite this text, so a secret in it refuses the
    request (redacting it would write the marker into the user's code)."""

    text: str
    path: str
    uri: str | None = None
    lines: tuple[int, int] | None = None  # 0-based first and last line, for messages
    rewrite: bool = False
    # sparkls's own markers to insert at offsets of `text` (the cursor), after the
    # guard has checked the whole text; only in a part to be rewritten, which the
    # guard sends unchanged or not at all.
    marks: tuple[tuple[int, str], ...] = ()
    # Must lie inside a workspace folder by its real path: always for a file read from
    # disk (no `uri`); for an editor's buffer, where the feature reads files of the
    # workspace only (a task's files). None: as the `uri` says.
    confined: bool | None = None


@dataclass(frozen=True, slots=True)
class FromUser:
    """The user's own words: an instruction typed or written in a comment."""

    text: str


@dataclass(frozen=True, slots=True)
class FromEditor:
    """What the editor reported: a diagnostic's message, say."""

    text: str


@dataclass(frozen=True, slots=True)
class FromModel:
    """A model's earlier answer, shown to it again."""

    text: str


Part = Fixed | FromFile | FromUser | FromEditor | FromModel


@dataclass(frozen=True, slots=True)
class Section:
    """Parts shown together. An `optional` section is left out whole when one of its
    files may not be sent (a definition from a file excluded since it was indexed);
    a required one refuses the request."""

    parts: tuple[Part, ...]
    optional: bool = False

    @classmethod
    def of(cls, *parts: Part | str, optional: bool = False) -> Section:
        """A section from parts, plain strings being sparkls's own words."""
        return cls(tuple(Fixed(p) if isinstance(p, str) else p for p in parts), optional)


@dataclass(frozen=True, slots=True)
class Earlier:
    """An earlier turn of the conversation: a user turn's text as it was sent (the
    guard's own output), or the model's answer."""

    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True, slots=True)
class Draft:
    """A request before the guard: fixed instructions, sections, earlier turns; the
    tools it offers (`wire.PATCH_TOOL`) and the answers to an earlier response's tool
    calls it sends first (sparkls's own words)."""

    instructions: str
    sections: tuple[Section, ...]
    history: tuple[Earlier, ...] = ()
    tools: tuple[str, ...] = ()
    answered: tuple[ToolOutput, ...] = ()

    def then(self, *sections: Section) -> Draft:
        """This draft with more sections at the end (a retry's note, say)."""
        return Draft(self.instructions, (*self.sections, *sections), self.history, self.tools, self.answered)


def fenced(body: Iterable[Part | str], tag: str) -> tuple[Part, ...]:
    """`body` in a code fence longer than any fence inside it, tagged `tag`."""
    parts = tuple(Fixed(p) if isinstance(p, str) else p for p in body)
    fence = "```"
    while fence in "".join(p.text for p in parts):
        fence += "`"
    return (Fixed(f"{fence}{tag}\n"), *parts, Fixed(f"\n{fence}"))


def joined(items: Iterable[Part | str], separator: str = "\n") -> tuple[Part, ...]:
    """Parts with `separator` between them (strings are sparkls's own words)."""
    out: list[Part] = []
    for item in items:
        if out:
            out.append(Fixed(separator))
        out.append(Fixed(item) if isinstance(item, str) else item)
    return tuple(out)
