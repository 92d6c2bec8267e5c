"""Definitions of the names a region uses: same file, whole or as a signature, in budget."""

from sparkls.context.builder import build_edit_context
from sparkls.documents.store import DocumentStore
from bench.kit.sealing import seal

LONG_BODY = "\n".join(f"    step_{i} = compute({i}) * {i} + offset" for i in range(200))
SOURCE = f'''LIMIT = 10


def helper(x):
    """Scale x."""
    return x * LIMIT


def long_one(y):
    """A long function."""
{LONG_BODY}
    return y


def target(values):
    return [helper(v) + long_one(v) for v in values]


def unrelated():
    return 0
'''


def _ctx(budget=2000):
    doc = DocumentStore().open("file:///w/m.py", SOURCE, 1)
    at = SOURCE.index("return [helper")
    return build_edit_context(doc, at, at, path="m.py", max_region_lines=300, budget_tokens=budget)


def test_small_definitions_come_whole_and_long_ones_as_signatures():
    """helper and LIMIT are sent whole; the 200-line function as its signature and docstring."""
    kinds = {s.text.splitlines()[0]: s.kind for s in _ctx().snippets}
    assert kinds["def helper(x):"] == "definition"
    assert kinds["def long_one(y):"] == "signature"
    long_one = next(s for s in _ctx().snippets if s.text.startswith("def long_one"))
    assert long_one.text.splitlines()[1].strip() == '"""A long function."""'
    assert "step_5" not in long_one.text


def test_unused_definitions_are_not_sent():
    """A function the region does not mention is not a snippet, nor is the region itself."""
    texts = "\n".join(s.text for s in _ctx().snippets)
    assert "def unrelated" not in texts and "def target" not in texts


def test_definitions_fall_back_to_signatures_in_a_small_budget():
    """When the whole definition does not fit, its signature still may."""
    snippets = _ctx(budget=12).snippets
    assert [s.kind for s in snippets] == ["signature"]
    assert snippets[0].text.startswith("def helper(x):")


def test_prompt_lists_definitions_with_path_and_lines():
    """Definitions come in one block per file that names the file and the lines of each piece."""
    from sparkls.context.prompt import render_edit_prompt

    prompt = seal(render_edit_prompt(_ctx(), "Vectorise."))
    block = prompt.input.split("m.py (lines 4-6, 9-10):\n```python\n", 1)[1].split("\n```", 1)[0]
    assert block.split("\n⋮\n") == [
        'def helper(x):\n    """Scale x."""\n    return x * LIMIT',
        'def long_one(y):\n    """A long function."""\n    ...',
    ]


ATTRS = '''class Session:
    def __init__(self, url):
        self.url = url
        self.retries = 3
        self.headers = {}

    def send(self):
        return fetch(self.url, tries=self.retries)


class Other:
    def __init__(self):
        self.url = "elsewhere"
        self.retries = 0


def report(session):
    return session.headers
'''


def _attrs_ctx(anchor):
    doc = DocumentStore().open("file:///w/s.py", ATTRS, 1)
    at = ATTRS.index(anchor)
    return build_edit_context(doc, at, at, path="s.py", max_region_lines=300, budget_tokens=2000)


def test_self_attributes_come_from_the_class_around_the_region():
    """`self.url` in Session.send shows Session's assignments, merged when adjacent, not Other's."""
    ctx = _attrs_ctx("return fetch")
    attributes = [(s.start_line, s.end_line, s.text.strip()) for s in ctx.snippets if s.kind == "attribute"]
    assert attributes == [(2, 3, "self.url = url\n        self.retries = 3")]


def test_attributes_reached_through_another_object_come_from_any_class():
    """`session.headers` in a function shows the class that assigns `headers`; a bare name never matches an attribute."""
    ctx = _attrs_ctx("return session.headers")
    assert [(s.start_line, s.kind) for s in ctx.snippets if s.kind == "attribute"] == [(4, "attribute")]


def test_a_long_docstring_is_cut_to_its_first_paragraph():
    """A definition too long to send whole shows its signature and the docstring's first paragraph."""
    body = "\n".join(f"    x{i} = {i}" for i in range(100))
    text = f'def big():\n    """Summary line.\n\n    Details that are not sent.\n    """\n{body}\n\n\ndef user():\n    return big()\n'
    doc = DocumentStore().open("file:///w/b.py", text, 1)
    at = text.index("return big")
    ctx = build_edit_context(doc, at, at, path="b.py", max_region_lines=300)
    (signature,) = [s for s in ctx.snippets if s.kind == "signature"]
    assert signature.text == 'def big():\n    """Summary line.\n    ...'
    assert (signature.start_line, signature.end_line) == (0, 1)


def test_pack_keeps_every_candidate_cheaply_before_upgrading_any():
    """A budget too small for a whole first definition still fits every signature."""
    from sparkls.context.builder import pack
    from sparkls.context.snippet import Snippet

    def candidate(name, whole_words):
        whole = Snippet("a.py", 0, 9, "definition", f"def {name}():\n" + " word" * whole_words)
        return [whole, Snippet("a.py", 0, 0, "signature", f"def {name}(): ...")]

    kept = pack([candidate("first", 400), candidate("second", 10), candidate("third", 10)], budget=60)
    assert [(s.text.split("(")[0], s.kind) for s in kept] == [
        ("def first", "signature"),
        ("def second", "definition"),
        ("def third", "definition"),
    ]


def test_keywords_are_not_looked_up_but_names_that_are_keywords_elsewhere_are():
    """`return` is never a definition's name; `type` is one in Python though Go reserves it."""
    from sparkls.context.definitions import names_used

    assert names_used("return type(x) if self else None", "python") == ["type", "x"]
    assert names_used("return type(x)", "go") == ["x"]



def _sent(name: str, source: str, marker: str) -> str:
    """The snippets' text of an edit with the cursor at `marker` in file `name`."""
    doc = DocumentStore().open(f"file:///w/{name}", source, 1)
    at = source.index(marker)
    return "\n".join(s.text for s in build_edit_context(doc, at, at, path=name, max_region_lines=300).snippets)


GO_FIELDS = "\n".join(f"\tField{i} string // field {i}" for i in range(40))
GO_SOURCE = f"""package shapes

// Server serves.
type Server struct {{
{GO_FIELDS}
\tPort int // the port
}}

func Describe(s *Server) int {{
\treturn s.Port + 1
}}
"""


def test_a_large_structs_field_comes_with_the_struct_header_not_its_first_lines():
    """`s.Port` on a 41-field struct: the header and the Port line, none of the other fields."""
    texts = _sent("shapes.go", GO_SOURCE, "return s.Port")
    assert "type Server struct {" in texts
    assert "\tPort int // the port" in texts
    assert "Field7" not in texts


JS_METHODS = "\n".join(f"  step{i}() {{\n    return {i};\n  }}" for i in range(60))
JS_SOURCE = f"""/**
 * Builds queries.
 *
 * ### Examples
 *
 * ```ts
 * const db = new Kysely({{ dialect }})
 * ```
 */
export class Kysely {{
  constructor(schema) {{
    this.schema = schema; // the schema
  }}
{JS_METHODS}
}}

export function describe(db) {{
  return db.schema;
}}
"""


def test_a_member_comes_with_its_classs_code_header_not_the_classs_doc():
    """`db.schema` on a large class: its header line and the member, not the class's doc
    comment (examples about the class as a whole) nor the other members."""
    texts = _sent("kysely.js", JS_SOURCE, "return db.schema")
    assert "export class Kysely {" in texts and "this.schema = schema; // the schema" in texts
    assert "Builds queries" not in texts and "new Kysely" not in texts
    assert "step7" not in texts


TS_SOURCE = """export enum Color {
  Red,
  Green = 2,
}

export function pick(): number {
  return Color.Green;
}
"""


def test_a_member_inside_a_definition_sent_whole_is_not_sent_twice():
    """`Color.Green`: the enum comes whole, and its member's line is not repeated after it."""
    doc = DocumentStore().open("file:///w/color.ts", TS_SOURCE, 1)
    at = TS_SOURCE.index("return Color")
    snippets = build_edit_context(doc, at, at, path="color.ts", max_region_lines=300).snippets
    assert [(s.kind, s.start_line, s.end_line) for s in snippets] == [("definition", 0, 3)]


def test_a_member_named_as_a_key_in_a_literal_of_its_type_is_sent():
    """`Server{Port: 1}` names Server's Port (the type is in the region); a key of an
    unnamed type's literal (`{Port: 1}` alone) sends no member."""
    source = GO_SOURCE.replace("func Describe(s *Server) int {\n\treturn s.Port + 1\n}", "func New() *Server {\n\treturn &Server{Port: 80}\n}\n\nfunc Bare() any {\n\treturn map[string]int{Port: 1}\n}")
    for marker, sent in (("return &Server", True), ("return map", False)):
        assert ("\tPort int // the port" in _sent("shapes.go", source, marker)) is sent, marker


def test_a_keyword_argument_to_a_class_names_its_field():
    """`Config(port=80)` on a 41-field dataclass: the class header and its `port` line."""
    fields = "\n".join(f"    field{i}: str = ''" for i in range(40))
    source = f"import dataclasses\n\n\n@dataclasses.dataclass\nclass Config:\n{fields}\n    port: int = 0  # the port\n\n\ndef make():\n    return Config(port=80)\n"
    texts = _sent("config.py", source, "return Config")
    assert "class Config:" in texts
    assert "    port: int = 0  # the port" in texts
    assert "field7" not in texts


def test_a_member_reached_through_a_union_of_interfaces_that_extend_its_type():
    """`state: State`, where State = ObjState | ArrState and both extend BaseState: `state.scope_`
    sends BaseState's header and its scope_ line (two hops through the headers)."""
    fields = "\n".join(f"  field{i}_: string" for i in range(40))
    source = (
        f"interface BaseState {{\n{fields}\n  scope_: Scope // the scope\n}}\n"
        "interface ObjState extends BaseState { kind: 0 }\n"
        "interface ArrState extends BaseState { kind: 1 }\n"
        "type State = ObjState | ArrState\n\n"
        "export function finish(state: State) {\n  const { scope_: scope } = state\n  return scope\n}\n"
    )
    texts = _sent("state.ts", source, "const { scope_")
    assert "interface BaseState {" in texts
    assert "  scope_: Scope // the scope" in texts
    assert "field7_" not in texts
