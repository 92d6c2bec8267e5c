"""Follow-ups in other files: found without the model, asked of it when opened.

- `look(env, doc, edits)`, after a document's edits have settled (the next-edit
  debounce): when they renamed a definition or changed a signature that other files
  follow (`elsewhere.outward_changes`, read from this document's tree on the event
  loop), the files that may use it come from the workspace index (`files_using`:
  never a walk of the workspace) and from the open documents; each is read (a buffer
  as it is now, a file on disk through `Guard.read_file`: only one that may be sent),
  parsed and searched in a worker thread (`elsewhere.find_sites`), at most
  `MAX_FILES` of them; and so is the edited document itself (a snapshot), beyond the
  next-edit window (`candidates.WINDOW_LINES` around the newest edit), where the
  next-edit suggestions do not reach. What is found is kept for the document's
  version: a `FollowUps` ("update 7 call sites in 3 files"). No model call.
- `ask(env, follow_ups)`, when the user opens it (or ahead of time, by setting): one
  question to the fast tier per file, in parallel (at most `PARALLEL` at once), each
  showing the edited file's diffs and that file's sites as numbered regions; the
  answer rewrites the regions that need it (`prompt.read_answers`, then the rewrite
  tail's `read_region`; a new text that does not parse fails the whole). A region
  holding what looks like a secret is not shown. The answers make one `MultiFileEdit`
  (edits/workspace.py): each open document's edit carries its version, each file on
  disk its text as read, so that the LSP edge sends it whole or not at all.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pygls.uris import from_fs_path

from sparkls.context.region import MAX_REGION_CHARS
from sparkls.documents.document import Document
from sparkls.documents.languages import language_id_for
from sparkls.edits.reply import RegionView
from sparkls.edits.tail import read_region, rewrite
from sparkls.edits.workspace import FileChange, FileSource, MultiFileEdit, build_workspace_edit
from sparkls.errors import SparkError
from sparkls.nextedit.ask import in_long_lines
from sparkls.nextedit.candidates import WINDOW_LINES, in_code, word_pattern
from sparkls.nextedit.elsewhere import (
    Leads, Outward, far_sites, find_sites, leads_through, link_of, outward_changes, with_index,
)
from sparkls.nextedit.history import Edit
from sparkls.nextedit.prompt import ShownRegion, read_answers, render_follow_up_prompt
from sparkls.request.environment import RequestEnv

if TYPE_CHECKING:
    from sparkls.context.lookup import Lookup

logger = logging.getLogger(__name__)

MAX_FILES = 40  # files one action updates (more: it says so, and updates these)
MAX_SEARCHED = 400  # files that mention a name read and searched for one change
MAX_OWN_CHARS = 1 << 20  # a bigger edited file is not searched beyond the next-edit window
MAX_SITES = 60  # regions shown in one file's question
PARALLEL = 4  # questions in flight at once
MADE_BY = "the follow-up of the edit to"
ANNOTATION_PREFIX = "sparkls.followUps:"


@dataclass(frozen=True, slots=True)
class FileSites:
    """Another file that follows the change: its text as it was searched, and where."""

    uri: str
    path: str
    version: int | None  # an open document's version; None: read from disk
    text: str
    language_id: str
    sites: tuple[tuple[int, int, str], ...]  # (first line, last line, reason), 0-based
    uses: int = 0  # the changed names' words in them (two on touching lines are one site); 0: one a site


@dataclass(slots=True)
class FollowUps:
    """What a document's recent edits ask of other files, for its version `version`."""

    uri: str
    path: str
    version: int
    changes: tuple[Outward, ...]
    diffs: tuple[str, ...]
    files: tuple[FileSites, ...]
    more: bool = False  # more files follow than `files` holds (`MAX_FILES`): the action says so
    ahead: asyncio.Task[Answered] | None = field(default=None, repr=False)  # asked ahead of time

    @property
    def sites(self) -> int:
        return sum(len(f.sites) for f in self.files)

    @property
    def title(self) -> str:
        """"Spark: update 7 call sites in 3 files", "... 4 uses of area in 2 files": the
        changes named are those that found a place (an earlier edit's may find none)."""
        reasons = {reason for f in self.files for _, _, reason in f.sites}
        changes = [c for c in self.changes if c.reason in reasons] or list(self.changes)
        branches = all(c.added is not None for c in changes)
        n, files = sum(len(f.sites) if branches else f.uses or len(f.sites) for f in self.files), len(self.files)
        if branches and len(changes) == 1:
            what = f"branch{'es' if n != 1 else ''} on {changes[0].name}"
        elif all(c.new is None and c.added is None for c in changes):
            what = "call site" if n == 1 else "call sites"
        elif len(changes) == 1:
            what = f"use{'s' if n != 1 else ''} of {changes[0].name}"
        else:
            what = "place" if n == 1 else "places"
        more = " (more files follow: pick it again after)" if self.more else ""
        return f"Spark: update {n} {what} in {files} file{'s' if files != 1 else ''}{more}"


@dataclass(frozen=True, slots=True)
class Answered:
    """The fast tier's answers for a `FollowUps`: the edit, and what it cost."""

    edit: MultiFileEdit
    calls: int
    input_tokens: int
    output_tokens: int
    rewritten: int  # regions the model rewrote
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {
            "files": self.edit.summary(), "model_calls": self.calls, "regions_rewritten": self.rewritten,
            "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
            "seconds": round(self.seconds, 3),
        }


class FollowUpBook:
    """Each open document's follow-ups, for its current version (a per-document store)."""

    def __init__(self) -> None:
        self._by_uri: dict[str, FollowUps] = {}

    def get(self, uri: str, version: int) -> FollowUps | None:
        found = self._by_uri.get(uri)
        return found if found is not None and found.version == version else None

    def latest(self, uri: str) -> FollowUps | None:
        """The document's follow-ups of whichever version they were found for."""
        return self._by_uri.get(uri)

    def put(self, uri: str, follow_ups: FollowUps | None) -> None:
        self.forget(uri)
        if follow_ups is not None:
            self._by_uri[uri] = follow_ups

    def keep(
        self, uri: str, found: FollowUps | None, *, ahead: Callable[[FollowUps], asyncio.Task[Answered]] | None = None
    ) -> list[FileSites]:
        """Keep `found` for `uri`, asked ahead with `ahead` (the last answers asked
        ahead are taken over when the files are the same: never asked twice); the
        other open documents among its files that were not among the last ones (each
        to be asked for its own next edit)."""
        previous = self._by_uri.get(uri)
        if found is not None and ahead is not None:
            if previous is not None and previous.ahead is not None and previous.files == found.files:
                found.ahead, previous.ahead = previous.ahead, None
            else:
                found.ahead = ahead(found)
        self.put(uri, found)
        if found is None:
            return []
        asked = set(previous.files) if previous is not None else set()
        return [f for f in found.files if f.uri != found.uri and f.version is not None and f not in asked]

    def forget(self, uri: str) -> None:
        old = self._by_uri.pop(uri, None)
        if old is not None and old.ahead is not None:
            old.ahead.cancel()

    def held(self) -> int:
        return len(self._by_uri)


# -- finding them ----------------------------------------------------------------------


async def look(
    env: RequestEnv, doc: Document, edits: list[Edit], previous: FollowUps | None = None
) -> FollowUps | None:
    """The follow-ups of `edits` in `doc` now, or None: in other files, and in `doc`
    itself beyond the next-edit window (`WINDOW_LINES` around the newest edit), where
    next-edit suggestions do not reach. `previous`, the document's last ones: when the
    same changes are asked of the same other files, those are taken again without a
    search (typing elsewhere in the file); the document itself is searched again."""
    if in_long_lines(doc, edits):
        return None  # a minified line: its words are not read (nextedit/ask.py)
    changes = outward_changes(doc, edits)  # this document's tree: on the event loop
    if not changes:
        return None
    path, version = env.path(doc.uri), doc.version
    lines, text = doc.lines, doc.text
    diffs = tuple(e.diff(text, lines.line_of(e.start)) for e in edits)
    buffers = [s for s in env.store.snapshots() if s[0] != doc.uri]
    versions = {uri: v for uri, v, _, _ in buffers}
    own = Own(doc.uri, version, text, doc.language_id, lines.line_of(edits[-1].start), lines.line_of(edits[-1].end))
    again = (
        previous is not None and previous.uri == doc.uri and previous.changes == tuple(changes)
        and all(f.version is None or versions.get(f.uri) == f.version for f in previous.files if f.uri != doc.uri)
    )
    others = [f for f in previous.files if f.uri != doc.uri] if again and previous is not None else None
    files = await asyncio.to_thread(_search, env, path, changes, buffers, own, others)
    if not files:
        return None
    more = len(files) > MAX_FILES or (previous is not None and again and previous.more)
    return FollowUps(doc.uri, path, version, tuple(changes), diffs, tuple(files[:MAX_FILES]), more=more)


@dataclass(frozen=True, slots=True)
class Own:
    """The edited document as it is now, and the lines of its newest edit."""

    uri: str
    version: int
    text: str
    language_id: str
    first: int
    last: int


def _definitions(lookup: Lookup | None, name: str) -> list[tuple[str, str | None]]:
    """(path, container) of each definition of `name` the index knows; none when the
    index is not there (closed at shutdown, or unreadable: it is a cache)."""
    if lookup is None:
        return []
    try:
        return [(path, s.container) for path, s in lookup.definitions(name)]
    except (RuntimeError, sqlite3.Error):
        return []


def _leads(env: RequestEnv, rows: dict[str, list[tuple[str, str | None]]]) -> Leads:
    """Where a name another file imports leads, module files read through the guard."""
    def where(name: str) -> list[str]:
        if name not in rows:
            rows[name] = _definitions(env.lookup, name)
        return [p for p, container in rows[name] if container is None]

    return leads_through(env.guard.read_file, where)


def _uses(doc: Document, sites: Sequence[tuple[int, int, str]], names: Sequence[str]) -> int:
    """How many of `names` the site regions hold, as words in code."""
    lines, count = doc.lines, 0
    for first, last, _ in sites:
        start, end = lines.starts[first], lines.starts[last + 1] if last + 1 < lines.line_count else len(doc.text)
        count += sum(1 for n in names for m in word_pattern(n).finditer(doc.text, start, end) if in_code(doc, m.start()))
    return count


def _may_send(env: RequestEnv, uri: str) -> bool:
    """Whether an open document may be shown to the model at all."""
    try:
        env.guard.check_document(uri)
    except SparkError:
        return False
    return True


def _search(
    env: RequestEnv, source: str, changes: list[Outward], buffers: list[tuple[str, int, str, str]], own: Own,
    others: list[FileSites] | None,
) -> list[FileSites]:
    """The edited file's far sites and each other file's (a worker thread: reads the
    index and the disk, parses); `others`: the other files' sites, known already."""
    names = sorted({c.name for c in changes})
    lookup, root = env.lookup, env.root
    rows = {n: _definitions(lookup, n) for n in names}
    changes = with_index(changes, source, rows)
    found: list[FileSites] = []
    if len(own.text) <= MAX_OWN_CHARS:
        doc = Document(own.uri, own.text, own.version, own.language_id, env.encoding)
        far = far_sites(doc, changes, own.first, own.last, WINDOW_LINES)
        if far:
            found.append(FileSites(own.uri, source, own.version, own.text, own.language_id, tuple(far[:MAX_SITES]),
                                   _uses(doc, far[:MAX_SITES], names)))
    if others is not None:
        return found + others
    leads = _leads(env, rows)
    candidates: dict[str, tuple[str, int | None, str | None, str]] = {}  # path -> (uri, version, text, language)
    opened = {env.path(uri) for uri, _, _, _ in buffers}  # read from their buffers, never from the disk
    words = sorted({w for c in changes for w in c.words})
    for uri, version, text, language in buffers:
        if any(w in text for w in words) and _may_send(env, uri):
            candidates[env.path(uri)] = (uri, version, text, language)
    if lookup is not None and root is not None:
        for rel in lookup.files_using(words, limit=MAX_SEARCHED):
            if rel != source and rel not in opened:
                candidates[rel] = (from_fs_path(str(Path(root) / rel)) or rel, None, None, language_id_for(rel))
    for rel, (uri, version, text, language) in sorted(candidates.items()):
        if rel == source:
            continue
        if len(found) > MAX_FILES:
            break  # one more than shown: the action says there are more
        if text is None:
            text = env.guard.read_file(rel)
            if text is None:
                continue
        other = Document(uri, text, version or 0, language, env.encoding)
        defines = [n for n in names if any(path == rel for path, _ in rows[n])]
        sites = find_sites(other, changes, link_of(other, rel, source, names, defines, leads))
        if sites:
            found.append(FileSites(uri, rel, version, text, language, tuple(sites[:MAX_SITES]),
                                   _uses(other, sites[:MAX_SITES], names)))
    return found


# -- asking for them -------------------------------------------------------------------


def _shown(file: FileSites, doc: Document, holds_secret: Callable[[str], bool]) -> list[tuple[ShownRegion, RegionView]]:
    """The file's sites as regions to show, less those that hold a secret."""
    lines, text = doc.lines, doc.text
    shown = []
    for first, last, reason in file.sites:
        start = lines.starts[first]
        end = lines.starts[last + 1] if last + 1 < lines.line_count else len(text)
        if end - start > MAX_REGION_CHARS:
            continue  # a minified line: not read, not shown
        region = text[start:end]
        if holds_secret(region):
            continue
        before = lines.line_text(first - 1).rstrip("\r\n") if first > 0 else ""
        after = lines.line_text(last + 1).rstrip("\r\n") if last + 1 < lines.line_count else ""
        view = RegionView(text, start, end, doc.language_id, (before,) if before else (), (after,) if after else ())
        shown.append((ShownRegion(first, region, before, after, reason), view))
    return shown


@dataclass(frozen=True, slots=True)
class _FileAnswer:
    change: FileChange | None  # None: nothing to change
    asked: bool  # a question went to the model
    usage: dict[str, object]
    rewritten: int


async def _ask_file(env: RequestEnv, follow_ups: FollowUps, file: FileSites, gate: asyncio.Semaphore) -> _FileAnswer:
    """One file's question, and its new text."""
    doc = Document(file.uri, file.text, file.version or 0, file.language_id, env.encoding)
    shown = _shown(file, doc, env.guard.holds_secret)
    if not shown:
        return _FileAnswer(None, False, {}, 0)
    uri = file.uri if file.version is not None else None  # a file read from disk is confined by its path
    draft = render_follow_up_prompt(
        follow_ups.path, list(follow_ups.diffs), follow_ups.uri, file.path, uri, file.language_id, [r for r, _ in shown]
    )
    wire = await env.seal(draft)
    async with gate:
        reply = await env.fast.complete(wire)
    pieces, at, rewritten = [], 0, 0
    answers = dict(read_answers(reply.text, len(shown)))
    for index, (_, view) in enumerate(shown):
        if index not in answers:
            continue
        new_region = read_region(answers[index], view, file.path)
        if new_region == view.old:
            continue
        rewrite(doc, view.start, view.old, new_region, kind="lines")  # raises when it does not parse
        pieces += [file.text[at : view.start], new_region]
        at, rewritten = view.end, rewritten + 1
    if not rewritten:
        return _FileAnswer(None, True, reply.usage, 0)
    pieces.append(file.text[at:])
    return _FileAnswer(FileChange(file.path, file.text, "".join(pieces), ()), True, reply.usage, rewritten)


def _tokens(answers: Sequence[_FileAnswer], key: str) -> int:
    return sum(int(a.usage.get(key, 0) or 0) for a in answers)  # type: ignore[call-overload]


async def ask(env: RequestEnv, follow_ups: FollowUps, *, parallel: int = PARALLEL) -> Answered:
    """The fast tier's rewrite of every file's sites, as one edit (all files or none:
    one failed question fails the whole)."""
    started = time.perf_counter()
    gate = asyncio.Semaphore(parallel)
    asking = [asyncio.ensure_future(_ask_file(env, follow_ups, f, gate)) for f in follow_ups.files]
    try:
        answers = await asyncio.gather(*asking)
    except BaseException:  # one failed (or the user cancelled): the others are not waited for
        for question in asking:
            question.cancel()
        raise
    changes = [a.change for a in answers if a.change is not None]
    sources = {f.path: FileSource(f.uri, f.version) for f in follow_ups.files}
    edit = build_workspace_edit(
        changes, sources, encoding=env.encoding, made_by=f"{MADE_BY} {follow_ups.path}", prefix=ANNOTATION_PREFIX
    )
    return Answered(
        edit, calls=sum(a.asked for a in answers), input_tokens=_tokens(answers, "input_tokens"),
        output_tokens=_tokens(answers, "output_tokens"), rewritten=sum(a.rewritten for a in answers),
        seconds=time.perf_counter() - started,
    )
