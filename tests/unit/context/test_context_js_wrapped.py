"""JavaScript whose whole code sits inside a top-level wrapper function (issue 39): a UMD
bundle, an IIFE (`(function () {...})();`, `!function () {...}();`, `;(() => {...})()`),
CoffeeScript's `(function () {...}).call(this);`, an AMD `define([...], function () {...})`.
The wrapper's body is searched as the program is: its definitions are the file's, at the
top, with no container; a function body anywhere else still is not, and an IIFE whose
value a variable takes keeps its meaning."""

import pytest

from tests.unit.context.parsing import symbol_rows
from tests.unit.context.test_context_js_shipped import _sent

# A module's code, written at its top: what each wrapper below holds (indented two spaces).
BODY = """'use strict';
var types = { name: 1 };
function Parser(options, input) { this.options = options; this.pos = 0; }
Parser.prototype.next = function next () { return this.pos++ };
class Thing { constructor() { this.x = 1; } go() { return 2 } }
function helper(a) {
  var local = a + 1;
  function inner() { var deeper = 2; return deeper; }
  return local + inner();
}
exports.Parser = Parser;
"""

# What BODY defines at a module's top, lines counted from BODY's first.
AT_THE_TOP = [
    ("variable", "types", 1, None),
    ("function", "Parser", 2, None),
    ("attribute", "options", 2, "Parser"),
    ("attribute", "pos", 2, "Parser"),
    ("method", "next", 3, "Parser"),
    ("class", "Thing", 4, None),
    ("method", "constructor", 4, "Thing"),
    ("method", "go", 4, "Thing"),
    ("attribute", "x", 4, "Thing"),
    ("function", "helper", 5, None),
    ("variable", "Parser", 10, None),
]


def _wrapped(opening: str, closing: str) -> str:
    """BODY inside a wrapper: `opening` on the lines above it, `closing` on the lines below."""
    inside = "".join(f"  {line}\n" for line in BODY.splitlines())
    return f"{opening}\n{inside}{closing}\n"


UMD_GLOBAL = """(function (global, factory) {
  typeof exports === 'object' && typeof module !== 'undefined' ? factory(exports) :
  typeof define === 'function' && define.amd ? define(['exports'], factory) :
  (global = global || self, factory(global.acme = {}));
}(this, (function (exports) {"""

UMD_ROOT = """(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports'], factory);
  } else if (typeof module === 'object' && module.exports) {
    module.exports = factory(exports);
  } else {
    root.Acme = factory({});
  }
})(this, function (exports) {"""

UMD_TSC = """(function (factory) {
  if (typeof module === "object" && typeof module.exports === "object") {
    var v = factory(require, exports);
    if (v !== undefined) module.exports = v;
  } else if (typeof define === "function" && define.amd) {
    define(["require", "exports"], factory);
  }
})(function (require, exports) {"""

WRAPPERS = {
    "umd, factory in parentheses": (UMD_GLOBAL, "})));"),
    "umd, factory after the wrapper's parentheses": (UMD_ROOT, "});"),
    "umd, factory the only argument (tsc's)": (UMD_TSC, "});"),
    "iife": ("(function () {", "})();"),
    "iife called inside its parentheses, with an argument": ("(function ($) {", "}(jQuery));"),
    "negated": ("!function () {", "}();"),
    "void": ("void function () {", "}();"),
    "plus": ("+function () {", "}();"),
    "arrow after a semicolon": (";(() => {", "})()"),
    "async arrow": ("(async () => {", "})();"),
    "coffeescript's call(this)": ("(function() {", "}).call(this);"),
    "amd define": ("define(['exports', 'jquery'], function (exports, $) {", "});"),
    "amd define, named, commonjs-style": ("define('acme', function (require, exports, module) {", "});"),
}


@pytest.mark.parametrize("opening, closing", WRAPPERS.values(), ids=WRAPPERS.keys())
def test_a_wrapped_file_has_the_definitions_of_its_body_as_at_a_modules_top(opening, closing):
    """Each definition of the wrapped body, its kind, line and container as at the top of a
    module; the locals of `helper` and of the function inside it none. The wrapper's own body
    is searched too: a UMD's `root.Acme = factory()` is no definition (nothing declares
    `root`), tsc's loader's `var v = factory(...)` is one, as it would be at the top."""
    shift = opening.count("\n") + 1
    expected = [(kind, name, line + shift, container) for kind, name, line, container in AT_THE_TOP]
    if opening == UMD_TSC:
        expected.insert(0, ("variable", "v", 2, None))
    assert symbol_rows("javascript", _wrapped(opening, closing)) == expected


def test_the_umd_bundle_of_the_issue():
    """The bundle as rollup writes it, every line as in the issue."""
    source = UMD_GLOBAL + """ 'use strict';
  var types = { name: 1 };
  function Parser(options, input) { this.options = options; this.pos = 0; }
  Parser.prototype.next = function next () { return this.pos++ };
  class Thing { constructor() { this.x = 1; } go() { return 2 } }
  function helper(a) { return a + 1 }
  exports.Parser = Parser;
})));
"""
    assert symbol_rows("javascript", source) == [
        ("variable", "types", 5, None),
        ("function", "Parser", 6, None),
        ("attribute", "options", 6, "Parser"),
        ("attribute", "pos", 6, "Parser"),
        ("method", "next", 7, "Parser"),
        ("class", "Thing", 8, None),
        ("method", "constructor", 8, "Thing"),
        ("method", "go", 8, "Thing"),
        ("attribute", "x", 8, "Thing"),
        ("function", "helper", 9, None),
        ("variable", "Parser", 10, None),
    ]


def test_a_wrapper_inside_the_wrapper_is_searched_as_well():
    """`(function () { ... (function () { function g() {} })(); })();`: the inner one runs
    when the file loads too, its statements are top-level statements of its own."""
    source = "(function () {\n  function f() {}\n  (function () {\n    function g() {}\n  })();\n})();\n"
    assert symbol_rows("javascript", source) == [("function", "f", 1, None), ("function", "g", 3, None)]


@pytest.mark.parametrize("source", [
    # a function that a top-level call takes is no wrapper unless that call's callee is a function
    "describe('parser', function () {\n  function fixture() {}\n  var parsed = 1;\n});\n",
    "$(document).ready(function () {\n  function onClick() {}\n  var parsed = 1;\n});\n",
    "app.get('/', (req, res) => {\n  function fixture() {}\n  const parsed = 1;\n});\n",
    "setTimeout(function () {\n  function fixture() {}\n  var parsed = 1;\n}, 10);\n",
    "(factory)(this, function () {\n  function fixture() {}\n  var parsed = 1;\n});\n",
    # a function that is called, but not so (only `.call`/`.apply` run it)
    "(function () {\n  function fixture() {}\n}).toString();\n",
    # a wrapper that is not a top-level statement: inside a function, it runs when that is called
    "function outer() {\n  (function () {\n    function fixture() {}\n    var parsed = 1;\n  })();\n}\n",
    "var make = () => {\n  !function () {\n    function fixture() {}\n    var parsed = 1;\n  }();\n};\n",
    "class Box {\n  run() {\n    (function () {\n      function fixture() {}\n    })();\n  }\n}\n",
])
def test_a_function_body_that_is_no_top_level_wrapper_is_never_searched(source):
    names = [name for _, name, _, _ in symbol_rows("javascript", source)]
    assert "fixture" not in names and "parsed" not in names and "onClick" not in names


@pytest.mark.parametrize("source, rows", [
    # tsc's ES5 class: a class with its constructor and methods
    (("var Registry = /** @class */ (function (_super) {\n    __extends(Registry, _super);\n"
      "    function Registry() {\n        this._items = new Map();\n    }\n"
      "    Registry.prototype.get = function (key) {\n        return this._items.get(key);\n    };\n"
      "    return Registry;\n}(Base));\n"),
     [("class", "Registry", 0, None), ("method", "Registry", 2, "Registry"),
      ("attribute", "_items", 3, "Registry"), ("method", "get", 5, "Registry")]),
    # a value a function makes when the module loads: its locals stay its own
    ("var helpers = (function () {\n    function a() {}\n    var b = 1;\n    return { a: a };\n}());\n",
     [("variable", "helpers", 0, None)]),
    (("var divide = (function () {\n  function multiply(x) { return x; }\n"
      "  return function (x, y) {\n    return multiply(x) / y;\n  };\n})();\n"),
     [("variable", "divide", 0, None)]),
    ("const config = (() => {\n  const defaults = { a: 1 };\n  return defaults;\n})();\n",
     [("variable", "config", 0, None)]),
])
def test_an_iife_whose_value_a_variable_takes_keeps_its_meaning(source, rows):
    assert symbol_rows("javascript", source) == rows


def test_the_context_of_an_edit_in_a_wrapped_file_has_the_definition_it_uses(tmp_path):
    """An edit in a UMD bundle's `Parser.prototype.option` that calls `get`: the bundle's own
    `get`, defined in the same wrapper, is sent; no rival's (the workspace's other files)."""
    bundle = (UMD_GLOBAL + "\n  'use strict';\n"
              "  function get(obj, key) {\n    return obj[key]; // the bundle's get\n  }\n"
              "  function Parser(options) {\n    this.options = options;\n  }\n"
              "  Parser.prototype.option = function option(key) {\n"
              "    return get(this.options, key);\n  };\n"
              "  exports.Parser = Parser;\n})));\n")
    sent = _sent(tmp_path, {"dist/acme.umd.js": bundle}, "dist/acme.umd.js", "return get(this")
    assert "return obj[key]; // the bundle's get" in sent
    assert "rival get" not in sent
