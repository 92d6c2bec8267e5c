"""The one reader of imports and aliases (`context/resolve.py`), per shape, and the two
places it serves: the context (a renamed import resolves to its original) and next
edit's follow-ups (a name imported under another one follows on the import only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparkls.context.builder import build_edit_context
from sparkls.context.index.workspace import WorkspaceIndex
from sparkls.context.resolve import (
    DEFAULT, MODULE, STAR, declared_type, dunder_all, imports, is_module_file, module_files, named_after, original,
    receiver_type, reexported,
)
from sparkls.context.scripts import resolution_order
from sparkls.context.written import declared_return, type_words
from sparkls.documents.store import DocumentStore
from sparkls.guard.exclusions import PathFilter
from sparkls.nextedit.elsewhere import Outward, find_sites, link_of


def _rows(text: str, language: str, **kwargs) -> list[tuple]:
    return [(i.local, i.name, i.module, i.line, i.reexport) for i in imports(text, language, **kwargs)]


def _doc(text: str, path: str, language_id: str = "python"):
    return DocumentStore().open(f"file:///w/{path}", text, 1, language_id)


# -- Python -------------------------------------------------------------------------------


def test_python_from_import_as_binds_the_alias_to_the_original():
    """`from ..auto import tqdm as tqdm_auto`: local `tqdm_auto`, named `tqdm` in `..auto`."""
    assert _rows("import sys\nfrom ..auto import tqdm as tqdm_auto, trange\n", "python") == [
        ("sys", MODULE, "sys", 0, False),
        ("tqdm_auto", "tqdm", "..auto", 1, False),
        ("trange", "trange", "..auto", 1, False),
    ]


def test_python_from_dot_import_a_module_and_dotted_imports():
    """`from . import shapes`, `import a.b as c`, `import a.b` (used as `a.b.`)."""
    assert _rows("from . import shapes\nimport a.b as c\nimport a.b\n", "python") == [
        ("shapes", "shapes", ".", 0, False),
        ("c", MODULE, "a.b", 1, False),
        ("a.b", MODULE, "a.b", 2, False),
    ]


def test_python_parenthesized_import_over_lines_with_comments():
    """Names on several lines, a comment among them; the statement's last line kept."""
    found = imports("from .core import (\n    Widget as BaseWidget,  # the base\n    render,\n)\n", "python")
    assert [(i.local, i.name, i.line, i.end_line) for i in found] == [
        ("BaseWidget", "Widget", 0, 3), ("render", "render", 0, 3)
    ]


def test_python_star_import_takes_the_module_all_when_the_caller_gives_it():
    """`from .x import *` binds what `.x`'s `__all__` lists; unknown, one `*` row."""
    text = "from .x import *\n"
    assert _rows(text, "python", exported=lambda module: ["a", "b"] if module == ".x" else None) == [
        ("a", "a", ".x", 0, False), ("b", "b", ".x", 0, False)
    ]
    assert _rows(text, "python") == [(STAR, STAR, ".x", 0, False)]
    assert dunder_all('"""doc"""\n__all__ = ["tqdm", \'trange\']\n') == ["tqdm", "trange"]
    assert dunder_all("x = 1\n") is None


def test_a_package_init_reexport_names_the_module_it_comes_from():
    """`from .core import Widget` in `pkg/__init__.py`: `pkg.Widget` is `.core`'s."""
    found = imports("from .core import Widget\nfrom .util import helper as _helper\n", "python")
    assert reexported(found, "Widget") == ("Widget", ".core")
    assert reexported(found, "_helper") == ("helper", ".util")
    assert reexported(found, "Other") is None


def test_original_gives_only_renamed_imports():
    """`tqdm_auto` stands for `tqdm` of `..auto`; a name imported as itself, or a module, for nothing."""
    found = imports("import numpy as np\nfrom ..auto import tqdm as tqdm_auto\nfrom .std import tqdm\n", "python")
    assert original(found, "tqdm_auto") == ("tqdm", "..auto")
    assert original(found, "tqdm") is None
    assert original(found, "np") is None


def test_python_module_files_relative_and_absolute():
    """`..auto` from `tqdm/contrib/x.py` is `tqdm/auto.py`; an absolute module matches by suffix (`src/`)."""
    assert module_files("..auto", "tqdm/contrib/x.py", "python") == ["tqdm/auto.py", "tqdm/auto/__init__.py"]
    assert is_module_file("src/marshmallow/constants.py", "marshmallow.constants", "src/marshmallow/fields.py", "python")
    assert not is_module_file("tqdm/std.py", "..auto", "tqdm/contrib/x.py", "python")


# -- JavaScript / TypeScript ------------------------------------------------------------


def test_js_import_forms():
    """Default, named with `as`, `type`, namespace, and a bare import each bind what they say."""
    text = "import a, {b as c, type D} from './x.js';\nimport * as ns from 'y';\nimport 'side';\n"
    assert _rows(text, "typescript") == [
        ("a", DEFAULT, "./x.js", 0, False),
        ("c", "b", "./x.js", 0, False),
        ("D", "D", "./x.js", 0, False),
        ("ns", MODULE, "y", 1, False),
        ("", MODULE, "side", 2, False),
    ]


def test_js_reexports_bind_nothing_here():
    """`export {e as f} from`, `export * from`: re-exports, told apart from imports."""
    found = imports("export {e as f} from './z';\nexport * from './w';\n", "javascript")
    assert [(i.local, i.name, i.module, i.reexport) for i in found] == [("f", "e", "./z", True), (STAR, STAR, "./w", True)]
    assert original(found, "f") is None
    assert reexported(found, "f") == ("e", "./z")


def test_js_require_forms():
    """`const {g: h, k} = require()`, `const m = require()`, a bare `require()`."""
    text = "const {g: h, k} = require('./r');\nconst m = require('m');\nrequire('./init');\n"
    assert _rows(text, "javascript") == [
        ("h", "g", "./r", 0, False), ("k", "k", "./r", 0, False), ("m", MODULE, "m", 1, False),
        ("", MODULE, "./init", 2, False),
    ]
    assert original(imports(text, "javascript"), "h") == ("g", "./r")


def test_tsc_wraps_a_require_in_a_helper():
    """`var x_1 = __importDefault(require("./x"))`, `tslib_1.__importStar(require(...))`: module bindings."""
    text = 'var x_1 = __importDefault(require("./x"));\nconst E = tslib_1.__importStar(require("./Either"));\n'
    assert _rows(text, "javascript") == [("x_1", MODULE, "./x", 0, False), ("E", MODULE, "./Either", 1, False)]


def test_a_declaration_file_is_its_modules_file_and_comes_first():
    """`./Apply` names lib/Apply.d.ts as it names lib/Apply.js; TypeScript takes the declaration."""
    assert is_module_file("lib/Apply.d.ts", "./Apply", "lib/EitherT.js", "javascript")
    assert is_module_file("lib/Apply.d.mts", "./Apply.js", "lib/EitherT.js", "javascript")
    assert not is_module_file("lib/Apply.d.ts", "./Applicative", "lib/EitherT.js", "javascript")
    paths = ["lib/Apply.js", "lib/Apply.d.ts", "lib/Apply.ts"]
    assert min(paths, key=resolution_order) == "lib/Apply.ts"
    assert min(paths[:2], key=resolution_order) == "lib/Apply.d.ts"


# -- Go -----------------------------------------------------------------------------------


def test_go_imports_with_aliases_and_conventional_names():
    """A block with an alias, a versioned path and a comment; a one-line import."""
    text = 'package p\n\nimport (\n\tf "fmt"\n\t"gopkg.in/yaml.v3" // yaml\n\t"github.com/x/y/v2"\n)\n\nimport z "a/b"\n'
    assert _rows(text, "go") == [
        ("f", MODULE, "fmt", 3, False),
        ("yaml", MODULE, "gopkg.in/yaml.v3", 4, False),
        ("y", MODULE, "github.com/x/y/v2", 5, False),
        ("z", MODULE, "a/b", 8, False),
    ]


# -- receivers --------------------------------------------------------------------------


def test_a_receiver_named_after_its_type():
    """`subscriber` -> `Subscriber`; `new_job`, `self.job`, `_job` are named after `Job`; self is none."""
    assert receiver_type("subscriber") == "Subscriber"
    assert receiver_type("self") is None
    assert all(named_after(r, "Job") for r in ("job", "new_job", "self.job", "_job"))
    assert not named_after("option", "Job")


@pytest.mark.parametrize(
    ("text", "marker", "language", "expected"),
    [
        ("def f(cxt: KeywordCxt):\n    cxt.error()\n", "error", "python", "KeywordCxt"),
        ("def f():\n    job = Job(1)\n    job.run()\n", "run", "python", "Job"),
        ("package p\n\nfunc (e *Entry) Log() {\n\te.write()\n}\n", "write", "go", "Entry"),
        ("def f(x):\n    x.run()\n", "run", "python", None),
    ],
)
def test_declared_type_where_it_is_plain_to_see(text, marker, language, expected):
    """A parameter's annotation, what the name was made from, a Go receiver; else None."""
    doc = _doc(text, "x.go" if language == "go" else "x.py", language)
    receiver = "e" if language == "go" else text[text.index(marker) - 4 : text.index(marker) - 1].strip(" .")
    assert declared_type(doc, text.index(marker), receiver) == expected


def test_declared_type_through_a_functions_declared_return():
    """`task = create_job()`: what `returns` says `create_job` declares; without it, the maker's name."""
    text = "def f():\n    task = create_job()\n    task.run()\n"
    doc = _doc(text, "x.py", "python")
    returns = {"create_job": "Job"}.get
    assert declared_type(doc, text.index("run"), "task", returns) == "Job"
    assert declared_type(doc, text.index("run"), "task") == "create_job"


@pytest.mark.parametrize(("signature", "language", "words"), [
    ("def make_store(path: str) -> Store[Job]:", "python", ["Store", "Job"]),
    ('    def load(self) -> "Job":  # cached', "python", ["Job"]),
    ("def f(a,\n      b) -> Optional[Job]:", "python", ["Optional", "Job"]),
    ("def f(a):", "python", []),
    ("export function makeStore(path: string): Store<Job> {", "typescript", ["Store", "Job"]),
    ("export const createJob = (): Job => ({ promise: null });", "typescript", ["Job"]),
    ("  load(): T;", "typescript", ["T"]),
    ("  get items(): Item[] {", "typescript", ["Item"]),
    ("export function on(listener: (e: Evt) => void): Unsubscribe {", "typescript", ["Unsubscribe"]),
    ("function f(a, b) {", "javascript", []),
    ("func NewServer(port int) (*Server, error) {", "go", ["Server"]),
    ("func (s *Server) Store() Store[Job] { return nil }", "go", ["Store", "Job"]),
    ("func (s *Server) Run(ctx context.Context) {", "go", []),
    ("func Open(name string) *os.File {", "go", ["File"]),
])
def test_the_return_type_a_signature_declares(signature, language, words):
    """Written-out type arguments count; a qualifier (`os.`) and a parameter's type do not."""
    assert type_words(declared_return(signature, language) or "") == words


# -- the two places it serves -------------------------------------------------------------

CORE = "class Widget:\n    def __init__(self, name):\n        self.name = name\n\n    def render(self):\n        return self.name\n"
OTHER = "class Widget:\n    def render(self):\n        return 'other'\n"


@pytest.fixture
def widgets(tmp_path: Path):
    root = tmp_path / "ws"
    (root / "pkg" / "widgets").mkdir(parents=True)
    (root / "pkg" / "core").mkdir()
    (root / "pkg" / "widgets" / "core.py").write_text(CORE, encoding="utf-8")
    (root / "pkg" / "widgets" / "zz_other.py").write_text(OTHER, encoding="utf-8")
    for n in range(4):  # more `render`s than the context shows definers of one name, as close to the import
        (root / "pkg" / "core" / f"a{n}.py").write_text(f"class Gizmo{n}:\n    def render(self):\n        return {n}\n", encoding="utf-8")
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    yield index
    index.close()


def _context(source: str, marker: str, lookup) -> list[tuple[str, int]]:
    doc = _doc(source, "pkg/widgets/app.py")
    at = source.index(marker)
    ctx = build_edit_context(doc, at, at, path="pkg/widgets/app.py", max_region_lines=300, lookup=lookup)
    return [(s.path, s.start_line) for s in ctx.snippets if s.kind != "import"]


def test_context_an_aliased_class_resolves_to_its_original_in_its_module(widgets):
    """`BaseWidget(...)` where `from .core import Widget as BaseWidget`: core.py's Widget
    (small: whole, its `__init__` in it), not the other file's Widget."""
    source = "from .core import Widget as BaseWidget\n\n\ndef make():\n    return BaseWidget('a')\n"
    assert _context(source, "return", widgets) == [("pkg/widgets/core.py", 0)]


def test_context_super_through_an_alias_finds_the_base_member(widgets):
    """`super().render()` in `class Fancy(BaseWidget)`: core.py's `Widget.render`, first
    among the six files' `render`s (the Gizmos' in `pkg/core/` come first in the index)."""
    source = (
        "from .core import Widget as BaseWidget\n\n\nclass Fancy(BaseWidget):\n"
        "    def render(self):\n        return super().render() + '!'\n"
    )
    assert ("pkg/widgets/core.py", 4) in _context(source, "return super", widgets)


def test_follow_ups_a_renamed_import_follows_on_its_import_line_only():
    """`Widget` renamed in pkg/core.py: a file that imports it as `BaseWidget` and defines
    its own `Widget` follows on the import line, never at its own Widget or the alias's uses."""
    text = (
        "from .core import Widget as BaseWidget\n\n\nclass Widget(BaseWidget):\n    pass\n\n\n"
        "w = Widget(BaseWidget('a'))\n"
    )
    doc = _doc(text, "pkg/fancy.py")
    change = Outward("Widget", "Gadget")
    link = link_of(doc, "pkg/fancy.py", "pkg/core.py", ["Widget"])
    assert [site[:2] for site in find_sites(doc, [change], link)] == [(0, 0)]
    plain = _doc("from .core import Widget\n\nw = Widget('a')\n", "pkg/use.py")
    plain_link = link_of(plain, "pkg/use.py", "pkg/core.py", ["Widget"])
    assert [site[:2] for site in find_sites(plain, [change], plain_link)] == [(0, 0), (2, 2)]
