"""Settings from their sources: merged (lowest precedence first), camelCase or
snake_case, validated key by key. A bad value never stops the server: `load_settings`
drops each invalid key, keeps its default, and returns the problems as sentences for
`window/showMessage` ("unknown setting `fast.modle` (did you mean `fast.model`?)").
No I/O.
"""

from __future__ import annotations

import difflib
import functools
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from sparkls.config.model import _DEFAULTS, DEFAULT_LOCAL_BASE_URL, TIERS, Settings

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def _snake(key: Any) -> str:
    return _CAMEL.sub(r"_\1", str(key)).lower()


def snake_keys(value: Any) -> Any:
    """`baseUrl` -> `base_url`, recursively through dicts."""
    if isinstance(value, dict):
        return {_snake(k): snake_keys(v) for k, v in value.items()}
    return value


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Deep merge: dicts merge key by key, anything else in `override` wins."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def _drop(raw: dict[str, Any], path: tuple[Any, ...]) -> bool:
    """Remove the key at `path` (or its nearest existing parent); True if removed."""
    node: Any = raw
    for key in path[:-1]:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    if isinstance(node, dict) and path and path[-1] in node:
        del node[path[-1]]
        return True
    return False


def _camel(path: str) -> str:
    """`fast.base_url` -> `fast.baseUrl`: a key as an editor's settings spell it."""
    return ".".join(re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), part) for part in path.split("."))


def _spellings(value: Any, prefix: str = "", snake: str = "") -> dict[str, str]:
    """Each key's snake_case path -> the path as the user wrote it (camelCase, say)."""
    out: dict[str, str] = {}
    if isinstance(value, dict):
        for key, child in value.items():
            written = f"{prefix}.{key}" if prefix else str(key)
            path = f"{snake}.{_snake(key)}" if snake else _snake(key)
            out[path] = written
            out.update(_spellings(child, written, path))
    return out


@functools.cache
def setting_paths(model: type[BaseModel] = BaseModel) -> tuple[str, ...]:
    """Every setting's dotted snake_case path (`fast`, `fast.base_url`, `context.exclude`, ...)."""
    model = Settings if model is BaseModel else model
    paths: list[str] = []
    for name, field in model.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            paths += [name, *(f"{name}.{sub}" for sub in setting_paths(kind))]
        else:
            paths.append(name)
    return tuple(paths)


def did_you_mean(path: str) -> list[str]:
    """The settings an unknown `path` most likely meant: a close name beside it
    (`fast.modle` -> `fast.model`), else the same name elsewhere (`model` ->
    `fast.model`, `deep.model`), else a close path anywhere."""
    known = setting_paths()
    parent, _, leaf = path.rpartition(".")
    siblings = {p.rpartition(".")[2]: p for p in known if p.rpartition(".")[0] == parent}
    close = difflib.get_close_matches(leaf, list(siblings), n=1, cutoff=0.6)
    if close:
        return [siblings[close[0]]]
    elsewhere = [p for p in known if p.rpartition(".")[2] == leaf]
    return elsewhere[:2] or difflib.get_close_matches(path, known, n=1, cutoff=0.8)


def _describe(error: dict[str, Any], spellings: dict[str, str] | None = None) -> str:
    where = ".".join(str(p) for p in error["loc"]) or "settings"
    written = (spellings or {}).get(where, where)
    if error["type"] == "extra_forbidden":
        camel = written != where  # spelled as an editor spells it: suggest that spelling
        guesses = [f"`{_camel(p) if camel else p}`" for p in did_you_mean(where)]
        hint = f" (did you mean {' or '.join(guesses)}?)" if guesses else ""
        return f"unknown setting `{written}`{hint}; ignored"
    return f"`{where}`: {error['msg'].removeprefix('Value error, ')} (default kept)"


def load_settings(*sources: dict[str, Any] | None) -> tuple[Settings, list[str]]:
    """Merge sources (lowest precedence first) and validate, dropping bad keys.

    Returns the settings and the problems found, one sentence each.
    """
    raw: dict[str, Any] = {}
    problems: list[str] = []
    spellings: dict[str, str] = {}
    for source in sources:
        if source is None:
            continue
        if not isinstance(source, dict):
            problems.append(f"settings must be an object, got {type(source).__name__}; ignored")
            continue
        raw = merge(raw, snake_keys(source))
        spellings.update(_spellings(source))
    for _ in range(50):  # each round removes at least one bad key
        try:
            settings = Settings.model_validate(merge(_DEFAULTS, raw))
        except ValidationError as exc:
            removed = False
            for error in exc.errors():
                loc = tuple(error["loc"])
                if loc == ("local_base_url",):  # asked for local: never fall back to remote
                    stay = f"; both tiers stay on {DEFAULT_LOCAL_BASE_URL} meanwhile"
                    problems.append(_describe(error).removesuffix(" (default kept)") + stay)
                    raw["local_base_url"] = DEFAULT_LOCAL_BASE_URL
                    removed = True
                    continue
                problems.append(_describe(error, spellings))
                while loc and not _drop(raw, loc):
                    loc = loc[:-1]
                removed = removed or bool(loc)
            if not removed:
                break
            continue
        return settings, problems + _unused_base_urls(raw, settings)
    return Settings(local_base_url=DEFAULT_LOCAL_BASE_URL if raw.get("local_base_url") else None), problems


def _unused_base_urls(raw: dict[str, Any], settings: Settings) -> list[str]:
    """A remote `base_url` the user set, which `local_base_url` overrides."""
    if settings.local_base_url is None:
        return []
    notes = []
    for name in TIERS:
        url = raw.get(name, {}).get("base_url") if isinstance(raw.get(name), dict) else None
        if isinstance(url, str) and url.rstrip("/") != getattr(settings, name).base_url:
            notes.append(
                f"`{name}.base_url` ({url}) is not used while `local_base_url` is set: "
                f"the {name} tier goes to {settings.local_base_url}"
            )
    return notes
