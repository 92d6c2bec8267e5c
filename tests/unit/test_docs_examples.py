"""Every `.sparkls.toml` example in the docs validates without a problem, and every
instruction the pages give as an example is one the emulator follows."""

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


# -- the instructions the pages give as examples: the emulator follows each -------------

INSTRUCTION_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs" / "editors").glob("*.md")), ROOT / "client-vscode" / "README.md"]
# Where the pages quote an instruction a user would type or write as an example.
INSTRUCTION_FORMS = [
    re.compile(r'give an instruction \("([^"]+)"\)'),
    re.compile(r'\*\*Adjust what it just did\*\* \| "([^"]+)", "([^"]+)"'),
    re.compile(r'\("(shorter)", "(keep the old name)"\)'),
    re.compile(r"`[#/]+ spark: ([^`…]+)`"),
    re.compile(r'sends a task, in your own\s+words \("([^"]+)"\)'),
    re.compile(r"^\s*# spark: (.+)$", re.M),
]


def page_instructions() -> list[str]:
    found = []
    for page in INSTRUCTION_PAGES:
        text = page.read_text(encoding="utf-8")
        for form in INSTRUCTION_FORMS:
            for match in form.finditer(text):
                found += [g for g in match.groups() if g and not g.startswith("REPLACE")]
    return sorted(set(found))


def test_the_pages_give_instructions_as_examples():
    """The forms above find the pages' examples (a form that stops matching fails here)."""
    assert {"return None on empty input", "shorter", "keep the old name", "add retries with backoff",
            "rename the function area to surface everywhere", "shorter, and keep the old name",
            "return None instead of raising on an empty line"} <= set(page_instructions())


@pytest.mark.parametrize("words", page_instructions())
def test_the_emulator_follows_every_instruction_a_page_gives(words):
    """Each instruction a page gives as an example is one the emulator understands: a
    first try with it never gets "does not understand" (its effect on code is held by
    tests/e2e/test_docs_first_try.py)."""
    from sparkls.emulator.phrasings import read

    assert read(words).understood, words
