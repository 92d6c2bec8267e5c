"""The VS Code extension's package.json mirrors the server's settings model.

client-vscode/package.json contributes one VS Code setting per leaf of
`sparkls.config.Settings`, named in camelCase under `sparkls.` (`fast.base_url` is
`sparkls.fast.baseUrl`). These tests fail when the two disagree: a key on one side
only, or a different type, set of values, bound or default. API keys are never
settings (the extension keeps its key in VS Code's secret storage). What a repository
may not choose (the server's `PROJECT_RULES`, `local_base_url`, the program that runs)
is declared with a scope VS Code never reads from a workspace. The extension's test
fixtures for `sparkls/status` and the `sparkls.edit` summary are held to the
server's own shapes too. Nothing here needs node.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from sparkls.config import PROJECT_RULES, Settings, load_settings
from sparkls.config.project import PROTECT
from sparkls.edits.tail import EditOutcome, PositionedEdit
from sparkls.documents.positions import Position
from sparkls.lsp.handlers.convert import summary
from sparkls.models.session import TierStatus

CLIENT = Path(__file__).resolve().parents[2] / "client-vscode"
MANIFEST = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))

# The extension's own settings: how to start the server, tracing, the inline completion
# switch. Never sent to the server. package.json lists them too, for the extension.
CLIENT_ONLY = {"server.path", "server.python", "server.logLevel", "trace.server", "inlineCompletion.enabled"}
# Settings fields that must never be VS Code settings.
SECRETS = {"api_key", "fast.api_key", "deep.api_key"}
BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
# The scopes VS Code takes from user (or remote) settings only, never from a workspace's
# `.vscode/settings.json` or a `.code-workspace` file.
USER_ONLY_SCOPES = {"machine", "application"}


def camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part.title() for part in rest)


def contributed() -> dict[str, dict[str, Any]]:
    """`sparkls.*` properties from every configuration section, without the prefix."""
    sections = MANIFEST["contributes"]["configuration"]
    out: dict[str, dict[str, Any]] = {}
    for section in sections if isinstance(sections, list) else [sections]:
        for key, schema in section.get("properties", {}).items():
            if key.startswith("sparkls."):
                out[key.removeprefix("sparkls.")] = schema
    return out


@dataclasses.dataclass(frozen=True)
class Leaf:
    path: tuple[str, ...]  # snake_case, e.g. ("fast", "base_url")
    model: type[BaseModel]
    name: str

    @property
    def dotted(self) -> str:
        return ".".join(self.path)

    @property
    def key(self) -> str:
        return ".".join(camel(part) for part in self.path)

    @property
    def secret(self) -> bool:
        return "SecretStr" in repr(self.model.model_fields[self.name].annotation)

    def schema(self) -> dict[str, Any]:
        return self.model.model_json_schema()["properties"][self.name]

    def default(self) -> Any:
        value: Any = Settings()
        for part in self.path:
            value = getattr(value, part)
        return value


def leaves(model: type[BaseModel] = Settings, prefix: tuple[str, ...] = ()) -> Iterator[Leaf]:
    """Every non-model field of the settings tree, recursively."""
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from leaves(annotation, (*prefix, name))
        else:
            yield Leaf((*prefix, name), model, name)


SETTING_LEAVES = [leaf for leaf in leaves() if leaf.dotted not in SECRETS]


def shape(schema: dict[str, Any]) -> dict[str, Any]:
    """Types (as a sorted list), allowed values, bounds and item type of a JSON schema."""
    branches = schema.get("anyOf", [schema])
    types = sorted(b["type"] for b in branches)
    value = next((b for b in branches if b.get("type") != "null"), {})
    out: dict[str, Any] = {"type": types}
    if "enum" in value:
        out["enum"] = value["enum"]
    out.update({k: value[k] for k in BOUNDS if k in value})
    if "items" in value:
        out["items"] = value["items"].get("type")
    return out


def vscode_shape(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema["type"]
    return shape({**schema, "anyOf": [{**schema, "type": t} for t in kind]} if isinstance(kind, list) else schema)


def test_client_only_settings_are_declared_for_the_extension():
    """package.json names exactly these settings as the extension's own, and contributes them."""
    assert set(MANIFEST["sparkls"]["clientOnlySettings"]) == CLIENT_ONLY
    assert CLIENT_ONLY <= contributed().keys()


def test_every_server_setting_is_contributed_and_nothing_else():
    """The contributed keys are the model's leaves, camelCased, plus the client-only ones."""
    expected = {leaf.key for leaf in SETTING_LEAVES}
    actual = contributed().keys() - CLIENT_ONLY
    assert not expected - actual, f"missing from client-vscode/package.json: {sorted(expected - actual)}"
    assert not actual - expected, f"not in the server's Settings model: {sorted(actual - expected)}"


def trust_keys() -> set[str]:
    """The settings a repository may not choose, as VS Code names them: what a project
    file may not set (keys aside: never settings), `local_base_url` (the user's machine),
    the server's program, and `trust.protect` once the server has it (a workspace value
    would replace the user's patterns, where the project file can only add)."""
    paths = {rule.path for rule in PROJECT_RULES} - SECRETS | {"local_base_url"}
    paths |= {PROTECT} & {leaf.dotted for leaf in SETTING_LEAVES}
    return {".".join(camel(p) for p in path.split(".")) for path in paths} | {"server.path", "server.python"}


@pytest.mark.parametrize("key", sorted(trust_keys()))
def test_a_workspace_cannot_set_what_a_repository_may_not_choose(key: str):
    """Endpoints, key variables, CA files, `store`, review, the server's program: scope
    `machine` or `application`, which VS Code never reads from workspace settings."""
    assert contributed()[key].get("scope") in USER_ONLY_SCOPES


def test_the_trust_keys_are_the_documented_ones():
    """The list derived from the server's rules is the one docs/configuration.md prints."""
    tiers = {f"{tier}.{key}" for tier in ("fast", "deep") for key in ("baseUrl", "apiKeyEnv", "caFile", "store")}
    documented = tiers | {"localBaseUrl", "apiKeyEnv", "deep.confirm", "server.path", "server.python"}
    assert trust_keys() - {"trust.protect"} == documented


def test_the_extension_stays_off_in_restricted_mode():
    """It starts the workspace's Python interpreter: not before the user trusts the workspace."""
    untrusted = MANIFEST["capabilities"]["untrustedWorkspaces"]
    assert untrusted["supported"] is False and untrusted["description"]


def test_api_keys_are_never_settings():
    """The secret fields are exactly the SecretStr ones, and none is a VS Code setting."""
    assert {leaf.dotted for leaf in leaves() if leaf.secret} == SECRETS
    keys = {k.lower() for k in contributed()}
    assert not {".".join(camel(p) for p in s.split(".")).lower() for s in SECRETS} & keys


@pytest.mark.parametrize("leaf", SETTING_LEAVES, ids=lambda leaf: leaf.dotted)
def test_type_values_and_bounds_match(leaf: Leaf):
    """Same JSON types (null included), enum values, numeric bounds and item type."""
    assert vscode_shape(contributed()[leaf.key]) == shape(leaf.schema())


@pytest.mark.parametrize("leaf", SETTING_LEAVES, ids=lambda leaf: leaf.dotted)
def test_default_matches(leaf: Leaf):
    """The default shown in VS Code is the server's (the tier's own, for fast and deep)."""
    assert contributed()[leaf.key]["default"] == leaf.default()


def test_contributed_defaults_load_as_the_server_defaults():
    """Every key set to its contributed default, nested and camelCase as the extension sends it."""
    sent: dict[str, Any] = {}
    for key, schema in contributed().items():
        if key in CLIENT_ONLY:
            continue
        *parents, last = key.split(".")
        node = sent
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = schema["default"]
    settings, problems = load_settings(sent)
    assert problems == []
    assert settings == Settings()


def test_descriptions_are_present():
    """Every setting explains itself in the Settings editor."""
    missing = [k for k, s in contributed().items() if not (s.get("markdownDescription") or s.get("description"))]
    assert missing == []


def test_status_fixture_has_the_servers_tier_status_shape():
    """The extension's `sparkls/status` fixture carries exactly TierStatus's fields."""
    fixture = json.loads((CLIENT / "test" / "fixtures" / "status.json").read_text(encoding="utf-8"))
    for name, tier in fixture["tiers"].items():
        status = TierStatus(name, "m", "h").to_json()
        assert tier.keys() == status.keys()


def test_edit_summary_fixture_has_the_servers_summary_shape():
    """The extension's `sparkls.edit` result fixture has the keys and timings the server returns."""
    fixture = json.loads((CLIENT / "test" / "fixtures" / "edit-summary.json").read_text(encoding="utf-8"))
    timings = dict.fromkeys(("context", "wait", "ttft", "stream", "model", "edit", "total"), 1.0)
    outcome = EditOutcome(
        uri="file:///a.py",
        version=1,
        edits=[PositionedEdit(Position(0, 0), Position(0, 0), "x")],
        tier="fast",
        model="m",
        transport="websocket",
        attempts=1,
        region_lines=(0, 1),
        timings_ms=timings,
    )
    result = summary(outcome, applied=True, apply_ms=1.0)
    assert fixture.keys() == result.keys()
    assert fixture["timings_ms"].keys() == result["timings_ms"].keys()

