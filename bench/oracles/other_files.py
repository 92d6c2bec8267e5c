"""Other files in `next_edit_oracles.py`: the sites sparkls finds there, as the server does.

`PackageIndex(root)` builds a real `SymbolIndex` (context/index/symbol_index.py) of the
package copy in a throwaway SQLite file (a second or two: the same walk, filter and
parse as the server's index worker). `other_file_sites(...)` then does what
`nextedit.followups._search` does with the workspace index, minus the open buffers
(the scripted user has none open besides the edited file):

- `outward_changes` on the edited document and its edit history;
- rivals: the other classes that define a member of that name, read from the index's
  definitions (`lookup`, up to the server's `MAX_ROWS`), as the server does;
- the files that may use a name: the index's `files_using` (a word index of the
  files as on disk), less the edited file;
- each file parsed into a `Document`, `link_of` (with `leads_through`, the server's
  reader of re-exports, files read from the package as the guard would read them),
  `find_sites` on it.

Files `files_using` returns that the oracle did not read (outside the package's
files the benchmark scores: Go subpackages, tests left out) are counted, not scored.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sparkls.context.index.symbol_index import SymbolIndex
from sparkls.context.index.workspace import MAX_ROWS
from sparkls.documents.document import Document
from sparkls.documents.languages import language_id_for
from sparkls.documents.positions import normalize_encoding
from sparkls.guard.exclusions import PathFilter
from sparkls.nextedit.candidates import WINDOW_LINES
from sparkls.nextedit import elsewhere
from sparkls.nextedit.elsewhere import Outward, far_sites, find_sites, link_of, outward_changes, with_index
from sparkls.nextedit.history import Edit


class PackageIndex:
    """A real symbol and word index of one package copy, in a temporary database."""

    def __init__(self, root: Path) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="sparkls-bench-index-")
        self.index = SymbolIndex(root, Path(self._folder.name) / "index.sqlite")
        self.stats = self.index.build(PathFilter.from_root(Path(root)))

    def close(self) -> None:
        self.index.close()
        self._folder.cleanup()


@dataclass(frozen=True)
class OtherSites:
    changes: tuple[Outward, ...]
    sites: dict[str, list[tuple[int, int, str]]]  # rel -> (first line, last line, reason), 0-based
    unscored: int  # sites in files the oracle did not read
    own: list[tuple[int, int, str]] = field(default_factory=list)  # the edited file's, beyond the next-edit window


def other_file_sites(index: PackageIndex, texts: dict[str, str], rel: str, doc: Document, edits: list[Edit]) -> OtherSites:
    changes = outward_changes(doc, edits)
    if not changes:
        return OtherSites((), {}, 0)
    names = sorted({c.name for c in changes})
    rows = {n: [(p, s.container) for p, s in index.index.lookup(n, limit=MAX_ROWS)] for n in names}
    changes = with_index(changes, rel, rows)
    found: dict[str, list[tuple[int, int, str]]] = {}
    unscored = 0
    encoding = normalize_encoding("utf-16")

    def read(path: str) -> str | None:
        try:
            return (index.index.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def where(name: str) -> list[str]:
        if name not in rows:
            rows[name] = [(p, s.container) for p, s in index.index.lookup(name, limit=MAX_ROWS)]
        return [p for p, container in rows[name] if container is None]

    # a server from before issue 26's resolver has no reader of re-exports
    leads = elsewhere.leads_through(read, where) if hasattr(elsewhere, "leads_through") else None
    for other in index.index.files_using(sorted({w for c in changes for w in c.words})):
        if other == rel:
            continue
        text = texts.get(other)
        if text is None:
            path = index.index.root / other
            text = path.read_text(encoding="utf-8", errors="replace")
        language = language_id_for(other)
        other_doc = Document(f"file:///bench/{other}", text, 0, language, encoding)
        defines = [n for n in names if any(p == other for p, _ in rows[n])]
        link = link_of(other_doc, other, rel, names, defines, leads) if leads else link_of(other_doc, other, rel, names, defines)
        sites = find_sites(other_doc, changes, link)
        if other not in texts:
            unscored += len(sites)
        elif sites:
            found[other] = sites
    newest = edits[-1]
    own = far_sites(doc, changes, doc.lines.line_of(newest.start), doc.lines.line_of(newest.end), WINDOW_LINES)
    return OtherSites(tuple(changes), found, unscored, own)
