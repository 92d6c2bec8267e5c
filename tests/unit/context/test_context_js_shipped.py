"""JavaScript as npm ships it and as it is written without TypeScript (issue 39, second
round): what tsc emits (a member reached through `require`'s module binding, declaration
files beside the JavaScript, `exports.default = Name;`, ES5 classes in a function), the
members JavaScript declares outside a class body (`Object.defineProperty`), definitions
under a module-level `if`, `module.exports = class Name`, the members JSDoc tags declare,
and the keys of the object literal a function returns. Each workspace holds rivals that
define the same name elsewhere: what is sent is the definition the code means."""

from pathlib import Path

import pytest
from sparkls.context.builder import build_edit_context
from sparkls.context.docmembers import documented_members
from sparkls.context.index.workspace import WorkspaceIndex
from sparkls.context.render import CUT, MAX_LINE_CHARS, render
from sparkls.context.words import names_used
from sparkls.documents.store import DocumentStore
from sparkls.guard.exclusions import PathFilter

from tests.unit.context.parsing import symbol_rows, symbols_in
from tests.unit.trees import write_tree


def _sent(tmp_path: Path, files: dict[str, str], name: str, marker: str) -> str:
    """The snippets' text for an edit at `marker` in the workspace file `name`."""
    root = tmp_path / "ws"
    for n in range(3):  # rivals: the same names, defined in folders nothing imports
        (root / f"rival{n}").mkdir(parents=True)
        (root / f"rival{n}" / "rival.js").write_text(
            "function ap(F) { return 'rival ap' }\nfunction get() { return 'rival get' }\n"
            "class Lifecycle { /* rival Lifecycle */ }\nexports.year = 'rival year';\n", encoding="utf-8")
    write_tree(root, files)
    index = WorkspaceIndex(root, tmp_path / "index.sqlite3")
    index.index.build(PathFilter.from_root(root))
    try:
        source = files[name]
        doc = DocumentStore().open(f"file:///ws/{name}", source, 1)
        at = source.index(marker)
        ctx = build_edit_context(doc, at, at, path=name, max_region_lines=300, lookup=index)
    finally:
        index.close()
    return "\n".join(s.text for s in ctx.snippets)


APPLY_JS = '"use strict";\nfunction ap(F, G) {\n    return "compiled ap";\n}\nexports.ap = ap;\n'
APPLY_DTS = ("export interface Apply<F> {\n  readonly ap: <A, B>(fab: Kind<F>, fa: Kind<F>) => Kind<F>;\n}\n"
             "export declare function ap<F>(F: Apply<F>): Kind<F>; // declared ap\n")


@pytest.mark.parametrize("binding", [
    'var Apply_1 = require("./Apply");',
    'const Apply_1 = __importStar(require("./Apply"));',
    'var Apply_1 = tslib_1.__importDefault(require("./Apply"));',
])
def test_a_member_through_a_module_binding_is_that_modules_declaration(tmp_path, binding):
    """tsc's `(0, Apply_1.ap)(F, G)` beside this file's own `ap` and eight sibling modules'
    `ap`: Apply's, from its declaration file as TypeScript resolves it (Apply.d.ts before
    Apply.js), no sibling's or rival's."""
    main = f'"use strict";\n{binding}\nfunction ap(F) {{\n    return (0, Apply_1.ap)(F, E.Apply);\n}}\nexports.ap = ap;\n'
    siblings = {f"lib/{name}.d.ts": f"export declare function ap<F>(F: {name}<F>): Kind<F>; // rival ap\n"
                for name in ("Alt", "Array", "Either", "Option", "Reader", "Task", "These", "Tuple")}
    sent = _sent(tmp_path, {**siblings, "lib/Apply.js": APPLY_JS, "lib/Apply.d.ts": APPLY_DTS, "lib/EitherT.js": main},
                 "lib/EitherT.js", "return (0")
    assert "// declared ap" in sent
    assert "rival ap" not in sent


def test_without_a_declaration_file_the_modules_javascript(tmp_path):
    main = 'var Apply_1 = require("./Apply");\nfunction run(F) {\n    return Apply_1.ap(F);\n}\n'
    sent = _sent(tmp_path, {"lib/Apply.js": APPLY_JS, "lib/main.js": main}, "lib/main.js", "return Apply_1")
    assert '"compiled ap"' in sent and "rival ap" not in sent


def test_a_module_default_export_that_names_a_definition_comes_with_it(tmp_path):
    """`lifecycle_1.default.Transient` where lifecycle.js ends `exports.default = Lifecycle;`."""
    lifecycle = ('"use strict";\nvar Lifecycle;\n(function (Lifecycle) {\n    Lifecycle[Lifecycle["Transient"] = 0]'
                 ' = "Transient";\n})(Lifecycle || (Lifecycle = {})); // the real Lifecycle\n'
                 "exports.default = Lifecycle;\n")
    main = ('const lifecycle_1 = require("./types/lifecycle");\nfunction pick(options) {\n'
            "    return options.lifecycle === lifecycle_1.default.Transient;\n}\n")
    sent = _sent(tmp_path, {"types/lifecycle.js": lifecycle, "main.js": main}, "main.js", "return options")
    assert "exports.default = Lifecycle;" in sent
    assert "var Lifecycle;" in sent and "rival Lifecycle" not in sent


def test_an_es5_class_holds_its_constructor_and_methods():
    """tsc's ES5 class: the function body of `var Registry = (function (_super) {...}(Base))`."""
    source = ("var Registry = /** @class */ (function (_super) {\n    __extends(Registry, _super);\n"
              "    function Registry() {\n        this._items = new Map();\n    }\n"
              "    Registry.prototype.get = function (key) {\n        return this._items.get(key);\n    };\n"
              "    return Registry;\n}(Base));\nexports.default = Registry;\n")
    assert symbol_rows("javascript", source) == [
        ("class", "Registry", 0, None),
        ("method", "Registry", 2, "Registry"),
        ("attribute", "_items", 3, "Registry"),
        ("method", "get", 5, "Registry"),
        ("variable", "default", 10, None),
    ]


def test_babels_es5_class_and_a_value_a_function_makes_at_load():
    """Babel's `var Compiler = /*#__PURE__*/function (_Obj) {...}(Obj);` is a class with its
    methods; `var divide = (function () {...})();` a value whose signature is its first line."""
    source = ("var Compiler = /*#__PURE__*/function (_Obj) {\n  _inheritsLoose(Compiler, _Obj);\n"
              "  function Compiler() {\n    return _Obj.apply(this, arguments) || this;\n  }\n"
              "  var _proto = Compiler.prototype;\n  _proto.compileSymbol = function compileSymbol(node) {\n"
              "    return node;\n  };\n  return Compiler;\n}(Obj);\n"
              "var divide = (function () {\n  function multiply(x) { return x; }\n"
              "  return function (x, y) {\n    return multiply(x) / y;\n  };\n})();\n")
    found = symbols_in("javascript", source)
    shapes = [(s.kind, s.name, s.start_line, s.signature_end_line, s.container) for s in found]
    assert ("class", "Compiler", 0, 0, None) in shapes
    assert ("method", "compileSymbol", 6, 6, "Compiler") in shapes
    assert ("variable", "divide", 11, 11, None) in shapes  # not lines 11-16 as its signature
    assert "multiply" not in [s.name for s in found]  # a local of the function that made it


def test_each_name_of_a_var_statement_is_its_own_declarator():
    """`var EXP_LIMIT = 9e15, MAX_DIGITS = 1e9, DEFAULTS = {...}`: each name on its own
    lines (the first with the doc comment and `var` above it), not the whole statement."""
    source = ("// Limits.\nvar EXP_LIMIT = 9e15,\n  MAX_DIGITS = 1e9,\n  DEFAULTS = {\n    precision: 20,\n"
              "    rounding: 4,\n  },\n  inexact, quadrant;\nfunction big() {\n  return 1;\n}\n")
    found = symbols_in("javascript", source)
    assert [(s.name, s.start_line, s.end_line, s.signature_end_line) for s in found] == [
        ("EXP_LIMIT", 0, 1, 1), ("MAX_DIGITS", 2, 2, 2), ("DEFAULTS", 3, 6, 6),
        ("inexact", 7, 7, 7), ("quadrant", 7, 7, 7), ("big", 8, 10, 8),
    ]


def test_a_lower_case_iife_is_no_class():
    assert ("class", "helpers", 0, None) not in symbol_rows(
        "javascript", "var helpers = (function () {\n    function a() {}\n    return { a: a };\n}());\n")


def test_members_declared_outside_a_class_body():
    """`Object.defineProperty(WebSocket, "OPEN", ...)` (static) and on its prototype (a
    getter): members of WebSocket; on `exports`, what the module exports; `__esModule` no."""
    source = ('class WebSocket {}\nObject.defineProperty(WebSocket, "OPEN", { value: 1 });\n'
              "Object.defineProperty(WebSocket.prototype, 'transports', {\n  get() { return this._t; }\n});\n"
              'Object.defineProperty(exports, "__esModule", { value: true });\n'
              'Object.defineProperty(exports, "isToken", { enumerable: true, get: function () { return t.isToken; } });\n'
              'Object.defineProperty(target, "hidden", { value: 2 });\n')
    found = symbol_rows("javascript", source)
    assert ("constant", "OPEN", 1, "WebSocket") in found
    assert ("variable", "transports", 2, "WebSocket") in found
    assert ("variable", "isToken", 6, None) in found
    assert not any(name in ("__esModule", "hidden") for _, name, _, _ in found)


def test_definitions_under_a_module_level_if_and_try_but_never_a_functions():
    source = ('if (native) {\n  module.exports.mask = function (a) { return native.mask(a); };\n} else {\n'
              '  try {\n    const util = require("bufferutil");\n'
              "    module.exports.unmask = function (b) { return util.unmask(b); };\n"
              "  } catch (e) {}\n}\nfunction local() {\n  if (x) {\n    exports.inner = function () {};\n  }\n}\n")
    found = symbol_rows("javascript", source)
    assert ("function", "mask", 1, None) in found and ("function", "unmask", 5, None) in found
    assert not any(name in ("inner", "util") for _, name, _, _ in found)


def test_module_exports_a_named_class(tmp_path):
    handler = ("/**\n * Handles rejections.\n */\nmodule.exports = class RejectionHandler {\n"
               "  constructor(logger) {\n    this.logger = logger; // the real handler\n  }\n};\n")
    main = ('const RejectionHandler = require("./rejection-handler");\nfunction configure(logger) {\n'
            "  return new RejectionHandler(logger);\n}\n")
    assert ("class", "RejectionHandler", 0, None) in symbol_rows("javascript", handler)
    sent = _sent(tmp_path, {"rejection-handler.js": handler, "logger.js": main}, "logger.js", "return new")
    assert "module.exports = class RejectionHandler {" in sent


OPTIONS_DOC = """class PerMessageDeflate {
  /**
   * Creates a PerMessageDeflate instance.
   *
   * @param {Object} [options] Configuration options
   * @param {(Boolean|Number)} [options.clientMaxWindowBits] Advertise support
   *     for, or request, a custom client window size
   * @param {Number} [options.maxPayload=0] The maximum allowed message length
   */
  constructor(options) {
    this._options = options || {};
  }

  offer() {
    return { client_max_window_bits: this._options.clientMaxWindowBits };
  }
}
"""


def test_the_members_jsdoc_tags_declare_are_sent_for_the_member_reached(tmp_path):
    sent = _sent(tmp_path, {"permessage-deflate.js": OPTIONS_DOC}, "permessage-deflate.js", "return { client")
    assert "[options.clientMaxWindowBits] Advertise support" in sent
    assert "for, or request, a custom client window size" in sent  # the tag's continuation line


@pytest.mark.parametrize("text, expected", [
    ("/**\n * @param {Object} [options]\n * @param {Number} [options.maxPayload=0] max\n */",
     [("maxPayload", "options", 2, 2)]),
    ("/** @param {{a: number, b: {c: string}}} opts.inner.deep - nested braces */",
     [("deep", "inner", 0, 0)]),
    ("/**\n * @typedef {Object} Job\n * @property {string} id the id\n *   more about id\n"
     " * @prop {number} [retries] how often\n */",
     [("id", "Job", 2, 3), ("retries", "Job", 4, 4)]),
    ("/** @param {string} name a plain parameter: the signature shows it */", []),
    ("/** @param {Object unclosed options.x */", []),
])
def test_documented_members(text, expected):
    assert documented_members(text) == expected


def test_the_keys_a_function_returns_are_members_of_its_result(tmp_path):
    """`const struct = parseDateStruct(date); struct.year`: the returned literal's `year`, no rival's."""
    source = ("function parseDateStruct(date) {\n  const m = re.exec(date);\n  return {\n"
              "    year: toNumber(m[1]), // the parsed year\n    month: toNumber(m[2]) - 1,\n"
              "    flush() { return m; },\n  };\n}\n"
              "const bounds = () => ({ low: 0, high: 1 });\n"
              "function parseIsoDate(date) {\n  const struct = parseDateStruct(date);\n"
              "  return new Date(struct.year, struct.month);\n}\n")
    found = symbol_rows("javascript", source)
    assert ("attribute", "year", 3, "parseDateStruct") in found
    assert ("attribute", "flush", 5, "parseDateStruct") in found  # a method written short
    assert ("attribute", "high", 8, "bounds") in found
    sent = _sent(tmp_path, {"index.js": source}, "index.js", "return new Date")
    assert "// the parsed year" in sent and "rival year" not in sent


LIB_ALIASED = ("'use strict';\nvar _exports = module.exports = {};\n"
               "function isArray(obj) {\n  return Array.isArray(obj);\n}\n"
               "_exports.isArray = isArray; // lib's isArray\n"
               "_exports.repeat = function repeat(s, n) { return s.repeat(n); };\n")


@pytest.mark.parametrize("holder, assigned, container", [
    ("var _exports = module.exports = {};", "_exports", None),  # nunjucks's lib.js: the module's own
    ("exports = module.exports = createApplication;\nfunction createApplication() {}", "exports", None),  # express
    ("const helpers = {};\nmodule.exports = helpers;", "helpers", None),
    ("let _exports = module.exports = {}", "_exports", None),
    ("", "exports", None),
    ("const helpers = {};", "helpers", "helpers"),  # an object literal filled in later
    ("export const helpers = {};", "helpers", "helpers"),
    ("function render() {}", "render", "render"),  # a function's own properties
])
def test_members_assigned_to_a_value_that_holds_them_are_its_definitions(holder, assigned, container):
    """TypeScript reads `X.y = ...` at a module's top as a declaration of X's member `y` when X
    is declared as what holds members: `module.exports` under another name (then `y` is the
    module's own), an object literal, a function; sparkls does too, whatever X is spelled."""
    source = f"{holder}\n{assigned}.isArray = Array.isArray;\n{assigned}.repeat = function (s) {{ return s; }};\n"
    found = symbol_rows("javascript", source)
    line = holder.count("\n") + 1
    assert ("variable", "isArray", line, container) in found
    assert ("function", "repeat", line + 1, container) in found


def test_a_function_assigned_under_two_names_has_its_body_after_its_signature():
    """express's `req.get = req.header = function header(name) {...}`: one line of signature."""
    source = ("var req = Object.create(IncomingMessage.prototype);\nmodule.exports = req;\n"
              "req.get =\nreq.header = function header(name) {\n  return this.headers[name];\n};\n")
    (get,) = [s for s in symbols_in("javascript", source) if s.name == "get"]
    assert (get.kind, get.container, get.start_line, get.signature_end_line, get.end_line) == ("function", None, 2, 3, 5)


@pytest.mark.parametrize("holder", [
    "",  # not declared in this file at all: a global, another module's value
    "var config = loadConfig();",  # a value a call makes: nothing says what it holds
    "let config;",
])
def test_an_assignment_to_a_value_nothing_declares_as_a_holder_is_no_definition(holder):
    found = symbol_rows("javascript", f"{holder}\nconfig.debug = true;\n")
    assert not [row for row in found if row[1] == "debug"]


def test_a_member_of_an_aliased_module_exports_is_sent_for_a_module_binding(tmp_path):
    """`lib.isArray(x)` where lib.js fills `var _exports = module.exports = {}`: lib's assignment
    of `isArray`, no rival's."""
    main = "var lib = require('./lib');\nfunction list(value) {\n  return lib.isArray(value) ? value : [value];\n}\n"
    sent = _sent(tmp_path, {"lib.js": LIB_ALIASED, "filters.js": main, "other.js": "exports.isArray = 'rival isArray';\n"},
                 "filters.js", "return lib.isArray")
    assert "_exports.isArray = isArray; // lib's isArray" in sent
    assert "rival isArray" not in sent


def test_a_minified_line_is_shown_as_the_piece_around_the_definition():
    """A bundle's whole module on one line: the definition's snippet is the piece of that line
    around its name, cut with `…`, never the whole line."""
    filler = ";".join(f"var v{n}={n}" for n in range(400))
    minified = f"{filler};function parseLinkLabel(e,t){{return e.pos+t}};{filler};\n"
    (found,) = [s for s in symbols_in("javascript", minified) if s.name == "parseLinkLabel"]
    rendered = render("dist/x.min.js", found, minified.split("\n").__getitem__)
    assert rendered and all(len(s.text) <= MAX_LINE_CHARS + 2 * len(CUT) for s in rendered)
    assert all("function parseLinkLabel(e,t){return e.pos+t}" in s.text for s in rendered)
    assert all(s.text.startswith(CUT) and s.text.endswith(CUT) for s in rendered)


def test_a_letter_after_a_backslash_is_an_escape_not_a_name_used():
    """`"\\n"` names no `n` (a minified bundle defines one); `1e9` no `e9`."""
    text = 'const line = text.split("\\n\\t"); const big = 1e9; re = /\\bword/;'
    assert names_used(text, "javascript") == ["line", "text", "split", "big", "re"]
    assert names_used('parts = text.split("\\n")  # 0x1f', "python") == ["parts", "text", "split"]


def test_a_minified_bundles_names_and_bare_letters_are_no_other_files(tmp_path):
    """`e(x)` is no other file's `e` by its name alone, nor `parseLinkLabel` a minified
    bundle's (its module on one line); `x.P`, a member of one letter, is still looked for."""
    padding = ";".join(f"var v{n}={n}" for n in range(200))
    files = {
        "lib/e.js": "function e(x) {\n  return 'rival e';\n}\n",
        "dist/bundle.min.js": f"!function(){{{padding};function parseLinkLabel(e,t){{return 'minified'}}}}();\n",
        "lib/tags.js": "class Tags {\n  constructor() {\n    this.P = 'the P tag';\n  }\n}\n",
        "main.js": "function run(x) {\n  return e(x) + parseLinkLabel(x) + x.P;\n}\n",
    }
    sent = _sent(tmp_path, files, "main.js", "return e(x)")
    assert "rival e" not in sent and "minified" not in sent
    assert "this.P = 'the P tag';" in sent


def test_a_value_a_function_of_its_file_made_comes_with_that_function(tmp_path):
    """axios's `const isRegExp = kindOfTest('RegExp')`: what calling `isRegExp` runs is what
    `kindOfTest` returns, so `kindOfTest` comes with it, no rival's."""
    utils = ("const kindOfTest = (type) => {\n  type = type.toLowerCase();\n"
             "  return (thing) => kindOf(thing) === type; // the made test\n};\n"
             "const isRegExp = kindOfTest('RegExp');\nexport { isRegExp };\n")
    main = "import { isRegExp } from './utils.js';\nfunction match(value) {\n  return isRegExp(value);\n}\n"
    rival = "export const kindOfTest = () => 'rival kindOfTest';\n"
    sent = _sent(tmp_path, {"utils.js": utils, "main.js": main, "other.js": rival}, "main.js", "return isRegExp")
    assert "const isRegExp = kindOfTest('RegExp');" in sent
    assert "const kindOfTest = (type) => {" in sent and "rival kindOfTest" not in sent


def test_each_name_a_module_level_pattern_binds_is_a_definition():
    """`const {getPrototypeOf} = Object;` defines `getPrototypeOf` (axios's utils.js); a
    `require` destructured binds another module's names, no definition of this file."""
    source = ("const {toString} = Object.prototype;\nconst {getPrototypeOf, keys: objectKeys} = Object;\n"
              "var [first, second] = pair;\nconst { kQueue, kBusy: busy } = require('./symbols');\n"
              "function f() { const { local } = x; }\n")
    assert symbol_rows("javascript", source) == [
        ("variable", "toString", 0, None), ("variable", "getPrototypeOf", 1, None), ("variable", "objectKeys", 1, None),
        ("variable", "first", 2, None), ("variable", "second", 2, None), ("function", "f", 4, None)]
