"""The oracles of `next_edit_oracles.py`: every reference of a symbol, by a real tool.

`references(package, texts, queries)` takes the package's files (`texts`: relative path
-> text) and positions `(rel, row, column)` of a symbol's name (0-based; columns in code
points, the same as UTF-16 for these ASCII sources), and returns per query the
references of that symbol as `(rel, row, column)`, its declaration included, kept when
in a file of the package:

- Python: jedi `Script.get_references` (one `jedi.Project` per package);
- TypeScript/JavaScript: the TypeScript LanguageService `getReferencesAtPosition`
  (`oracles/ts_references.mjs`, one Node process per batch);
- Go: gopls `textDocument/references` with the declaration (one gopls over stdio,
  GOPATH mode, requests pipelined).

Answers are cached under `bench/.cache/next_edit_oracles/`, one JSON file per package,
version and tool version: a query is asked of the tool once.
"""

from __future__ import annotations

import asyncio
import json
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
    path = CACHE / f"{package.language}-{package.name}-{package.version}-{tool}.json"
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


def _typescript(package: Package, texts: dict[str, str], queries: list[Query]) -> list[list[Query]]:
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
