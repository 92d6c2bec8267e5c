"""Spellings of a setting an attacker would try in `.sparkls.toml`, generated with
hypothesis at collection time from a fixed seed (the same cases every run, named by
their text).

A spelling is a key's words (`base`, `url`) each in some case (`base`, `BASE`,
`Base`, `bAsE`), joined by `_`, `-` or nothing (`baseUrl`, `BASEURL`); a section's
name likewise (`fast`, `FAST`, `Fast`); written as a table (`[Fast]` then the key),
a dotted key (`Fast.BASE-url = ...`), an inline table (`Fast = { baseURL = ... }`)
or a quoted key (`[fast]` then `"Base_Url" = ...`). Each names one of the settings a
repository may not choose, with the value an attacker wants: a host of theirs
(one per case: the audit says which case reached it), or the variable that holds the
user's GitHub token.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

SEED = 34  # the number: change it to explore, never to make a run pass
# (section, key words): the settings a repository may not choose, each where it matters.
TARGETS = [
    ("fast", ("base", "url")),
    ("deep", ("base", "url")),
    ("", ("api", "key", "env")),  # top level: which variable every remote tier sends
    ("fast", ("api", "key", "env")),
    ("deep", ("api", "key", "env")),
]


@dataclass(frozen=True)
class Spelling:
    tier: str  # "fast", "deep", or "" for the top level
    key: str  # the setting, snake case: what the user is told about
    text: str  # the whole `.sparkls.toml`
    attacker_host: str | None  # the host the value names, for an endpoint

    @property
    def id(self) -> str:
        return self.text.replace("\n", " ").strip()


def _cased(word: str, style: str, flips: list[bool]) -> str:
    if style == "lower":
        return word.lower()
    if style == "upper":
        return word.upper()
    if style == "title":
        return word.title()
    return "".join(c.upper() if flip else c.lower() for c, flip in zip(word, flips + [False] * len(word)))


@st.composite
def spellings(draw: st.DrawFn) -> tuple[str, tuple[str, ...], str, str, str]:
    """(tier, key words, spelled section, spelled key, form)."""
    tier, words = draw(st.sampled_from(TARGETS))
    styles = st.sampled_from(["lower", "upper", "title", "mixed"])
    flips = st.lists(st.booleans(), min_size=8, max_size=8)
    separator = draw(st.sampled_from(["_", "-", ""]))
    key = separator.join(_cased(word, draw(styles), draw(flips)) for word in words)
    section = _cased(tier, draw(styles), draw(flips)) if tier else ""
    form = draw(st.sampled_from(["table", "dotted", "inline", "quoted"] if tier else ["plain", "quoted"]))
    return tier, words, section, key, form


def _text(section: str, key: str, form: str, value: str) -> str:
    quoted = json.dumps(value)
    if form == "plain":
        return f"{key} = {quoted}\n"
    if form == "quoted" and not section:
        return f"{json.dumps(key)} = {quoted}\n"
    if form == "table":
        return f"[{section}]\n{key} = {quoted}\n"
    if form == "quoted":
        return f"[{section}]\n{json.dumps(key)} = {quoted}\n"
    if form == "dotted":
        return f"{section}.{key} = {quoted}\n"
    return f"{section} = {{ {key} = {quoted} }}\n"  # inline


def _kind(text: str) -> str:
    """How a word is cased: what makes two spellings different attempts."""
    return "lower" if text.islower() else "upper" if text.isupper() else "title" if text.istitle() else "mixed"


def generate(count: int = 20) -> list[Spelling]:
    """`count` spellings, the same every run: as many for each target, each of another
    shape (form, separator, casing of the section and of the key)."""
    drawn: list[tuple[str, tuple[str, ...], str, str, str]] = []

    @seed(SEED)
    @settings(
        max_examples=count * 20, database=None, phases=[Phase.generate], deadline=None,
        suppress_health_check=list(HealthCheck),
    )  # fmt: skip
    @given(spellings())
    def draw(case: tuple[str, tuple[str, ...], str, str, str]) -> None:
        drawn.append(case)

    draw()
    per_target = -(-count // len(TARGETS))
    shapes: dict[tuple[str, tuple[str, ...]], set[tuple[str, ...]]] = {target: set() for target in TARGETS}
    found: list[Spelling] = []
    for tier, words, section, key, form in drawn:
        separator = "-" if "-" in key else "_" if "_" in key else ""
        shape = (form, separator, _kind(section) if section else "", _kind(key.replace("-", "").replace("_", "")))
        taken = shapes[(tier, words)]
        if shape in taken or len(taken) >= per_target or len(found) >= count:
            continue
        taken.add(shape)
        snake = "_".join(words)
        host = f"attacker-{len(found) + 1}.example" if snake == "base_url" else None
        found.append(Spelling(tier, snake, _text(section, key, form, f"http://{host}/v1" if host else "GITHUB_TOKEN"), host))
    return found
