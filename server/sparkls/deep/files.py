"""The files a deep-tier task shows: the named ones, then the relevant ones.

Named files (`uris`) come first, each refused with a warning (not sent) when it is
outside the workspace folders by its real path (guard/confine.py: a symlink out, a
`..`, another URI scheme are refused before anything is read), may never be sent (the PathFilter: .gitignore,
`context.exclude`, secret files) or cannot be read. Then deep/context.py picks the
relevant ones: files that define the symbols in play (the workspace index) and files
that mention them (a word search over the files under the root that may be sent,
code files only, at most MAX_SCAN_FILES of at most MAX_SCAN_BYTES each; the search
runs in a worker thread). Open documents are read from their buffers, other files
from disk. Each file goes to the guard as a confined file part: it checks it again
and redacts its secrets.

No LSP types; the caller gives the document store, the folders and the filter.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pygls.uris import from_fs_path, to_fs_path

from sparkls.guard.confine import Confinement
from sparkls.guard.exclusions import PathFilter, iter_files
from sparkls.deep import context
from sparkls.deep.paths import ResolvedPath, display_path
from sparkls.deep.pipeline import FileState
from sparkls.deep.prompt import Selection, TaskFile
from sparkls.documents.languages import grammar_record, language_id_for
from sparkls.documents.positions import Position
from sparkls.documents.store import Document, DocumentStore

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


async def gather_files(env: TaskEnv, request: TaskRequest) -> ShownFiles:
    """The files to show for `request` (see the module doc)."""
    shown = ShownFiles([], [], {})
    confine = Confinement(env.folders)
    named_docs: list[Document] = []
    files: dict[str, TaskFile] = {}  # displayed path -> the file as shown
    selection_doc: tuple[Document, int, int] | None = None
    for i, uri in enumerate(dict.fromkeys(request.uris)):
        named = _named_file(env, confine, uri, shown.warnings)
        if named is None:
            continue
        path, text, doc = named
        files[path] = TaskFile(path, text, uri=uri)
        named_docs.append(doc)
        shown.order.append(path)
        shown.reasons[path] = "named"
        if i == 0 and request.start is not None:
            start, end = sorted((doc.offset(request.start), doc.offset(request.end or request.start)))
            selection_doc = (doc, start, end)
            first, last = doc.position(start).line, doc.position(end).line
            shown.selection = Selection(path, first + 1, last + 1)
    names = context.symbols_in_play(request.instruction, named_docs, selection_doc, env.lookup)
    if names:
        mentions = await asyncio.to_thread(_scan_disk, env.root, env.path_filter, confine, names)
        _add_relevant(env, confine, names, mentions, files, shown)
    shown.files = [files[p] for p in shown.order]
    return shown


def _add_relevant(
    env: TaskEnv,
    confine: Confinement,
    names: list[str],
    mentions: tuple[list[context.Relevant], dict[str, str]],
    files: dict[str, TaskFile],
    shown: ShownFiles,
) -> None:
    """Add the relevant files that fit to `files` and `shown`. `mentions`: the files
    under the root that mention `names` (root-relative paths), and their texts."""
    candidates: dict[str, TaskFile] = {}  # displayed path -> the file, buffers over disk
    relevant = []
    for r in [*context.definers(names, env.lookup, set()), *mentions[0]]:
        display = _display_of(env, r.path)
        if env.root is None or display is None or display in files or not confine.contains(env.root / r.path):
            continue
        known = candidates.get(display)
        text = (known.text if known else None) or _buffer_text(env, r.path) or mentions[1].get(r.path)
        if text is None:
            text = _read_relevant(env, confine, r.path)
        if text is not None:
            candidates[display] = TaskFile(display, text, uri=from_fs_path(os.path.normpath(env.root / r.path)))
            relevant.append(replace(r, path=display, rank=(*r.rank[:2], display)))
    sizes = {p: context.size_of(f.text) for p, f in candidates.items()}
    chosen = context.choose(relevant, sizes, sum(context.size_of(f.text) for f in files.values()))
    for path in chosen.paths:
        files[path] = candidates[path]
        shown.order.append(path)
        shown.reasons[path] = chosen.reasons[path]
    shown.left_out = chosen.left_out


def _display_of(env: TaskEnv, rel: str) -> str | None:
    """How the model is shown a file given relative to the root."""
    return display_path(os.path.normpath(env.root / rel), env.folders) if env.root is not None else None


def _buffer_text(env: TaskEnv, rel: str) -> str | None:
    if env.root is None:
        return None
    uri = from_fs_path(str(env.root / rel))
    return env.store.get(uri).text if uri and env.store.has(uri) else None


def _named_file(
    env: TaskEnv, confine: Confinement, uri: str, warnings: list[str]
) -> tuple[str, str, Document] | None:
    """(path, text, document) of a named file, or None with a warning saying why not.

    Confined before anything is read, the buffer included: a link inside the
    workspace to a file outside is refused whether or not it is open."""
    if (refusal := confine.refusal_for_uri(uri)) is not None:
        warnings.append(refusal.removesuffix(" not read.") + " not sent.")
        return None
    absolute = os.path.normpath(to_fs_path(uri) or "")
    path = display_path(absolute, env.folders)
    if path is None:
        warnings.append(f"{uri} is outside the workspace folders; not sent.")
        return None
    if (reason := _never_sent(env, absolute, path)) is not None:
        warnings.append(f"sparkls does not send {path} ({reason}); not sent.")
        return None
    if env.store.has(uri):
        return path, env.store.get(uri).text, env.store.get(uri)
    text = confine.read_text(absolute)
    if text is None:
        warnings.append(f"{path} could not be read; not sent.")
        return None
    return path, text, Document(uri, text, 0, language_id_for(uri), env.encoding)


def _never_sent(env: TaskEnv, absolute: str, path: str) -> str | None:
    """The PathFilter's reason against the file, by its own name or by what it links to."""
    rel = _rel_to_root(absolute, env.root) or path
    if (reason := env.path_filter.reason(rel)) is not None:
        return reason
    real_root = Path(os.path.realpath(env.root)) if env.root is not None else None
    real_rel = _rel_to_root(os.path.realpath(absolute), real_root)
    return env.path_filter.reason(real_rel) if real_rel not in (None, rel) else None


def _read_relevant(env: TaskEnv, confine: Confinement, rel: str) -> str | None:
    """A relevant file's text by its path relative to the root (buffer, else disk)."""
    if env.root is None or env.path_filter.reason(rel) is not None or not confine.contains(env.root / rel):
        return None
    return _buffer_text(env, rel) or confine.read_text(env.root / rel)


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
