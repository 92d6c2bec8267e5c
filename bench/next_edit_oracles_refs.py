"""The oracles of `next_edit_oracles.py`: every reference of a symbol, by a real tool.

`references(package, texts, queries)` takes the package's files (`texts`: relative path
-> text) and positions `(rel, row, column)` of a symbol's name (0-based; columns in code
points, the same as UTF-16 for these ASCII sources), and returns per query the
references of that symbol as `(rel, row, column)`, its declaration included, kept when
in a file of the package:

- Python: jedi `Script.get_references` (one `jedi.Project` per package);
- TypeScript/JavaScript: the TypeScript LanguageService `getReferencesAtPosition`
  (`oracles/ts_references.mjs`, one Node process per batch), plus the references of
  each CommonJS export of the symbol (`exports.Option = Option`), which TypeScript
  holds for another symbol, and of each `const { Option } = require('./option.js')`
  that takes it (TypeScript finds the export from there, not there from the export):
  without them a class used through `require` in another file has no reference there;
- Go: gopls `textDocument/references` with the declaration (one gopls over stdio,
  GOPATH mode, requests pipelined).

Answers are cached under `bench/.cache/next_edit_oracles/`, one JSON file per package,
version and tool version: a query is asked of the tool once.
"""

from __future__ import annotations

import asyncio
import json
import posixpath
import re
import subprocess
from pathlib import Path
from typing import Any

from oracles.definitions import tool_version  # bench/oracles/definitions.py
from recall_common import HERE, Package, go_environment, node, typescript_dir

CACHE = HERE / ".cache" / "next_edit_oracles"
Query = tuple[str, int, int]


def references(package: Package, texts: dict[str, str], queries: list[Query]) -> list[list[Query]]:
    CACHE.mkdir(parents=True, exist_ok=True)
    tool = tool_version(package.language)
    follows = "-cjs" if package.language == "typescript" else ""  # CommonJS exports followed (see _typescript)
    path = CACHE / f"{package.language}-{package.name}-{package.version}-{tool}{follows}.json"
    cached: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    missing = [q for q in dict.fromkeys(queries) if _key(q) not in cached]
    if missing:
        ask = {"python": _python, "typescript": _typescript, "go": _go}[package.language]
        for q, found in zip(missing, ask(package, texts, missing)):
            cached[_key(q)] = sorted({tuple(f) for f in found})
        path.write_text(json.dumps(cached))
    return [[tuple(f) for f in cached[_key(q)]] for q in queries]


def _key(q: Query) -> str:
    return f"{q[0]}:{q[1]}:{q[2]}"


def _rel(root: Path, path: str | Path) -> str | None:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def _python(package: Package, texts: dict[str, str], queries: list[Query]) -> list[list[Query]]:
    import jedi

    root = package.root
    project = jedi.Project(root)
    scripts: dict[str, Any] = {}
    out = []
    for rel, row, col in queries:
        if rel not in scripts:
            scripts[rel] = jedi.Script(texts[rel], path=root / rel, project=project)
        try:
            names = scripts[rel].get_references(row + 1, col)
        except Exception:  # jedi gives up on some code: no answer
            names = []
        found = []
        for n in names:
            r = _rel(root, n.module_path) if n.module_path is not None else None
            if r is not None and r in texts and n.line is not None:
                found.append((r, n.line - 1, n.column))
        out.append(found)
    return out


def _utf16_offset(text: str, row: int, col: int) -> int:
    lines = text.split("\n")
    return sum(len(line.encode("utf-16-le")) // 2 + 1 for line in lines[:row]) + col


_EXPORT = re.compile(r"\s*(?:module\.)?exports\.([\w$]+)\s*=\s*([\w$]+)\s*;?\s*$")


def _typescript(package: Package, texts: dict[str, str], queries: list[Query]) -> list[list[Query]]:
    """The service's references, and those of each CommonJS export of the symbol
    (`exports.Option = Option`: to TypeScript the property `exports.Option`, which
    `require('./option.js')` reaches, is another symbol than the class), two hops."""
    answers = _ts_references(package, texts, queries)
    for _ in range(2):
        follow: dict[Query, list[int]] = {}
        for i, found in enumerate(answers):
            for rel, row, col in found:
                match = _EXPORT.match(texts[rel].split("\n")[row])
                exported = (rel, row, match.start(1)) if match and match.start(2) == col else None
                if exported is not None and exported not in found:
                    for query in (exported, *_requires(texts, rel, match.group(1))):
                        follow.setdefault(query, []).append(i)
        if not follow:
            break
        for exported, more in zip(follow, _ts_references(package, texts, list(follow))):
            for i in follow[exported]:
                answers[i] = sorted(set(answers[i]) | set(more) | {exported})
    return answers


_REQUIRE = re.compile(r"""\{([^}]*)\}\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)""")


def _requires(texts: dict[str, str], module: str, name: str) -> list[Query]:
    """Where another file takes `name` from `module` by `const { name } = require('./module')`:
    TypeScript finds the export from there, not there from the export."""
    target = posixpath.splitext(module)[0]
    found = []
    for rel, text in texts.items():
        for row, line in enumerate(text.split("\n")):
            for match in _REQUIRE.finditer(line):
                spec = posixpath.normpath(posixpath.join(posixpath.dirname(rel), match.group(2)))
                word = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", match.group(1))
                if posixpath.splitext(spec)[0] == target and word is not None:
                    found.append((rel, row, match.start(1) + word.start()))
    return found


def _ts_references(package: Package, texts: dict[str, str], queries: list[Query]) -> list[list[Query]]:
    root = package.root.resolve()
    request = {"root": str(root), "files": sorted(str(root / rel) for rel in texts),
               "queries": [[str(root / rel), _utf16_offset(texts[rel], row, col)] for rel, row, col in queries]}
    done = subprocess.run([node(), str(HERE / "oracles" / "ts_references.mjs"), str(typescript_dir())],
                          input=json.dumps(request), capture_output=True, text=True, check=True)
    out = []
    for found in json.loads(done.stdout)["answers"]:
        out.append([(r, line, ch) for path, line, ch in found if (r := _rel(root, path)) in texts and line >= 0])
    return out


async def _gopls(root: Path, texts: dict[str, str], queries: list[Query]) -> list[Any]:
    from rawlsp import LspProcess  # bench/rawlsp.py

    server = await LspProcess.spawn(["gopls"], env=go_environment())
    try:
        await server.initialize(root, {})
        for rel, text in texts.items():
            server.did_open((root / rel).as_uri(), text, "go")
        answers: list[Any] = []
        for chunk in range(0, len(queries), 100):
            futures = [server.send("textDocument/references", {
                "textDocument": {"uri": (root / rel).as_uri()}, "position": {"line": row, "character": col},
                "context": {"includeDeclaration": True}}) for rel, row, col in queries[chunk:chunk + 100]]
            answers.extend([(await f).get("result") or [] for f in futures])
        return answers
    finally:
        await server.stop()


def _go(package: Package, texts: dict[str, str], queries: list[Query]) -> list[list[Query]]:
    root = package.root
    out = []
    for found in asyncio.run(_gopls(root, texts, queries)):
        refs = []
        for location in found:
            r = _rel(root, location["uri"].removeprefix("file://"))
            if r in texts:
                start = location["range"]["start"]
                refs.append((r, start["line"], start["character"]))
        out.append(refs)
    return out
