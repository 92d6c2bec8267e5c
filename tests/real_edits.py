"""The real-edit corpus (tests/fixtures/real_edits/corpus.json.xz): small edits from the
git histories of public projects, as a user would ask sparkls for them.

`scripts/real_edits_corpus.py` regenerates it from pinned commits and says how each
edit is chosen. Each edit: the project, commit, path and language; the commit's
subject (the instruction); an excerpt of the file before the commit (`text`: the
region and the lines around it, with whole containers, so it parses as the file did);
the selection (the changed lines), the region sparkls makes of it, and the region's
text after the commit (`new_region`).

Shared by the reply-check tests (tests/unit/test_real_edits.py) and bench/real_edits.py.
"""

from __future__ import annotations

import functools
import json
import lzma
from dataclasses import dataclass
from pathlib import Path

from sparkls.config import Settings
from sparkls.context.prompt import prepare_context
from sparkls.documents.document import Document
from sparkls.edits.reply import RegionView

FILE = Path(__file__).resolve().parent / "fixtures" / "real_edits" / "corpus.json.xz"
STRATA = ("1-15", "16-40", "41-100", "101-300")  # region lines, as the script stratifies them


@dataclass(frozen=True)
class RealEdit:
    project: str
    commit: str
    path: str
    language_id: str
    subject: str
    text: str  # the excerpt of the file before the commit
    selection: tuple[int, int]  # code-point offsets in `text`
    region: tuple[int, int]
    new_region: str
    stratum: int  # index into STRATA

    @property
    def name(self) -> str:
        return f"{self.project}@{self.commit[:10]}:{self.path}"

    @property
    def old_region(self) -> str:
        return self.text[self.region[0] : self.region[1]]

    @property
    def new_text(self) -> str:
        return self.text[: self.region[0]] + self.new_region + self.text[self.region[1] :]

    def document(self) -> Document:
        return Document(f"file:///work/{self.path}", self.text, 1, self.language_id, "utf-16")

    def view(self) -> RegionView:
        """The region as the fast tier shows it to the model (excerpt lines around it)."""
        doc = self.document()
        ctx = prepare_context(doc, *self.selection, path=self.path, settings=Settings())
        assert (ctx.region.start, ctx.region.end) == self.region, f"{self.name}: the region moved"
        return RegionView.of(ctx, doc.text, self.language_id)


def _stratum(region_text: str, strata: list[list[int]]) -> int:
    lines = region_text.count("\n") + (not region_text.endswith("\n"))
    return next(i for i, (lo, hi) in enumerate(strata) if lo <= lines <= hi)


@functools.cache
def load() -> tuple[RealEdit, ...]:
    data = json.loads(lzma.decompress(FILE.read_bytes()))
    return tuple(
        RealEdit(
            e["project"], e["commit"], e["path"], e["language_id"], e["subject"], e["text"],
            tuple(e["selection"]), tuple(e["region"]), e["new_region"],
            _stratum(e["text"][e["region"][0] : e["region"][1]], data["strata"]),
        )
        for e in data["edits"]
    )
