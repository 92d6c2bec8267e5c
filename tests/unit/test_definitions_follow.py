"""Types followed one step further, by what the code declares (issue 39), per shape and
language: a called function's declared return type through destructuring and member
access, a callback's parameter typed where the callee is declared (by an alias), union
and intersection members, `extends` and Go's embedding, written-out type arguments,
a field's declared type. Each workspace holds five rival types that define the same
member in five folders: the member sent is the one of the type the code declares."""

from pathlib import Path

import pytest

from sparkls.context.builder import build_edit_context
from sparkls.context.index.workspace import WorkspaceIndex
from sparkls.documents.store import DocumentStore
from sparkls.guard.exclusions import PathFilter

RIVALS = {
    "typescript": "export interface Rival{n} {{\n  {member}: () => string; // rival {member}\n}}\n",
    "python": "class Rival{n}:\n    def {member}(self):\n        return 'rival {member}'\n",
    "go": "package r{n}\n\ntype Rival{n} struct {{\n\t{member} string // rival {member}\n}}\n",
}
EXTENSION = {"typescript": "ts", "python": "py", "go": "go"}


def _sent(
    tmp_path: Path, language: str, member: str, files: dict[str, str], region: str, marker: str, name: str = ""
) -> str:
    """The snippets' text for an edit at `marker` of `region` (`name`, else main.*), in a
    workspace of `files` and five rival types defining `member`."""
    root = tmp_path / "ws"
    for n in range(5):
        rival = root / f"r{n}" / f"rival.{EXTENSION[language]}"
        rival.parent.mkdir(parents=True)
        rival.write_text(RIVALS[language].format(n=n, member=member), encoding="utf-8")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    name = name or f"main.{EXTENSION[language]}"
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    try:
        doc = DocumentStore().open(f"file:///ws/{name}", region, 1)
        at = region.index(marker)
        ctx = build_edit_context(doc, at, at, path=name, max_region_lines=300, lookup=index)
    finally:
        index.close()
    return "\n".join(s.text for s in ctx.snippets)


# -- TypeScript / JavaScript ---------------------------------------------------------------

TS_STORE = {
    "model/entities.ts": "export interface Store {\n  load: () => string; // Store load\n  save: (x: string) => void;\n}\n",
    "lib/store.ts": 'import { Store } from "../model/entities";\n\n'
                    "export function makeStore(path: string): Store {\n  return null as any;\n}\n",
}


@pytest.mark.parametrize("region, marker", [
    # destructured from the call's value
    ('import { makeStore } from "./lib/store";\n\nexport function boot() {\n'
     '  const { load, save } = makeStore("x");\n  return load();\n}\n', "return load"),
    # a member of the value it was assigned
    ('import { makeStore } from "./lib/store";\n\nexport function boot() {\n'
     '  const kept = makeStore("x");\n  return kept.load();\n}\n', "return kept"),
    # a member of the call's value itself
    ('import { makeStore } from "./lib/store";\n\nexport function boot() {\n'
     '  return makeStore("x").load();\n}\n', "return makeStore"),
])
def test_typescript_a_called_functions_declared_return_type(tmp_path, region, marker):
    """`makeStore()` declares it returns `Store` (another file): its `load` is sent, no rival's."""
    sent = _sent(tmp_path, "typescript", "load", TS_STORE, region, marker)
    assert "// Store load" in sent and "// rival load" not in sent


def test_typescript_a_methods_declared_return_type(tmp_path):
    """`repo.open()` where `repo: Repo` and Repo's `open(): Store`: Store's `load`."""
    files = {**TS_STORE, "api/repo.ts": 'import { Store } from "../model/entities";\n\n'
                                        "export interface Repo {\n  open(name: string): Store;\n}\n"}
    region = ('import { Repo } from "./api/repo";\n\nexport function boot(repo: Repo) {\n'
              '  const kept = repo.open("x");\n  return kept.load();\n}\n')
    sent = _sent(tmp_path, "typescript", "load", files, region, "return kept")
    assert "// Store load" in sent and "// rival load" not in sent


def test_typescript_written_type_arguments_of_a_return_type(tmp_path):
    """`loadAll(): Promise<Array<Store>>`: an element of the awaited value is a Store."""
    files = {**TS_STORE, "lib/all.ts": 'import { Store } from "../model/entities";\n\n'
                                       "export async function loadAll(): Promise<Array<Store>> {\n  return [];\n}\n"}
    region = ('import { loadAll } from "./lib/all";\n\nexport async function boot() {\n'
              "  const kept = await loadAll();\n  return kept[0].load();\n}\n")
    sent = _sent(tmp_path, "typescript", "load", files, region, "return kept")
    assert "// Store load" in sent and "// rival load" not in sent


TS_EVENTS = {
    "model/events.ts": 'export type Change =\n  | { kind: "added"; owner: () => string } // Change added\n'
                       '  | { kind: "removed"; id: string };\n\n'
                       "export type Listener = (change: Change) => void;\n",
    "lib/emitter.ts": 'import { Listener } from "../model/events";\n\n'
                      "export function onChange(listener: Listener): void {\n  return;\n}\n",
}


@pytest.mark.parametrize("region, marker", [
    # an arrow function's parameter
    ('import { onChange } from "./lib/emitter";\n\nexport function watch() {\n'
     "  onChange((change) => {\n    console.log(change.owner());\n  });\n}\n", "console"),
    # destructured in the parameter
    ('import { onChange } from "./lib/emitter";\n\nexport function watch() {\n'
     "  onChange(({ kind, owner }) => console.log(kind, owner()));\n}\n", "console"),
    # a function expression's parameter
    ('import { onChange } from "./lib/emitter";\n\nexport function watch() {\n'
     "  onChange(function (change) {\n    console.log(change.owner());\n  });\n}\n", "console"),
])
def test_typescript_a_callbacks_parameter_typed_by_an_alias_and_union_members(tmp_path, region, marker):
    """`onChange(listener: Listener)`, `Listener = (change: Change) => void`, `Change` a
    union of object types: the arm that declares `owner` is sent, no rival's."""
    sent = _sent(tmp_path, "typescript", "owner", TS_EVENTS, region, marker)
    assert "// Change added" in sent and "// rival owner" not in sent


def test_typescript_intersection_members(tmp_path):
    """`configure(): Options` where `Options = Base & { retries: ... }`: that member."""
    files = {"model/options.ts": "export interface Base {\n  name: string;\n}\n\n"
                                 "export type Options = Base & { retries: () => string }; // Options retries\n",
             "lib/setup.ts": 'import { Options } from "../model/options";\n\n'
                             "export function configure(): Options {\n  return null as any;\n}\n"}
    region = ('import { configure } from "./lib/setup";\n\nexport function run() {\n'
              "  const opts = configure();\n  return opts.retries();\n}\n")
    sent = _sent(tmp_path, "typescript", "retries", files, region, "return")
    assert "// Options retries" in sent and "// rival retries" not in sent


def test_typescript_extends_of_a_returned_type(tmp_path):
    """`makeStore(): Store`, `Store extends Closable`: Closable's `close`."""
    files = {
        "model/closable.ts": "export interface Closable {\n  close: () => string; // Closable close\n}\n",
        "model/entities.ts": 'import { Closable } from "./closable";\n\n'
                          "export interface Store extends Closable {\n  load: () => string;\n}\n",
        "lib/store.ts": TS_STORE["lib/store.ts"],
    }
    region = ('import { makeStore } from "./lib/store";\n\nexport function stop() {\n'
              '  const kept = makeStore("x");\n  return kept.close();\n}\n')
    sent = _sent(tmp_path, "typescript", "close", files, region, "return kept")
    assert "// Closable close" in sent and "// rival close" not in sent


def test_javascript_a_callbacks_parameter_typed_where_the_callee_is_declared(tmp_path):
    """Plain JavaScript calling a TypeScript-declared `onChange`: the same union arm."""
    region = ('const { onChange } = require("./lib/emitter");\n\nfunction watch() {\n'
              "  onChange((change) => {\n    console.log(change.owner());\n  });\n}\n")
    sent = _sent(tmp_path, "typescript", "owner", TS_EVENTS, region, "console", name="main.js")
    assert "// Change added" in sent and "// rival owner" not in sent


# -- Python --------------------------------------------------------------------------------

PY_JOB = {
    "model/job.py": "class Job:\n    def cancel(self):\n        return 'Job cancel'\n",
    "lib/jobs.py": "from model.job import Job\n\n\ndef create_job() -> 'Job':\n    return Job()\n\n\n"
                   "def all_jobs() -> list[Job]:\n    return []\n",
}


@pytest.mark.parametrize("region, marker", [
    # a member of the value it was assigned
    ("from lib.jobs import create_job\n\n\ndef stop():\n    it = create_job()\n    return it.cancel()\n", "return"),
    # a member of the call's value itself
    ("from lib.jobs import create_job\n\n\ndef stop():\n    return create_job().cancel()\n", "return"),
    # a written-out type argument: the elements of `list[Job]`
    ("from lib.jobs import all_jobs\n\n\ndef stop():\n    for it in all_jobs():\n        it.cancel()\n", "for"),
])
def test_python_a_called_functions_declared_return_type(tmp_path, region, marker):
    """`create_job() -> 'Job'`, `all_jobs() -> list[Job]`: Job's `cancel`, no rival's."""
    sent = _sent(tmp_path, "python", "cancel", PY_JOB, region, marker)
    assert "Job cancel" in sent and "rival cancel" not in sent


def test_python_a_callbacks_parameter_typed_by_an_alias(tmp_path):
    """`on_change(listener: Listener)`, `Listener = Callable[[Change], None]`: Change's `cancel`."""
    files = {"model/events.py": "from typing import Callable\n\n\nclass Change:\n    def cancel(self):\n"
                                "        return 'Change cancel'\n\n\nListener = Callable[[Change], None]\n",
             "lib/emitter.py": "from model.events import Listener\n\n\ndef on_change(listener: Listener) -> None:\n"
                               "    return None\n"}
    region = "from lib.emitter import on_change\n\n\ndef watch():\n    on_change(lambda c: c.cancel())\n"
    sent = _sent(tmp_path, "python", "cancel", files, region, "on_change(")
    assert "Change cancel" in sent and "rival cancel" not in sent


def test_python_union_members_of_an_alias(tmp_path):
    """`shape: Shape`, `Shape = Union[Circle, Square]`: Square's `cancel` among the rivals'."""
    files = {"model/shapes.py": "class Circle:\n    radius = 1\n\n\n"
                                "class Square:\n    def cancel(self):\n        return 'Square cancel'\n",
             "api/aliases.py": "from typing import Union\n\nfrom model.shapes import Circle, Square\n\n"
                               "Shape = Union[Circle, Square]\n"}
    region = "from api.aliases import Shape\n\n\ndef undo(shape: Shape):\n    return shape.cancel()\n"
    sent = _sent(tmp_path, "python", "cancel", files, region, "return")
    assert "Square cancel" in sent and "rival cancel" not in sent


def test_python_a_base_of_a_returned_type(tmp_path):
    """`create_job() -> Job`, `class Job(Task)`: Task's `cancel`."""
    files = {"model/task.py": "class Task:\n    def cancel(self):\n        return 'Task cancel'\n",
             "model/job.py": "from model.task import Task\n\n\nclass Job(Task):\n    pass\n",
             "lib/jobs.py": PY_JOB["lib/jobs.py"]}
    region = "from lib.jobs import create_job\n\n\ndef stop():\n    it = create_job()\n    return it.cancel()\n"
    sent = _sent(tmp_path, "python", "cancel", files, region, "return")
    assert "Task cancel" in sent and "rival cancel" not in sent


def test_python_a_fields_declared_type(tmp_path):
    """`self.app.jobs.cancel()` where the class declares `app: App` and App (another
    file) declares `jobs: Job`: Job's `cancel`."""
    files = {**PY_JOB, "api/app.py": "from model.job import Job\n\n\nclass App:\n    jobs: Job\n"}
    region = ("from api.app import App\n\n\nclass Runner:\n    app: App\n\n"
              "    def stop(self):\n        return self.app.jobs.cancel()\n")
    sent = _sent(tmp_path, "python", "cancel", files, region, "return")
    assert "Job cancel" in sent and "rival cancel" not in sent


# -- Go ----------------------------------------------------------------------------------

GO_SERVER = {
    "types/server.go": "package types\n\ntype Server struct {\n\tPort string // Server port\n}\n",
    "lib/server.go": 'package lib\n\nimport "example.com/ws/types"\n\n'
                     "func NewServer() (*types.Server, error) {\n\treturn nil, nil\n}\n\n"
                     "func All() []*types.Server {\n\treturn nil\n}\n",
}


@pytest.mark.parametrize("region, marker", [
    # a member of the value it was assigned, beside an error
    ('package main\n\nimport "example.com/ws/lib"\n\nfunc run() string {\n'
     "\tsrv, _ := lib.NewServer()\n\treturn srv.Port\n}\n", "return"),
    # a written-out type argument: the elements of `[]*types.Server`
    ('package main\n\nimport "example.com/ws/lib"\n\nfunc run() string {\n'
     '\tfor _, srv := range lib.All() {\n\t\treturn srv.Port\n\t}\n\treturn ""\n}\n', "for"),
])
def test_go_a_called_functions_declared_return_type(tmp_path, region, marker):
    """`NewServer() (*types.Server, error)`, `All() []*types.Server`: Server's `Port`."""
    sent = _sent(tmp_path, "go", "Port", GO_SERVER, region, marker)
    assert "// Server port" in sent and "// rival Port" not in sent


def test_go_an_embedded_type_of_a_returned_type(tmp_path):
    """`NewServer() *types.Server`, `Server` embeds `*Base`: Base's `Port`."""
    files = {"types/server.go": "package types\n\ntype Base struct {\n\tPort string // Base port\n}\n\n"
                                "type Server struct {\n\t*Base\n\tName string\n}\n",
             "lib/server.go": GO_SERVER["lib/server.go"]}
    region = ('package main\n\nimport "example.com/ws/lib"\n\nfunc run() string {\n'
              "\tsrv, _ := lib.NewServer()\n\treturn srv.Port\n}\n")
    sent = _sent(tmp_path, "go", "Port", files, region, "return")
    assert "// Base port" in sent and "// rival Port" not in sent


def test_go_a_fields_declared_type(tmp_path):
    """`a.srv.Port` where `a *api.App` and App (another file) declares `srv *types.Server`:
    Server's `Port`."""
    files = {**GO_SERVER, "api/app.go": 'package api\n\nimport "example.com/ws/types"\n\n'
                                        "type App struct {\n\tsrv *types.Server\n}\n"}
    region = ('package main\n\nimport "example.com/ws/api"\n\nfunc run(a *api.App) string {\n'
              "\treturn a.srv.Port\n}\n")
    sent = _sent(tmp_path, "go", "Port", files, region, "return")
    assert "// Server port" in sent and "// rival Port" not in sent


# -- next edit: the same resolver ---------------------------------------------------------

@pytest.mark.parametrize("text, language, path", [
    ("from .jobs import Job, Task\n\n\ndef create_job() -> Job:\n    return Job()\n\n\n"
     "def create_task() -> Task:\n    return Task()\n\n\ndef run():\n    first = create_job()\n    first.cancel()\n"
     "    other = create_task()\n    other.cancel()\n", "python", "pkg/run.py"),
    ("import { Job, Task } from './jobs';\n\nfunction createJob(): Job {\n  return new Job();\n}\n\n"
     "function createTask(): Task {\n  return new Task();\n}\n\nexport function run() {\n"
     "  const first = createJob();\n  first.cancel();\n  const other = createTask();\n  other.cancel();\n}\n",
     "typescript", "pkg/run.ts"),
])
def test_next_edit_follows_a_member_through_a_functions_declared_return_type(text, language, path):
    """A renamed `Job.cancel` where `Task` has one too: `first = create_job()` is plainly a
    Job (its signature says so), `other = create_task()` plainly not."""
    from sparkls.nextedit.elsewhere import Outward, find_sites, link_of

    doc = DocumentStore().open(f"file:///w/{path}", text, 1, language)
    change = Outward("cancel", "stop", member=True, container="Job", rivals=frozenset({"task"}))
    lines = text.split("\n")
    sites = find_sites(doc, [change], link_of(doc, path, path.replace("run", "jobs"), ["cancel"]))
    assert [lines[first].strip() for first, _, _ in sites] == [
        "first.cancel()" if language == "python" else "first.cancel();"]


def test_go_a_tables_anonymous_struct_fields_are_its_members():
    """`for _, tt := range tests { tt.want }` where `var tests = []struct{ in, want string }{...}`
    holds 300 cases, more than the budget: the struct's lines are sent, not the cases."""
    cases = "".join(f'\t{{"in{n}", "want{n}"}},\n' for n in range(300))
    source = ('package p\n\nvar tests = []struct {\n\tin   string\n\twant string // the expected\n}{\n'
              f"{cases}}}\n\nfunc TestX(t *testing.T) {{\n\tfor _, tt := range tests {{\n"
              '\t\tif tt.want != "" {\n\t\t\tt.Fail()\n\t\t}\n\t}\n}\n')
    doc = DocumentStore().open("file:///w/p_test.go", source, 1)
    at = source.index("if tt.want")
    sent = "\n".join(s.text for s in build_edit_context(doc, at, at, path="p_test.go", max_region_lines=300).snippets)
    assert "want string // the expected" in sent and '"want7"' not in sent
