"""Follow-ups in other files: which changes other files follow (`outward_changes`),
which files see the edited module (`link_of`), and where they follow (`find_sites`);
the multi-region answer (`read_answers`) and the action's title."""

from __future__ import annotations

import asyncio
import pytest

from sparkls.documents.store import DocumentStore
from sparkls.errors import NoUsableReply
from sparkls.nextedit.elsewhere import Outward, find_sites, link_of, outward_changes, with_index
from sparkls.nextedit.followups import FileSites, FollowUps
from sparkls.nextedit.prompt import read_answers
from tests.unit.nextedit_session import Session

SHAPES = '''class Shape:
    def __init__(self):
        self.count = 0

    def area(self, r):
        return r


def total(shapes, unit=1):
    x = 1
    return sum(s.area(x) for s in shapes) * unit


LIMIT = 10
'''


def _changes(line: int, old: str, new: str) -> list[Outward]:
    session = Session(SHAPES, "file:///w/pkg/shapes.py", "python")
    session.rename_on(line, old, new)
    return outward_changes(session.doc, session.history.edits)


def _doc(text: str, path: str, language_id: str = "python"):
    return DocumentStore().open(f"file:///w/{path}", text, 1, language_id)


def _sites(text: str, path: str, changes: list[Outward], language_id: str = "python", source: str = "pkg/shapes.py"):
    doc = _doc(text, path, language_id)
    return find_sites(doc, changes, link_of(doc, path, source, [c.name for c in changes]))


# -- which changes other files follow ---------------------------------------------------


def test_a_renamed_module_function_goes_out_as_a_module_name():
    assert _changes(8, "total", "grand_total") == [Outward("total", "grand_total")]


def test_a_renamed_method_goes_out_as_a_member_of_its_class():
    assert _changes(4, "area", "surface") == [Outward("area", "surface", member=True, container="Shape")]


def test_a_renamed_field_goes_out_as_a_member():
    assert _changes(2, "count", "total") == [Outward("count", "total", member=True, container="Shape")]


def test_a_renamed_module_variable_goes_out():
    assert _changes(13, "LIMIT", "MAX") == [Outward("LIMIT", "MAX")]


@pytest.mark.parametrize(("line", "old", "new"), [(9, "x", "y"), (8, "unit", "units"), (8, "shapes", "items")])
def test_a_renamed_local_or_parameter_stays_in_its_function(line, old, new):
    changes = _changes(line, old, new)
    assert [c for c in changes if c.new is not None] == []


def test_a_renamed_use_is_not_a_renamed_definition():
    """Renaming the call `s.area(x)` changes what this line calls, nothing elsewhere."""
    assert _changes(10, "area", "volume") == []


def test_a_parameter_added_goes_out_as_a_changed_signature():
    session = Session(SHAPES, "file:///w/pkg/shapes.py", "python")
    session.type_before(8, ", unit=1)", ", scale")
    assert outward_changes(session.doc, session.history.edits) == [Outward("total")]


@pytest.mark.parametrize(("before", "typed"), [(", unit=1)", ": list"), ("=1)", ": int"), (":", " -> float")])
def test_type_hints_added_change_no_call(before, typed):
    """"add type hints" (a parameter's type, a default's, the return type): no call must
    change, so nothing goes out ("Spark: update 1 call site" would find nothing to do)."""
    session = Session(SHAPES, "file:///w/pkg/shapes.py", "python")
    session.type_before(8, before, typed)
    assert outward_changes(session.doc, session.history.edits) == []


def test_a_parameter_only_renamed_goes_out_with_its_keyword():
    session = Session(SHAPES, "file:///w/pkg/shapes.py", "python")
    session.rename_on(8, "unit", "factor")
    (change,) = outward_changes(session.doc, session.history.edits)
    assert change == Outward("total", keywords=("unit",))


# -- which files see the edited module --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "imports", "qualifiers"),
    [
        ("from pkg.shapes import total\n", True, set()),
        ("from .shapes import total\n", True, set()),
        ("from pkg import shapes\n", True, {"shapes"}),
        ("from pkg import shapes as sh\n", True, {"sh"}),
        ("import pkg.shapes as sh\n", True, {"sh"}),
        ("import pkg.shapes\n", True, {"pkg.shapes"}),
        ("from pkg import total\n", True, set()),  # the package re-exports it
        ("from pkg.colors import total\n", True, set()),  # names it: may be a re-export
        ("from pkg.colors import red\n", False, set()),
        ("import os\n", False, set()),
    ],
)
def test_python_imports_of_the_module(text, imports, qualifiers):
    link = link_of(_doc(text, "app.py"), "app.py", "pkg/shapes.py", ["total"])
    assert (link.imports, set(link.qualifiers)) == (imports, qualifiers)


@pytest.mark.parametrize(
    ("text", "path", "imports"),
    [
        ("import { total } from './shapes';\n", "lib/app.js", True),
        ("import { total } from './shapes.js';\n", "lib/app.js", True),
        ("const shapes = require('../lib/shapes');\n", "test/app.test.js", True),
        ("import * as shapes from './shapes';\n", "lib/app.ts", True),
        ("import { total } from './colors';\n", "lib/app.js", False),
        ("import { total } from '../shapes';\n", "lib/app.js", False),  # another shapes
    ],
)
def test_javascript_imports_of_the_module(text, path, imports):
    language = "typescript" if path.endswith(".ts") else "javascript"
    link = link_of(_doc(text, path, language), path, "lib/shapes.js", ["total"])
    assert link.imports is imports


def test_go_files_of_the_same_package_and_importers_see_it():
    same = link_of(_doc("package cmd\n", "cmd/run.go", "go"), "cmd/run.go", "cmd/root.go", ["Execute"])
    importer = link_of(
        _doc('package main\n\nimport "github.com/x/tool/cmd"\n', "main.go", "go"), "main.go", "cmd/root.go", ["Execute"]
    )
    other = link_of(_doc('package main\n\nimport "fmt"\n', "main.go", "go"), "main.go", "cmd/root.go", ["Execute"])
    assert same.imports and importer.imports and not other.imports
    assert importer.qualifiers == frozenset({"cmd"})


# -- where another file follows ---------------------------------------------------------

APP = '''from pkg.shapes import total, Shape
import pkg.shapes as sh


def scale(total):
    return total * 2


def report(items):
    # total of the shapes
    print("total:", total(items), sh.total(items))
    return other.total + total(items, unit=2)
'''


def test_an_importer_follows_a_module_name_in_code_and_not_in_another_scope():
    sites = _sites(APP, "app.py", [Outward("total", "grand_total")])
    # the import, and line 11's two uses; not scale's own `total`, not the comment, the
    # string or `other.total`; line 12's bare call is there.
    assert [(first, last) for first, last, _ in sites] == [(0, 0), (10, 11)]


def test_a_file_that_does_not_import_the_module_has_no_site():
    assert _sites(APP.replace("from pkg.shapes import total, Shape\nimport pkg.shapes as sh\n", ""), "app.py",
                  [Outward("total", "grand_total")]) == []


def test_calls_of_a_changed_signature():
    sites = _sites(APP, "app.py", [Outward("total")])
    assert [(first, last) for first, last, _ in sites] == [(10, 11)]
    assert sites[0][2] == "call of total"


def test_a_parameter_only_renamed_reaches_only_calls_passing_it_by_name():
    sites = _sites(APP, "app.py", [Outward("total", keywords=("unit",))])
    assert [(first, last) for first, last, _ in sites] == [(11, 11)]


METHOD_USER = "def show(s):\n    return s.area(2) + area(3)\n"


def test_a_member_follows_through_a_member_access_only_where_it_is_plain():
    change = Outward("area", "surface", member=True, container="Shape")
    assert _sites(METHOD_USER, "view.py", [change]) == []  # no import, no Shape: `s` may be anything
    assert [s[:2] for s in _sites("from pkg.shapes import Shape\n" + METHOD_USER, "view.py", [change])] == [(2, 2)]
    assert [s[:2] for s in _sites("# a Shape\n" + METHOD_USER, "view.py", [change])] == [(2, 2)]  # names the class


def test_javascript_and_go_sites():
    js = "import { total } from './shapes';\n\nexport const t = total([]);\n// total\n"
    assert [s[:2] for s in _sites(js, "lib/app.js", [Outward("total", "sum")], "javascript", "lib/shapes.js")] == [
        (0, 0), (2, 2)]
    go = 'package main\n\nimport "example.com/x/cmd"\n\nfunc main() {\n\tcmd.Execute()\n\tExecute()\n}\n'
    sites = _sites(go, "main.go", [Outward("Execute", "Run")], "go", "cmd/root.go")
    assert [s[:2] for s in sites] == [(5, 6)]  # `cmd.Execute`; the bare one is main's own package's


# -- the answer and the action ----------------------------------------------------------


def test_an_answer_rewrites_several_regions_and_labels_in_code_do_not_count():
    reply = "Region 1\n```python\n# Region 2 of this file\nx = 1\n```\nRegion 3\n```python\ny = 2\n```\n"
    answers = read_answers(reply, 3)
    assert [index for index, _ in answers] == [0, 2]
    assert "# Region 2 of this file" in answers[0][1] and "y = 2" in answers[1][1]


def test_no_edit_and_a_region_out_of_range():
    assert read_answers("NO_EDIT", 2) == []
    with pytest.raises(NoUsableReply):
        read_answers("Region 4\n```\nx\n```", 2)


def _follow_ups(changes, sites_per_file) -> FollowUps:
    files = tuple(
        FileSites(f"file:///w/f{n}.py", f"f{n}.py", None, "", "python", tuple((i, i, "r") for i in range(count)))
        for n, count in enumerate(sites_per_file)
    )
    return FollowUps("file:///w/a.py", "a.py", 1, tuple(changes), (), files)


def test_the_action_says_what_and_how_many():
    assert _follow_ups([Outward("area", "surface")], [3, 1]).title == "Spark: update 4 uses of area in 2 files"
    assert _follow_ups([Outward("area", "surface")], [1]).title == "Spark: update 1 use of area in 1 file"
    assert _follow_ups([Outward("area")], [5, 1, 1]).title == "Spark: update 7 call sites in 3 files"
    assert _follow_ups([Outward("area", "s"), Outward("total")], [2]).title == "Spark: update 2 places in 1 file"


def test_a_field_renamed_where_a_parameter_of_its_name_is_assigned_goes_out():
    """`self.count = count` in `__init__(self, count)`: the field, not the parameter."""
    text = "class Shape:\n    def __init__(self, count):\n        self.count = count\n"
    session = Session(text, "file:///w/pkg/shapes.py", "python")
    session.rename_on(2, "count", "total")
    assert outward_changes(session.doc, session.history.edits) == [
        Outward("count", "total", member=True, container="Shape")
    ]


def test_what_the_index_says_of_a_member():
    rows = {"default": [("lib/argument.js", "Argument"), ("lib/option.js", "Option")], "fresh": []}
    default = Outward("default", "byDefault", member=True, container="Argument")
    fresh = Outward("fresh", "recent", member=True, container="Argument")
    module = Outward("default", "byDefault")
    assert [c.rivals for c in with_index([default, fresh, module], "lib/argument.js", rows)] == [
        frozenset({"option"}), frozenset(), frozenset()]


CLASS_USER = '''const { Argument } = require('./argument');
const shapes = require('./argument');

class Command {
  run(option, argument) {
    this.default = 1;
    exports.default = 2;
    shapes.default();
    this._option.default('x');
    helpOption.default();
    return option.default + argument.default;
  }
}
'''


def test_a_members_sites_leave_out_what_is_plainly_another_things():
    """Not the file's own `this.default` (it defines one), not `exports.`, not the module
    itself, not a receiver named after another class that defines it."""
    (change,) = with_index(
        [Outward("default", "byDefault", member=True, container="Argument")], "lib/argument.js",
        {"default": [("lib/argument.js", "Argument"), ("lib/option.js", "Option"), ("lib/command.js", "Command")]},
    )
    doc = _doc(CLASS_USER, "lib/command.js", "javascript")
    link = link_of(doc, "lib/command.js", "lib/argument.js", ["default"], ["default"])
    assert [s[:2] for s in find_sites(doc, [change], link)] == [(10, 10)]  # `argument.default` only


def test_the_action_says_when_more_files_follow():
    follow = _follow_ups([Outward("area", "surface")], [2])
    follow.more = True
    assert follow.title == "Spark: update 2 uses of area in 1 file (more files follow: pick it again after)"


def test_the_action_counts_uses_and_names_only_the_changes_that_found_a_place():
    """Two uses on touching lines are one site but two uses; an earlier edit's change that
    found nothing (a parameter renamed: calls passing it by name) is not named."""
    rename, unused = Outward("area", "surface"), Outward("area", keywords=("radius",))
    site = FileSites("file:///w/a.py", "a.py", None, "", "python", ((0, 1, rename.reason),), uses=2)
    follow = FollowUps("file:///w/s.py", "s.py", 1, (unused, rename), (), (site,))
    assert follow.title == "Spark: update 2 uses of area in 1 file"


async def test_the_book_keeps_asks_ahead_once_and_names_the_open_followers_not_asked_yet():
    from sparkls.nextedit.followups import FollowUpBook

    opened = FileSites("file:///w/b.py", "b.py", 3, "x", "python", ((0, 0, "r"),))
    on_disk = FileSites("file:///w/c.py", "c.py", None, "x", "python", ((0, 0, "r"),))
    book, asked = FollowUpBook(), []

    def ahead(found):
        asked.append(found)
        return asyncio.ensure_future(asyncio.sleep(60))

    first = FollowUps("file:///w/a.py", "a.py", 1, (Outward("area", "s"),), (), (opened, on_disk))
    assert book.keep(first.uri, first, ahead=ahead) == [opened]  # b.py is open; c.py is not
    answer = first.ahead
    again = FollowUps(first.uri, "a.py", 2, first.changes, (), (opened, on_disk))
    assert book.keep(again.uri, again, ahead=ahead) == []  # b.py asked already
    assert asked == [first] and again.ahead is answer and not answer.cancelled()
    assert book.get(first.uri, 1) is None and book.get(first.uri, 2) is again
    moved = FollowUps(first.uri, "a.py", 3, first.changes, (), (on_disk,))
    book.keep(moved.uri, moved, ahead=ahead)
    await asyncio.sleep(0)
    assert asked == [first, moved] and answer.cancelled()  # other files: asked anew, the old answer dropped
    book.forget(first.uri)
    assert book.held() == 0


def test_a_receiver_declared_with_the_class_is_plainly_its_own():
    """Other classes define `error` too (rivals): `cxt: KeywordCxt` is plain to see, `c` is not."""
    change = Outward("error", member=True, container="KeywordCxt", rivals=frozenset({"ajv"}))
    text = "import {KeywordCxt} from './keyword'\n\nfunction f(cxt: KeywordCxt, c) {\n  cxt.error()\n  c.error()\n}\n"
    doc = _doc(text, "lib/use.ts", "typescript")
    assert [s[:2] for s in find_sites(doc, [change], link_of(doc, "lib/use.ts", "lib/keyword.ts", ["error"]))] == [(3, 3)]
    go = "package logrus\n\nfunc (e *Entry) log() {\n\tx := &Entry{}\n\tx.write()\n\te.write()\n}\n"
    change = Outward("write", "emit", member=True, container="Entry", rivals=frozenset({"writer"}))
    doc = _doc(go, "entry_log.go", "go")
    assert [s[:2] for s in find_sites(doc, [change], link_of(doc, "entry_log.go", "entry.go", ["write"]))] == [
        (4, 5)]


def test_an_imported_module_and_a_spread_are_no_receivers_of_the_member():
    change = Outward("Exit", "Quit", member=True, container="Logger")
    go = 'package logrus\n\nimport "os"\n\nfunc (l *Logger) stop() {\n\tos.Exit(1)\n\tl.Exit(2)\n}\n'
    doc = _doc(go, "exit.go", "go")
    assert [s[:2] for s in find_sites(doc, [change], link_of(doc, "exit.go", "logger.go", ["Exit"]))] == [(6, 6)]
    js = "const shapes = require('./shapes');\nf(...area, shapes.x.area);\n"
    change = Outward("area", "surface", member=True, container="Shape")
    doc = _doc(js, "lib/use.js", "javascript")
    assert [s[:2] for s in find_sites(doc, [change], link_of(doc, "lib/use.js", "lib/shapes.js", ["area"]))] == [
        (1, 1)]  # `shapes.x.area`, not `...area`


def test_a_renamed_field_is_not_followed_into_another_classs_self():
    text = ("class A:\n    def __init__(self):\n        self.count = 0\n\n    def up(self):\n        self.count += 1\n\n\n"
            "class B:\n    def __init__(self):\n        self.count = 5\n")
    session = Session(text, "file:///w/ab.py", "python")
    session.rename_on(2, "count", "total")
    assert [c[:2] for c in session.candidates()] == [(5, 5)]  # A's `self.count`, not B's
