"""Definitions reached through what the region's code implies: a receiver named after
its type, `super`, `cls(...)`, a constructor inherited from a base class, and how
long doc comments and commented fields are shown."""

from pathlib import Path

import pytest

from sparkls.context.builder import build_edit_context
from sparkls.guard.exclusions import PathFilter
from sparkls.documents.store import DocumentStore
from sparkls.context.index.workspace import WorkspaceIndex


def _context(source: str, marker: str, name: str, lookup=None):
    doc = DocumentStore().open(f"file:///w/{name}", source, 1)
    at = source.index(marker)
    return build_edit_context(doc, at, at, path=name, max_region_lines=300, lookup=lookup)


def _sent(source: str, marker: str, name: str, lookup=None) -> str:
    return "\n".join(s.text for s in _context(source, marker, name, lookup).snippets)


@pytest.fixture
def workspace(tmp_path: Path):
    """A workspace where five classes in five folders define `next`, one of them
    `Subscriber`, and `Child extends Base` overrides Base's `next`."""
    root = tmp_path / "ws"
    for folder, cls in (("a", "Subject"), ("b", "Subscriber"), ("c", "Queue"), ("d", "Iter"), ("e", "Cursor")):
        (root / folder).mkdir(parents=True)
        (root / folder / f"{cls.lower()}.ts").write_text(
            f"export class {cls} {{\n  next(value: number): void {{\n    // {cls} next\n  }}\n}}\n", encoding="utf-8"
        )
    (root / "base.ts").write_text(
        "export class Base {\n  next(value: number): void {\n    // Base next\n  }\n}\n", encoding="utf-8"
    )
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    yield index
    index.close()


def test_a_receiver_named_after_its_type_picks_that_types_member(workspace):
    """`subscriber.next(v)` where the type is inferred: among five classes' `next`,
    Subscriber's is sent; with a receiver named after none of them, only the one in
    the file's own folder (Base's: the others are too many to send)."""
    source = "export function forward(subscriber, value) {\n  subscriber.next(value);\n}\n"
    assert "// Subscriber next" in _sent(source, "subscriber.next", "main.ts", workspace)
    other = source.replace("subscriber", "target")
    assert [line for line in _sent(other, "target.next", "main.ts", workspace).splitlines() if "// " in line] == [
        "    // Base next"
    ]


def test_super_reaches_the_base_classs_member_over_the_classs_own(workspace):
    """`super.next(v)` in a class that defines `next` too: Base's `next` is sent."""
    source = (
        'import { Base } from "./base";\n\nexport class Child extends Base {\n'
        "  next(value: number): void {\n    this.count = value;\n  }\n\n"
        "  complete(): void {\n    super.next(0);\n  }\n}\n"
    )
    assert "// Base next" in _sent(source, "super.next", "child.ts", workspace)


def test_cls_call_in_a_classmethod_sends_the_classs_constructor():
    """`cls(vcs=..., commit_id=...)` names the parameters of the class's own `__init__`."""
    source = (
        "class VcsInfo:\n    vcs: str\n    commit_id: str\n\n"
        "    def __init__(\n        self,\n        *,\n        vcs: str,\n        commit_id: str,\n    ) -> None:\n"
        "        self.vcs = vcs\n        self.commit_id = commit_id\n\n"
        "    @classmethod\n    def from_dict(cls, d):\n        return cls(vcs=d['vcs'], commit_id=d['id'])\n"
    )
    texts = _sent(source, "return cls(", "direct_url.py")
    assert "        commit_id: str,\n    ) -> None:" in texts
    assert "return cls(" not in texts.replace("    def from_dict", "")  # the region is not a snippet


def test_a_called_class_without_a_constructor_sends_its_bases():
    """`String(attribute="x")` runs Field's `__init__` (String defines none); a class that
    is only named, not called, brings no inherited constructor."""
    source = (
        "class Field:\n    def __init__(self, *, attribute=None, required=False):\n        self.attribute = attribute\n\n\n"
        "class String(Field):\n    pass\n\n\n"
        "def make():\n    return String(attribute='x')\n\n\n"
        "def check(f):\n    return isinstance(f, String)\n"
    )
    assert "def __init__(self, *, attribute=None, required=False):" in _sent(source, "return String(", "fields.py")
    assert "__init__" not in _sent(source, "return isinstance", "fields.py")


JSDOC = "\n".join(
    ["/**", " * Filter items emitted by the source.", " * Only those that pass.", " *"]
    + [f" * @param p{i} the {i}th parameter" for i in range(12)]
    + [" */"]
)


def test_a_long_doc_comment_above_a_signature_is_cut_to_its_first_paragraph():
    """A 17-line JSDoc above a long function: its first paragraph, closed, then the signature."""
    body = "\n".join(f"  const v{i} = predicate({i});" for i in range(30))
    source = f"{JSDOC}\nexport function filter(predicate: Function): number {{\n{body}\n  return 0;\n}}\n\nexport function use() {{\n  return filter(Boolean);\n}}\n"
    texts = _sent(source, "return filter(", "filter.ts")
    assert "/**\n * Filter items emitted by the source.\n * Only those that pass.\n */\nexport function filter(predicate: Function): number {" in texts
    assert "@param" not in texts


def test_a_long_field_with_a_doc_comment_is_shown_by_its_own_line():
    """`protected destination: ...` under a doc comment, too long to send whole: the
    field's own line is sent, not the comment's."""
    long_type = " | ".join(f"Observer{i}<any>" for i in range(12))
    source = (
        "export class Subscriber {\n"
        "  /** @deprecated Internal implementation detail, do not use directly. Will be made internal in v8. */\n"
        f"  protected destination: {long_type};\n\n"
        "  complete(): void {\n    this.destination.complete();\n  }\n}\n"
    )
    texts = _sent(source, "this.destination.complete", "subscriber.ts")
    assert "  protected destination: Observer0<any>" in texts
    assert "@deprecated" not in texts


def test_a_value_typed_by_a_callable_interface_comes_with_its_call_signatures():
    """`new EmptyError()` where `const EmptyError: EmptyErrorCtor`: the constructor
    signature of EmptyErrorCtor is sent (what `new` runs), not only the constant."""
    source = (
        "export interface EmptyErrorCtor {\n  /** Do not construct. */\n  new (): EmptyError;\n"
        + "".join(f"  field{i}: string;\n" for i in range(30))
        + "}\n\nexport const EmptyError: EmptyErrorCtor = createErrorClass(() => 1);\n\n"
        "export function fail() {\n  throw new EmptyError();\n}\n"
    )
    texts = _sent(source, "throw new", "errors.ts")
    assert "  new (): EmptyError;" in texts
    assert "field7" not in texts


def test_keys_of_an_object_literal_passed_to_a_call_are_the_parameter_types_members(tmp_path: Path):
    """`source.subscribe({ next: ... })`: `subscribe(observer: Partial<Observer<T>>)`
    makes `next` Observer's, among other classes' `next`."""
    root = tmp_path / "ws"
    for folder, cls in (("a", "Subject"), ("b", "Queue"), ("c", "Iter"), ("d", "Cursor"), ("e", "Stream")):
        (root / folder).mkdir(parents=True)
        (root / folder / f"{cls.lower()}.ts").write_text(
            f"export class {cls} {{\n  next(value: number): void {{\n    // {cls} next\n  }}\n}}\n", encoding="utf-8"
        )
    (root / "f").mkdir()
    (root / "f/types.ts").write_text(
        "export interface Observer<T> {\n  next: (value: T) => void; // Observer next\n  error: (err: any) => void;\n}\n",
        encoding="utf-8",
    )
    (root / "g").mkdir()
    (root / "g/observable.ts").write_text(
        "export class Observable<T> {\n  subscribe(observer?: Partial<Observer<T>>): void {\n    return;\n  }\n}\n",
        encoding="utf-8",
    )
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    try:
        source = "export function last(source: Observable<number>) {\n  source.subscribe({\n    next: (value) => value,\n  });\n}\n"
        assert "// Observer next" in _sent(source, "source.subscribe", "main.ts", index)
    finally:
        index.close()


def test_words_in_comments_name_no_definition():
    """`// open the first window` in the region does not send `first` or `window`."""
    source = (
        "export function first(): number {\n  return 1;\n}\n\n"
        "export function slide(values: number[]): number {\n  // open the first window\n  return values.length;\n}\n"
    )
    assert "function first" not in _sent(source, "return values", "slide.ts")
    assert "function first" in _sent(source.replace("// open the first window", "first();"), "return values", "slide.ts")


def test_comments_are_blanked_at_their_characters_with_emoji_and_cjk():
    """Tree-sitter's byte columns are read as characters: the code before a comment on a
    line with emoji and CJK text stays whole, the comment becomes spaces."""
    from sparkls.context.region import without_comments

    source = 'def f():\n    s = "é😀你好"  # first 😀 window\n    """doc first"""\n    return s  # tail\n'
    doc = DocumentStore().open("file:///w/m.py", source, 1)
    lines = source.split("\n")
    text = "\n".join(lines[1:4]) + "\n"
    blanked = without_comments(doc, 1, 3, text)
    assert blanked.split("\n")[0] == '    s = "é😀你好"  ' + " " * len("# first 😀 window")
    assert blanked.split("\n")[1] == '    """doc first"""'  # a string is code
    assert blanked.split("\n")[2].rstrip() == "    return s"
    assert len(blanked) == len(text)


@pytest.mark.parametrize("source, marker", [
    # a parameter's declared type (interface, alias or class alike: the word is the type's)
    ("export function start(opts: Queue) {\n  return opts.next(1);\n}\n", "return"),
    # a module-level variable declared with it, outside the region
    ("const jobs: Queue = make();\n\nexport function start() {\n  return jobs.next(1);\n}\n", "return"),
    # made from it, outside the region
    ("const jobs = new Queue();\n\nexport function start() {\n  return jobs.next(1);\n}\n", "return"),
    # a class field declared with it, reached through `this`
    ("export class Runner {\n  private jobs: Queue;\n\n  start() {\n    return this.jobs.next(1);\n  }\n}\n", "return"),
])
def test_a_member_reached_through_a_declared_type_is_that_types(workspace, source, marker):
    """`jobs.next(1)` among five classes' `next`: Queue's, the type `jobs` is declared
    with (a receiver named after no type); with no declaration, Base's alone."""
    sent = _sent(source, marker, "main.ts", workspace)
    assert "// Queue next" in sent and "// Subject next" not in sent


def test_a_python_attribute_made_from_a_class_ranks_that_classs_member(tmp_path: Path):
    """`self.pool = Pool(...)` in `__init__`, then `self.pool.close()` elsewhere in the
    class: Pool's `close` among five."""
    root = tmp_path / "ws"
    for n, cls in enumerate(("Pool", "File", "Socket", "Conn", "Cursor")):
        (root / f"m{n}").mkdir(parents=True)
        (root / f"m{n}" / "impl.py").write_text(f"class {cls}:\n    def close(self):\n        return '{cls} close'\n")
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    source = ("class Runner:\n    def __init__(self):\n        self.pool = Pool(4)\n\n"
              "    def stop(self):\n        self.pool.close()\n")
    try:
        sent = _sent(source, "self.pool.close", "main.py", index)
    finally:
        index.close()
    assert "Pool close" in sent and "Socket close" not in sent
