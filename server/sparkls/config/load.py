"""Settings from their sources: folded to canonical keys (config/keys.py), merged
(lowest precedence first), validated key by key. A bad value never stops the server:
`load_settings` drops each invalid key, keeps its default, and returns the problems as
sentences for `window/showMessage` ("unknown setting `fast.modle` (did you mean
`fast.model`?)"), naming each key as the user wrote it. No I/O.
"""

from __future__ import annotations

import copy
import difflib
import re
from typing import Any

from pydantic import ValidationError

from sparkls.config.keys import Folded, fold, setting_paths, settle
from sparkls.config.model import _DEFAULTS, DEFAULT_LOCAL_BASE_URL, TIERS, Settings

# Lists that every source adds to: a later source (the user's editor) never takes away
# what an earlier one (the project file) protects, nor the other way round.
UNION_PATHS = frozenset({"trust.protect"})


def snake_keys(value: Any) -> Any:
    """`baseUrl` -> `base_url`, recursively through dicts: the canonical tree (`fold`)."""
    return dict(fold(value)) if isinstance(value, dict) else value


def merge(base: dict[str, Any], override: dict[str, Any], section: str = "") -> dict[str, Any]:
    """Deep merge: dicts merge key by key, the lists of `UNION_PATHS` add up, anything
    else in `override` wins."""
    out = dict(base)
    for key, value in override.items():
        path = f"{section}.{key}" if section else key
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value, path)
        elif path in UNION_PATHS and isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = out[key] + [item for item in value if item not in out[key]]
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
        folded = source if isinstance(source, Folded) else fold(source)  # a project file comes folded
        problems += settle(folded)
        raw = merge(raw, copy.deepcopy(dict(folded)))  # later drops must not touch a kept source
        spellings.update({path: written[0] for path, written in folded.written.items()})
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
