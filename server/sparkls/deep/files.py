"""The files a deep-tier task shows: the named ones, then the relevant ones.

Named files (`uris`) come first, each refused with a warning (not sent) when it is
outside the workspace folders by its real path (guard/confine.py: a symlink out, a
`..`, another URI scheme are refused before anything is read), may never be sent (the PathFilter: .gitignore,
`context.exclude`, secret files), weighs more than `context.max_file_bytes` (by its
size, unread: a 50 MB data file is not a prompt) or cannot be read. Then
deep/context.py picks the relevant ones: files that define the symbols in play (the
workspace index) and files that mention them (a word search over the files under the
root that may be sent, code files only, at most MAX_SCAN_FILES of at most
MAX_SCAN_BYTES each). Open documents are read from their buffers, other files from
disk. Each file goes to the guard as a confined file part: it checks it again and
redacts its secrets (in a worker thread too, when the files are big).

Off the event loop: reading files from disk, parsing the named ones, the word search
and weighing the candidates (token estimates) run in worker threads; the loop decides
from paths and sizes and reads the open buffers and the index.

No LSP types; the caller gives the document store, the folders and the filter.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pygls.uris import from_fs_path, to_fs_path

from sparkls.context.definitions import file_symbols
from sparkls.guard.confine import Confinement
from sparkls.guard.exclusions import PathFilter, iter_files
from sparkls.deep import context
from sparkls.deep.paths import ResolvedPath, display_path
from sparkls.deep.pipeline import FileState
from sparkls.deep.prompt import Selection, TaskFile
from sparkls.documents.languages import grammar_record, language_id_for
from sparkls.documents.positions import Encoding, Position
from sparkls.documents.store import Document, DocumentStore, utf8_size_over

if TYPE_CHECKING:
    from sparkls.deep.tasks import TaskEnv

MAX_SCAN_FILES = 5_000  # files read when looking for references
MAX_SCAN_BYTES = 256 * 1024  # larger files are not searched (generated or vendored, mostly)


@dataclass(frozen=True, slots=True)
class TaskRequest:
    """`sparkls.task`'s argument: the instruction, the named files, a selection in the first."""

    instruction: str
    uris: tuple[str, ...] = ()
    start: Position | None = None
    end: Position | None = None


@dataclass
class ShownFiles:
    files: list[TaskFile]
    order: list[str]  # paths, named first, then relevant by rank
    reasons: dict[str, str]  # path -> "named", "defines area", "mentions area (3)"
    left_out: list[str] = field(default_factory=list)  # relevant, but over the budget
    warnings: list[str] = field(default_factory=list)  # named files not sent, and why
    selection: Selection | None = None


def read_state(store: DocumentStore, path: ResolvedPath) -> FileState:
    """An open document's text and version (under the editor's URI), else the disk."""
    for uri in dict.fromkeys((path.uri, from_fs_path(path.absolute) or path.uri)):
        if store.has(uri):
            doc = store.get(uri)
            return FileState(doc.text, doc.version, uri)
    return FileState(_read_disk(path.absolute))


def _read_disk(absolute: str) -> str | None:
    """A file the deep tier's reply applies to (resolve_reply_path has confined it)."""
    try:
        with open(absolute, encoding="utf-8", newline="") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def _rel_to_root(absolute: str, root: Path | None) -> str | None:
    if root is None:
        return None
    try:
        return Path(absolute).relative_to(root).as_posix()
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class _Named:
    """A named file that may be read: its URI, how it is shown, its path on disk, and
    its open document and that document's text as it was when checked (None: it is
    read from disk, in a worker thread)."""

    uri: str
    path: str
    absolute: str
    doc: Document | None
    text: str | None


async def gather_files(env: TaskEnv, request: TaskRequest) -> ShownFiles:
    """The files to show for `request` (see the module doc). What is decided from paths
    and sizes, the open buffers and the index are read on the event loop; files are read
    from disk, parsed and weighed in worker threads."""
    shown = ShownFiles([], [], {})
    confine = Confinement(env.folders)
    limit = env.settings.context.max_file_bytes or None
    checked = [_named_file(env, confine, uri, limit) for uri in dict.fromkeys(request.uris)]
    named = await asyncio.to_thread(_read_named, confine, checked, env.encoding)
    named_docs: list[Document] = []
    files: dict[str, TaskFile] = {}  # displayed path -> the file as shown
    selection_doc: tuple[Document, int, int] | None = None
    for i, entry in enumerate(named):
        if isinstance(entry, str):
            shown.warnings.append(entry)
            continue
        file, doc = entry
        files[file.path] = file
        named_docs.append(doc)
        shown.order.append(file.path)
        shown.reasons[file.path] = "named"
        if i == 0 and request.start is not None:
            start, end = sorted((doc.offset(request.start), doc.offset(request.end or request.start)))
            selection_doc = (doc, start, end)
            first, last = doc.position(start).line, doc.position(end).line
            shown.selection = Selection(file.path, first + 1, last + 1)
    names = context.symbols_in_play(request.instruction, named_docs, selection_doc, env.lookup)
    if names:
        mentions = await asyncio.to_thread(_scan_disk, env.root, env.path_filter, confine, names)
        await _add_relevant(env, confine, names, mentions, files, shown)
    shown.files = [files[p] for p in shown.order]
    return shown


async def _add_relevant(
    env: TaskEnv,
    confine: Confinement,
    names: list[str],
    mentions: tuple[list[context.Relevant], dict[str, str]],
    files: dict[str, TaskFile],
    shown: ShownFiles,
) -> None:
    """Add the relevant files that fit to `files` and `shown`. `mentions`: the files
    under the root that mention `names` (root-relative paths), and their texts."""
    if env.root is None:
        return
    found = [*context.definers(names, env.lookup, set()), *mentions[0]]
    texts = {r.path: text for r in found if (text := _buffer_text(env, r.path)) is not None}  # buffers over disk
    for rel, text in mentions[1].items():
        texts.setdefault(rel, text)
    where = _Where(env.root, tuple(env.folders), env.path_filter, confine)
    candidates, chosen = await asyncio.to_thread(_choose_relevant, where, found, texts, files)
    for path in chosen.paths:
        files[path] = candidates[path]
        shown.order.append(path)
        shown.reasons[path] = chosen.reasons[path]
    shown.left_out = chosen.left_out


@dataclass(frozen=True, slots=True)
class _Where:
    """What a worker thread needs to find and read the relevant files (nothing shared)."""

    root: Path
    folders: tuple[str, ...]
    path_filter: PathFilter
    confine: Confinement


def _choose_relevant(
    where: _Where, found: list[context.Relevant], texts: dict[str, str], files: dict[str, TaskFile]
) -> tuple[dict[str, TaskFile], context.Chosen]:
    """In a worker thread: the relevant files' texts (`texts`, else the disk), weighed,
    and those that fit beside the named `files`."""
    candidates: dict[str, TaskFile] = {}  # displayed path -> the file
    relevant = []
    for r in found:
        display = display_path(os.path.normpath(where.root / r.path), list(where.folders))
        if display is None or display in files or not where.confine.contains(where.root / r.path):
            continue
        known = candidates.get(display)
        text = (known.text if known else None) or texts.get(r.path) or _read_relevant(where, r.path)
        if text is not None:
            candidates[display] = TaskFile(display, text, uri=from_fs_path(os.path.normpath(where.root / r.path)))
            relevant.append(replace(r, path=display, rank=(*r.rank[:2], display)))
    sizes = {p: context.size_of(f.text) for p, f in candidates.items()}
    return candidates, context.choose(relevant, sizes, sum(context.size_of(f.text) for f in files.values()))


def _buffer_text(env: TaskEnv, rel: str) -> str | None:
    if env.root is None:
        return None
    uri = from_fs_path(str(env.root / rel))
    return env.store.get(uri).text if uri and env.store.has(uri) else None


def _named_file(env: TaskEnv, confine: Confinement, uri: str, limit: int | None) -> _Named | str:
    """A named file that may be read, or why not (a warning).

    Confined before anything is read, the buffer included: a link inside the
    workspace to a file outside is refused whether or not it is open. A file over
    `context.max_file_bytes` (`limit`) is refused by its size, unread."""
    if (refusal := confine.refusal_for_uri(uri)) is not None:
        return refusal.removesuffix(" not read.") + " not sent."
    absolute = os.path.normpath(to_fs_path(uri) or "")
    path = display_path(absolute, env.folders)
    if path is None:
        return f"{uri} is outside the workspace folders; not sent."
    if (reason := _never_sent(env, absolute, path)) is not None:
        return f"sparkls does not send {path} ({reason}); not sent."
    doc = env.store.get(uri) if env.store.has(uri) else None
    text = doc.text if doc is not None else None
    if limit is not None:
        size = _size(text, absolute, limit)
        if size is not None and size > limit:
            return (
                f"{path} is {size / 1e6:,.1f} MB, more than a task shows the deep tier (context.max_file_bytes, "
                f"{limit / 1e6:g} MB); not sent."
            )
    return _Named(uri, path, absolute, doc, text)


def _size(text: str | None, absolute: str, limit: int) -> int | None:
    """The UTF-8 size of a buffer's `text` (its length when that is over `limit`
    already: never a 50 MB text encoded on the event loop), else of the file on disk;
    None when unknown (unreadable)."""
    if text is None:
        try:
            return os.stat(absolute).st_size
        except OSError:
            return None
    if text.isascii() or len(text) > limit:
        return len(text)
    return len(text.encode("utf-8", "surrogatepass")) if utf8_size_over(text, limit) else 0


def _read_named(
    confine: Confinement, checked: list[_Named | str], encoding: Encoding
) -> list[tuple[TaskFile, Document] | str]:
    """In a worker thread: each named file's text and document (a file read from disk
    gets its lines and symbols here, not on the event loop), or a warning."""
    out: list[tuple[TaskFile, Document] | str] = []
    for entry in checked:
        if isinstance(entry, str):
            out.append(entry)
            continue
        if entry.doc is not None and entry.text is not None:
            out.append((TaskFile(entry.path, entry.text, uri=entry.uri), entry.doc))
            continue
        text = confine.read_text(entry.absolute)
        if text is None:
            out.append(f"{entry.path} could not be read; not sent.")
            continue
        # A snapshot parses a chunk at a time, handing the GIL back to the event loop
        # (a plain parse of a 200 KB minified line holds it for 100 ms); its lines, tree
        # and symbols (`file_symbols`, read by `symbols_in_play`) are made here, not there.
        doc = Document(entry.uri, text, 0, language_id_for(entry.uri), encoding).snapshot()
        doc.prepare(file_symbols)
        out.append((TaskFile(entry.path, text, uri=entry.uri), doc))
    return out


def _never_sent(env: TaskEnv, absolute: str, path: str) -> str | None:
    """The PathFilter's reason against the file, by its own name or by what it links to."""
    rel = _rel_to_root(absolute, env.root) or path
    if (reason := env.path_filter.reason(rel)) is not None:
        return reason
    real_root = Path(os.path.realpath(env.root)) if env.root is not None else None
    real_rel = _rel_to_root(os.path.realpath(absolute), real_root)
    return env.path_filter.reason(real_rel) if real_rel not in (None, rel) else None


def _read_relevant(where: _Where, rel: str) -> str | None:
    """A relevant file's text from disk by its path relative to the root (a worker thread)."""
    if where.path_filter.reason(rel) is not None or not where.confine.contains(where.root / rel):
        return None
    return where.confine.read_text(where.root / rel)


def _scan_disk(
    root: Path | None, path_filter: PathFilter, confine: Confinement, names: list[str]
) -> tuple[list[context.Relevant], dict[str, str]]:
    """Code files under the root that may be sent and mention `names` (from disk; a
    worker thread, so it touches no shared state), and their texts."""
    if root is None:
        return [], {}
    texts: dict[str, str] = {}
    found: list[context.Relevant] = []
    for n, file in enumerate(iter_files(root, path_filter)):
        if n >= MAX_SCAN_FILES:
            break
        rel = file.relative_to(root).as_posix()
        if grammar_record(language_id_for(rel)) is None:
            continue
        try:
            if file.stat().st_size > MAX_SCAN_BYTES:
                continue
        except OSError:
            continue
        text = confine.read_text(file)
        hit = context.references(names, [(rel, text)], set()) if text is not None else []
        if hit and text is not None:
            found += hit
            texts[rel] = text
    return found, texts
