"""A file's `symbols.scm` matches, merged per definition: the first half of
`symbols.extract_symbols`, which turns them into `Symbol` records.

The capture names every language's query uses (see symbols.py's docstring for what each
means) and `scan`, which runs the query from the root, then below every holder and
`@scan` node it finds, at most `SCAN_DEPTH` levels down each time (so function bodies
are never searched, but one a query names @scan: a JavaScript file's top-level wrapper
function), a window of `SCAN_WINDOW` bytes per call. Pure: a tree in, matches out;
names no node types.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node, QueryCursor

# Capture names of the `symbols.scm` queries, the same in every language.
SYMBOL = "symbol."  # + kind
NAME = "name"
BODY = "body"
RECEIVER = "receiver"
SCOPE = "scope"
SCAN = "scan"
WRAPPER = "wrapper"
WRAPPED = "wrapped"
PREFIX = "prefix"
DOCSTRING = "docstring"
MEMBERS = "members"  # a doc comment whose tags declare members (JSDoc: `docmembers`)
PART = "part"  # the piece of a definition of several names that is one name's (`b = 2` of `var a = 1, b = 2`)
OWNER = "owner"  # the value of `owner.name = ...`: a definition only when the file declares it a holder
HOLDS = "holds"  # a name declared as a value that holds members (an object literal, a function)
EXPORTS = "holds.exports"  # a name bound to the module's exports (`var _exports = module.exports = {}`)

IMPORT = "import"  # a kind that marks a name as no definition
VARIABLE = "variable"
ATTRIBUTE = "attribute"
GIVES_WAY = (VARIABLE, ATTRIBUTE)  # kinds any other capture of the same name overrides
STATEMENT = "attribute"  # the capture of attributes.scm that holds the assigning statement
# Kinds that hold members (`object`: an exported object literal); a definition inside anything else is a local.
HOLDERS = frozenset({"class", "type", "module", "object", SCOPE})
# Holders whose functions are methods.
METHOD_HOLDERS = frozenset({"class", "type", SCOPE})

# How deep below the root, a holder or a @scan node a pattern may start: a function's
# statements start three levels below it (def > body > statement), so none is searched.
SCAN_DEPTH = 2
SCAN_WINDOW = 64 * 1024  # bytes of a big node's children matched per query call


@dataclass(slots=True)
class Definition:
    """What the matches say about one definition node."""

    node: Node
    kind: str  # the kind that decides nesting: the first one that is not `variable`
    names: dict[Node, str] = field(default_factory=dict)  # name node -> its kind
    body: Node | None = None
    docstring: Node | None = None
    receiver: Node | None = None
    owner: Node | None = None  # `owner` of `owner.name = ...` (OWNER)
    owned: dict[Node, str] = field(default_factory=dict)  # names that count only when `owner` holds members


@dataclass(slots=True)
class Found:
    """Everything a file's matches say, merged."""

    definitions: dict[Node, Definition] = field(default_factory=dict)
    wrapper_of: dict[Node, Node] = field(default_factory=dict)
    prefixes: set[Node] = field(default_factory=set)
    member_docs: list[Node] = field(default_factory=list)
    parts: dict[Node, Node] = field(default_factory=dict)  # name node -> its own piece
    # a name declared as what holds members, and whether it is the module's exports (True)
    # or another value (False)
    holders: list[tuple[Node, bool]] = field(default_factory=list)

    def add(self, found: dict[str, list[Node]]) -> Definition | None:
        """Merge one match; returns the definition it is about, if it is about one."""
        if WRAPPER in found:
            self.wrapper_of[found[WRAPPED][0]] = found[WRAPPER][0]
        if MEMBERS in found:
            self.member_docs.append(found[MEMBERS][0])
            return None
        for key, exports in ((EXPORTS, True), (HOLDS, False)):
            self.holders += [(holder, exports) for holder in found.get(key, ())]
        if NAME not in found:
            if PREFIX in found:
                self.prefixes.add(found[PREFIX][0])
            return None
        for key, nodes in found.items():
            if key.startswith(SYMBOL) or key == SCOPE:
                kind = key[len(SYMBOL) :] if key.startswith(SYMBOL) else SCOPE
                node = nodes[0]
                break
        else:
            return None
        definition = self.definitions.get(node)
        if definition is None:
            definition = self.definitions[node] = Definition(node, kind)
        elif (definition.kind in GIVES_WAY or definition.kind == IMPORT) and kind != IMPORT:
            definition.kind = kind
        names = definition.owned if OWNER in found else definition.names
        if OWNER in found:
            definition.owner = found[OWNER][0]
        for name in found[NAME]:
            old = names.get(name)
            if old is None or old in GIVES_WAY or kind == IMPORT:
                names[name] = kind
        if PART in found:
            self.parts[found[NAME][0]] = found[PART][0]
        if BODY in found:
            definition.body = found[BODY][0]
        if DOCSTRING in found:
            definition.docstring = found[DOCSTRING][0]
        if RECEIVER in found:
            definition.receiver = found[RECEIVER][0]
        return definition


def _windows(node: Node) -> list[tuple[int, int]]:
    """Byte ranges covering `node`, each a run of its children of about SCAN_WINDOW."""
    if node.end_byte - node.start_byte <= SCAN_WINDOW:
        return [(node.start_byte, node.end_byte)]
    windows, start = [], node.start_byte
    for child in node.children:
        if child.end_byte - start >= SCAN_WINDOW:
            windows.append((start, child.end_byte))
            start = child.end_byte
    if start < node.end_byte or not windows:
        windows.append((start, node.end_byte))
    return windows


def _matches(cursor: QueryCursor, node: Node) -> Iterator[dict[str, list[Node]]]:
    """The cursor's matches under `node`, a window at a time: one C call never holds
    the GIL for a whole big file, and a worker thread hands it over between windows
    (a match met by two windows comes twice; `Found.add` merges by node)."""
    windows = _windows(node)
    for start, end in windows:
        cursor.set_byte_range(start, end)
        for _, match in cursor.matches(node):
            yield match
        if len(windows) > 1:
            time.sleep(0)


def scan(cursor: QueryCursor, root: Node) -> Found:
    """The matches starting at most SCAN_DEPTH below `root`, and below every holder
    (class, type, impl, module) and @scan node found so, however deep these sit."""
    found = Found()
    cursor.set_max_start_depth(SCAN_DEPTH)
    pending = [root]
    scanned = {root}
    while pending:
        for match in _matches(cursor, pending.pop()):
            definition = found.add(match)
            inner = [definition.node] if definition is not None and definition.kind in HOLDERS else []
            # A holder's members may sit deeper than it (an ES5 class's function body), and
            # a module's definitions deeper than the program (in a top-level wrapper function).
            if SCAN in match:
                inner.append(match[SCAN][0])
            for node in inner:
                if node not in scanned:
                    scanned.add(node)
                    pending.append(node)
    return found
