"""Each language's oracle for `context_recall.py`: what a function references, by a real tool.

`answer(package, docs, functions)` asks the language's tool, in one batch per package,
where every identifier of each function is defined, and returns per function key
(`function_key`) `[definitions, set_aside]`: definitions as `[path, 0-based line,
identifier, kind, tool's kind]`, kept when in a file under the package root and outside
the function itself; `set_aside` counts what resolves to a module or stops at an
import (not in the oracle). `kind` is one of `KINDS`:

- Python, jedi `goto(follow_imports=True)` (through `context_quality.jedi_oracle`):
  `function`; `class` -> type; `property`, and any name reached as an attribute or
  declared in a class body -> field; an UPPER_CASE module-level name -> constant;
  other statements and parameters -> other.
- TypeScript/JavaScript, the TypeScript LanguageService `getDefinitionAtPosition`
  (`ts_definitions.mjs`, one Node process per package): by `ScriptElementKind`.
- Go, gopls `textDocument/definition` (one gopls over stdio per package, requests
  pipelined): by the tree-sitter node the answer points at (function/method
  declaration, type spec, struct field or interface method, const spec, other).

`tool_version(language)` names the tool's version for the cache key.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from recall_common import Package, go_environment, identifiers, node, typescript_dir, TYPESCRIPT_VERSION

KINDS = ("function", "type", "field", "constant", "other")
UPPER = re.compile(r"^_*[A-Z][A-Z0-9_]*$")


def function_key(rel: str, symbol) -> str:
    return f"{rel}:{symbol.start_line}:{symbol.end_line}"


def tool_version(language: str) -> str:
    if language == "python":
        import jedi
        return f"jedi{jedi.__version__}"
    if language == "typescript":
        return f"typescript{TYPESCRIPT_VERSION}"
    done = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "gopls"], capture_output=True, text=True)
    return f"gopls{done.stdout.strip()}"


def answer(package: Package, docs: dict[str, Any], functions: list[tuple[str, Any]]) -> dict[str, Any]:
    if not functions:
        return {}
    return {"python": _python, "typescript": _typescript, "go": _go}[package.language](package, docs, functions)


def _rel(root: Path, path: str | Path) -> str | None:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None  # outside the package: the standard library, dependencies


# -- Python ------------------------------------------------------------------------------

def _python_kind(jedi_type: str, word: str, line_text: str) -> str:
    base = jedi_type.removesuffix(" via attribute")
    if base == "function":
        return "function"
    if base == "class":
        return "type"
    if UPPER.match(word) and line_text[:1].strip():  # module level: the line is not indented
        return "constant"
    if base == "property" or jedi_type.endswith(" via attribute"):
        return "field"
    return "other"  # parameters and locals of enclosing functions, names bound under an `if`


def _python(package: Package, docs: dict[str, Any], functions: list[tuple[str, Any]]) -> dict[str, Any]:
    import jedi
    from context_quality import jedi_oracle  # bench/context_quality.py

    root = package.root
    src = root / "src"
    project = jedi.Project(root, added_sys_path=[str(src)] if src.is_dir() else [])
    scripts: dict[str, Any] = {}
    out = {}
    for rel, symbol in functions:
        doc = docs[rel]
        if rel not in scripts:
            scripts[rel] = jedi.Script(doc.text, path=root / rel, project=project)
        found, aside = jedi_oracle(scripts[rel], doc, rel, symbol, root)
        definitions = []
        for d_rel, line0, word, jedi_type in found:
            lines = docs[d_rel].text.split("\n") if d_rel in docs else (root / d_rel).read_text().split("\n")
            line_text = lines[line0] if line0 < len(lines) else ""
            definitions.append([d_rel, line0, word, _python_kind(jedi_type, word, line_text), jedi_type])
        out[function_key(rel, symbol)] = [definitions, aside]
    return out


# -- TypeScript / JavaScript ---------------------------------------------------------------

TS_KINDS = {
    "function": "function", "local function": "function", "method": "function", "constructor": "function",
    "class": "type", "local class": "type", "interface": "type", "type": "type", "enum": "type",
    "property": "field", "getter": "field", "setter": "field", "accessor": "field", "enum member": "field",
    "call": "field", "construct": "field", "index": "field",
    "const": "constant",
}
TS_ASIDE = {"module": "module", "external module name": "module", "script": "module", "alias": "unresolved import"}


def _utf16_offsets(text: str) -> list[int]:
    """UTF-16 offset of each line start (TypeScript positions are UTF-16 indexes)."""
    starts, total = [], 0
    for line in text.split("\n"):
        starts.append(total)
        total += len(line.encode("utf-16-le")) // 2 + 1
    return starts


def _typescript(package: Package, docs: dict[str, Any], functions: list[tuple[str, Any]]) -> dict[str, Any]:
    root = package.root
    files = sorted(str((root / rel).resolve()) for rel in docs)
    queries: list[list[Any]] = []
    owners: list[tuple[str, Any, str]] = []  # per query: (rel, symbol, identifier)
    starts: dict[str, list[int]] = {}
    for rel, symbol in functions:
        doc = docs[rel]
        lines = doc.text.split("\n")
        starts.setdefault(rel, _utf16_offsets(doc.text))
        for row, byte_col, word in identifiers("typescript", doc.tree.root_node, symbol.start_line,
                                               symbol.end_line).values():
            prefix = lines[row].encode("utf-8")[:byte_col].decode("utf-8", "replace")
            queries.append([str((root / rel).resolve()), starts[rel][row] + len(prefix.encode("utf-16-le")) // 2])
            owners.append((rel, symbol, word))
    request = json.dumps({"root": str(root.resolve()), "files": files, "queries": queries})
    done = subprocess.run([node(), str(Path(__file__).with_name("ts_definitions.mjs")), str(typescript_dir())],
                          input=request, capture_output=True, text=True, check=True)
    answers = json.loads(done.stdout)["answers"]
    out: dict[str, Any] = {function_key(rel, symbol): [{}, Counter()] for rel, symbol in functions}
    for (rel, symbol, word), found in zip(owners, answers):
        definitions, aside = out[function_key(rel, symbol)]
        for path, line0, ts_kind, _name in found:
            d_rel = _rel(root, path)
            if d_rel is None or line0 < 0 or (d_rel == rel and symbol.start_line <= line0 <= symbol.end_line):
                continue
            if ts_kind in TS_ASIDE:
                aside[TS_ASIDE[ts_kind]] += 1
                continue
            kind = TS_KINDS.get(ts_kind, "other")
            if kind == "other" and ts_kind == "var" and UPPER.match(word):
                kind = "constant"
            definitions.setdefault((d_rel, line0), [d_rel, line0, word, kind, ts_kind])
    return {key: [list(defs.values()), dict(aside)] for key, (defs, aside) in out.items()}


# -- Go ------------------------------------------------------------------------------------

GO_KINDS = {
    "function_declaration": "function", "method_declaration": "function",
    "type_spec": "type", "type_alias": "type",
    "field_declaration": "field", "method_spec": "field", "method_elem": "field",
    "const_spec": "constant",
    "var_spec": "other", "parameter_declaration": "other", "variadic_parameter_declaration": "other",
    "short_var_declaration": "other", "range_clause": "other", "labeled_statement": "other",
    "type_parameter_declaration": "other", "type_switch_statement": "other",
    "package_clause": "module", "import_spec": "module",  # a package name: the import names it
}


def _go_kind(tree, line0: int, column: int) -> str:
    n = tree.root_node.named_descendant_for_point_range((line0, column), (line0, column))
    while n is not None:
        if n.type in GO_KINDS:
            return GO_KINDS[n.type]
        n = n.parent
    return "other"


async def _gopls(root: Path, opened: dict[str, str], requests: list[tuple[str, int, int]]) -> list[Any]:
    from rawlsp import LspProcess  # bench/rawlsp.py

    server = await LspProcess.spawn(["gopls"], env=go_environment())
    try:
        await server.initialize(root, {})
        for uri, text in opened.items():
            server.did_open(uri, text, "go")
        answers: list[Any] = []
        for chunk in range(0, len(requests), 200):
            futures = [server.send("textDocument/definition",
                                   {"textDocument": {"uri": uri}, "position": {"line": row, "character": col}})
                       for uri, row, col in requests[chunk:chunk + 200]]
            answers.extend([(await f).get("result") or [] for f in futures])
        return answers
    finally:
        await server.stop()


def _go(package: Package, docs: dict[str, Any], functions: list[tuple[str, Any]]) -> dict[str, Any]:
    root = package.root
    requests: list[tuple[str, int, int]] = []
    owners: list[tuple[str, Any, str]] = []
    opened: dict[str, str] = {}
    for rel, symbol in functions:
        doc = docs[rel]
        uri = (root / rel).as_uri()
        opened[uri] = doc.text
        lines = doc.text.split("\n")
        for row, byte_col, word in identifiers("go", doc.tree.root_node, symbol.start_line, symbol.end_line).values():
            prefix = lines[row].encode("utf-8")[:byte_col].decode("utf-8", "replace")
            requests.append((uri, row, len(prefix.encode("utf-16-le")) // 2))
            owners.append((rel, symbol, word))
    answers = asyncio.run(_gopls(root, opened, requests))
    out: dict[str, Any] = {function_key(rel, symbol): [{}, Counter()] for rel, symbol in functions}
    for (rel, symbol, word), found in zip(owners, answers):
        definitions, aside = out[function_key(rel, symbol)]
        for location in found if isinstance(found, list) else [found]:
            uri = location.get("uri") or location.get("targetUri")
            span = location.get("range") or location.get("targetSelectionRange")
            d_rel = _rel(root, uri.removeprefix("file://"))
            line0 = span["start"]["line"]
            if d_rel is None or d_rel not in docs or (d_rel == rel and symbol.start_line <= line0 <= symbol.end_line):
                continue
            target = docs[d_rel]
            line = target.text.split("\n")[line0]
            byte_col = len(line[:span["start"]["character"]].encode("utf-8"))  # ASCII in practice
            kind = _go_kind(target.tree, line0, byte_col)
            if kind == "module":
                aside[kind] += 1
                continue
            definitions.setdefault((d_rel, line0), [d_rel, line0, word, kind, kind])
    return {key: [list(defs.values()), dict(aside)] for key, (defs, aside) in out.items()}
