"""One open document: text, version and what is derived from it, kept in step with edits.

A change splices the text and its line index (documents/positions.py: a block, not the
file), edits the tree (`Tree.edit`) and marks it stale, and records the change (code
points and lines) for rebasing edits and carrying facts forward. A small document's
tree is reparsed incrementally when a request needs it near a change.

A big document (`BACKGROUND_PARSE_BYTES` characters or more) is never parsed on the
event loop and keeps no whole-file tree: documents/background.py parses it in a worker
thread, on a detached `snapshot`, to extract its facts (symbols, imports, the outline
of its top-level statements), which the document `adopt`s; a request reads the window
around its range (documents/window.py) and the facts carried forward through the line
changes since (`fact`). Per keystroke and per request, the cost is the change's and
the window's, not the file's. A document over `max_tree_bytes`
(`context.max_file_bytes`) gets no tree at all (`too_big`): a line window.

Knows nothing of LSP types: changes arrive as `TextChange` values.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tree_sitter import Node, Point, Tree

from sparkls.documents.languages import new_parser
from sparkls.documents.positions import (
    LINE_BREAK,
    Encoding,
    LineChange,
    LineIndex,
    Position,
    index_of_byte,
    line_change,
    shift_lines,
    tree_bytes,
)
from sparkls.documents.text import Replacement, minimal_change, parse_yielding, utf8_size_over
from sparkls.documents.window import MAX_WINDOW_LINES, Outline, parse_window


T = TypeVar("T")
NEAR_LINES = 3  # a change this close to a range makes reading the tree there reparse
HISTORY = 256  # changes kept per document for rebasing edits computed against older versions
BACKGROUND_PARSE_BYTES = 256 * 1024  # a text this large (in characters) is parsed off the event loop


@dataclass(frozen=True, slots=True)
class WholeText:
    """A change that replaced the whole text (an LSP change without a range)."""

    text: str


@dataclass(frozen=True, slots=True)
class TextChange:
    """One content change; `range` None means the whole text is replaced."""

    text: str
    range: tuple[Position, Position] | None = None


def _end_point(start: tuple[int, int], inserted: bytes) -> tuple[int, int]:
    """Tree-sitter point just after `inserted` placed at `start`."""
    breaks = list(LINE_BREAK.finditer(inserted.decode("utf-8", "surrogatepass")))
    if not breaks:
        return start[0], start[1] + len(inserted)
    tail = inserted.decode("utf-8", "surrogatepass")[breaks[-1].end() :]
    return start[0] + len(breaks), len(tail.encode("utf-8", "surrogatepass"))


class Document:
    """One open document. `text` and `version` are always current."""

    def __init__(
        self, uri: str, text: str, version: int, language_id: str, encoding: Encoding, *, max_tree_bytes: int | None = None
    ) -> None:
        self.uri = uri
        self.text = text
        self.version = version
        self.language_id = language_id
        self.encoding = encoding
        self.max_tree_bytes = max_tree_bytes
        self.too_big = max_tree_bytes is not None and utf8_size_over(text, max_tree_bytes)
        self._lines: LineIndex | None = None
        self._parser = None if self.too_big else new_parser(language_id)
        self._tree: Tree | None = None
        self._tree_stale = True
        self._yielding = False  # a snapshot parsing in a worker thread hands the GIL back between chunks
        self._tree_version: int | None = None  # the version the tree was last parsed at
        self._window: tuple[tuple[str, int, int], Tree] | None = None  # a big document's last window
        # Facts derived from the current text (imports, say), by key (see `fact`).
        self.derived: dict[str, Any] = {}
        # A big document's facts of an earlier version, to be carried forward: key ->
        # (version, value).
        self._carried: dict[str, tuple[int, Any]] = {}
        self._carried_now: set[str] = set()  # keys of `derived` carried forward, not computed
        # The last changes as code-point replacements, for rebasing an edit computed
        # against an older version, and as lines, for carrying facts forward:
        # (version before, version after, changes, line changes).
        self._history: deque[tuple[int, int, list[Replacement | WholeText], list[LineChange]]] = deque(maxlen=HISTORY)
        self._line_changes: list[LineChange] = []  # of the change being applied

    @property
    def lines(self) -> LineIndex:
        if self._lines is None:
            self._lines = LineIndex(self.text)
        return self._lines

    @property
    def tree(self) -> Tree | None:
        """The whole-file syntax tree of the current text, or None for languages without
        a grammar — and for a big document, which keeps none (it is read through
        `tree_around`'s windows); only its worker-thread snapshot parses here."""
        if self._parser is None:
            return None
        if self._tree_stale and not (self.is_big and not self._yielding):
            source = tree_bytes(self.text)
            old = self._tree
            if self._yielding:
                self._tree = parse_yielding(self._parser, source, old)
            else:
                self._tree = self._parser.parse(source, old) if old is not None else self._parser.parse(source)
            self._tree_stale, self._tree_version = False, self.version
        return self._tree

    def tree_around(self, start: int, end: int) -> Tree | None:
        """The tree to read around text[start:end]: a big document's window
        (documents/window.py); else the last parse edited forward when no change since
        that parse came within NEAR_LINES lines of the range (there it reads as a fresh
        parse would, and costs none), else `tree`."""
        if self._parser is not None and self.is_big and not self._yielding:
            return self._window_tree(self.lines.line_of(start), self.lines.line_of(end))
        if self._parser is None or not self._tree_stale or self._tree is None or self._tree_version is None:
            return self.tree
        changes = self.line_changes_since(self._tree_version)
        if changes is None:
            return self.tree
        lines = self.lines
        first, last = lines.line_of(start) - NEAR_LINES, lines.line_of(end) + NEAR_LINES
        for n, (c_first, c_last, delta) in enumerate(changes):
            now_first, now_last = shift_lines(c_first, max(c_first, c_last + delta), changes[n + 1 :])
            if now_first <= last and first <= now_last:
                return self.tree
        return self._tree

    def _window_tree(self, first: int, last: int, lines: LineIndex | None = None) -> Tree:
        """The tree of the window around lines `first`..`last` (of `lines`, the text's
        own index unless a variant's is given), from the outline; the last one is kept."""
        lines = lines or self.lines
        outline = self._outline()
        if outline is not None:
            a, b = outline.window(first, last, lines.line_count)
        else:  # no background pass yet (a request that did not wait for it)
            a, b = max(0, first - MAX_WINDOW_LINES // 2), min(lines.line_count - 1, last + MAX_WINDOW_LINES // 2)
        key = (lines.text, a, b)
        if self._window is not None and self._window[0][0] is key[0] and self._window[0][1:] == key[1:]:
            return self._window[1]
        assert self._parser is not None
        tree = parse_window(new_parser(self.language_id) or self._parser, lines, a, b)
        self._window = (key, tree)
        return tree

    def _outline(self) -> Outline | None:
        if not self.has_fact("outline"):
            return None
        return self.fact("outline", lambda doc: Outline([]), Outline.carried)

    def has_fact(self, key: str) -> bool:
        """Whether `fact(key)` can be read without computing it (it was, or can be carried)."""
        return key in self.derived or key in self._carried

    @property
    def is_big(self) -> bool:
        """Too big to parse on the event loop (from scratch, or to extract from whole)."""
        return len(self.text) >= BACKGROUND_PARSE_BYTES

    @property
    def parses(self) -> bool:
        """Whether it gets a syntax tree at all (a grammar, and not too big)."""
        return self._parser is not None

    @property
    def tree_current(self) -> bool:
        return self._parser is None or not self._tree_stale

    @property
    def tree_is_cheap(self) -> bool:
        """Reading the tree around a range costs at most an incremental reparse or a
        window's parse (never a big text's parse from scratch)."""
        return not self.is_big or self.tree_current or self.has_fact("outline")

    @property
    def has_old_tree(self) -> bool:
        """A tree to reparse from incrementally (a few edits behind), as opposed to none."""
        return self._tree is not None

    def snapshot(self) -> Document:
        """A detached copy of the current text, for a worker thread: its own parser
        (yielding the GIL between chunks) and a copy of the tree to reparse from."""
        copy = Document(self.uri, self.text, self.version, self.language_id, self.encoding)
        copy._parser = new_parser(self.language_id) if self._parser is not None else None
        copy._tree = self._tree.copy() if self._tree is not None else None
        copy._tree_stale, copy._yielding, copy._tree_version = self._tree_stale, True, self._tree_version
        copy._lines = self._lines
        return copy

    def prepare(self, warm: Callable[[Document], None] | None = None) -> None:
        """What a worker thread does on a `snapshot`: the line index, the tree and
        `warm` (the facts requests read), handing the GIL back as it goes."""
        if self._lines is None:
            self._lines = LineIndex.yielding(self.text)
        if self._parser is not None:
            tree = self.tree  # parses, yielding
            if warm is not None:
                warm(self)
            if tree is not None and self.is_big:
                self.derived["outline"] = Outline.of(tree)

    @property
    def lines_ready(self) -> bool:
        return self._lines is not None

    def adopt(self, snapshot: Document) -> bool:
        """Take a snapshot's line index, tree and derived facts if the text has not
        changed since. When it has, the tree is brought forward through the changes
        made meanwhile (`Tree.edit`, no parse): the next read reparses incrementally."""
        same = snapshot.version == self.version and snapshot.text is self.text
        if same and self._lines is None:
            self._lines = snapshot._lines
        if snapshot._tree_stale or snapshot._tree is None or self._parser is None:
            return same
        if self.is_big:  # keeps no tree: the facts (outline included), carried if the text moved on
            if same:
                self.derived.update(snapshot.derived)
                self._carried_now.difference_update(snapshot.derived)
            else:
                for key, value in snapshot.derived.items():
                    if self._carried.get(key, (-1,))[0] < snapshot.version:
                        self._carried[key] = (snapshot.version, value)
            return True
        if same:
            self._tree, self._tree_stale, self._tree_version = snapshot._tree, False, snapshot.version
            self.derived.update(snapshot.derived)
            self._carried_now.difference_update(snapshot.derived)
            return True
        for key, value in snapshot.derived.items():  # fresher than what is carried: carried from there
            if self._carried.get(key, (-1,))[0] < snapshot.version:
                self._carried[key] = (snapshot.version, value)
        changes = self.changes_since(snapshot.version)
        if changes is None or any(isinstance(c, WholeText) for c in changes):
            return False
        for change in changes:
            assert isinstance(change, Replacement)
            snapshot._replace(change.start, change.end, change.text)
        if snapshot.text != self.text:  # pragma: no cover - the history is the text's own
            return False
        self._tree, self._tree_stale, self._tree_version = snapshot._tree, True, snapshot.version
        return True

    def fact(self, key: str, compute: Callable[[Document], T], carry: Callable[[T, list[LineChange]], T]) -> T:
        """The fact `key` of the current text (imports, symbols): its last computed
        value brought forward through the line changes since by `carry` (cost: the
        change, not the file), else computed. A carried value is recomputed exactly
        off the request path (`facts_fresh` is False until then: documents/background.py)."""
        if key in self.derived:
            return self.derived[key]
        carried = self._carried.get(key)
        if carried is not None:
            changes = self.line_changes_since(carried[0])
            if changes is not None:
                value = self.derived[key] = carry(carried[1], changes)
                self._carried_now.add(key)
                return value
        value = self.derived[key] = compute(self)
        return value

    @property
    def facts_fresh(self) -> bool:
        """Facts have been computed for this very text, none of them carried forward."""
        return bool(self.derived) and not self._carried_now

    def offset(self, position: Position) -> int:
        return self.lines.offset(position, self.encoding)

    def point_offset(self, point: tuple[int, int]) -> int:
        """Code-point offset of a tree-sitter point (row, UTF-8 byte column)."""
        lines = self.lines
        if point[0] >= lines.line_count:
            return len(self.text)
        return lines.starts[point[0]] + index_of_byte(lines.line_text(point[0]), point[1])

    def node_text(self, node: Node) -> str:
        """A node's text, read from the current text (`node.text` reads the source it
        was parsed from, which a tree edited forward no longer matches)."""
        return self.text[self.point_offset(node.start_point) : self.point_offset(node.end_point)]

    def position(self, offset: int) -> Position:
        return self.lines.position(offset, self.encoding)

    def apply(self, changes: list[TextChange], version: int) -> None:
        done: list[Replacement | WholeText] = []
        for change in changes:
            if change.range is None:  # a full-sync client: as the ranged change it stands for
                done.append(self._replace(*minimal_change(self.text, change.text)))
            else:
                done.append(self._splice(change))
            self._tree_stale = True
        self._carried.update((key, (self.version, value)) for key, value in self.derived.items())
        self.derived.clear()
        self._carried_now.clear()
        self._history.append((self.version, version, done, self._line_changes))
        self._line_changes = []
        self.version = version
        if self._parser is not None and self.max_tree_bytes is not None and utf8_size_over(self.text, self.max_tree_bytes):
            self._parser, self._tree, self.too_big = None, None, True  # grown past the limit: a line window from now on

    def changes_since(self, version: int) -> list[Replacement | WholeText] | None:
        """The changes from `version` to the current one, in order, or None when they
        are no longer known (more than HISTORY versions ago)."""
        return self._since(version, 2)

    def line_changes_since(self, version: int) -> list[LineChange] | None:
        """`changes_since` as `LineChange`s."""
        return self._since(version, 3)

    def _since(self, version: int, field: int) -> list[Any] | None:
        found: list[list[Any]] = []
        expected = self.version
        for entry in reversed(self._history):
            before, after = entry[0], entry[1]
            if after != expected:
                return None
            found.append(entry[field])
            if before == version:
                return [change for changes in reversed(found) for change in changes]
            expected = before
        return [] if version == self.version else None

    def _splice(self, change: TextChange) -> Replacement:
        assert change.range is not None
        lines = self.lines
        start = lines.offset(change.range[0], self.encoding)
        end = max(start, lines.offset(change.range[1], self.encoding))
        return self._replace(start, end, change.text)

    def _replace(self, start: int, end: int, inserted: str) -> Replacement:
        """text[start:end] becomes `inserted`: the text, its line index and its tree."""
        if self._tree is not None:
            self._edit_tree(self._tree, start, end, inserted)
        self._line_changes.append(line_change(self.lines, start, end, inserted))
        self._lines = self.lines.spliced(start, end, inserted)
        self.text = self._lines.text
        return Replacement(start, end, inserted)

    def _edit_tree(self, tree: Tree, start: int, end: int, inserted_text: str) -> None:
        """Tell `tree` that text[start:end] became `inserted_text`.

        A change beside a "\\r" may join it to a "\\n" or split a "\\r\\n" (a lone "\\r" is
        a "\\n" to the tree: `tree_bytes`); the range then takes in that neighbour."""
        text = self.text
        if "\r" in text or "\r" in inserted_text:
            if start > 0 and text[start - 1] == "\r":
                start, inserted_text = start - 1, "\r" + inserted_text
            if end < len(text) and text[end] == "\n":
                end, inserted_text = end + 1, inserted_text + "\n"
        start_byte, start_point = self.lines.byte_point(start)
        old_end_byte, old_end_point = self.lines.byte_point(end)
        inserted = inserted_text.encode("utf-8", "surrogatepass")
        tree.edit(
            start_byte=start_byte,
            old_end_byte=old_end_byte,
            new_end_byte=start_byte + len(inserted),
            start_point=Point(*start_point),
            old_end_point=Point(*old_end_point),
            new_end_point=Point(*_end_point(start_point, inserted)),
        )


    def parse_variant(self, start: int, end: int, replacement: str) -> Tree | None:
        """The tree of the text with text[start:end] replaced, parsed incrementally
        (a big document's: the window around the replacement, in the variant).

        The document itself is untouched: used to check an edit before it is sent.
        """
        if self._parser is not None and self.is_big:
            variant = self.lines.spliced(start, end, replacement)
            return self._window_tree(variant.line_of(start), variant.line_of(start + len(replacement)), variant)
        current = self.tree
        if current is None or self._parser is None:
            return None
        variant = current.copy()
        self._edit_tree(variant, start, end, replacement)
        text = self.text[:start] + replacement + self.text[end:]
        return self._parser.parse(tree_bytes(text), variant)
