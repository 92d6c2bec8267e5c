"""Reply shapes real models produce, and how to run one through sparkls' real code path.

Each row is a reply and what must come of it: the exact texts after applying it, or a
refusal whose message matches `refused`. The runners drive the code the server runs:
`fastedit.engine.run_fast_edit` with a real `DocumentStore` and a stub session for the fast
tier, `tasks._run_step` for a delegated step, and `deep.pipeline.edit_from_reply` for
the deep tier; then they apply what came back to the texts. Shared by
tests/unit/edits/test_reply_shapes.py (asserts) and bench/reply_shapes.py (counts, times).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from sparkls.config import Settings
from sparkls.guard.exclusions import PathFilter
from sparkls.edits.workspace import DocumentEdit, FileCreate
from sparkls.deep.paths import ResolvedPath, resolve_reply_path
from sparkls.deep.pipeline import FileState, edit_from_reply
from sparkls.deep.plan import PlanStep
from sparkls.documents.positions import LineIndex, Position
from sparkls.documents.store import DocumentStore
from sparkls.fastedit.engine import EditRequest, run_fast_edit
from sparkls.errors import SparkError
from sparkls.models.session import Reply
from sparkls.deep.tasks import TaskEnv, _run_step
from bench.kit.sealing import environment

# ---------------------------------------------------------------- fast-tier documents

PY = '''\
import math


class Shape:
    """A shape."""

    def __init__(self, r):
        self.r = r

    def area(self):
        """Area of the circle."""
        return math.pi * self.r ** 2

    def name(self):
        return "circle"
'''
PY_OLD = '''\
    def area(self):
        """Area of the circle."""
        return math.pi * self.r ** 2
'''
PY_NEW = '''\
    def area(self):
        """Area of the circle."""
        return math.pi * self.r * self.r
'''
PY_DEDENTED = '''\
def area(self):
    """Area of the circle."""
    return math.pi * self.r * self.r
'''
PY_WITH_FENCE = '''\
    def area(self):
        """Area of the circle.

        ```
        Shape(2).area()
        ```
        """
        return math.pi * self.r * self.r
'''
PY_STUB = '''\
    def area(self):
        """Area of the circle."""
        ...
'''

PY_LOOP = '''\
class Basket:
    def total(self, items):
        count = 0
        for item in items:
            count += 1
        for item in items:
            count += 1
        return count
'''

GO = '''\
package main

import "fmt"

func add(a int, b int) int {
\tif a > b {
\t\treturn a + b
\t}
\treturn b + a
}

func main() {
\tfmt.Println(add(1, 2))
}
'''
GO_OLD = "func add(a int, b int) int {\n\tif a > b {\n\t\treturn a + b\n\t}\n\treturn b + a\n}\n"
GO_NEW = "func add(a int, b int) int {\n\tif a < b {\n\t\treturn a + b\n\t}\n\treturn b + a\n}\n"

TS = '''\
import { log } from "./log";

export function greet(name: string): string {
  const greeting = `Hello, ${name}`;
  log(greeting);
  return greeting;
}

export function bye(): void {
  log("bye");
}
'''
TS_OLD = '''\
export function greet(name: string): string {
  const greeting = `Hello, ${name}`;
  log(greeting);
  return greeting;
}
'''
TS_NEW = '''\
export function greet(name: string): string {
  const greeting = `Hello, ${name}!`;
  log(greeting);
  return greeting;
}
'''

TS_CLASS = '''\
export class Counter {
  private count = 0;

  increment(by: number): number {
    this.count += by;
    return this.count;
  }
}

export const shared = new Counter();
'''
TS_METHOD_OLD = "  increment(by: number): number {\n    this.count += by;\n    return this.count;\n  }\n"
TS_METHOD_NEW = "  increment(by = 1): number {\n    this.count += by;\n    return this.count;\n  }\n"

JS = '''\
function total(items) {
  let sum = 0;
  for (const item of items) {
    sum += item.price;
  }
  return sum;
}

module.exports = { total };
'''
JS_OLD = JS[: JS.index("\n\nmodule")] + "\n"

NO_EOL = 'def first():\n    return 1\n\n\ndef last():\n    return 2'
NO_EOL_OLD = 'def last():\n    return 2'
NO_EOL_NEW = 'def last():\n    return 3'


@dataclass(frozen=True)
class Doc:
    text: str
    language: str
    region: str  # the old region, as find_region picks it around `inside`
    inside: str  # a piece of text inside the region, where the edit is asked
    name: str = "shapes.py"


PY_DOC = Doc(PY, "python", PY_OLD, "return math.pi")
PY_FENCE_DOC = Doc(PY.replace(PY_OLD, PY_WITH_FENCE.replace("self.r * self.r", "self.r ** 2")), "python",
                   PY_WITH_FENCE.replace("self.r * self.r", "self.r ** 2"), "return math.pi")
PY_LOOP_DOC = Doc(PY_LOOP, "python", PY_LOOP[PY_LOOP.index("    def total") :], "return count", "basket.py")
GO_DOC = Doc(GO, "go", GO_OLD, "return b + a", "main.go")
TS_DOC = Doc(TS, "typescript", TS_OLD, "log(greeting)", "greet.ts")
JS_DOC = Doc(JS, "javascript", JS_OLD, "sum += item", "total.js")
TS_CLASS_DOC = Doc(TS_CLASS, "typescript", TS_METHOD_OLD, "this.count += by", "counter.ts")
CRLF_DOC = Doc(PY.replace("\n", "\r\n"), "python", PY_OLD.replace("\n", "\r\n"), "return math.pi", "win.py")
NO_EOL_DOC = Doc(NO_EOL, "python", NO_EOL_OLD, "return 2", "tail.py")


def fenced(body: str, fence: str = "```", tag: str = "python") -> str:
    return f"{fence}{tag}\n{body.removesuffix(chr(10))}\n{fence}\n"


@dataclass(frozen=True)
class FastShape:
    """A fast-tier reply to an edit of `doc`'s region; `new_region` None means refused."""

    name: str
    doc: Doc
    reply: str
    new_region: str | None = None
    refused: str = ""  # a regex the refusal's message must match

    @property
    def expected(self) -> str:
        """The document after the edit (the original when refused)."""
        if self.new_region is None:
            return self.doc.text
        return self.doc.text.replace(self.doc.region, self.new_region, 1)


def _whole_file(doc: Doc, new_region: str) -> str:
    return doc.text.replace(doc.region, new_region, 1)


def _indent(text: str, prefix: str) -> str:
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(keepends=True))


ELIDED = '''\
    def area(self):
        """Area of the circle."""
        # ... rest unchanged
'''
DIFF = '''\
--- a/shapes.py
+++ b/shapes.py
@@ -12,3 +12,3 @@
     def area(self):
         """Area of the circle."""
-        return math.pi * self.r ** 2
+        return math.pi * self.r * self.r
'''

FAST_SHAPES: list[FastShape] = [
    FastShape("fence with a language tag", PY_DOC, fenced(PY_NEW), PY_NEW),
    FastShape("fence without a tag", PY_DOC, fenced(PY_NEW, tag=""), PY_NEW),
    FastShape("~~~ fence", PY_DOC, fenced(PY_NEW, "~~~"), PY_NEW),
    FastShape("4-backtick fence holding a ``` line", PY_DOC, fenced(PY_WITH_FENCE, "````"), PY_WITH_FENCE),
    FastShape("info string with more than a language", PY_DOC,
              'Here:\n```python title="shapes.py" {3}\n' + PY_NEW + "```\n", PY_NEW),
    FastShape("prose before and after the block", PY_DOC,
              "Here is the fix:\n\n" + fenced(PY_NEW) + "\nThis avoids the power operator.\n", PY_NEW),
    FastShape("region markers echoed", PY_DOC,
              fenced("<|editable_region_start|>\n" + PY_NEW + "<|editable_region_end|>\n"), PY_NEW),
    FastShape("markers echoed with the excerpt around them", PY_DOC,
              fenced("class Shape:\n    ...\n<|editable_region_start|>\n" + PY_NEW + "<|editable_region_end|>\n"
                     "\n    def name(self):\n"), PY_NEW),
    FastShape("only the start marker echoed, after the header", PY_DOC,
              fenced("class Shape:\n<|editable_region_start|>\n" + PY_NEW), PY_NEW),
    FastShape("cursor marker echoed", PY_DOC,
              fenced(PY_NEW.replace("return math", "<|cursor|>return math")), PY_NEW),
    FastShape("whole file echoed instead of the region", PY_DOC, fenced(_whole_file(PY_DOC, PY_NEW)), PY_NEW),
    FastShape("whole file echoed, a line outside the region changed", PY_DOC,
              fenced(_whole_file(PY_DOC, PY_NEW).replace("import math", "import math, cmath")), None,
              "echoed lines from outside the editable region"),
    FastShape("whole file echoed, the last line changed", PY_DOC,
              fenced(_whole_file(PY_DOC, PY_NEW).replace('"circle"', '"disc"')), None,
              "echoed lines from outside the editable region"),
    FastShape("excerpt echoed without markers", PY_DOC, fenced("class Shape:\n    ...\n" + PY_NEW), PY_NEW),
    FastShape("class header echoed without its placeholder", PY_DOC, fenced("class Shape:\n\n" + PY_NEW), PY_NEW),
    FastShape("region with context lines around it", PY_DOC,
              fenced("        self.r = r\n\n" + PY_NEW + "\n    def name(self):\n"), PY_NEW),
    FastShape("region dedented", PY_DOC, fenced(PY_DEDENTED), PY_NEW),
    FastShape("region indented by a constant", PY_DOC, fenced(_indent(PY_NEW, "    ")), PY_NEW),
    FastShape("tabs instead of the file's spaces", PY_DOC, fenced(PY_NEW.replace("    ", "\t")), PY_NEW),
    FastShape("Go: fence with the go tag", GO_DOC, fenced(GO_NEW, tag="go"), GO_NEW),
    FastShape("Go: spaces instead of the file's tabs", GO_DOC, fenced(GO_NEW.replace("\t", "    "), tag="go"), GO_NEW),
    FastShape("TypeScript: ts tag, prose after", TS_DOC, fenced(TS_NEW, tag="ts") + "Added an exclamation mark.",
              TS_NEW),
    FastShape("TypeScript: region dedented and tab-indented", TS_DOC,
              fenced(TS_NEW.replace("  ", "\t")), TS_NEW),
    FastShape("TypeScript: class method dedented (its closing brace is not an echo)", TS_CLASS_DOC,
              fenced(TS_METHOD_NEW.replace("\n  ", "\n").removeprefix("  "), tag="ts"), TS_METHOD_NEW),
    FastShape("JavaScript: // ... existing code ... elision", JS_DOC,
              fenced("function total(items) {\n  let sum = 0;\n  // ... existing code ...\n  return sum;\n}\n", tag="js"),
              None, r"left part of the code out.*existing code"),
    FastShape("Python: # ... rest unchanged elision", PY_DOC, fenced(ELIDED), None, r"left part of the code out"),
    FastShape("Python: # … elision", PY_DOC, fenced(ELIDED.replace("# ... rest unchanged", "# …")), None,
              "left part of the code out"),
    FastShape("Python: bare ... statement is code", PY_DOC, fenced(PY_STUB), PY_STUB),
    # An edit's empty answer deletes the region's lines ("remove this import"): one edit.
    FastShape("empty block: the region deleted", PY_DOC, "```python\n```\n", ""),
    FastShape("block of blank lines: the region deleted", PY_DOC, "```python\n\n\n```\n", ""),
    FastShape("two blocks: Before (the old region) and After", PY_DOC,
              "Before:\n" + fenced(PY_OLD) + "\nAfter:\n" + fenced(PY_NEW), PY_NEW),
    FastShape("two blocks: the changed line quoted, then the region", PY_DOC,
              "Change\n" + fenced("        return math.pi * self.r ** 2") + "to get\n" + fenced(PY_NEW), PY_NEW),
    FastShape("two blocks: the region, then a usage example", PY_DOC,
              fenced(PY_NEW) + "\nUse it like this:\n" + fenced("print(Shape(2).area())"), PY_NEW),
    FastShape("two blocks that change the region differently", PY_DOC,
              "Either\n" + fenced(PY_NEW) + "or\n" + fenced(PY_NEW.replace("self.r * self.r", "pow(self.r, 2)")),
              None, "cannot tell which one"),
    FastShape("unified diff in a diff fence", PY_DOC, fenced(DIFF, tag="diff"), PY_NEW),
    FastShape("unified diff without a fence, prose before", PY_DOC, "Here is the patch:\n\n" + DIFF, PY_NEW),
    FastShape("bare unified diff (---/+++/@@)", PY_DOC, DIFF, PY_NEW),
    FastShape("unified diff whose hunk does not match", PY_DOC,
              fenced(DIFF.replace("** 2", "** 3"), tag="diff"), None, "hunk 1 does not match"),
    FastShape("unified diff whose hunk fits two places", PY_LOOP_DOC,
              fenced("@@ -4,1 +4,1 @@\n-            count += 1\n+            count += 2\n", tag="diff"), None,
              "fits 2 places"),
    FastShape("no fence at all", PY_DOC, PY_NEW, None, "no complete code block"),
    FastShape("prose only", PY_DOC, "I would rewrite the power as a product.", None,
              'answer was words, not code.*"I would rewrite the power as a product."'),
    FastShape("unclosed fence (cut off)", PY_DOC, "```python\n" + PY_NEW, None, "never closed"),
    FastShape("a block, then an unclosed one", PY_DOC, fenced(PY_NEW) + "And:\n```python\nx = 1\n", None,
              "never closed"),
    FastShape("block identical to the old region", PY_DOC, fenced(PY_OLD), PY_OLD),
    FastShape("the same block twice", PY_DOC, fenced(PY_NEW) + "\n" + fenced(PY_NEW), PY_NEW),
    FastShape("only the changed line, not the whole region", PY_DOC,
              fenced("        return math.pi * self.r * self.r"), None, "only part of the region"),
    FastShape("region holding a ``` line, reply in a 4-backtick fence", PY_FENCE_DOC,
              fenced(PY_WITH_FENCE, "````"), PY_WITH_FENCE),
    FastShape("region holding a ``` line, reply in a ``` fence (closes early)", PY_FENCE_DOC,
              fenced(PY_WITH_FENCE), None, "same fence"),
    FastShape("trailing whitespace added", PY_DOC, fenced(PY_NEW.replace("\n", "  \n").replace("r\n", "r\t\n")),
              PY_NEW),
    FastShape("CRLF file, LF reply", CRLF_DOC, fenced(PY_NEW), PY_NEW.replace("\n", "\r\n")),
    FastShape("CRLF file, CRLF reply", CRLF_DOC, fenced(PY_NEW).replace("\n", "\r\n"), PY_NEW.replace("\n", "\r\n")),
    FastShape("LF file, CRLF reply", PY_DOC, fenced(PY_NEW).replace("\n", "\r\n"), PY_NEW),
    FastShape("file without a final newline", NO_EOL_DOC, fenced(NO_EOL_NEW), NO_EOL_NEW),
    FastShape("file without a final newline, blank line before the closing fence", NO_EOL_DOC,
              fenced(NO_EOL_NEW + "\n\n"), NO_EOL_NEW),
    FastShape("reply that does not parse", PY_DOC, fenced(PY_NEW.replace("self.r * self.r", "self.r * (self.r")),
              None, "does not parse"),
]


# ---------------------------------------------------------------- fast-tier runner


@dataclass
class StubSession:
    """A fast tier whose every answer is `text`."""

    text: str
    name: str = "fast"
    tier: SimpleNamespace = field(default_factory=lambda: SimpleNamespace(model="stub-spark", api="responses", patches=True))
    calls: int = 0

    async def complete(self, prompt, *, notify=None, steering=None, patient=None) -> Reply:
        self.calls += 1
        return Reply(text=self.text, response_id=f"resp_{self.calls}", ttft_ms=0.0, stream_ms=0.0)


@dataclass(frozen=True)
class Outcome:
    texts: dict[str, str]  # file name -> text after applying what came back
    error: SparkError | None = None


def _apply_positioned(text: str, edits) -> str:
    index = LineIndex(text)
    spans = sorted(((index.offset(e.start, "utf-16"), index.offset(e.end, "utf-16"), e.text) for e in edits),
                   reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


async def run_fast(shape: FastShape) -> Outcome:
    """The document's text after `run_fast_edit` with `shape.reply` as the model's answer."""
    doc = shape.doc
    store = DocumentStore()
    uri = f"file:///work/{doc.name}"
    opened = store.open(uri, doc.text, 1, doc.language)
    at = opened.position(doc.text.index(doc.inside))
    request = EditRequest(uri, at, Position(at.line, at.character + 3), "make it better")
    try:
        outcome = await run_fast_edit(environment(store, StubSession(shape.reply)), request)
    except SparkError as exc:
        return Outcome({doc.name: doc.text}, exc)
    return Outcome({doc.name: _apply_positioned(doc.text, outcome.edits)})


# ---------------------------------------------------------------- delegated steps


@dataclass(frozen=True)
class StepShape:
    """A fast-tier reply to a plan step whose region is a whole file (None: a new file)."""

    name: str
    text: str | None
    reply: str
    new_text: str | None = None
    refused: str = ""


STEP_FILE = "def area(r):\n    return 3.14 * r * r\n"
STEP_NEW = "def area(r):\n    return math.pi * r * r\n"

STEP_SHAPES = [
    StepShape("step: whole file in a fence, prose around", STEP_FILE, "Done:\n" + fenced(STEP_NEW) + "Bye.", STEP_NEW),
    StepShape("step: markers echoed around the file", STEP_FILE,
              fenced("<|editable_region_start|>\n" + STEP_NEW + "<|editable_region_end|>"), STEP_NEW),
    StepShape("step: elision in the file", STEP_FILE, fenced("def area(r):\n    # ... rest unchanged\n"), None,
              "left part of the code out"),
    StepShape("step: a new file", None, fenced("X = 1"), "X = 1\n"),
    StepShape("step: no fence", STEP_FILE, STEP_NEW, None, "no complete code block"),
]


async def run_step(shape: StepShape) -> Outcome:
    """The file's text after `tasks._run_step` with `shape.reply` as the fast tier's answer."""
    root = Path(tempfile.mkdtemp(prefix="sparkls-shapes-"))
    if shape.text is not None:
        (root / "calc.py").write_bytes(shape.text.encode())
    env = TaskEnv(environment(DocumentStore(), StubSession(shape.reply), root=root), StubSession(""))
    path = resolve_reply_path("calc.py", env.folders)
    state = FileState(shape.text)
    before = shape.text or ""
    try:
        change = await _run_step(env, PlanStep(1, "calc.py", "use math.pi", shape.text is None), path, state)
    except SparkError as exc:
        return Outcome({"calc.py": before}, exc)
    return Outcome({"calc.py": change.new_text if change is not None else before})


# ---------------------------------------------------------------- deep tier

SHAPES_PY = '''\
import math


def area(r):
    return math.pi * r * r


def perimeter(r):
    return 2 * math.pi * r
'''
REPORT_PY = '''\
from shapes import area


def report(r):
    print("area", area(r))
    print("area", area(r))
'''
WIN_PY = "def greet():\r\n    return 'hi'\r\n"
FILES = {"src/shapes.py": SHAPES_PY, "src/report.py": REPORT_PY, "win.py": WIN_PY}

SEARCH, DIVIDER, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"


def block(search: str, replace: str, *, path: str | None = "src/shapes.py") -> str:
    head = f"{path}\n" if path is not None else ""
    return f"{head}{SEARCH}\n{search}\n{DIVIDER}\n{replace}\n{REPLACE}\n"


RENAME = block("def area(r):", "def circle_area(r):")
RENAMED = SHAPES_PY.replace("def area(r):", "def circle_area(r):")
RENAME_BODY = RENAME.split("\n", 1)[1]  # the block without its path line


@dataclass(frozen=True)
class DeepShape:
    """A deep-tier reply; `changed` are the files' expected new texts, None: refused."""

    name: str
    reply: str
    changed: dict[str, str] | None = None
    refused: str = ""
    shown: tuple[str, ...] = ("src/shapes.py", "src/report.py")

    @property
    def expected(self) -> dict[str, str]:
        return {**FILES, **(self.changed or {})}


DEEP_SHAPES: list[DeepShape] = [
    DeepShape("plain block", RENAME, {"src/shapes.py": RENAMED}),
    DeepShape("path in backticks", "`src/shapes.py`\n" + RENAME_BODY, {"src/shapes.py": RENAMED}),
    DeepShape("path in bold", "**src/shapes.py**\n" + RENAME_BODY, {"src/shapes.py": RENAMED}),
    DeepShape("path after File:", "File: src/shapes.py\n" + RENAME_BODY, {"src/shapes.py": RENAMED}),
    DeepShape("path after ###", "### src/shapes.py\n\n" + RENAME_BODY, {"src/shapes.py": RENAMED}),
    DeepShape("path with a trailing colon", "In src/shapes.py:\n\nsrc/shapes.py:\n" + RENAME_BODY,
              {"src/shapes.py": RENAMED}),
    DeepShape("path on the fence line after the language", "```python src/shapes.py\n" + RENAME_BODY + "```\n",
              {"src/shapes.py": RENAMED}),
    DeepShape("path as the fence's info string, two blocks inside",
              "```src/shapes.py\n" + RENAME_BODY + block("def perimeter(r):", "def circumference(r):", path=None)
              + "```\n",
              {"src/shapes.py": RENAMED.replace("def perimeter(r):", "def circumference(r):")}),
    DeepShape("blocks inside a fence, path before it", "src/shapes.py\n```python\n" + RENAME_BODY + "```\n",
              {"src/shapes.py": RENAMED}),
    DeepShape("missing path line, one file shown", "Here you go:\n" + RENAME_BODY, {"src/shapes.py": RENAMED},
              shown=("src/shapes.py",)),
    DeepShape("missing path line, two files shown", RENAME_BODY, None, "no file path line"),
    DeepShape("prose instead of a path line, two files shown", "Now in `src/shapes.py` do this:\n" + RENAME_BODY,
              None, "not preceded by a file path"),
    DeepShape("markers with trailing spaces",
              "src/shapes.py\n<<<<<<< SEARCH  \ndef area(r):\n=======   \ndef circle_area(r):\n>>>>>>> REPLACE \t\n",
              {"src/shapes.py": RENAMED}),
    DeepShape("6 and 9 angle brackets, 8 equals signs",
              "src/shapes.py\n<<<<<< SEARCH\ndef area(r):\n========\ndef circle_area(r):\n>>>>>>>>> REPLACE\n",
              {"src/shapes.py": RENAMED}),
    DeepShape("SEARCH indented less than the file (whitespace only)",
              block("return math.pi * r * r", "return math.pi * r ** 2"),
              {"src/shapes.py": SHAPES_PY.replace("r * r\n", "r ** 2\n", 1)}),
    DeepShape("SEARCH with trailing whitespace the file lacks", block("def area(r):   ", "def circle_area(r):"),
              {"src/shapes.py": RENAMED}),
    DeepShape("block indented inside a list item",
              "1. Rename it:\n\n   src/shapes.py\n   ```python\n   <<<<<<< SEARCH\n   def area(r):\n"
              "       return math.pi * r * r\n   =======\n   def circle_area(r):\n       return math.pi * r * r\n"
              "   >>>>>>> REPLACE\n   ```\n",
              {"src/shapes.py": RENAMED}),
    DeepShape("CRLF reply for a CRLF file",
              block("def greet():\n    return 'hi'", "def greet():\n    return 'hello'", path="win.py").replace("\n", "\r\n"),
              {"win.py": WIN_PY.replace("'hi'", "'hello'")}, shown=("win.py",)),
    DeepShape("LF reply for a CRLF file", block("    return 'hi'", "    return 'hello'", path="win.py"),
              {"win.py": WIN_PY.replace("'hi'", "'hello'")}),
    DeepShape("two blocks for one file", RENAME + "\n" + block("def perimeter(r):", "def circumference(r):"),
              {"src/shapes.py": RENAMED.replace("def perimeter(r):", "def circumference(r):")}),
    DeepShape("prose between blocks for two files",
              "First the definition.\n\n" + RENAME + "\nThen its callers:\n\n"
              + block("from shapes import area", "from shapes import circle_area", path="src/report.py"),
              {"src/shapes.py": RENAMED, "src/report.py": REPORT_PY.replace("import area", "import circle_area")}),
    DeepShape("a block creating a new file", block("", "def to_cm(inches):\n    return inches * 2.54", path="src/units.py"),
              {"src/units.py": "def to_cm(inches):\n    return inches * 2.54\n"}),
    DeepShape("block cut off at the end", RENAME + block("from shapes import area", "from shapes import circle_area",
                                                         path="src/report.py").removesuffix(REPLACE + "\n"),
              None, "missing its `>>>>>>> REPLACE` line"),
    DeepShape("block for a file outside the workspace", RENAME + block("", "x = 1", path="../outside.py"), None,
              "'..' could lead outside the workspace"),
    DeepShape("absolute path", block("", "x = 1", path="/etc/passwd"), None, "absolute paths are not accepted"),
    DeepShape("SEARCH that matches twice", block('    print("area", area(r))', '    print("area:", area(r))',
                                                 path="src/report.py"), None, "matches 2 places"),
    DeepShape("SEARCH that matches nothing, after a good block",
              RENAME + block("def volume(r):", "def sphere_volume(r):"), None, "block 2.*matches nothing"),
    DeepShape("new file whose path exists", block("", "x = 1", path="src/report.py"), None, "already exists"),
    DeepShape("no blocks at all", "I renamed area to circle_area everywhere.", None, "The answer was words, not edits"),
]


def run_deep(shape: DeepShape) -> Outcome:
    """Every file's text after `edit_from_reply` with `shape.reply`, applied."""
    root = Path(tempfile.mkdtemp(prefix="sparkls-shapes-"))
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode())

    def read_file(path: ResolvedPath) -> FileState:
        return FileState(Path(path.absolute).read_bytes().decode() if path.exists else None)

    try:
        edit = edit_from_reply(shape.reply, [str(root)], read_file, shown_paths=shape.shown)
    except SparkError as exc:
        return Outcome(dict(FILES), exc)
    texts = dict(FILES)
    by_uri = {(root / name).as_uri(): name for name in FILES}
    for op in edit.operations:
        if isinstance(op, FileCreate):
            name = Path(op.uri.removeprefix("file://")).relative_to(root).as_posix()
            by_uri[op.uri] = name
            texts[name] = ""
        elif isinstance(op, DocumentEdit):
            name = by_uri[op.uri]
            texts[name] = _apply_positioned(texts[name], op.changes)
    return Outcome(texts)
