"""Issue 26: a name the file imports is its module's definition, followed through that
module's re-exports (`resolve.origin`), and the context sends that one; a very large
class comes as its header, its constructor's signature and the member used."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparkls.context.builder import build_edit_context
from sparkls.context.index.workspace import WorkspaceIndex
from sparkls.context.resolve import imports, origin
from sparkls.documents.store import DocumentStore
from sparkls.guard.exclusions import PathFilter


def _resolve(files: dict[str, str], here: str, word: str, language: str = "python",
             defined: dict[str, set[str]] | None = None):
    """`origin` over an in-memory tree; a file defines the names `defined` gives it."""
    defined = defined or {}
    reads: list[str] = []

    def read(path: str) -> str | None:
        reads.append(path)
        return files.get(path)

    found = imports(files[here], language)
    return origin(found, word, here, language, read, lambda name: [p for p, ns in defined.items() if name in ns]), reads


def test_a_package_reexport_leads_to_the_module_that_defines_it():
    files = {"app.py": "from pkg import Thing\n", "pkg/__init__.py": "from .impl import Thing\n", "pkg/impl.py": ""}
    found, _ = _resolve(files, "app.py", "Thing", defined={"pkg/impl.py": {"Thing"}})
    assert found == ("Thing", "pkg/impl.py")


def test_a_rename_in_the_package_file_is_followed_under_its_own_name():
    files = {"a/app.py": "from ..pkg import Thing as T\n", "pkg/__init__.py": "from .impl import Real as Thing\n",
             "pkg/impl.py": ""}
    found, _ = _resolve(files, "a/app.py", "T", defined={"pkg/impl.py": {"Real"}, "pkg/__init__.py": set()})
    assert found == ("Real", "pkg/impl.py")


def test_a_star_import_follows_the_modules_all_and_stops_where_it_is_not_listed():
    files = {
        "app.py": "from pkg import helper, hidden\n",
        "pkg/__init__.py": "from .tools import *\n",
        "pkg/tools.py": "__all__ = ['helper']\nfrom .deep import helper\nfrom .deep import hidden\n",
        "pkg/deep.py": "",
    }
    defined = {"pkg/deep.py": {"helper", "hidden"}}
    assert _resolve(files, "app.py", "helper", defined=defined)[0] == ("helper", "pkg/deep.py")
    assert _resolve(files, "app.py", "hidden", defined=defined)[0] is None  # not in tools' __all__


def test_a_name_no_import_binds_is_looked_for_in_the_files_star_modules():
    files = {"pkg/app.py": "from .base import *\nfrom .other import *\n", "pkg/base.py": "", "pkg/other.py": ""}
    defined = {"pkg/other.py": {"helper"}}
    assert _resolve(files, "pkg/app.py", "helper", defined=defined)[0] == ("helper", "pkg/other.py")


def test_an_absolute_module_is_found_under_the_files_folders_and_an_outside_one_reads_nothing_readable():
    files = {"src/pkg/cli.py": "from pkg import Thing\nfrom os import path\n", "src/pkg/__init__.py": "Thing = 1\n"}
    assert _resolve(files, "src/pkg/cli.py", "Thing", defined={"src/pkg/__init__.py": {"Thing"}})[0] == (
        "Thing", "src/pkg/__init__.py")
    found, reads = _resolve(files, "src/pkg/cli.py", "path", defined={"src/pkg/util.py": {"path"}})
    assert found is None and "os.py" in reads and "src/os/__init__.py" in reads


def test_re_exports_stop_after_three_files_and_a_cycle_ends():
    chain = {"app.py": "from a import x\n", "a/__init__.py": "from b import x\n", "b/__init__.py": "from c import x\n",
             "c/__init__.py": "from d import x\n", "d/__init__.py": ""}
    assert _resolve(chain, "app.py", "x", defined={"c/__init__.py": {"x"}})[0] == ("x", "c/__init__.py")
    assert _resolve(chain, "app.py", "x", defined={"d/__init__.py": {"x"}})[0] is None  # a fourth file: too far
    cycle = {"app.py": "from a import x\n", "a/__init__.py": "from b import x\n", "b/__init__.py": "from a import x\n"}
    assert _resolve(cycle, "app.py", "x")[0] is None


@pytest.mark.parametrize("index_text", [
    "export * from './widgets';\nexport { make as build } from './factory';\n",
    "export { Widget } from './widgets.js';\nexport { make as build } from './factory.js';\n",
])
def test_javascript_reexports_through_an_index_file(index_text):
    files = {"src/app.ts": "import { Widget, build } from './lib';\n", "src/lib/index.ts": index_text,
             "src/lib/widgets.ts": "", "src/lib/factory.ts": ""}
    defined = {"src/lib/widgets.ts": {"Widget"}, "src/lib/factory.ts": {"make"}}
    assert _resolve(files, "src/app.ts", "Widget", "typescript", defined)[0] == ("Widget", "src/lib/widgets.ts")
    assert _resolve(files, "src/app.ts", "build", "typescript", defined)[0] == ("make", "src/lib/factory.ts")


# -- through the context, on a real index ---------------------------------------------------------

BIG_METHODS = "".join(f"    def step{n}(self):\n        return self.total + {n}\n\n" for n in range(150))


@pytest.fixture
def progress(tmp_path: Path):
    """A package like tqdm's: `Bar` re-exported by `__init__`, defined in a 450-line
    `core.py`, and four other files defining classes named `Bar` and methods `close`."""
    root = tmp_path / "w"
    (root / "bars").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "bars" / "__init__.py").write_text("from .core import *\n", encoding="utf-8")
    (root / "bars" / "core.py").write_text(
        "__all__ = ['Bar']\n\n\nclass Bar:\n    \"\"\"A progress bar.\"\"\"\n\n"
        "    def __init__(self, iterable=None, total=None,\n                 file=None, leave=True):\n"
        "        self.total = total\n        self.file = file\n"
        + "".join(f"        self.option{n} = {n}\n" for n in range(30)) + "\n"
        + BIG_METHODS
        + "    def close(self):\n        self.file = None\n", encoding="utf-8")
    for n in range(4):
        (root / "bars" / f"alt{n}.py").write_text(
            f"class Bar:\n    def close(self):\n        return {n}\n", encoding="utf-8")
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    yield index
    index.close()


def _snippets(source: str, marker: str, lookup, path: str = "tests/test_bar.py"):
    doc = DocumentStore().open(f"file:///w/{path}", source, 1, "python")
    at = source.index(marker)
    return build_edit_context(doc, at, at, path=path, max_region_lines=300, lookup=lookup).snippets


def test_a_local_import_through_a_package_star_reexport_sends_the_very_large_class_by_its_parts(progress):
    """`from bars import Bar` inside a test, where `bars/__init__.py` does `from .core
    import *`: core.py's `Bar` among five, as its header, its `__init__` signature (which
    holds the `file=` the call passes) and the `close` used, never the 450-line body."""
    source = ("def test_close():\n    from bars import Bar\n    bar = Bar(total=3, file=None)\n"
              "    bar.close()\n")
    snippets = [s for s in _snippets(source, "bar.close", progress) if s.kind != "import"]
    shown = {(s.path, s.start_line, s.kind) for s in snippets}
    assert ("bars/core.py", 3, "signature") in shown  # the class's header and docstring
    init = next(s for s in snippets if s.path == "bars/core.py" and s.start_line == 6)
    assert "file=None" in init.text and "self.total = total" not in init.text  # the signature only
    closes = [s.path for s in snippets if s.text.lstrip().startswith("def close")]
    assert closes == ["bars/core.py"]  # the other files' `Bar.close` are other classes'
    assert not any(s.path.startswith("bars/alt") for s in snippets)
    assert sum(s.end_line - s.start_line + 1 for s in snippets if s.path == "bars/core.py") < 20


def test_without_the_import_the_five_bars_stay_ambiguous(progress):
    """The same region with no import names no module: four other files' `close` fill
    the definers and core.py's is not among them (what the import above decides)."""
    source = "def test_close():\n    bar = Bar(total=3)\n    bar.close()\n"
    closes = [s.path for s in _snippets(source, "bar.close", progress) if s.text.lstrip().startswith("def close")]
    assert closes and "bars/core.py" not in closes


# -- the same rule in next edit's follow-ups --------------------------------------------------


def _link(files: dict[str, str], other: str, source: str, names: list[str], language: str):
    from sparkls.nextedit.elsewhere import leads_through, link_of

    def where(name: str) -> list[str]:  # the files with a class of that name, as the index would say
        return [path for path, text in files.items() if f"class {name}" in text]

    doc = DocumentStore().open(f"file:///w/{other}", files[other], 1, language)
    return link_of(doc, other, source, names, leads=leads_through(files.get, where))


def test_follow_ups_see_a_name_imported_through_an_index_that_re_exports_it():
    """`Widget` renamed in src/lib/widgets.ts: src/app.ts imports it from './lib', whose
    index does `export * from './widgets'`; without the reader it is not seen."""
    files = {"src/app.ts": "import { Widget } from './lib';\nnew Widget();\n",
             "src/lib/index.ts": "export * from './widgets';\n",
             "src/lib/widgets.ts": "export class Widget {}\n"}
    assert _link(files, "src/app.ts", "src/lib/widgets.ts", ["Widget"], "typescript").imports
    from sparkls.nextedit.elsewhere import link_of
    doc = DocumentStore().open("file:///w/src/app.ts", files["src/app.ts"], 1, "typescript")
    assert not link_of(doc, "src/app.ts", "src/lib/widgets.ts", ["Widget"]).imports


def test_follow_ups_leave_an_import_that_leads_to_another_module_of_that_name():
    """`Thing` renamed in pkg/old.py: app.py's `from pkg import Thing` leads to pkg/new.py
    (pkg/__init__.py re-exports that one), so app.py does not see the change; an import
    that leads nowhere readable keeps the old rule (it counts)."""
    files = {"app.py": "from pkg import Thing\nThing()\n", "pkg/__init__.py": "from .new import Thing\n",
             "pkg/new.py": "class Thing: pass\n", "pkg/old.py": "class Thing: pass\n"}
    assert not _link(files, "app.py", "pkg/old.py", ["Thing"], "python").imports
    assert _link(files, "app.py", "pkg/new.py", ["Thing"], "python").imports
    del files["pkg/__init__.py"]
    assert _link(files, "app.py", "pkg/old.py", ["Thing"], "python").imports


def test_a_gitignored_package_file_is_followed_but_never_sent(tmp_path: Path):
    """`from vendor import Thing` where `vendor/__init__.py` (gitignored, holding a key)
    re-exports `.impl`'s Thing: the context finds impl.py's Thing, and the sealed
    request holds nothing of the ignored file."""
    from sparkls.context.prompt import render_edit_prompt
    from sparkls.guard import Guard
    from tests.canaries import CANARIES

    key = CANARIES["gitignored file"]
    root = tmp_path / "w"
    (root / "vendor").mkdir(parents=True)
    (root / ".gitignore").write_text("/vendor/__init__.py\n")
    (root / "vendor" / "__init__.py").write_text(f'from .impl import Thing\nKEY = "{key}"\n')
    (root / "vendor" / "impl.py").write_text("class Thing:\n    def __init__(self, size):\n        self.size = size\n")
    for n in range(5):  # other files defining Thing: only the import decides
        (root / f"other{n}.py").write_text(f"class Thing:\n    kind = {n}\n")
    source = "def make():\n    from vendor import Thing\n    return Thing(3)\n"
    (root / "app.py").write_text(source)
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    try:
        index.index.build(PathFilter.from_root(root))
        doc = DocumentStore().open((root / "app.py").as_uri(), source, 1, "python")
        at = source.index("return")
        ctx = build_edit_context(doc, at, at, path="app.py", max_region_lines=300, lookup=index)
        wire = Guard(root).seal(render_edit_prompt(ctx, "instruction"))
    finally:
        index.close()
    assert [s.path for s in ctx.snippets if s.kind != "import" and "class Thing" in s.text] == ["vendor/impl.py"]
    assert key not in wire.input and "vendor/__init__.py" not in wire.input
