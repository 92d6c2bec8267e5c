"""Symbols of one file: names, kinds, lines, containers, in every language."""

from pathlib import Path

import pytest

from sparkls.context.symbols import Symbol
from sparkls.documents.languages import language_id_for, new_parser
from tests.unit.context.parsing import symbols_in

FIXTURES = Path(__file__).parents[2] / "fixtures" / "languages"


def _parse(language_id: str, text: str):
    return new_parser(language_id).parse(text.encode("utf-8"))


def _outline(symbols: list[Symbol]) -> list[tuple[str, str, int, int, str | None]]:
    """(kind, name, start_line, end_line, container) of each symbol."""
    return [(s.kind, s.name, s.start_line, s.end_line, s.container) for s in symbols]


def _by_name(symbols: list[Symbol]) -> dict[str, Symbol]:
    return {s.name: s for s in symbols}


@pytest.mark.parametrize(
    ("name", "language_id", "outline"),
    [
        (
            "greeter.py",
            "python",
            [
                ("class", "Greeter", 4, 10, None),
                ("method", "greet", 5, 7, "Greeter"),
                ("method", "wave", 9, 10, "Greeter"),
                ("function", "main", 13, 15, None),
            ],
        ),
        (
            "greeter.js",
            "javascript",
            [
                ("class", "Greeter", 3, 11, None),
                ("method", "greet", 4, 6, "Greeter"),
                ("method", "wave", 8, 10, "Greeter"),
                ("function", "main", 13, 16, None),
                ("function", "newline", 18, 21, None),
            ],
        ),
        (
            "greeter.ts",
            "typescript",
            [
                ("class", "Greeter", 3, 14, None),
                ("attribute", "name", 4, 4, "Greeter"),
                ("method", "greet", 6, 9, "Greeter"),
                ("method", "wave", 11, 13, "Greeter"),
                ("function", "logged", 16, 19, None),
            ],
        ),
        (
            "greeting.tsx",
            "typescriptreact",
            [
                ("type", "Props", 2, 4, None),
                ("attribute", "name", 3, 3, "Props"),
                ("function", "Greeting", 6, 9, None),
                ("class", "Counter", 11, 19, None),
                ("method", "render", 12, 14, "Counter"),
                ("method", "reset", 16, 18, "Counter"),
                ("function", "version", 21, 24, None),
                ("variable", "default", 26, 26, None),  # `export default Greeting;`
            ],
        ),
        (
            "greeter.go",
            "go",
            [
                ("type", "Named", 7, 10, None),
                ("method", "Name", 8, 8, "Named"),
                ("method", "Greet", 9, 9, "Named"),
                ("type", "Greeter", 12, 14, None),
                ("attribute", "name", 13, 13, "Greeter"),
                ("method", "Greet", 16, 18, "Greeter"),
                ("variable", "limit", 20, 20, None),
                ("function", "main", 22, 24, None),
            ],
        ),
        (
            "greeter.rs",
            "rust",
            [
                ("type", "Greeter", 2, 6, None),
                ("method", "greet", 9, 12, "Greeter"),
                ("method", "wave", 14, 16, "Greeter"),
                ("constant", "LIMIT", 19, 19, None),
                ("function", "size", 21, 24, None),
            ],
        ),
    ],
)
def test_fixturesymbols_in(name, language_id, outline):
    """Each fixture's definitions, with wrappers (decorators, export, attributes, doc comments) in their lines."""
    text = (FIXTURES / name).read_text(encoding="utf-8")
    assert language_id_for(name) == language_id
    assert _outline(symbols_in(language_id, text)) == outline


def test_python_decorators_start_the_definition():
    """A decorated function starts at its first decorator, even one spread over lines."""
    text = "@app.route(\n    '/x',\n)\n@cached\ndef view():\n    return 1\n"
    (view,) = symbols_in("python", text)
    assert (view.name, view.start_line, view.signature_end_line, view.end_line) == ("view", 0, 4, 5)


def test_python_docstring_extends_the_doc_past_the_signature():
    """A docstring after a multi-line signature ends the symbol's doc lines."""
    text = 'def area(\n    r: float,\n) -> float:\n    """The area.\n\n    Of a circle.\n    """\n    return r * r\n'
    (area,) = symbols_in("python", text)
    assert (area.signature_end_line, area.doc_end_line, area.end_line) == (2, 6, 7)


def test_python_without_docstring_doc_ends_with_the_signature():
    """Without a docstring (a string later in the body does not count) the doc ends with the signature."""
    text = 'class Circle(Shape):\n    x = 1\n    "not a docstring"\n'
    circle = _by_name(symbols_in("python", text))["Circle"]
    assert circle.signature_end_line == circle.doc_end_line == 0


def test_python_decorated_method_keeps_its_docstring():
    """A decorated method's docstring is found through its decorators."""
    text = 'class A:\n    @property\n    def size(self):\n        """Size."""\n        return 1\n'
    size = _by_name(symbols_in("python", text))["size"]
    assert (size.kind, size.start_line, size.signature_end_line, size.doc_end_line) == ("method", 1, 2, 3)


def test_python_module_assignments_are_constants_or_variables():
    """Module-level UPPER_CASE names are constants, other names variables; tuples and attributes are skipped."""
    text = "MAX_SIZE = 10\nname: str = 'x'\na, b = 1, 2\nobj.attr = 3\nLIMIT = OTHER = 5\n"
    assert [(s.kind, s.name) for s in symbols_in("python", text)] == [
        ("constant", "MAX_SIZE"),
        ("variable", "name"),
        ("constant", "LIMIT"),
    ]


def test_python_class_constants_and_fields():
    """In a class body an UPPER_CASE assignment is a constant of the class, any other an attribute."""
    text = "class Config:\n    TIMEOUT = 30\n    name: str = 'x'\n"
    assert _outline(symbols_in("python", text)) == [
        ("class", "Config", 0, 2, None),
        ("constant", "TIMEOUT", 1, 1, "Config"),
        ("attribute", "name", 2, 2, "Config"),
    ]


def test_python_attributes_assigned_in_methods():
    """Each `self.x = ...` / `cls.x = ...` statement of a method is an attribute of the innermost class."""
    text = (
        "class A:\n"
        "    def __init__(self, url):\n"
        "        self.url = url\n"
        "        self.a, self.b = (\n"
        "            1, 2)\n"
        "        other.c = 3\n"
        "    class Inner:\n"
        "        def f(self):\n"
        "            if True:\n"
        "                self.deep: int = 1\n"
        "    @classmethod\n"
        "    def make(cls):\n"
        "        cls.url = None\n"
        "def free(self):\n"
        "    self.z = 1\n"
    )
    attributes = [(s.name, s.start_line, s.end_line, s.container) for s in symbols_in("python", text) if s.kind == "attribute"]
    assert attributes == [
        ("url", 2, 2, "A"),
        ("a", 3, 4, "A"),
        ("b", 3, 4, "A"),
        ("deep", 9, 9, "Inner"),
        ("url", 12, 12, "A"),
    ]


def test_python_attributes_assigned_by_a_parenthesized_or_bracketed_unpacking():
    """`(self.a, self.b) = state` (packaging's `Version.__setstate__`) and `[self.c, self.d] = ...`."""
    text = (
        "class V:\n"
        "    def __setstate__(self, state):\n"
        "        (\n"
        "            self.a,\n"
        "            self.b,\n"
        "        ) = state\n"
        "        [self.c, self.d] = state\n"
        "        (x, y) = state\n"
    )
    attributes = [(s.name, s.start_line, s.end_line, s.container) for s in symbols_in("python", text) if s.kind == "attribute"]
    assert attributes == [("a", 2, 5, "V"), ("b", 2, 5, "V"), ("c", 6, 6, "V"), ("d", 6, 6, "V")]


def test_javascript_attributes_assigned_in_methods_and_fields():
    """`this.x = ...` in a method and a field declaration are attributes of their class; not in a plain function."""
    text = "class K {\n  count = 0;\n  constructor() {\n    this.items = [];\n  }\n}\nfunction f() { this.q = 1; }\n"
    for language_id in ("javascript", "typescript"):
        attributes = [(s.name, s.start_line, s.container) for s in symbols_in(language_id, text) if s.kind == "attribute"]
        assert attributes == [("count", 1, "K"), ("items", 3, "K")], language_id


def test_python_definitions_under_module_level_if_and_try():
    """Definitions under a module-level `if`/`else` or `try`/`except` are found."""
    text = (
        "if TYPE_CHECKING:\n    Alias = int\nelse:\n    @dec\n    def f(): ...\n"
        "try:\n    import fast\nexcept ImportError:\n    class Fallback: ...\n"
    )
    assert [(s.kind, s.name, s.start_line) for s in symbols_in("python", text)] == [
        ("variable", "Alias", 1),
        ("function", "f", 3),
        ("class", "Fallback", 8),
    ]


def test_nested_classes_have_their_container():
    """A class inside a class, and its methods, name the class they sit in."""
    text = "class Outer:\n    class Inner:\n        def m(self):\n            pass\n"
    assert _outline(symbols_in("python", text)) == [
        ("class", "Outer", 0, 3, None),
        ("class", "Inner", 1, 3, "Outer"),
        ("method", "m", 2, 3, "Inner"),
    ]


@pytest.mark.parametrize(
    ("language_id", "text"),
    [
        ("python", "def f():\n    x = 1\n    X = 2\n    def inner(): pass\n    class Local: pass\n"),
        ("javascript", "function f() {\n  const x = 1;\n  const g = () => 2;\n  class Local {}\n}\n"),
        ("typescript", "function f(): void {\n  const X = 1;\n  function inner() {}\n}\n"),
        ("go", "package p\nfunc f() {\n\tvar x = 1\n\tconst y = 2\n\t_ = x\n}\n"),
        ("rust", "fn f() {\n    const X: u8 = 1;\n    fn inner() {}\n    struct Local;\n}\n"),
    ],
)
def test_locals_are_notsymbols_in(language_id, text):
    """Variables, functions and classes inside a function body are not symbols."""
    assert [s.name for s in symbols_in(language_id, text)] == ["f"]


def test_javascript_require_binds_no_symbol():
    """`const x = require(...)` is an import, not a variable; `exports.f = function` is a function."""
    text = 'const fs = require("fs");\nconst MAX = 3;\nlet count;\nexports.read = function () {};\n'
    assert [(s.kind, s.name) for s in symbols_in("javascript", text)] == [
        ("constant", "MAX"),
        ("variable", "count"),
        ("function", "read"),
    ]


def test_javascript_commonjs_exports_and_required_members():
    """`var f = require("./u").f` binds another module's `f` (no symbol here, so it is
    looked up there); `module.exports = function query() {}` defines `query`;
    `exports.etag = make()` defines `etag`."""
    text = (
        'var compileETag = require("./utils").compileETag;\n'
        "module.exports = function query(options) {\n  return options;\n};\n"
        "exports.etag = createGenerator({ weak: false });\n"
        "module.exports.plain = 1;\n"
    )
    assert [(s.kind, s.name, s.start_line) for s in symbols_in("javascript", text)] == [
        ("function", "query", 1),
        ("variable", "etag", 4),
    ]


def test_typescript_call_and_construct_signatures_are_members_of_their_interface():
    """`<T>(c: C): R` and `new (): E` in an interface: members named `(` and `new`."""
    text = "export interface Ctor {\n  /** doc */\n  new (): E;\n  <T>(c: C): R<T>;\n  other(x: number): void;\n}\n"
    assert [(s.name, s.kind, s.start_line, s.container) for s in symbols_in("typescript", text)] == [
        ("Ctor", "type", 0, None),
        ("new", "method", 1, "Ctor"),
        ("(", "method", 3, "Ctor"),
        ("other", "method", 4, "Ctor"),
    ]


def test_javascript_doc_comment_and_export_start_the_definition():
    """A JSDoc comment right above an exported function is part of its lines."""
    text = "// header\n\n/**\n * Adds.\n */\nexport function add(a, b) {\n  return a + b;\n}\n"
    (add,) = symbols_in("javascript", text)
    assert (add.start_line, add.signature_end_line, add.doc_end_line, add.end_line) == (2, 5, 5, 7)


def test_typescript_types_namespaces_and_overloads():
    """Interfaces, enums, aliases and namespaces are symbols, and so are their members (container: the type); overloads are each a symbol."""
    text = (
        "export interface Shape { area(): number; name: string }\n"
        "enum Color { Red }\n"
        "type Id = string;\n"
        "namespace Geo { export function scale() {} }\n"
        "function f(a: string): void;\n"
        "function f(a: any) {}\n"
        "declare const VERSION: string;\n"
    )
    assert [(s.kind, s.name, s.container) for s in symbols_in("typescript", text)] == [
        ("type", "Shape", None),
        ("method", "area", "Shape"),
        ("attribute", "name", "Shape"),
        ("type", "Color", None),
        ("attribute", "Red", "Color"),
        ("type", "Id", None),
        ("module", "Geo", None),
        ("function", "scale", "Geo"),
        ("function", "f", None),
        ("function", "f", None),
        ("constant", "VERSION", None),
    ]


def test_typescript_member_decorators_and_abstract_methods():
    """A member's decorators start the method; abstract signatures and function fields are methods."""
    text = "abstract class A {\n  @log\n  @trace\n  run(): void {}\n  abstract stop(): void;\n  onClick = () => 1;\n}\n"
    assert _outline(symbols_in("typescript", text)) == [
        ("class", "A", 0, 6, None),
        ("method", "run", 1, 3, "A"),
        ("method", "stop", 4, 4, "A"),
        ("method", "onClick", 5, 5, "A"),
    ]


def test_go_doc_comments_grouped_declarations_and_receivers():
    """Go: doc comments start a definition, grouped specs are symbols each, a method's container is its receiver, a struct's fields are its attributes."""
    text = (
        "package p\n\n// Greeter greets.\n// Politely.\ntype Greeter[T any] struct {\n\tname string\n}\n\n"
        "const (\n\tA, B = 1, 2\n\tC = 3\n)\n\nvar x = 1 // trailing\nfunc (g *Greeter[T]) Greet() {}\n"
    )
    assert [(s.kind, s.name, s.start_line, s.end_line, s.container) for s in symbols_in("go", text)] == [
        ("type", "Greeter", 2, 6, None),
        ("attribute", "name", 5, 5, "Greeter"),
        ("constant", "A", 9, 9, None),
        ("constant", "B", 9, 9, None),
        ("constant", "C", 10, 10, None),
        ("variable", "x", 13, 13, None),
        ("method", "Greet", 14, 14, "Greeter"),
    ]


def test_comment_after_a_blank_line_is_not_a_doc():
    """A comment separated from the definition by a blank line does not belong to it."""
    (f,) = symbols_in("go", "package p\n\n// License.\n\nfunc f() {}\n")
    assert f.start_line == 4


def test_rust_items_traits_impls_and_where_clauses():
    """Rust: trait methods and impl methods name their trait or type; a `where` clause ends the signature."""
    text = (
        "pub trait Shape {\n    fn area(&self) -> f64;\n}\n"
        "impl<T> Shape for Circle<T>\nwhere\n    T: Copy,\n{\n    fn area(&self) -> f64 {\n        1.0\n    }\n}\n"
        "mod geo {\n    pub fn scale() {}\n}\n"
        "macro_rules! square { ($x:expr) => { $x * $x } }\n"
    )
    symbols = symbols_in("rust", text)
    assert [(s.kind, s.name, s.container) for s in symbols] == [
        ("type", "Shape", None),
        ("method", "area", "Shape"),
        ("method", "area", "Circle"),
        ("module", "geo", None),
        ("function", "scale", "geo"),
        ("macro", "square", None),
    ]
    assert symbols[0].signature_end_line == 0


def test_signature_ends_before_the_body():
    """The signature is what comes before the body; a definition without a body is all signature."""
    text = "fn long(\n    a: u8,\n) -> u8\nwhere\n    u8: Copy,\n{\n    a\n}\nconst K: [u8; 2] = [\n    1, 2,\n];\n"
    long, k = symbols_in("rust", text)
    assert (long.signature_end_line, long.end_line) == (4, 7)
    assert (k.signature_end_line, k.end_line) == (10, 10)


def test_non_ascii_names_and_lines():
    """Names with non-ASCII letters decode whole, and lines after an emoji stay right."""
    text = 'GRÜSSE = "😀"\n\ndef grüße():\n    return "😀"\n'
    assert [(s.kind, s.name, s.start_line) for s in symbols_in("python", text)] == [
        ("constant", "GRÜSSE", 0),
        ("function", "grüße", 2),
    ]


def test_members_of_go_structs_and_interfaces_and_of_typescript_types():
    """Each name of a Go field (`Addr, Host string`; `ID` too: a field, not a constant) and an
    interface method; a TS interface's and object type's properties and methods, an enum's
    members: all with their type as container."""
    go = "package p\n\ntype S struct {\n\tID   int\n\tAddr, Host string\n\t*Base\n}\n\ntype H interface {\n\tServe() error\n}\n"
    assert [(s.kind, s.name, s.start_line, s.container) for s in symbols_in("go", go)] == [
        ("type", "S", 2, None),
        ("attribute", "ID", 3, "S"),
        ("attribute", "Addr", 4, "S"),
        ("attribute", "Host", 4, "S"),
        ("type", "H", 8, None),
        ("method", "Serve", 9, "H"),
    ]
    ts = "interface O {\n  retries?: number;\n  log(m: string): void;\n}\nenum E { A, B = 2 }\ntype P = { x: number };\n"
    assert [(s.kind, s.name, s.container) for s in symbols_in("typescript", ts)] == [
        ("type", "O", None),
        ("attribute", "retries", "O"),
        ("method", "log", "O"),
        ("type", "E", None),
        ("attribute", "A", "E"),
        ("attribute", "B", "E"),
        ("type", "P", None),
        ("attribute", "x", "P"),
    ]


def test_javascript_constructor_functions_and_prototype_methods():
    """`function Layer() { this.x = ... }` and `Layer.prototype.m = function () { this.y = ... }`:
    m is a method of Layer, x and y its attributes; a lower-case function's `this.z` is no one's."""
    js = (
        "function Layer(fn) {\n  this.handle = fn;\n}\n\n"
        "Layer.prototype.match = function match(p) {\n  this.params = {};\n};\n\n"
        "app.init = function init() {\n  this.cache = {};\n};\n"
    )
    assert [(s.kind, s.name, s.start_line, s.container) for s in symbols_in("javascript", js)] == [
        ("function", "Layer", 0, None),
        ("attribute", "handle", 1, "Layer"),
        ("method", "match", 4, "Layer"),
        ("attribute", "params", 5, "Layer"),
        ("function", "init", 8, None),
    ]


def test_typescript_parameter_properties_are_attributes():
    """`constructor(protected destination: O, readonly id: number, plain: string)`: two attributes."""
    ts = "class S {\n  constructor(protected destination: O, readonly id: number, plain: string) {}\n}\n"
    assert [(s.kind, s.name, s.container) for s in symbols_in("typescript", ts)] == [
        ("class", "S", None),
        ("method", "constructor", "S"),
        ("attribute", "destination", "S"),
        ("attribute", "id", "S"),
    ]


BROKEN_TS = """export type Id = string

export interface Maker {
\t<T, R extends any[]>(
\t\tbuild: (seed: T, ...rest: R) => T
\t): (seed: T, ...rest: R) => T

\t/** With a start. */
\t<T, P extends Function>(
\t\tplan: P,
\t\tstart: T
\t): Planned<T, P, false>
}

/** After the error. */
export interface Options {
\tretries: number
}

export function make(base: Id): Id {
\treturn base
}
"""


def test_definitions_after_a_parse_error_that_swallows_the_file_are_kept():
    """tree-sitter-typescript reads `=> T` then `<T, P ...>(` as one type and leaves the
    rest of the file as bare tokens under an ERROR root; the pieces after the broken
    interface are parsed apart, with their doc comments and their own lines."""
    assert _parse("typescript", BROKEN_TS).root_node.type == "ERROR"  # what this test is about
    assert [(s.kind, s.name, s.start_line, s.end_line, s.container) for s in symbols_in("typescript", BROKEN_TS)] == [
        ("type", "Id", 0, 0, None),
        ("type", "Maker", 2, 2, None),
        ("type", "Options", 14, 17, None),
        ("attribute", "retries", 16, 16, "Options"),
        ("function", "make", 19, 21, None),
    ]


def test_an_unclosed_bracket_being_typed_keeps_the_definitions_after_it():
    """`x = (` typed above two functions: tree-sitter-python takes them into the broken
    statement; parsed apart, both are found at their lines, with their extents."""
    text = "x = (\n\ndef a(p, q):\n    return p + q * 1\n\n\ndef b(p, q):\n    return p + q * 2\n"
    assert [(s.kind, s.name, s.start_line, s.end_line) for s in symbols_in("python", text)] == [
        ("function", "a", 2, 3),
        ("function", "b", 6, 7),
    ]
