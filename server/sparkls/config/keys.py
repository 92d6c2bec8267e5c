"""Setting keys by meaning: one canonical spelling for every way a source writes a key.

`canonical_key(key, section)` is the one rule every source goes through (the project
file, `initializationOptions`, `workspace/configuration`): a key names the setting it
spells once case, `_`, `-`, camelCase humps, whitespace and Unicode compatibility forms
are set aside. `BaseUrl`, `base_URL`, `Base-Url`, `" base_url "` and `BASEURL` all
name `base_url`; `[FAST]` and `[Fast]` name `fast`. A key that names no setting keeps
a snake_case form (`fast.modle`), so that validation reports it with a "did you mean".

`fold(source)` rewrites a whole tree: keys canonical, the tables of two spellings of
one section merged, and for each canonical path how the source wrote it (for
messages) and every value it was given. Two spellings of one key with different
values are a conflict: `fold` keeps the tree's last value and every value seen, so a
check (config/project.py) can judge them all, then `settle` drops the key with a
message. Because nothing downstream sees a key that is not canonical, a check made
on the folded tree is a check on what the model validates. Pure.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from sparkls.config.model import Settings

_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")
_SEPARATORS = re.compile(r"[\s_\-]+")
_UNKNOWN_SEPARATORS = re.compile(r"[\s_\-.]+")  # a dot in one key is not a section


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


def _squash(key: str) -> str:
    """The letters and digits of a key, case-folded: `Base-URL` -> `baseurl`."""
    return _SEPARATORS.sub("", unicodedata.normalize("NFKC", key).casefold())


def _snake(key: str) -> str:
    """`fooBar`, `Foo-Bar`, ` foo_bar `, `foo.bar` -> `foo_bar`: the form of a key
    that names no setting (never dotted: a path's dots are its sections)."""
    text = _CAMEL_HUMP.sub(r"_\1", unicodedata.normalize("NFKC", key).strip())
    return _UNKNOWN_SEPARATORS.sub("_", text).strip("_").lower()


@functools.cache
def _names(section: str) -> dict[str, str]:
    """The settings directly under `section` ("" for the top level), by squashed spelling."""
    prefix = f"{section}." if section else ""
    names = {p[len(prefix) :] for p in setting_paths() if p.startswith(prefix)}
    return {_squash(name): name for name in names if "." not in name}


def canonical_key(key: Any, section: str = "") -> str:
    """The setting a key names in `section` (a canonical dotted path, "" at the top)."""
    text = str(key)
    return _names(section).get(_squash(text), _snake(text))


class Folded(dict[str, Any]):
    """A settings tree whose keys are canonical, with what `fold` saw on the way.

    `written[path]`: the dotted paths as the source spelled them (one per spelling);
    `values[path]`: every value the source gave that key, in order (a table is `TABLE`).
    """

    def __init__(self) -> None:
        super().__init__()
        self.written: dict[str, list[str]] = {}
        self.values: dict[str, list[Any]] = {}

    def shown(self, path: str) -> str:
        """The key as the user wrote it (all its spellings), for messages."""
        return " and ".join(f"`{w}`" for w in self.written.get(path, [path]))

    def conflicts(self) -> list[str]:
        """Paths given different values by different spellings."""
        return [path for path, seen in self.values.items() if any(v != seen[0] for v in seen[1:])]


TABLE = object()  # what `Folded.values` records for a table (its keys are folded one by one)


def fold(source: Mapping[Any, Any]) -> Folded:
    """`source` with every key canonical (see the module docstring)."""
    out = Folded()
    _fold_into(out, source, "", "", out)
    return out


def _fold_into(node: dict[str, Any], source: Mapping[Any, Any], section: str, shown: str, out: Folded) -> None:
    for key, value in source.items():
        name = canonical_key(key, section)
        path = f"{section}.{name}" if section else name
        spelled = f'"{key}"' if "." in str(key) else str(key)  # one key, not a path
        written = f"{shown}.{spelled}" if shown else spelled
        out.written.setdefault(path, []).append(written)
        is_table = isinstance(value, Mapping)
        out.values.setdefault(path, []).append(TABLE if is_table else value)
        if is_table:
            # A table beside a scalar of the same key: the table stays (its keys get
            # checked by name) and `settle` drops the key as a conflict.
            if not isinstance(node.get(name), dict):
                node[name] = {}
            _fold_into(node[name], value, path, written, out)
        elif not isinstance(node.get(name), dict):
            node[name] = value


def drop(tree: dict[str, Any], path: str) -> bool:
    """Remove the key at a dotted canonical path; True if it was there."""
    *parents, leaf = path.split(".")
    node: Any = tree
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict) and leaf in node:
        del node[leaf]
        return True
    return False


def set_value(tree: dict[str, Any], path: str, value: Any) -> None:
    """Set the key at a dotted canonical path, making its tables as needed."""
    *parents, leaf = path.split(".")
    node = tree
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value


def settle(folded: Folded, origin: str | None = None) -> list[str]:
    """Drop each key that two spellings set to different values, one sentence each."""
    problems = []
    where = f"{origin}: " if origin else ""
    for path in folded.conflicts():
        if drop(folded, path):
            problems.append(
                f"{where}{folded.shown(path)} are one setting (`{path}`) given different values; both ignored"
            )
        folded.values[path] = folded.values[path][:1]
    return problems
