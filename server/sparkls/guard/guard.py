"""THE guard: the one place where what a feature wants to send becomes wire text.

`Guard.seal(draft)` walks a `Draft` (guard/parts.py) and, for every part that did
not come from sparkls itself:

- **a file** (`FromFile`): refuses it when it may never be sent (exclusions.py:
  .git, the secret-file names, `context.exclude`, .gitignore), checked by the name
  the editor or the model sees and by the real file a link leads to; a file read
  from disk must also lie inside a workspace folder by its real path (confine.py);
  its text is redacted (secrets/); and a part the model is to rewrite that holds
  a secret refuses the request (the marker would be written into the user's code);
- **the user, the editor, a model** (`FromUser`, `FromEditor`, `FromModel`,
  `Earlier`): redacted.

A refused part refuses the request (`EditError`, naming the file and why), unless
its section is optional: then that section is left out. What comes out is a `Wire`,
the only type the model clients send (wire.py). Nothing else in sparkls imports
the redaction, the exclusions' verdicts or the seal; a test holds it.

The seal runs in two steps: the verdicts on files (the guard's own state, its cache
of `realpath`s) and then the redaction, a pure function of the admitted parts. On the
event loop, `seal_async` takes the first step there and the second there too for a
draft of up to `INLINE_SEAL_CHARS` characters to check (a few milliseconds at most),
else in a worker thread: a big draft (a task's files, a long region) never holds up
the other requests. `seal` does both at once, for code that is not on the loop.

`display_path` (how a file is named to the model) lives here too, so that the path
shown and the path checked are one computation. A session keeps one guard
(`SparkServer.environment`), and the guard keeps its verdicts on files (a `realpath`
each) until the path filter is rebuilt, the folders change or the editor reports
files changed on disk (`forget`).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from pygls.uris import to_fs_path

from sparkls.errors import EditError
from sparkls.guard.confine import Confinement
from sparkls.guard.exclusions import PathFilter
from sparkls.guard.parts import Draft, Fixed, FromFile, Part, Section
from sparkls.guard.secrets import redact
from sparkls.guard.wire import _SEAL, Wire

logger = logging.getLogger(__name__)


MAX_VERDICTS = 4096  # files decided and remembered by one guard (a session's, mostly)
# Characters to check (every part but sparkls's own) up to which `seal_async` redacts on
# the event loop: at the 50 ms a MB redaction may take, 3 ms; past it, a worker thread
# (whose hop costs about 0.1 ms) takes the redaction.
INLINE_SEAL_CHARS = 64 * 1024
_UNDECIDED = object()


class NotSendable(EditError):
    """A part the guard refused; the message names the file and why."""


class Guard:
    """Exclusions, confinement and redaction for a session's requests (its verdicts on
    files are kept: see the module doc)."""

    __slots__ = ("root", "path_filter", "folders", "_confinement", "_checked")

    def __init__(self, root: Path | None, path_filter: PathFilter | None = None, folders: Sequence[str] | None = None) -> None:
        self.root = root
        self.path_filter = path_filter if path_filter is not None else PathFilter()
        self.folders = list(folders) if folders is not None else ([str(root)] if root is not None else [])
        self._confinement: Confinement | None = None
        self._checked: dict[tuple[str, str | None, bool | None], str | None] = {}

    # -- what may be sent -------------------------------------------------------------

    def forget(self) -> None:
        """Decide every file anew (files changed on disk: a link may lead elsewhere now)."""
        self._checked.clear()
        self._confinement = None

    def display_path(self, uri: str) -> str:
        return display_path(uri, self.root)

    def check_document(self, uri: str) -> None:
        """Refuse an open document that may never be sent (`NotSendable`)."""
        reason = self._refusal(self.display_path(uri), uri, False)
        if reason is not None:
            raise NotSendable(reason)

    def read_file(self, path: str) -> str | None:
        """The text of the workspace file `path` (workspace-relative; UTF-8, line breaks
        kept) when it may be sent (not excluded, inside a workspace folder by its real
        path) and can be read; else None. What a feature shows of a file it finds
        itself: it goes back to `seal` as a `FromFile` without a `uri`, checked again."""
        if self.root is None or self._refusal(path, None, True) is not None:
            return None
        if self._confinement is None:
            self._confinement = Confinement(self.folders)
        return self._confinement.read_text(self.root / path)

    @staticmethod
    def holds_secret(text: str) -> bool:
        """Whether `text` holds what looks like a secret (it could not be rewritten)."""
        return redact(text)[1] > 0

    # -- the seal ---------------------------------------------------------------------

    def seal(self, draft: Draft) -> Wire:
        """The wire text of `draft`, every part checked (see the module doc)."""
        return _sealed(self._admitted(draft))

    async def seal_async(self, draft: Draft) -> Wire:
        """`seal`, for the event loop: the files decided here, the redaction here for a
        small draft and in a worker thread for a big one (module doc)."""
        admitted = self._admitted(draft)
        if weight(admitted) <= INLINE_SEAL_CHARS:
            return _sealed(admitted)
        return await asyncio.to_thread(_sealed, admitted)

    def _admitted(self, draft: Draft) -> Draft:
        """`draft` less its optional sections that show a file that may not be sent;
        `NotSendable` for a required one."""
        sections = []
        for section in draft.sections:
            reason = next(filter(None, (self._part_refusal(part) for part in section.parts)), None)
            if reason is None:
                sections.append(section)
            elif section.optional:
                logger.info("left out of a prompt: %s", reason)
            else:
                raise NotSendable(reason)
        return Draft(draft.instructions, tuple(sections), draft.history, draft.tools, draft.answered)

    def _part_refusal(self, part: Part) -> str | None:
        return self._refusal(part.path, part.uri, part.confined) if isinstance(part, FromFile) else None

    def _refusal(self, path: str, uri: str | None, confined: bool | None) -> str | None:
        # `read_file` is called from worker threads too: the verdict is returned as
        # computed, whoever clears the cache meanwhile.
        key = (path, uri, confined)
        verdict = self._checked.get(key, _UNDECIDED)
        if verdict is _UNDECIDED:
            if len(self._checked) >= MAX_VERDICTS:
                self._checked.clear()
            verdict = self._checked[key] = self._file_refusal(path, uri, uri is None if confined is None else confined)
        return verdict  # type: ignore[return-value]

    def _file_refusal(self, path: str, uri: str | None, confined: bool) -> str | None:
        """By the file's own name and by the file a link leads to (`notes.txt ->
        ~/.aws/credentials`); when `confined`, inside a workspace folder by its real
        path too. A buffer that is not a file (`untitled:`) has no name to check, and
        cannot be confined."""
        if uri is not None:
            fs_path = to_fs_path(uri)
            if fs_path is None:
                return f"{uri} is not a file on disk; not sent." if confined else None
            location = Path(fs_path)
        else:
            location = Path(path) if os.path.isabs(path) or self.root is None else self.root / path
        if confined:
            if self._confinement is None:
                self._confinement = Confinement(self.folders)
            refusal = self._confinement.refusal(location, shown=path)
            if refusal is not None:
                return refusal
        return self._excluded(location)

    def _excluded(self, path: Path) -> str | None:
        root = self.root
        real_root = Path(os.path.realpath(root)) if root is not None else None
        for name in dict.fromkeys((_relative(path, root), _relative(Path(os.path.realpath(path)), real_root))):
            reason = self.path_filter.reason(name)
            if reason is not None:
                return f"sparkls does not send {_relative(path, root)} ({reason}); nothing was sent."
        return None


def weight(draft: Draft) -> int:
    """The characters of `draft` the seal redacts: every part but sparkls's own."""
    parts = sum(len(part.text) for section in draft.sections for part in section.parts if not isinstance(part, Fixed))
    return len(draft.instructions) + parts + sum(len(turn.text) for turn in draft.history)


def _sealed(draft: Draft) -> Wire:
    """The wire text of an admitted draft: every part redacted; a part to be rewritten
    that holds a secret refuses its section. Pure: run in a worker thread for a big draft."""
    sections = []
    for section in draft.sections:
        try:
            sections.append("".join(_part(part) for part in section.parts))
        except NotSendable as exc:
            if not section.optional:
                raise
            logger.info("left out of a prompt: %s", exc)
    history = tuple((turn.role, redact(turn.text)[0]) for turn in draft.history)
    # The instructions are sparkls's own fixed text; redacted all the same, so that
    # no text can reach the wire through a field the guard does not read.
    return Wire(
        redact(draft.instructions)[0], "\n\n".join(sections), history, seal=_SEAL, tools=draft.tools,
        outputs=tuple(replace(o, output=redact(o.output)[0]) for o in draft.answered),
    )


def _part(part: Part) -> str:
    if isinstance(part, Fixed):
        return part.text
    if isinstance(part, FromFile):
        text, found = redact(part.text)
        if found and part.rewrite:
            raise NotSendable(_secret_refusal(part))
        return _marked(text, part) if part.marks else text
    return redact(part.text)[0]


def fixed_wire(instructions: str, text: str = "") -> Wire:
    """A request of sparkls's own words only (a warm-up, the doctor's probe)."""
    return Guard(None).seal(Draft(instructions, (Section((Fixed(text),)),) if text else ()))


def display_path(uri: str, root: Path | None) -> str:
    """Workspace-relative path of `uri` when it is inside `root`, else the path or URI."""
    fs_path = to_fs_path(uri)
    if fs_path is None:
        return uri
    path = Path(fs_path)
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def _relative(path: Path, root: Path | None) -> str:
    try:
        return path.relative_to(root).as_posix() if root is not None else path.name
    except ValueError:
        return path.name  # outside the workspace: the built-in list still applies


def _marked(text: str, part: FromFile) -> str:
    """`text` with the part's markers in (a part to be rewritten: its text is unchanged)."""
    if not part.rewrite:
        raise ValueError("markers go only in a part to be rewritten")
    for offset, mark in sorted(part.marks, reverse=True):
        text = text[:offset] + mark + text[offset:]
    return text


def _secret_refusal(part: FromFile) -> str:
    where = f"Lines {part.lines[0] + 1}-{part.lines[1] + 1} of {part.path}" if part.lines else part.path
    return (
        f"{where} hold what looks like a secret (a key, token or password); sparkls does not send secrets, "
        "so nothing was sent. Move the secret to an environment variable, then try again."
    )
