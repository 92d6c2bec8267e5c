"""Every grammar alike: trees, regions, imports and headers for each language."""

from pathlib import Path

import pytest

from sparkls.context.builder import build_edit_context, enclosing_headers, file_imports
from sparkls.context.queries import query
from sparkls.context.region import find_region
from sparkls.documents.positions import Position
from sparkls.documents.store import DocumentStore, TextChange

FIXTURES = Path(__file__).parents[2] / "fixtures" / "languages"
FILES = ["greeter.py", "greeter.js", "greeter.ts", "greeting.tsx", "greeter.go", "greeter.rs"]
LANGUAGE_IDS = ["python", "javascript", "javascriptreact", "typescript", "typescriptreact", "go", "rust"]


def _open(name: str):
    path = FIXTURES / name
    return DocumentStore().open(path.resolve().as_uri(), path.read_text(encoding="utf-8"), 1)


def _region(doc, needle: str, end_needle: str | None = None, *, max_lines: int = 300):
    start = doc.text.index(needle)
    end = doc.text.index(end_needle) if end_needle else start
    return find_region(doc, start, end, max_lines=max_lines)


def _shape(doc, region) -> tuple[str, int, str]:
    """The region's first line, line count and kind."""
    return doc.lines.line_text(region.start_line), region.line_count, region.kind


@pytest.mark.parametrize(
    ("uri", "language_id"),
    [
        ("file:///w/a.py", "python"),
        ("file:///w/a.pyi", "python"),
        ("file:///w/a.js", "javascript"),
        ("file:///w/a.mjs", "javascript"),
        ("file:///w/a.cjs", "javascript"),
        ("file:///w/a.jsx", "javascriptreact"),
        ("file:///w/a.ts", "typescript"),
        ("file:///w/a.mts", "typescript"),
        ("file:///w/a.cts", "typescript"),
        ("file:///w/a.tsx", "typescriptreact"),
        ("file:///w/a.go", "go"),
        ("file:///w/a.rs", "rust"),
    ],
)
def test_extension_gives_the_language_id(uri, language_id):
    """Without a languageId from the client, the file extension picks the language."""
    doc = DocumentStore().open(uri, "", 1)
    assert doc.language_id == language_id and doc.tree is not None


@pytest.mark.parametrize(
    ("uri", "client_id", "language_id"),
    [("file:///w/a.tsx", "tsx", "typescriptreact"), ("file:///w/a.js", "js", "javascript")],
)
def test_client_id_without_a_grammar_falls_back_to_the_extension(uri, client_id, language_id):
    """A languageId named after an editor mode ("tsx", "js") still gets the grammar of the extension."""
    doc = DocumentStore().open(uri, "", 1, client_id)
    assert doc.language_id == language_id and doc.tree is not None


@pytest.mark.parametrize("language_id", LANGUAGE_IDS)
@pytest.mark.parametrize("name", ["scopes", "imports", "headers"])
def test_every_language_has_compiled_queries(language_id, name):
    """Each language's grammar compiles its scopes, imports and headers queries."""
    assert query(language_id, name) is not None


@pytest.mark.parametrize("name", FILES)
def test_fixture_parses_without_errors(name):
    """Each language's fixture file has a tree without syntax errors."""
    doc = _open(name)
    assert doc.tree is not None and not doc.tree.root_node.has_error


@pytest.mark.parametrize(
    ("language_id", "errors"),
    [("javascript", False), ("javascriptreact", False), ("typescript", True), ("typescriptreact", False)],
)
def test_jsx_parses_with_the_react_grammars(language_id, errors):
    """JSX parses as javascript(react) and typescriptreact, but not as plain TypeScript."""
    doc = DocumentStore().open("file:///w/view", "const view = <p>{name}</p>;\n", 1, language_id)
    assert doc.tree.root_node.has_error is errors


@pytest.mark.parametrize(
    ("name", "needle", "first_line", "line_count"),
    [
        ("greeter.py", '"hello "', "    @staticmethod", 3),
        ("greeter.js", "new Greeter", "export function main() {", 4),
        ("greeter.ts", '"hello "', "  @logged", 4),
        ("greeting.tsx", "useState(0)", "export const Greeting = ({ name }: Props) => {", 4),
        ("greeter.go", '"hello "', "func (g *Greeter) Greet() string {", 3),
        ("greeter.rs", "format!", "    #[inline]", 4),
    ],
)
def test_cursor_in_a_body_selects_its_function_with_wrapper(name, needle, first_line, line_count):
    """A cursor in a body selects the function, with its decorators, `export` or attributes."""
    doc = _open(name)
    region = _region(doc, needle)
    assert _shape(doc, region) == (first_line, line_count, "definition")


@pytest.mark.parametrize(
    ("name", "needle", "first_line", "line_count"),
    [
        ("greeter.ts", "@logged", "  @logged", 4),
        ("greeter.rs", "#[derive", "/// Says hello.", 5),
    ],
)
def test_cursor_on_a_decorator_or_attribute_selects_its_definition(name, needle, first_line, line_count):
    """A cursor on a decorator or attribute line selects the definition it belongs to."""
    doc = _open(name)
    region = _region(doc, needle)
    assert _shape(doc, region) == (first_line, line_count, "definition")


@pytest.mark.parametrize(
    ("name", "first_line", "line_count"),
    [("greeter.py", "def main():", 3), ("greeter.go", "func main() {", 3), ("greeter.rs", "fn size() -> usize {", 4)],
)
def test_cursor_at_the_start_of_a_definition_selects_it(name, first_line, line_count):
    """A bare cursor on the first character of a definition selects that definition."""
    doc = _open(name)
    region = _region(doc, first_line)
    assert _shape(doc, region) == (first_line, line_count, "definition")


@pytest.mark.parametrize(
    ("name", "needle", "end_needle", "first_line", "line_count"),
    [
        ("greeter.py", '"hello "', "os.sep", "class Greeter:", 7),
        ("greeter.js", '"hello "', "<p>", "export class Greeter {", 9),
        ("greeter.ts", '"hello "', "path.sep", "export class Greeter {", 12),
        ("greeting.tsx", "<p>", "return 0", "class Counter {", 9),
        ("greeter.go", "Name() string", "Greet() string", "type Named interface {", 4),
        ("greeter.rs", "format!", "Ok(())", "impl Greeter {", 10),
    ],
)
def test_selection_across_two_members_selects_their_container(
    name, needle, end_needle, first_line, line_count
):
    """A selection across two methods (or interface members) selects their class, impl or type."""
    doc = _open(name)
    region = _region(doc, needle, end_needle)
    assert _shape(doc, region) == (first_line, line_count, "definition")


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("greeter.py", "print(main())"),
        ("greeter.js", "console.log(main());"),
        ("greeter.ts", "console.log(readFileSync.name);"),
        ("greeting.tsx", "export default Greeting;"),
        ("greeter.go", "var limit = 10"),
        ("greeter.rs", "static LIMIT: usize = 10;"),
    ],
)
def test_module_level_code_selects_its_statement(name, needle):
    """A cursor in module-level code selects the top-level statement around it."""
    doc = _open(name)
    region = _region(doc, needle)
    assert _shape(doc, region) == (needle, 1, "statements")


@pytest.mark.parametrize(
    ("name", "imports"),
    [
        ("greeter.py", ["import os", "from typing import Any"]),
        ("greeter.js", ['import React from "react";', 'const path = require("node:path");']),
        ("greeter.ts", ['import { readFileSync } from "node:fs";', 'import path = require("node:path");']),
        ("greeting.tsx", ['import { useState } from "react";']),
        ("greeter.go", ['import (\n\t"fmt"\n\t"strings"\n)']),
        ("greeter.rs", ["use std::fmt;"]),
    ],
)
def test_module_imports_are_found_but_not_function_local_ones(name, imports):
    """Module-level imports are found, in order; imports inside a function are not."""
    assert [text for _, _, text in file_imports(_open(name))] == imports


@pytest.mark.parametrize(
    ("name", "needle", "max_lines", "headers"),
    [
        ("greeter.py", '"hello "', 300, ["class Greeter:"]),
        ("greeter.js", '"hello "', 300, ["export class Greeter {"]),
        ("greeter.ts", '"hello "', 300, ["export class Greeter {"]),
        ("greeting.tsx", "<p>", 300, ["class Counter {"]),
        ("greeter.go", "name string", 1, ["type Greeter struct {"]),
        ("greeter.rs", "format!", 300, ["impl Greeter {"]),
    ],
)
def test_enclosing_container_headers_are_found(name, needle, max_lines, headers):
    """The first line of the class, impl or type around the region is its header."""
    doc = _open(name)
    assert [text for _, text in enclosing_headers(doc, _region(doc, needle, max_lines=max_lines))] == headers


@pytest.mark.parametrize(
    ("uri", "language_id"), [("file:///w/notes.txt", None), ("file:///w/notes.md", "markdown")]
)
def test_language_without_a_grammar_gets_a_line_window(uri, language_id):
    """A language without a grammar has no tree, no imports, and a window around the cursor."""
    doc = DocumentStore().open(uri, "".join(f"line {i}\n" for i in range(30)), 1, language_id)
    at = doc.text.index("line 15")
    ctx = build_edit_context(doc, at, at, path="notes", max_region_lines=300)
    assert doc.tree is None and ctx.imports == [] and ctx.headers == []
    assert (ctx.region.start_line, ctx.region.end_line, ctx.region.kind) == (5, 25, "lines")


def test_incremental_changes_match_a_fresh_parse_in_rust():
    """After edits (one after an emoji), the kept Rust tree equals a from-scratch parse."""
    store = DocumentStore()
    source = 'fn greet(name: &str) -> String {\n    format!("hi {name} 😀")\n}\n'
    doc = store.open("file:///w/lib.rs", source, 1)
    assert doc.tree is not None  # parse once so later changes edit the tree
    store.change(
        "file:///w/lib.rs",
        [
            TextChange("who", (Position(0, 9), Position(0, 13))),
            TextChange(" // 😀 wave", (Position(1, 27), Position(1, 27))),
        ],
        2,
    )
    assert doc.text == 'fn greet(who: &str) -> String {\n    format!("hi {name} 😀") // 😀 wave\n}\n'
    fresh = DocumentStore().open("file:///w/fresh.rs", doc.text, 1)
    assert str(doc.tree.root_node) == str(fresh.tree.root_node)
