"""Every `.sparkls.toml` example in the docs validates without a problem."""

import re
import tomllib
from pathlib import Path

import pytest

from sparkls.config import load_settings

ROOT = Path(__file__).resolve().parents[2]
# Pages whose TOML blocks are sparkls settings (the editors' pages hold editor config).
PAGES = [ROOT / "README.md", ROOT / "docs" / "configuration.md", ROOT / "docs" / "local-servers.md"]
BLOCK = re.compile(r"```toml\n(.*?)```", re.S)
EXAMPLES = [
    pytest.param(block, id=f"{path.name}:{n}")
    for path in PAGES
    for n, block in enumerate(BLOCK.findall(path.read_text()))
]


def test_docs_have_examples():
    """The local-servers page documents at least the four servers it names."""
    assert len([e for e in EXAMPLES if "local-servers" in e.id]) >= 6


@pytest.mark.parametrize("block", EXAMPLES)
def test_example_validates(block):
    """The example parses as TOML and loads with no problem reported."""
    settings, problems = load_settings(tomllib.loads(block))
    assert problems == []
