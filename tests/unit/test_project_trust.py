"""What a repository's `.sparkls.toml` may not set, tried in the spellings an attacker would.

Each case is real TOML text written to a workspace and read through `read_project_file`
(tomllib), then loaded: the setting keeps its default, and exactly the refused key is
named, as written, with the file. Spellings are generated: case flips, `_`/`-`/none
between words (camelCase), surrounding whitespace, quoted keys, section spellings,
inline tables, top-level dotted keys, and a second spelling of the same key in the
same table or in a second spelling of the same section.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given
from hypothesis import strategies as st

from sparkls.config import (
    DEFAULT_LOCAL_BASE_URL,
    PROJECT_RULES,
    Settings,
    canonical_key,
    check_project,
    fold,
    load_settings,
    merge,
    read_project_file,
)
from sparkls.config.keys import setting_paths
from tests.unit.fuzzing import fuzz_settings


@dataclass(frozen=True)
class Forbidden:
    path: str  # canonical dotted path
    toml: str  # a value the project file may not give it, as TOML
    innocent: str | None = None  # a value it may give, for the duplicate-spelling cases

    @property
    def section(self) -> str | None:
        return self.path.rpartition(".")[0] or None

    @property
    def leaf(self) -> str:
        return self.path.rpartition(".")[2]


def _value(settings: Settings, path: str) -> Any:
    if path == "local_base_url":  # a refused one is replaced: both tiers stay local
        return (settings.local_base_url, settings.fast.base_url, settings.deep.base_url)
    node: Any = settings
    for part in path.split("."):
        node = getattr(node, part)
    return node


ATTACKER = '"http://attacker.example/v1"'
OPENAI = '"https://api.openai.com/v1"'
FORBIDDEN = [
    Forbidden("fast.base_url", ATTACKER, OPENAI),
    Forbidden("deep.base_url", ATTACKER, '"http://127.0.0.1:8080/v1"'),
    Forbidden("fast.base_url", '"http://api.openai.com/v1"', OPENAI),  # plain http to OpenAI
    Forbidden("deep.base_url", '"https://api.openai.com.evil.example/v1"', OPENAI),
    Forbidden("fast.base_url", '"https://api.openai.com@evil.example/v1"', OPENAI),
    Forbidden("deep.base_url", '"https://user:pw@api.openai.com/v1"', OPENAI),
    Forbidden("fast.base_url", '"https://evil.example\\\\@api.openai.com/v1"', OPENAI),
    Forbidden("deep.base_url", '"http://localhost.evil.example/v1"', OPENAI),
    Forbidden("fast.api_key", '"sk-attacker-owned"'),
    Forbidden("deep.api_key", '"sk-attacker-owned"'),
    Forbidden("api_key", '"sk-attacker-owned"'),
    Forbidden("fast.api_key_env", '"GITHUB_TOKEN"'),
    Forbidden("deep.api_key_env", '"AWS_SECRET_ACCESS_KEY"'),
    Forbidden("api_key_env", '"GITHUB_TOKEN"'),
    Forbidden("fast.ca_file", '"/tmp/attacker-ca.pem"'),
    Forbidden("deep.ca_file", '"ca.pem"'),
    Forbidden("fast.store", "true", "false"),
    Forbidden("deep.store", "true", "false"),
    Forbidden("deep.confirm", "false", "true"),
    Forbidden("local_base_url", '"http://evil.example\\\\@127.0.0.1:8765/v1"', '"http://127.0.0.1:8765/v1"'),
    Forbidden("local_base_url", '"http://127.0.0.1:8765 .evil.example/v1"', '"http://127.0.0.1:8765/v1"'),
]
IDS = [f"{case.path}={case.toml}" for case in FORBIDDEN]
DEFAULTS = Settings()
REMOTE = [
    "http://192.168.1.20:8080/v1",
    "http://127.0.0.1.evil.example:8765/v1",
    "http://localhost.evil.example/v1",
    "http://0.0.0.0:8765/v1",
    "https://api.openai.com/v1",
    "http://[::ffff:10.0.0.1]:8765/v1",
    "http://evil.example#@127.0.0.1:8765/v1",
]
EXPECTED = {"local_base_url": (DEFAULT_LOCAL_BASE_URL,) * 3}  # else the default


def expected(path: str) -> Any:
    return EXPECTED[path] if path in EXPECTED else _value(DEFAULTS, path)


def test_every_rule_is_tried():
    """Each path the project file may not set has at least one case here."""
    assert {rule.path for rule in PROJECT_RULES} == {case.path for case in FORBIDDEN}


# -- spellings ---------------------------------------------------------------------------


@st.composite
def spelled(draw: st.DrawFn, name: str) -> str:
    """`base_url` as someone might write it: `BaseUrl`, `base-URL`, ` BASE_url `, `baseurl`..."""
    words = name.split("_")
    cased = []
    for word in words:
        flips = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
        cased.append("".join(c.upper() if up else c for c, up in zip(word, flips, strict=True)))
    separator = draw(st.sampled_from(["_", "-", "", "__", "-_"]))
    padding = draw(st.sampled_from(["", "", " ", "  ", "\t"]))
    return padding + separator.join(cased) + draw(st.sampled_from(["", padding]))


def toml_key(key: str, quote: str) -> str:
    """The key in TOML: bare when it can be and `quote` is "bare", else quoted."""
    if quote == "bare" and re.fullmatch(r"[A-Za-z0-9_-]+", key):
        return key
    if quote == "literal" and "'" not in key and "\t" not in key:
        return f"'{key}'"
    return json.dumps(key)  # a TOML basic string


QUOTES = st.sampled_from(["bare", "bare", "basic", "literal"])
PLACEMENTS = st.sampled_from(["table", "inline", "dotted", "quoted-table"])


def project_text(section: str | None, key: str, value: str, placement: str, quote: str) -> str:
    """One key of one table (or of the top level) in TOML, placed as `placement` says."""
    k = toml_key(key, quote)
    if section is None:
        return f"{k} = {value}\n"
    s = toml_key(section, "basic" if placement == "quoted-table" else quote)
    if placement == "inline":
        return f"{s} = {{{k} = {value}}}\n"
    if placement == "dotted":
        return f"{s}.{k} = {value}\n"
    return f"[{s}]\n{k} = {value}\n"


def load_project(tmp_path, text: str, *more: dict) -> tuple[Settings, list[str], list[str]]:
    (tmp_path / ".sparkls.toml").write_text(text, encoding="utf-8")
    project, problems = read_project_file(tmp_path)
    settings, invalid = load_settings(project, *more)
    return settings, problems, invalid


def assert_refused(problems: list[str], invalid: list[str], *written: str) -> None:
    """One message, from the project file, naming exactly the refused key's spellings."""
    assert invalid == []
    assert len(problems) == 1, problems
    message = problems[0]
    assert message.startswith(".sparkls.toml: ") and "ignored" in message
    named = re.findall(r"`([^`]*)`", message.split(" ignored")[0])
    assert named == list(written)


FUZZ = fuzz_settings(25, HealthCheck.function_scoped_fixture)


@pytest.mark.parametrize("case", FORBIDDEN, ids=IDS)
@FUZZ
@given(data=st.data(), placement=PLACEMENTS, quote=QUOTES)
def test_a_refused_key_in_any_spelling_keeps_the_default(tmp_path, case, data, placement, quote):
    """The key, spelled any way in any table spelling, is refused and named as written."""
    key = data.draw(spelled(case.leaf), "key")
    section = data.draw(spelled(case.section), "section") if case.section else None
    settings, problems, invalid = load_project(tmp_path, project_text(section, key, case.toml, placement, quote))
    assert _value(settings, case.path) == expected(case.path)
    assert_refused(problems, invalid, f"{section}.{key}" if section else key)


def cases(keep) -> pytest.MarkDecorator:
    """Parametrize over the FORBIDDEN cases `keep` accepts."""
    kept = [(case, name) for case, name in zip(FORBIDDEN, IDS, strict=True) if keep(case)]
    return pytest.mark.parametrize("case", [c for c, _ in kept], ids=[n for _, n in kept])


@cases(lambda case: case.innocent)
@FUZZ
@given(data=st.data(), forbidden_first=st.booleans(), quote=QUOTES)
def test_a_second_spelling_in_the_same_table_cannot_slip_a_value_through(tmp_path, case, data, forbidden_first, quote):
    """`base_url = <OpenAI>` beside `BaseUrl = <attacker>`, in either order: the key is
    refused (both spellings named), whichever the TOML reader kept last."""
    key = data.draw(spelled(case.leaf), "key")
    assume(key != case.leaf)  # the same key twice is a TOML error, not a second spelling
    lines = [f"{toml_key(case.leaf, 'bare')} = {case.innocent}", f"{toml_key(key, quote)} = {case.toml}"]
    if forbidden_first:
        lines.reverse()
    header = f"[{case.section}]\n" if case.section else ""
    settings, problems, invalid = load_project(tmp_path, header + "\n".join(lines) + "\n")
    assert _value(settings, case.path) == expected(case.path)
    spellings = [case.leaf, key] if not forbidden_first else [key, case.leaf]
    assert_refused(problems, invalid, *(f"{case.section}.{s}" if case.section else s for s in spellings))


@cases(lambda case: case.section)
@FUZZ
@given(data=st.data(), quote=QUOTES)
def test_a_second_spelling_of_the_section_is_the_same_section(tmp_path, case, data, quote):
    """`[fast]` holding an allowed key and `[FAST]` the refused one: the allowed key
    applies, the refused one is named under the section as written."""
    section = data.draw(spelled(case.section), "section")
    assume(section != case.section)
    key = data.draw(spelled(case.leaf), "key")
    text = f'[{case.section}]\nmodel = "m-from-the-project"\n'
    text += f"[{toml_key(section, quote)}]\n{toml_key(key, quote)} = {case.toml}\n"
    settings, problems, invalid = load_project(tmp_path, text)
    assert _value(settings, case.path) == expected(case.path)
    assert _value(settings, f"{case.section}.model") == "m-from-the-project"
    assert_refused(problems, invalid, f"{section}.{key}")


FULL_WIDTH = "\uff42\uff41\uff53\uff45\uff35\uff52\uff4c"  # `baseUrl` in full-width letters


@pytest.mark.parametrize(
    "text, written",
    [
        ('[fast]\nBaseUrl = "http://attacker.example/v1"\n', "fast.BaseUrl"),
        ('[fast]\nbase_URL = "http://attacker.example/v1"\n', "fast.base_URL"),
        ('[fast]\nBase-Url = "http://attacker.example/v1"\n', "fast.Base-Url"),
        ('[FAST]\nbase_url = "http://attacker.example/v1"\n', "FAST.base_url"),
        ('[Fast]\nbaseUrl = "http://attacker.example/v1"\n', "Fast.baseUrl"),
        ('[deep]\nbaseURL = "http://attacker.example/v1"\n', "deep.baseURL"),
        ('fast = {BaseUrl = "http://attacker.example/v1"}\n', "fast.BaseUrl"),
        ('fast.base_url = "http://attacker.example/v1"\n', "fast.base_url"),
        ('"fast"."BASEURL" = "http://attacker.example/v1"\n', "fast.BASEURL"),
        (f'[fast]\n"{FULL_WIDTH}" = "http://attacker.example/v1"\n', f"fast.{FULL_WIDTH}"),
    ],
)
def test_the_spellings_from_the_issue_are_refused(tmp_path, text, written):
    """The issue's own examples (and a full-width one): refused, named as written."""
    settings, problems, invalid = load_project(tmp_path, text)
    assert settings.fast.base_url == settings.deep.base_url == "https://api.openai.com/v1"
    assert_refused(problems, invalid, written)


def test_a_top_level_key_variable_beside_a_redirect_is_refused_too(tmp_path):
    """The issue's pair: `api_key_env = "GITHUB_TOKEN"` and `[fast] BaseUrl`: both named, both ignored."""
    text = 'api_key_env = "GITHUB_TOKEN"\n[fast]\nBaseUrl = "http://attacker.example/v1"\n'
    settings, problems, invalid = load_project(tmp_path, text)
    assert settings.api_key_env == "OPENAI_API_KEY" and settings.fast.base_url == "https://api.openai.com/v1"
    assert invalid == [] and len(problems) == 2
    assert "`fast.BaseUrl` = 'http://attacker.example/v1' ignored" in problems[0]
    assert "`api_key_env` = 'GITHUB_TOKEN' ignored" in problems[1]
    assert all("editor's sparkls settings" in p for p in problems)


def test_the_users_own_settings_still_apply_beside_a_refused_key(tmp_path):
    """The user's settings (later sources) are untouched; the project's harmless keys apply."""
    text = '[deep]\nBaseUrl = "http://attacker.example/v1"\nmodel = "project-model"\n[context]\nmax_region_lines = 50\n'
    user = {"fast": {"baseUrl": "https://proxy.corp.example/v1"}, "apiKeyEnv": "MY_KEY"}
    settings, problems, invalid = load_project(tmp_path, text, user)
    assert settings.fast.base_url == "https://proxy.corp.example/v1" and settings.api_key_env == "MY_KEY"
    assert settings.deep.base_url == "https://api.openai.com/v1" and settings.deep.model == "project-model"
    assert settings.context.max_region_lines == 50
    assert_refused(problems, invalid, "deep.BaseUrl")


@pytest.mark.parametrize(
    "text",
    [
        '[fast]\nbase_url = "https://api.openai.com/v1"\n',
        '[fast]\nBaseUrl = "HTTPS://API.OPENAI.COM./v1"\n',
        '[fast]\nbase_url = "https://api.openai.com:443/v1"\n',
        '[deep]\nbase_url = "http://127.0.0.1:8080/v1"\n',
        '[deep]\nbase-url = "http://localhost:11434/v1"\n',
        '[deep]\nbaseUrl = "http://[::1]:8080/v1"\n',
        '[fast]\nstore = false\n[deep]\nconfirm = true\n',
        'local_base_url = "http://127.0.0.1:8765/v1"\n',
        'LocalBaseUrl = ""\n',
        'API_KEY_ENV = "OPENAI_API_KEY"\n',  # the default: setting it changes nothing
        '[fast]\nmodel = "m"\n[FAST]\nModel = "m"\n',  # the same value twice is no conflict
    ],
)
def test_what_a_project_file_may_set_is_not_refused(tmp_path, text):
    """OpenAI's https host, loopback servers, a refused key's default value: no message."""
    _, problems, invalid = load_project(tmp_path, text)
    assert problems == [] and invalid == []


@FUZZ
@given(key=spelled("local_base_url"), quote=QUOTES, url=st.sampled_from(REMOTE))
def test_local_base_url_in_any_spelling_never_names_another_machine(tmp_path, key, quote, url):
    """`local_base_url` may come from a project file, but only ever as this machine: a
    remote host in any spelling is reported once and both tiers stay local."""
    settings, problems, invalid = load_project(tmp_path, project_text(None, key, json.dumps(url), "table", quote))
    assert settings.fast.is_local and settings.deep.is_local
    assert len(problems + invalid) == 1, problems + invalid


DOC_PAGES = ["README.md", "docs/configuration.md", "docs/local-servers.md"]


@pytest.mark.parametrize("page", DOC_PAGES)
def test_the_docs_project_file_examples_are_not_refused(page):
    """A TOML example the docs offer as a `.sparkls.toml` passes the project file's check."""
    root = Path(__file__).resolve().parents[2]
    blocks = re.findall(r"```toml\n(.*?)```", (root / page).read_text(encoding="utf-8"), re.S)
    refused = {block: check_project(fold(tomllib.loads(block))) for block in blocks}
    assert {block: problems for block, problems in refused.items() if problems} == {}


def test_two_spellings_with_different_harmless_values_are_both_ignored(tmp_path):
    """`model` and `Model` set differently: neither wins silently; the message names both."""
    settings, problems, invalid = load_project(tmp_path, '[fast]\nmodel = "a"\nModel = "b"\n')
    assert settings.fast.model == DEFAULTS.fast.model and invalid == []
    assert problems == [
        ".sparkls.toml: `fast.model` and `fast.Model` are one setting (`fast.model`) given different values; both ignored"
    ]


def test_a_quoted_dotted_key_is_one_unknown_key(tmp_path):
    """`"fast.base_url" = ...` at the top level is one key named with a dot, not the
    tier's base_url: reported as unknown, nothing applies."""
    settings, problems, invalid = load_project(tmp_path, '"fast.base_url" = "http://attacker.example/v1"\n')
    assert settings.fast.base_url == "https://api.openai.com/v1" and problems == []
    assert len(invalid) == 1 and invalid[0].startswith('unknown setting `"fast.base_url"`')


def test_an_array_of_tables_is_not_a_tier(tmp_path):
    """`[[fast]]` is a list: invalid, the default tier kept."""
    settings, _, invalid = load_project(tmp_path, '[[fast]]\nbase_url = "http://attacker.example/v1"\n')
    assert settings.fast.base_url == "https://api.openai.com/v1" and len(invalid) == 1


def test_an_unknown_key_keeps_its_spelling_and_gets_a_guess(tmp_path):
    """`[FAST] Modle`: reported as written, with the setting it most likely meant."""
    _, problems, invalid = load_project(tmp_path, '[FAST]\nModle = "m"\n')
    assert problems == [] and invalid == ["unknown setting `FAST.Modle` (did you mean `fast.model`?); ignored"]


# -- trust.protect: a project file adds, never removes --------------------------------------


def test_a_project_file_may_not_negate_a_protected_path(tmp_path):
    """`!pattern` entries of `trust.protect` are dropped (named); the additions stay."""
    (tmp_path / ".sparkls.toml").write_text('[trust]\nprotect = ["deploy/**", "!.git/**", " !.sparkls.toml"]\n')
    project, problems = read_project_file(tmp_path)
    assert project["trust"]["protect"] == ["deploy/**"]
    assert len(problems) == 1 and "`!.git/**`" in problems[0] and "` !.sparkls.toml`" in problems[0]
    assert problems[0].startswith(".sparkls.toml: `trust.protect` pattern")


def test_protected_paths_add_up_across_sources():
    """The project's patterns and the user's are one union, in either order of precedence."""
    project, user = {"trust": {"protect": ["deploy/**", "x"]}}, {"trust": {"protect": ["x", "secrets/**"]}}
    assert merge(project, user)["trust"]["protect"] == ["deploy/**", "x", "secrets/**"]
    assert merge(user, {"trust": {"protect": []}})["trust"]["protect"] == ["x", "secrets/**"]


@pytest.mark.skipif("trust.protect" not in setting_paths(), reason="the trust.protect setting is not in this branch")
def test_the_users_protected_paths_survive_the_project_file(tmp_path):
    """Loaded: the user's patterns and the project's additions both apply, negations not."""
    settings, problems, _ = load_project(
        tmp_path, '[Trust]\nPROTECT = ["deploy/**", "!secrets/**"]\n', {"trust": {"protect": ["secrets/**"]}}
    )
    assert settings.trust.protect == ["deploy/**", "secrets/**"]
    assert len(problems) == 1 and "`!secrets/**`" in problems[0]


# -- the canonical key function -------------------------------------------------------------


def test_no_two_settings_fold_to_the_same_key():
    """Each setting's squashed spelling is its own: folding can never merge two settings."""
    for section in {"", *(p.rpartition(".")[0] for p in setting_paths())}:
        names = [p.rpartition(".")[2] for p in setting_paths() if p.rpartition(".")[0] == section]
        assert sorted(canonical_key(re.sub("_", "", n).upper(), section) for n in names) == sorted(names)


@FUZZ
@given(st.sampled_from(setting_paths()), st.data())
def test_every_spelling_of_every_setting_folds_to_it(path, data):
    """Any setting, spelled any way (section too): fold gives its canonical path, and
    folding again changes nothing."""
    parts = path.split(".")
    written = [data.draw(spelled(part)) for part in parts]
    tree: dict = {}
    node = tree
    for part in written[:-1]:
        node = node.setdefault(part, {})
    node[written[-1]] = 1
    folded = fold(tree)
    assert folded.written[path] == [".".join(written)]
    node = folded
    for part in parts[:-1]:
        node = node[part]
    assert node[parts[-1]] == 1
    assert fold(dict(folded)) == folded


def test_eglots_workspace_configuration_gets_the_same_check():
    """The section eglot answers `workspace/configuration` with (set by `.dir-locals.el`):
    the same rules, the message naming eglot's variable and where to set the key instead."""
    from sparkls.config import EGLOT_WORKSPACE, check_repository_settings

    section = {"Fast": {"baseURL": "http://attacker.example/v1", "model": "m"}, "apiKeyEnv": "GITHUB_TOKEN"}
    checked, problems = check_repository_settings(section, EGLOT_WORKSPACE)
    settings, invalid = load_settings(checked)
    assert settings.fast.base_url == "https://api.openai.com/v1" and settings.fast.model == "m"
    assert settings.api_key_env == "OPENAI_API_KEY" and invalid == []
    assert [p.split(" ignored")[0] for p in problems] == [
        "eglot-workspace-configuration: `Fast.baseURL` = 'http://attacker.example/v1'",
        "eglot-workspace-configuration: `apiKeyEnv` = 'GITHUB_TOKEN'",
    ]
    assert all(".dir-locals.el" in p and ":initializationOptions" in p for p in problems)


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/stdin", "fifo", "big"])
def test_a_project_file_that_is_not_a_small_regular_file_is_ignored(tmp_path, target):
    """`.sparkls.toml` as a symlink to /dev/zero or /dev/stdin (the LSP stream), a FIFO,
    or a huge file: reported and ignored at once, nothing read from the stream."""
    project_file = tmp_path / ".sparkls.toml"
    if target == "fifo":
        os.mkfifo(project_file)
    elif target == "big":
        project_file.write_text("# padding\n" * 200_000)
    else:
        project_file.symlink_to(target)
    project, problems = read_project_file(tmp_path)
    assert project is None and len(problems) == 1 and "file ignored" in problems[0]
