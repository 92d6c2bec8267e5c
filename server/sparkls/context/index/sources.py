"""Which text an index row is shown from: the one it was taken from, never another.

The index is shared by every server on a workspace, and its rows carry line numbers
of the text they were built from (`files`: the disk's mtime and size, or the buffer
and version: `<server>:<version>`). A row is only worth as much as that text:

- a file this server has open and has indexed from its buffer: the rows and the lines
  of that buffer as it was indexed (`note_buffer`, a snapshot taken with its symbols:
  at most one typing pause behind the editor), whatever the database holds;
- rows read from the disk whose file is still that mtime and size: the disk's lines;
- anything else (another server's buffer, this server's buffer once closed, a file
  changed on disk since it was indexed): the file is read again and its symbols
  extracted from what was read (once per mtime and size); a file that cannot be read
  gives no rows.

So a definition is never shown at lines of another version of its file. Definitions in
a buffer of this server that the database does not hold yet are found too. Reads the
disk and parses: call it where a request builds its context (a lookup's cost is the
files of the rows of one name, each read and parsed once per version).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sparkls.context.index.symbol_index import MAX_FILE_BYTES
from sparkls.context.symbols import Symbol, extract_symbols
from sparkls.documents.languages import language_id_for, new_parser
from sparkls.documents.positions import split_lines, tree_source
from sparkls.documents.text import utf8_size_over
from sparkls.guard.confine import Confinement

MAX_CACHED_FILES = 256  # files whose lines (and, once asked, symbols) are kept
Source = tuple[int, int, "str | None"]  # (mtime_ns, size, buffer) of a file's rows, as the database has them


@dataclass(frozen=True, slots=True)
class Text:
    """One version of a file: its lines and the symbols extracted from them."""

    lines: list[str] | None  # None: over MAX_FILE_BYTES, never shown (the index holds nothing of it)
    symbols: tuple[Symbol, ...] | None  # None: not extracted (yet)

    def named(self, name: str) -> list[Symbol]:
        return [s for s in self.symbols or () if s.name == name]


class Sources:
    """The texts rows are shown from, for one server (`token`: its buffers' mark)."""

    def __init__(self, root: Path, confinement: Confinement, token: str) -> None:
        self.root = root
        self._prefix = os.path.join(root, "")  # `os.stat` of a joined string: a tenth of `Path.stat`'s cost
        self.confinement = confinement
        self.token = token
        self._buffers: dict[str, tuple[int, Text]] = {}  # rel -> (version, text) as last indexed
        self._disk: OrderedDict[str, tuple[tuple[int, int], Text]] = OrderedDict()
        self._lock = threading.Lock()  # the disk cache, read from the loop and from worker threads

    # -- this server's buffers -------------------------------------------------------------

    def mark(self, version: int) -> str:
        """The `files.buffer` of rows this server writes from a buffer at `version`."""
        return f"{self.token}:{version}"

    def note_buffer(self, rel: str, version: int, text: str, symbols: Sequence[Symbol]) -> None:
        """The buffer `rel` was indexed at `version` from `text` with `symbols` (a text
        over MAX_FILE_BYTES, which has none, is not split into lines on the event loop)."""
        lines = None if utf8_size_over(text, MAX_FILE_BYTES) else split_lines(text)
        self._buffers[rel] = (version, Text(lines, tuple(symbols)))

    def forget_buffer(self, rel: str) -> None:
        """The buffer closed: its file is shown from the disk from now on."""
        self._buffers.pop(rel, None)

    # -- reading rows ---------------------------------------------------------------------

    def definitions(
        self, name: str, rows: list[tuple[str, Symbol]], sources: Callable[[Sequence[str]], dict[str, Source]],
    ) -> list[tuple[str, Symbol]]:
        """`rows` (the database's, for `name`) as they may be shown: each file's from the
        text it is shown from (see the module docstring), in the rows' order of files;
        then this server's buffers' definitions the database lacks."""
        paths = list(dict.fromkeys(path for path, _ in rows))
        buffers = dict(self._buffers)
        source = sources([p for p in paths if p not in buffers]) if paths else {}
        kept: list[tuple[str, Symbol]] = []
        for path in paths:
            if path in buffers:
                kept += [(path, s) for s in buffers[path][1].named(name)]
            elif (trusted := self._trusted(path, source.get(path))) is not None:
                kept += [(p, s) for p, s in rows if p == path] if trusted else self._reread(path, name)
        for path, (_, text) in buffers.items():
            if path not in paths:
                kept += [(path, s) for s in text.named(name)]
        return kept

    def members(self, path: str, container: str, name: str, rows: list[Symbol],
                sources: Callable[[Sequence[str]], dict[str, Source]]) -> list[Symbol]:
        """`rows` (the database's members `name` of `container` in `path`) as they may be shown."""
        buffer = self._buffers.get(path)
        if buffer is not None:
            return [s for s in buffer[1].named(name) if s.container == container]
        trusted = self._trusted(path, sources([path]).get(path))
        if trusted is None or trusted:
            return rows if trusted else []
        return [s for _, s in self._reread(path, name) if s.container == container]

    def lines(self, path: str) -> list[str] | None:
        """The lines a file's rows are shown from: this server's buffer as indexed, else
        the disk's (read once per mtime and size); None when it cannot be read or is
        over MAX_FILE_BYTES (the index holds nothing of it; a 50 MB file is not read
        on the event loop for a prompt)."""
        buffer = self._buffers.get(path)
        if buffer is not None:
            return buffer[1].lines
        found = self._read(path, parse=False)
        return found.lines if found is not None else None

    def _trusted(self, path: str, source: Source | None) -> bool | None:
        """True: the rows were read from the disk as it is now; False: read the file again;
        None: the file is gone (its rows are not shown)."""
        try:
            stat = os.stat(self._prefix + path)
        except OSError:
            return None
        if source is None:
            return False
        mtime_ns, size, buffer = source
        return buffer is None and (mtime_ns, size) == (stat.st_mtime_ns, stat.st_size)

    def _reread(self, path: str, name: str) -> list[tuple[str, Symbol]]:
        found = self._read(path, parse=True)
        return [(path, s) for s in found.named(name)] if found is not None else []

    def _read(self, path: str, *, parse: bool) -> Text | None:
        """The file as the disk has it now (cached per mtime and size), its symbols
        extracted when `parse` asks and they were not yet."""
        try:
            stat = os.stat(self._prefix + path)
        except OSError:
            return None
        if stat.st_size > MAX_FILE_BYTES:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._disk.get(path)
            if cached is not None and cached[0] == key:
                self._disk.move_to_end(path)
                if cached[1].symbols is not None or not parse:
                    return cached[1]
        text = self.confinement.read_text(self.root / path)  # a file swapped for a link since indexing stays unread
        if text is None:
            return None
        found = Text(split_lines(text), _symbols(path, text) if parse else None)
        with self._lock:
            self._disk[path] = (key, found)
            self._disk.move_to_end(path)
            while len(self._disk) > MAX_CACHED_FILES:
                self._disk.popitem(last=False)
        return found


def _symbols(path: str, text: str) -> tuple[Symbol, ...]:
    """The symbols of a file's text, as the index worker extracts them (none for a file
    over MAX_FILE_BYTES, which the index holds no symbols of either)."""
    language_id = language_id_for(path)
    parser = new_parser(language_id) if language_id else None
    source = text.encode("utf-8", "surrogatepass")
    if parser is None or len(source) > MAX_FILE_BYTES:
        return ()
    return tuple(extract_symbols(language_id, parser.parse(tree_source(source)), source))
