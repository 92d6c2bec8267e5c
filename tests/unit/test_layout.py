"""The package's layout: who may import whom, read from the source with `ast` (nothing is
imported), as docs/architecture.md lays it out.

Every import of every module under server/sparkls counts: at module level, under
`if TYPE_CHECKING:`, and inside a function (lazy); `from sparkls.x import y`, where `y`
is a submodule, imports `sparkls.x.y`. Only the cycle tests tell them apart.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "sparkls"

TOP_LEVEL = {"__init__", "__main__", "cli", "config", "errors", "logs", "endpoints", "private"}
# The core: the layers every capability stands on, the LSP edge, and what is not the
# server. Every other folder of the package is a capability (`capabilities()`).
CORE = {"config", "documents", "guard", "models", "context", "edits", "request", "lsp", "tools", "emulator"}
LSP = ("lsprotocol", "pygls", "sparkls.lsp")
# What a capability's LSP face may import of sparkls.lsp: the toolkit, the declarations,
# and pure conversions; never the server itself nor another handler.
FACE_MAY_IMPORT = (
    "sparkls.lsp.edge", "sparkls.lsp.feature", "sparkls.lsp.handlers.args", "sparkls.lsp.handlers.convert",
    "sparkls.lsp.workspace_edit",
)
FEATURES_MODULE = "sparkls.lsp.features"  # the one tuple of features
BELOW_GUARD = {"guard", "errors", "config", "documents", "logs"}


@dataclass(frozen=True, slots=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module, dotted: `sparkls.edits.diff`, `pygls.uris`
    name: str | None  # the name a `from` import takes, None for `import x`
    bound: str  # the name it binds in the module
    origin: str  # what that name is, dotted: `sparkls.guard.secrets.redact`
    line: int
    when: str  # "module" (runs on import), "typing" (under TYPE_CHECKING: never runs) or "lazy" (in a function)

    def __str__(self) -> str:
        what = self.target if self.name is None or self.target.endswith(f".{self.name}") else f"{self.target}.{self.name}"
        note = "" if self.when == "module" else f" ({self.when})"
        return f"{_path(self.module)}:{self.line} imports {what}{note}"


@dataclass(frozen=True, slots=True)
class Use:
    module: str
    expr: str  # a name or a dotted attribute as written: `Wire`, `wire._SEAL`
    origin: str | None  # what it is, through the module's imports: `sparkls.guard.wire._SEAL`
    line: int
    call: bool

    def __str__(self) -> str:
        return f"{_path(self.module)}:{self.line} {'calls' if self.call else 'uses'} {self.expr} ({self.origin})"


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (`sparkls.guard` for guard/__init__.py)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("sparkls", *path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _path(module: str) -> str:
    return str(modules()[module].relative_to(PACKAGE.parent))


def area(module: str) -> str:
    """The folder (or top-level module) a module belongs to: `guard` for sparkls.guard.wire."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _package_of(module: str) -> str:
    return module if modules()[module].name == "__init__.py" else module.rpartition(".")[0]


class _Reader:
    def __init__(self, module: str) -> None:
        self.module = module
        self.imports: list[Import] = []
        self.uses: list[Use] = []
        self._uses: list[tuple[str, int, bool]] = []

    def visit(self, node: ast.AST, when: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for child in ast.iter_child_nodes(node):
                self.visit(child, "lazy")
            return
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                self.visit(stmt, "lazy" if when == "lazy" else "typing")
            for stmt in node.orelse:
                self.visit(stmt, when)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.partition(".")[0]
                origin = alias.name if alias.asname else bound
                self.imports.append(Import(self.module, alias.name, None, bound, origin, node.lineno, when))
        elif isinstance(node, ast.ImportFrom):
            self._from(node, when)
        elif isinstance(node, ast.Call) and (expr := _dotted(node.func)) is not None:
            self._uses.append((expr, node.lineno, True))
        elif isinstance(node, (ast.Name, ast.Attribute)) and (expr := _dotted(node)) is not None:
            self._uses.append((expr, node.lineno, False))
        for child in ast.iter_child_nodes(node):
            self.visit(child, when)

    def resolve(self) -> None:
        """Name each use by what the module's imports bound (a function's own imports count module-wide)."""
        bindings = {imp.bound: imp.origin for imp in self.imports}
        for expr, line, call in self._uses:
            head, _, rest = expr.partition(".")
            origin = bindings.get(head)
            if origin is not None and rest:
                origin = f"{origin}.{rest}"
            self.uses.append(Use(self.module, expr, origin, line, call))

    def _from(self, node: ast.ImportFrom, when: str) -> None:
        base = node.module or ""
        if node.level:
            package = _package_of(self.module).split(".")
            package = package[: len(package) - (node.level - 1)]
            base = ".".join([*package, *([node.module] if node.module else [])])
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            target = submodule if submodule in modules() else base
            self.imports.append(
                Import(self.module, target, alias.name, alias.asname or alias.name, submodule, node.lineno, when)
            )


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of attributes on a name; None for anything else (a call's result, a subscript)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := _dotted(node.value)) is not None:
        return f"{base}.{node.attr}"
    return None


@cache
def _read(module: str) -> _Reader:
    reader = _Reader(module)
    reader.visit(ast.parse(modules()[module].read_text(encoding="utf-8"), str(modules()[module])), "module")
    reader.resolve()
    return reader


def imports(where: Iterable[str] | None = None) -> Iterator[Import]:
    """Every import of the modules in the given areas (all modules when None)."""
    areas = None if where is None else set(where)
    for module in modules():
        if areas is None or area(module) in areas:
            yield from _read(module).imports


def uses(where: Iterable[str] | None = None) -> Iterator[Use]:
    areas = None if where is None else set(where)
    for module in modules():
        if areas is None or area(module) in areas:
            yield from _read(module).uses


def _of_sparkls(imp: Import) -> bool:
    return imp.target == "sparkls" or imp.target.startswith("sparkls.")


def _within(target: str, prefixes: Iterable[str]) -> bool:
    return any(target == prefix or target.startswith(prefix + ".") for prefix in prefixes)


def _report(offenders: Iterable[object]) -> str:
    return "\n".join(str(offender) for offender in offenders)


def _areas_except(*excluded: str) -> list[str]:
    return sorted({area(module) for module in modules()} - set(excluded))


def capabilities() -> tuple[str, ...]:
    """Every folder of the package outside the core: a capability each."""
    folders = {area(module) for module in modules() if modules()[module].parent != PACKAGE}
    return tuple(sorted(folders - CORE))


CAPABILITIES = capabilities()


# -- cycles ------------------------------------------------------------------------------


def _graph(kinds: set[str]) -> dict[str, dict[str, Import]]:
    """sparkls module -> the sparkls modules it imports (one import that says so, each)."""
    graph: dict[str, dict[str, Import]] = {module: {} for module in modules()}
    for imp in imports():
        if imp.when in kinds and imp.target in modules():
            graph[imp.module].setdefault(imp.target, imp)
    return graph


def _strongly_connected(graph: dict[str, dict[str, Import]]) -> list[list[str]]:
    """Tarjan's components of more than one module (or a module that imports itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph[node]:
            if succ not in index:
                connect(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(found)


def _one_cycle(graph: dict[str, dict[str, Import]], component: list[str]) -> list[Import]:
    """A shortest cycle through the component's first module, as the imports that close it."""
    start, members = component[0], set(component)
    paths: dict[str, list[Import]] = {start: []}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for succ, imp in sorted(graph[node].items()):
            if succ == start:
                return [*paths[node], imp]
            if succ in members and succ not in paths:
                paths[succ] = [*paths[node], imp]
                queue.append(succ)
    raise AssertionError(f"no cycle through {start}")


def cycles(kinds: set[str]) -> list[str]:
    graph = _graph(kinds)
    found = []
    for component in _strongly_connected(graph):
        cycle = _one_cycle(graph, component)
        chain = " -> ".join([*(imp.module for imp in cycle), cycle[0].module])
        others = [module for module in component if module not in {imp.module for imp in cycle}]
        also = f" (and in the same knot: {', '.join(others)})" if others else ""
        found.append(f"{chain}{also}\n    " + "\n    ".join(str(imp) for imp in cycle))
    return found


# -- known offenders: a capability's entry here makes its test xfail(strict) ----------

CAPABILITY_OFFENDERS: dict[str, str] = {}  # folder -> "its offending import", when one is known


# -- the tests ---------------------------------------------------------------------------


def test_every_module_parses():
    """The reader finds the package and every module of it parses (the rules below read them all)."""
    assert "sparkls.lsp.server" in modules() and "sparkls.guard.guard" in modules()
    assert all(_read(module) for module in modules())


def test_the_top_level_holds_only_the_entry_point_settings_and_errors():
    """No loose module at the top level beyond __init__, __main__, cli, config, errors, logs, endpoints, private."""
    loose = sorted(path.stem for path in PACKAGE.glob("*.py") if path.stem not in TOP_LEVEL)
    assert loose == [], f"loose modules in server/sparkls/ (give each a folder): {loose}"


def test_errors_imports_nothing_of_sparkls():
    """errors.py, the error tree every layer raises, is a leaf: it imports nothing of sparkls."""
    offenders = [imp for imp in imports(["errors"]) if _of_sparkls(imp)]
    assert offenders == [], _report(offenders)


def test_documents_imports_nothing_above_it():
    """documents/ imports nothing of sparkls outside documents/ but the error tree (errors.py)."""
    offenders = [
        imp for imp in imports(["documents"]) if _of_sparkls(imp) and area(imp.target) not in {"documents", "errors"}
    ]
    assert offenders == [], _report(offenders)


def test_models_import_nothing_of_lsp():
    """models/ imports nothing of LSP: lsprotocol, pygls, sparkls.lsp."""
    offenders = [imp for imp in imports(["models"]) if _within(imp.target, LSP)]
    assert offenders == [], _report(offenders)


def test_models_import_no_capability():
    """models/ imports nothing from the capability folders (fastedit, completion, nextedit, refine, deep)."""
    offenders = [imp for imp in imports(["models"]) if _of_sparkls(imp) and area(imp.target) in CAPABILITIES]
    assert offenders == [], _report(offenders)


@pytest.mark.parametrize(
    "capability",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=CAPABILITY_OFFENDERS[name]))
        if name in CAPABILITY_OFFENDERS
        else name
        for name in CAPABILITIES
    ],
)
def test_no_capability_imports_another(capability):
    """A capability folder imports no other capability folder."""
    offenders = [
        imp for imp in imports([capability])
        if _of_sparkls(imp) and area(imp.target) in CAPABILITIES and area(imp.target) != capability
    ]
    assert offenders == [], _report(offenders)


def test_guard_imports_nothing_above_it():
    """guard/ imports only guard, errors, config, documents and logs of sparkls."""
    offenders = [imp for imp in imports(["guard"]) if _of_sparkls(imp) and area(imp.target) not in BELOW_GUARD]
    assert offenders == [], _report(offenders)


def is_face(module: str) -> bool:
    """Whether `module` is a capability's LSP face: its `handlers.py` (or a `*_handlers.py` beside it)."""
    last = module.rpartition(".")[2]
    return area(module) in CAPABILITIES and (last == "handlers" or last.endswith("_handlers"))


def test_only_the_lsp_edge_imports_lsp():
    """Nothing outside lsp/, tools/, cli.py and the capabilities' LSP faces imports sparkls.lsp."""
    offenders = [
        imp for imp in imports(_areas_except("lsp", "tools", "cli"))
        if _within(imp.target, ["sparkls.lsp"]) and not is_face(imp.module)
    ]
    assert offenders == [], _report(offenders)


def test_a_capability_speaks_lsp_only_in_its_face():
    """In a capability folder only its LSP face (handlers.py) imports lsprotocol, pygls (but its
    file-URI helpers, pygls.uris) or sparkls.lsp: the work (service.py, prompt.py, ...) knows no editor."""
    offenders = [
        imp for imp in imports(CAPABILITIES)
        if _within(imp.target, LSP) and not _within(imp.target, ["pygls.uris"]) and not is_face(imp.module)
    ]
    assert offenders == [], _report(offenders)


def test_no_import_cycle_at_module_level():
    """No cycle among the imports that run when a module loads (not lazy, not under TYPE_CHECKING)."""
    found = cycles({"module"})
    assert found == [], "import cycles at module level:\n" + "\n".join(found)


def test_no_import_cycle_with_lazy_imports():
    """No cycle either once the lazy imports (inside functions) count too."""
    found = cycles({"module", "lazy"})
    assert found == [], "import cycles with lazy imports:\n" + "\n".join(found)


# -- one way out: every byte to a model is sealed by the guard -----------------------------
# Names are followed through the module's imports, so `Wire` is the guard's `Wire` only
# where the module imported it from sparkls.guard (the emulator has a `Wire` of its own).

OUTSIDE_GUARD = _areas_except("guard")
REDACTION = ("sparkls.guard.secrets", "sparkls.guard.redact", "sparkls.guard.guard.redact")
SEAL = ("sparkls.guard.wire._SEAL", "sparkls.guard._SEAL", "sparkls.guard.guard._SEAL")
WIRE = ("sparkls.guard.wire.Wire", "sparkls.guard.Wire", "sparkls.guard.guard.Wire")
FIXED_WIRE = ("sparkls.guard.fixed_wire", "sparkls.guard.guard.fixed_wire")


def _reaching(where: Iterable[str], names: tuple[str, ...]) -> list[object]:
    """The imports of these names (or modules), and the uses that reach them by another way in."""
    found: list[object] = []
    bound: set[tuple[str, str]] = set()
    for imp in imports(where):
        if _within(imp.target, names) or _within(imp.origin, names):
            found.append(imp)
            bound.add((imp.module, imp.bound))
    seen: set[tuple[str, int, str]] = set()
    for use in sorted(uses(where), key=lambda use: not use.call):  # a call, not also its name
        if use.origin is None or not _within(use.origin, names) or (use.module, use.expr.partition(".")[0]) in bound:
            continue
        if (use.module, use.line, use.expr) not in seen:
            seen.add((use.module, use.line, use.expr))
            found.append(use)
    return found


def test_nothing_outside_the_guard_imports_the_redaction():
    """Outside guard/, no module imports sparkls.guard.secrets or the guard's `redact`."""
    offenders = _reaching(OUTSIDE_GUARD, REDACTION)
    assert offenders == [], _report(offenders)


def test_nothing_outside_the_guard_touches_the_seal():
    """Outside guard/, no module imports or names sparkls.guard.wire._SEAL."""
    offenders = _reaching(OUTSIDE_GUARD, SEAL)
    assert offenders == [], _report(offenders)


def test_nothing_outside_the_guard_makes_a_wire():
    """Outside guard/, no module calls the guard's `Wire(`: a Wire is the seal's output only."""
    offenders = [use for use in uses(OUTSIDE_GUARD) if use.call and use.origin in WIRE]
    assert offenders == [], _report(offenders)


def test_only_the_warm_up_calls_fixed_wire():
    """Outside guard/ and tools/, only lsp/server.py (the warm-up) calls `fixed_wire`."""
    offenders = [
        use for use in uses(_areas_except("guard", "tools"))
        if use.call and use.origin in FIXED_WIRE and use.module != "sparkls.lsp.server"
    ]
    assert offenders == [], _report(offenders)


# -- features: a capability is one folder and one line ---------------------------------------


def _feature_assignments(module: str) -> list[ast.Call]:
    """The module-level `FEATURE = Feature(...)` of `module`, where `Feature` is lsp/feature.py's."""
    tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
    bindings = {imp.bound: imp.origin for imp in _read(module).imports}
    found = []
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["FEATURE"]
            and isinstance(node.value, ast.Call) and (name := _dotted(node.value.func)) is not None
        ):
            continue
        head, _, rest = name.partition(".")
        origin = bindings.get(head)
        if origin is not None and f"{origin}.{rest}".rstrip(".") == "sparkls.lsp.feature.Feature":
            found.append(node.value)
    return found


def _listed_features() -> dict[str, str]:
    """The features lsp/features.py lists in `FEATURES`: the module each comes from, by the name it is bound to."""
    tree = ast.parse(modules()[FEATURES_MODULE].read_text(encoding="utf-8"))
    bound = {imp.bound: imp.target for imp in _read(FEATURES_MODULE).imports if imp.name == "FEATURE"}
    (listing,) = [
        node.value for node in tree.body
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["FEATURES"]
    ]
    assert isinstance(listing, ast.Tuple), "FEATURES is one tuple of names"
    names = [element.id for element in listing.elts if isinstance(element, ast.Name)]
    assert len(names) == len(listing.elts), "FEATURES lists names only, each imported as `from X import FEATURE as NAME`"
    return {name: bound[name] for name in names}


@pytest.mark.parametrize("capability", CAPABILITIES)
def test_every_capability_has_its_feature(capability):
    """Each capability folder's LSP face (handlers.py) exports one `FEATURE = Feature(...)`, listed in lsp/features.py."""
    face = f"sparkls.{capability}.handlers"
    assert face in modules(), f"{capability}/ has no handlers.py (its LSP face, exporting FEATURE)"
    assert len(_feature_assignments(face)) == 1, f"{_path(face)} does not assign FEATURE = Feature(...) once"
    assert face in _listed_features().values(), f"{capability}'s FEATURE is not in lsp/features.py's FEATURES"


def test_every_feature_is_listed_once():
    """Every `FEATURE` the package defines is in FEATURES, once."""
    defined = sorted(module for module in modules() if _feature_assignments(module))
    listed = list(_listed_features().values())
    assert sorted(listed) == defined and len(set(listed)) == len(listed), (defined, listed)


def test_outside_the_capabilities_only_the_features_tuple_names_one():
    """No module outside the capability folders imports one (the server names no capability), but lsp/features.py."""
    offenders = [
        imp for imp in imports(_areas_except(*CAPABILITIES))
        if area(imp.target) in CAPABILITIES and _within(imp.target, ["sparkls"]) and imp.module != FEATURES_MODULE
    ]
    assert offenders == [], _report(offenders)


def test_a_face_reaches_the_session_only_through_the_edge():
    """A capability's LSP face imports of sparkls.lsp only the edge's toolkit, the declarations and pure
    conversions: never the server, another handler, or the edge's other modules."""
    offenders = [
        imp for imp in imports(CAPABILITIES)
        if is_face(imp.module) and _within(imp.target, ["sparkls.lsp"]) and not _within(imp.target, FACE_MAY_IMPORT)
    ]
    assert offenders == [], _report(offenders)


def test_a_capability_never_reaches_behind_the_edge():
    """No module of a capability reads the server an `Edge` wraps (`edge._ls`): what a feature
    may use of the session is the edge's toolkit and the request environment."""
    offenders = [
        f"{_path(module)}:{node.lineno} reads .{node.attr}"
        for module in modules() if area(module) in CAPABILITIES
        for node in ast.walk(ast.parse(modules()[module].read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "_ls"
    ]
    assert offenders == [], _report(offenders)


# -- the unit tests mirror the source -------------------------------------------------------

UNIT = Path(__file__).resolve().parent
# Tests of the package as a whole (its layout, its docs, its version), of the top-level
# modules, and of what lives beside it (the VS Code client, the scripts): at the top.
PACKAGE_WIDE = {
    "test_layout", "test_architecture_doc", "test_docs_examples", "test_version", "test_logs", "test_endpoints",
    "test_file_modes", "test_vscode_settings", "test_vscode_tools", "test_node_script",
    "test_request_watchdog",  # the e2e suite's own watchdog (tests/e2e/watchdog.py)
    "test_docs_paths",
}


def test_unit_tests_mirror_the_source_folders():
    """Each folder of tests/unit/ is a folder of server/sparkls/ (tests/unit/context/index/ for
    context/index/), and only the package-wide tests sit at the top."""
    folders = sorted(
        path.relative_to(UNIT) for path in UNIT.rglob("*") if path.is_dir() and path.name != "__pycache__"
    )
    strays = [str(folder) for folder in folders if not (PACKAGE / folder).is_dir()]
    loose = sorted(path.stem for path in UNIT.glob("test_*.py") if path.stem not in PACKAGE_WIDE)
    assert strays == [] and loose == [], f"folders with no source folder: {strays}; tests to move into theirs: {loose}"


def test_bench_imports_nothing_from_tests():
    """bench/ (its scripts and the kit it shares with the tests) imports nothing from tests/."""
    bench = PACKAGE.parents[1] / "bench"
    offenders = []
    for path in sorted(bench.rglob("*.py")):
        if ".cache" in path.relative_to(bench).parts:
            continue  # packages a benchmark downloaded (git-ignored): not the project's code
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            offenders += [f"{path.relative_to(bench.parent)}:{node.lineno} imports {n}" for n in names if _within(n, ["tests"])]
    assert offenders == [], _report(offenders)
