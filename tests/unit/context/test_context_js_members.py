"""JavaScript's members that no class declares in the usual way (issue 26): the members
of an exported object literal, static members assigned after a class, ES private
`#` fields, and names holding `$`."""

from pathlib import Path

import pytest

from sparkls.context.builder import build_edit_context
from sparkls.context.definitions import names_used, private_names
from sparkls.context.index.workspace import WorkspaceIndex
from sparkls.documents.store import DocumentStore
from sparkls.guard.exclusions import PathFilter
from tests.unit.context.parsing import symbol_rows


def _sent(source: str, marker: str, name: str, lookup=None) -> str:
    doc = DocumentStore().open(f"file:///w/{name}", source, 1)
    at = source.index(marker)
    ctx = build_edit_context(doc, at, at, path=name, max_region_lines=300, lookup=lookup)
    return "\n".join(s.text for s in ctx.snippets)


UTILS = """const typeOfTest = (type) => (thing) => typeof thing === type;
const isFunction = typeOfTest("function");

export default {
  isFunction,
  hasOwnProp: hasOwnProperty, // an alias
  trim(str) {
    return str.trim();
  },
  kindOf: (thing) => typeof thing,
  nested: { inner: 1 },
};

function hasOwnProperty(obj, prop) {
  return Object.prototype.hasOwnProperty.call(obj, prop);
}
"""


@pytest.mark.parametrize("language_id", ["javascript", "typescript"])
def test_an_exported_object_literals_members_are_definitions(language_id):
    """`export default {...}`, `module.exports = {...}` and `export const x = {...}`
    hold their members (a function value is a function); a literal that is not
    exported, and a literal inside a member, hold none."""
    assert symbol_rows(language_id, UTILS)[2:] == [
        ("object", "default", 3, None),
        ("attribute", "isFunction", 4, "default"),
        ("attribute", "hasOwnProp", 5, "default"),
        ("function", "trim", 6, "default"),
        ("function", "kindOf", 9, "default"),
        ("attribute", "nested", 10, "default"),
        ("function", "hasOwnProperty", 13, None),
    ]
    text = "module.exports = { a, b: Symbol('b') };\nexport const helpers = { c };\nconst local = { d: 1 };\n"
    assert symbol_rows(language_id, text) == [
        ("object", "module.exports", 0, None),
        ("attribute", "a", 0, "module.exports"),
        ("attribute", "b", 0, "module.exports"),
        ("object", "helpers", 1, None),
        ("attribute", "c", 1, "helpers"),
        ("variable", "local", 2, None),
    ]


def test_a_static_member_assigned_after_its_class_is_the_classs():
    """`AxiosError.ERR_X = "x"` defines ERR_X in AxiosError; `exports.x` stays a plain export."""
    text = 'class AxiosError {}\nAxiosError.ERR_X = "x";\nAxiosError.from = function () {};\nexports.y = 1;\n'
    assert symbol_rows("javascript", text) == [
        ("class", "AxiosError", 0, None),
        ("constant", "ERR_X", 1, "AxiosError"),
        ("function", "from", 2, "AxiosError"),
        ("variable", "y", 3, None),
    ]


@pytest.fixture
def axios_like(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "utils.js").write_text(UTILS, encoding="utf-8")
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    yield index
    index.close()


def test_a_member_of_an_imported_object_literal_comes_with_its_header_and_value(axios_like):
    """`utils.isFunction(x)` in another file sends the literal's member, its
    `export default {` line, the `const isFunction` it names and `typeOfTest`, whose
    call made it; `utils.hasOwnProp` the `hasOwnProperty` its value names."""
    source = 'import utils from "./utils.js";\n\nexport function check(x) {\n  return utils.isFunction(x);\n}\n'
    sent = _sent(source, "return utils", "main.js", axios_like)
    assert "  isFunction," in sent
    assert "export default {" in sent
    assert 'const isFunction = typeOfTest("function");' in sent
    assert "const typeOfTest = (type) =>" in sent
    aliased = _sent(source.replace("isFunction", "hasOwnProp"), "return utils", "main.js", axios_like)
    assert "hasOwnProp: hasOwnProperty" in aliased and "function hasOwnProperty(obj, prop) {" in aliased


def test_a_commonjs_exports_member_is_reached_by_the_name_a_require_binds(tmp_path: Path):
    """`const { kQueue } = require("./symbols")`, then `client[kQueue]`: the member of
    symbols.js's `module.exports = {...}`."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "symbols.js").write_text("module.exports = {\n  kQueue: Symbol('queue'),\n};\n", encoding="utf-8")
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    source = "const { kQueue } = require('./symbols');\n\nfunction first(client) {\n  return client[kQueue][0];\n}\n"
    try:
        assert "kQueue: Symbol('queue')," in _sent(source, "return client", "client.js", index)
    finally:
        index.close()


@pytest.mark.parametrize("language_id", ["javascript", "typescript"])
def test_an_anonymous_default_export_is_named_default(language_id):
    """`export default (raw) => {...}` and `export default function (raw) {...}` define
    `default`; a named one keeps its own name."""
    source = "export default (raw) => {\n  return raw;\n};\nexport default function named() {}\n"
    assert symbol_rows(language_id, source) == [("function", "default", 0, None), ("function", "named", 3, None)]
    source = "export default function (raw) {\n  return raw;\n}\n"
    assert symbol_rows(language_id, source) == [("function", "default", 0, None)]


def test_a_default_import_or_a_require_binding_is_that_modules_default_export(tmp_path: Path):
    """`import parseHeaders from "./parseHeaders.js"` then `parseHeaders(raw)` sends that
    file's anonymous default function; `const util = require("./util")` then
    `util.destroy(x)` sends util.js's `module.exports = {` header; nothing of another
    file's default export is sent."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "parseHeaders.js").write_text("export default (rawHeaders) => {\n  return {};\n};\n", encoding="utf-8")
    (root / "other.js").write_text("export default (unrelated) => {\n  return 1;\n};\n", encoding="utf-8")
    (root / "util.js").write_text("function destroy(x) {}\n\nmodule.exports = {\n  destroy,\n};\n", encoding="utf-8")
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    esm = 'import parseHeaders from "./parseHeaders.js";\n\nexport function set(raw) {\n  return parseHeaders(raw);\n}\n'
    cjs = 'const util = require("./util");\n\nfunction resume(x) {\n  return util.destroy(x);\n}\n'
    try:
        sent = _sent(esm, "return parseHeaders", "main.js", index)
        assert "export default (rawHeaders) => {" in sent and "unrelated" not in sent
        assert "module.exports = {" in _sent(cjs, "return util", "main.js", index)
    finally:
        index.close()


def test_a_bare_name_is_not_a_member_of_this_files_object_literal():
    """`getPrototypeOf(x)` in a file whose exported literal has a `getPrototypeOf`
    method is not that method (only `traps.getPrototypeOf` would be)."""
    source = (
        "export const traps = {\n  getPrototypeOf(state) {\n    return Object.getPrototypeOf(state);\n  },\n};\n\n"
        "function protoOf(source) {\n  return getPrototypeOf(source);\n}\n"
    )
    assert "getPrototypeOf(state)" not in _sent(source, "return getPrototypeOf", "proxy.js")
    dotted = source.replace("return getPrototypeOf(source)", "return traps.getPrototypeOf(source)")
    assert "getPrototypeOf(state)" in _sent(dotted, "return traps", "proxy.js")


PRIVATE = """class Cache {
  #entries = new Map();
}

class Store {
  #entries = new Set();
  #size = 0;

  get(key) {
    return this.#entries.has(key) && this.#size > 0;
  }
}
"""


def test_a_private_field_is_the_enclosing_classs_and_no_other(tmp_path: Path):
    """`this.#entries` in Store sends Store's `#entries`, not Cache's, nor another
    file's `entries`."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "other.js").write_text("export const entries = [];\n", encoding="utf-8")
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    try:
        sent = _sent(PRIVATE, "return this.#entries", "store.js", index)
    finally:
        index.close()
    assert "#entries = new Set();" in sent and "#size = 0;" in sent
    assert "new Map()" not in sent and "export const entries" not in sent


def test_private_and_dollar_names_are_whole_words_in_javascript_only():
    """`this.#entries` names `#entries` (not `entries`), `this[$internals]` names `$internals`."""
    text = "this.#entries.get(this[$internals], `${key}`)"
    assert names_used(text, "javascript") == ["get", "$internals", "key"]
    assert private_names(text, "typescript") == ["#entries"]
    assert private_names("x = 1  # comment #entries", "python") == []
    assert "entries" in names_used("self.entries  # entries", "python")


def test_a_dollar_name_is_looked_up_whole():
    """`this[$internals]` sends `const $internals = Symbol(...)`."""
    source = 'const $internals = Symbol("internals");\n\nclass Headers {\n  get() {\n    return this[$internals];\n  }\n}\n'
    assert 'const $internals = Symbol("internals");' in _sent(source, "return this", "headers.js")
