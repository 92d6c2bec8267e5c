"""Every file of this repository the pages name in code (`tests/...`, `server/...`,
`bench/...`, `scripts/...`, `client-vscode/...`) exists, and a pattern
(`tests/unit/lsp/test_fuzz_*.py`) matches at least one: a page that says how
something is tested or measured points at what really does it (after issue 38 moved
the unit tests into folders, docs/security.md named five test files that were gone).

bench/README.md is left out: it also names files inside the packages it measures.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "client-vscode" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")  # one inline code span (a ``double`` one quotes an example)
NAME = re.compile(r"^(?:tests|server|bench|scripts|client-vscode)/[\w./*-]*$")


def named_files(page: Path) -> list[str]:
    """The repository paths `page` names in its inline code, each once, in order."""
    found: list[str] = []
    for span in SPAN.findall(page.read_text(encoding="utf-8")):
        for word in span.split():
            word = word.rstrip(".,:;)")
            if NAME.match(word) and word not in found:
                found.append(word)
    return found


def missing(page: Path) -> list[str]:
    return [name for name in named_files(page) if not (any(ROOT.glob(name)) if "*" in name else (ROOT / name).exists())]


def test_the_pages_name_files():
    """The pattern finds what the pages name (a pattern that stops matching fails here)."""
    security = named_files(ROOT / "docs" / "security.md")
    assert "server/sparkls/guard/protected.py" in security and "tests/e2e/test_hostile_repo.py" in security


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_file_a_page_names_exists(page):
    """Each repository path a page names in code is a file or folder of this checkout."""
    assert missing(page) == []
