; Symbol patterns shared by the JavaScript and TypeScript/TSX grammars (same node
; types in both); the capture names are explained in each grammar's symbols.scm,
; which inherits these and adds its own.
(function_declaration name: (identifier) @name body: (_) @body) @symbol.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @symbol.function
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name
  body: (_) @body) @symbol.function
; `const f = () => {}`, `var g = function () {}`, `let C = class {}`. One pattern per
; kind of value: an alternation inside a nested child pattern can match any value
; (seen with tree-sitter 0.26.1).
(lexical_declaration (variable_declarator name: (identifier) @name value: (arrow_function body: (_) @body))) @symbol.function
(lexical_declaration (variable_declarator name: (identifier) @name value: (function_expression body: (_) @body))) @symbol.function
(lexical_declaration (variable_declarator name: (identifier) @name value: (generator_function body: (_) @body))) @symbol.function
(lexical_declaration (variable_declarator name: (identifier) @name value: (class body: (_) @body))) @symbol.class
(variable_declaration (variable_declarator name: (identifier) @name value: (arrow_function body: (_) @body))) @symbol.function
(variable_declaration (variable_declarator name: (identifier) @name value: (function_expression body: (_) @body))) @symbol.function
(variable_declaration (variable_declarator name: (identifier) @name value: (generator_function body: (_) @body))) @symbol.function
(variable_declaration (variable_declarator name: (identifier) @name value: (class body: (_) @body))) @symbol.class
; any other value: `const MAX = 10`, `let count;` (each declarator is its name's @part:
; `var EXP_LIMIT = 9e15, MAX_DIGITS = 1e9, ...` is many definitions, each on its own lines)
(lexical_declaration (variable_declarator name: (identifier) @name) @part) @symbol.variable
(variable_declaration (variable_declarator name: (identifier) @name) @part) @symbol.variable
;; `const { getPrototypeOf } = Object;`, `const { toString: str } = Object.prototype;`,
;; `const [first, second] = pair;`: each name the pattern binds (a `require` binds a module's: below)
(lexical_declaration (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name))) @symbol.variable
(lexical_declaration (variable_declarator name: (object_pattern (pair_pattern value: (identifier) @name)))) @symbol.variable
(lexical_declaration (variable_declarator name: (array_pattern (identifier) @name))) @symbol.variable
(variable_declaration (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name))) @symbol.variable
(variable_declaration (variable_declarator name: (object_pattern (pair_pattern value: (identifier) @name)))) @symbol.variable
(variable_declaration (variable_declarator name: (array_pattern (identifier) @name))) @symbol.variable
(lexical_declaration
  (variable_declarator
    name: (object_pattern (shorthand_property_identifier_pattern) @name)
    value: (call_expression function: (identifier) @_require (#eq? @_require "require")))) @symbol.import
(lexical_declaration
  (variable_declarator
    name: (object_pattern (pair_pattern value: (identifier) @name))
    value: (call_expression function: (identifier) @_require (#eq? @_require "require")))) @symbol.import
(variable_declaration
  (variable_declarator
    name: (object_pattern (shorthand_property_identifier_pattern) @name)
    value: (call_expression function: (identifier) @_require (#eq? @_require "require")))) @symbol.import
(variable_declaration
  (variable_declarator
    name: (object_pattern (pair_pattern value: (identifier) @name))
    value: (call_expression function: (identifier) @_require (#eq? @_require "require")))) @symbol.import
; `const path = require("node:path")` binds a module, not a definition
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression function: (identifier) @_require (#eq? @_require "require")))) @symbol.import
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression function: (identifier) @_require (#eq? @_require "require")))) @symbol.import
;; `var compileETag = require("./utils").compileETag` binds another module's definition
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (member_expression
      object: (call_expression function: (identifier) @_require (#eq? @_require "require"))))) @symbol.import
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (member_expression
      object: (call_expression function: (identifier) @_require (#eq? @_require "require"))))) @symbol.import
; `exports.f = () => {}`, `module.exports.f = function () {}`, `Foo.prototype.g = ...`
;; `Layer.prototype.match = function (...) {...}`: a method of Layer (its receiver)
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression object: (identifier) @receiver property: (property_identifier) @_prototype)
      property: (property_identifier) @name)
    right: [(function_expression body: (_) @body) (arrow_function body: (_) @body)])
  (#eq? @_prototype "prototype")) @symbol.method
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: (arrow_function body: (_) @body))) @symbol.function
;; `exports.etag = createETag({ weak: false })`: any other value exported by assignment
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_exports (#eq? @_exports "exports")
      property: (property_identifier) @name))) @symbol.variable
;; `module.exports = function query(options) {...}`: the function's own name
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module (#eq? @_module "module")
      property: (property_identifier) @_exports (#eq? @_exports "exports"))
    right: (function_expression name: (identifier) @name body: (_) @body))) @symbol.function
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name (#not-eq? @name "exports"))
    right: (function_expression body: (_) @body))) @symbol.function
; An exported object literal (kind `object`) holds its members as definitions:
; `export default { isArray, trim(s) {...}, kClose: Symbol("close") }` (named `default`),
; `module.exports = {...}` (named `module.exports`), `export const helpers = {...}`.
; Its members sit too deep for the holder's own scan, so the object is a @scan node too.
(export_statement "default" @name value: (object) @body) @symbol.object
;; `export default (rawHeaders) => {...}`: an anonymous default export is named `default`,
;; what a default import (`import parseHeaders from "./parseHeaders.js"`) binds
(export_statement "default" @name value: (arrow_function body: (_) @body)) @symbol.function
(export_statement "default" @name value: (function_expression !name body: (_) @body)) @symbol.function
;; `export default Job;`: the default export names a definition of the file
(export_statement "default" @name value: (identifier)) @symbol.variable
(export_statement value: (object) @scan)
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module (#eq? @_module "module")
      property: (property_identifier) @_exports (#eq? @_exports "exports")) @name
    right: (object) @body)) @symbol.object
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module (#eq? @_module "module")
      property: (property_identifier) @_exports (#eq? @_exports "exports"))
    right: (object) @scan))
(export_statement
  declaration: (lexical_declaration
    (variable_declarator name: (identifier) @name value: (object) @body)) @symbol.object)
(export_statement declaration: (lexical_declaration (variable_declarator value: (object) @scan)))
;; Its members: a pair's key (a function when its value is one; `trim(s) {...}` is a
;; method_definition, above) and a shorthand name (`isArray`, whose value is the
;; `isArray` this file defines). A pair or a shorthand name starts at least three
;; levels below the program, a class or any other holder: only the objects above
;; (and `export default`'s) are scanned this deep.
(pair key: (property_identifier) @name value: (arrow_function body: (_) @body)) @symbol.function
(pair key: (property_identifier) @name value: (function_expression body: (_) @body)) @symbol.function
(pair key: (property_identifier) @name) @symbol.attribute
(shorthand_property_identifier) @name @symbol.attribute
;; `AxiosError.ERR_BAD_OPTION = "ERR_BAD_OPTION"`: a static member assigned after its class
;; (a function value is a function, above)
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @receiver (#match? @receiver "^[A-Z]")
      property: (property_identifier) @name))) @symbol.variable
;; `helpers.isArray = isArray`, `_exports.repeat = repeat`: a member of that value when the
;; file declares it as what holds members (TypeScript's expando declarations; symbols.py
;; keeps the names only then): an object literal or a function (@holds), or the module's
;; exports under another name (@holds.exports: `var _exports = module.exports = {}`,
;; `exports = module.exports = createApplication`, `module.exports = helpers`; `exports` is)
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @owner (#not-match? @owner "^[A-Z]")
      property: (property_identifier) @name))) @symbol.variable
;; `req.get = req.header = function header(name) {...}`: a function all the same, its body the function's
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @owner (#not-match? @owner "^[A-Z]")
      property: (property_identifier) @name)
    right: (assignment_expression right: (function_expression body: (_) @body)))) @symbol.function
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @owner (#not-match? @owner "^[A-Z]")
      property: (property_identifier) @name)
    right: (assignment_expression right: (arrow_function body: (_) @body)))) @symbol.function
(variable_declaration (variable_declarator name: (identifier) @holds value: (object)))
(lexical_declaration (variable_declarator name: (identifier) @holds value: (object)))
(function_declaration name: (identifier) @holds)
(expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @holds.exports (#eq? @holds.exports "exports"))))
(variable_declaration
  (variable_declarator
    name: (identifier) @holds.exports
    value: (assignment_expression
      left: (member_expression
        object: (identifier) @_module (#eq? @_module "module")
        property: (property_identifier) @_exports (#eq? @_exports "exports")))))
(lexical_declaration
  (variable_declarator
    name: (identifier) @holds.exports
    value: (assignment_expression
      left: (member_expression
        object: (identifier) @_module (#eq? @_module "module")
        property: (property_identifier) @_exports (#eq? @_exports "exports")))))
(expression_statement
  (assignment_expression
    left: (identifier) @holds.exports
    right: (assignment_expression
      left: (member_expression
        object: (identifier) @_module (#eq? @_module "module")
        property: (property_identifier) @_exports (#eq? @_exports "exports")))))
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module (#eq? @_module "module")
      property: (property_identifier) @_exports (#eq? @_exports "exports"))
    right: (identifier) @holds.exports))
;; `Object.defineProperty(WebSocket, "OPEN", {...})`, `Object.defineProperty(Logger.prototype,
;; "transports", { get() {...} })`: a member of the class, static or not (a Capitalized
;; receiver: `Object.defineProperty(exports, "x", { get })` is a compiled re-export, no definition)
(expression_statement
  (call_expression
    function: (member_expression
      object: (identifier) @_object (#eq? @_object "Object")
      property: (property_identifier) @_define (#eq? @_define "defineProperty"))
    arguments: (arguments
      .
      [(identifier) @receiver
       (member_expression
         object: (identifier) @receiver
         property: (property_identifier) @_prototype (#eq? @_prototype "prototype"))]
      .
      (string (string_fragment) @name)))
  (#match? @receiver "^[A-Z]")) @symbol.variable
;; tsc's `Object.defineProperty(exports, "isToken", { get: ... })`: what the module exports
;; under that name (a re-export of another module's definition, as TypeScript reads it)
(expression_statement
  (call_expression
    function: (member_expression
      object: (identifier) @_object (#eq? @_object "Object")
      property: (property_identifier) @_define (#eq? @_define "defineProperty"))
    arguments: (arguments
      . (identifier) @_exports (#eq? @_exports "exports")
      . (string (string_fragment) @name) (#not-eq? @name "__esModule")))) @symbol.variable
;; `module.exports = class RejectionHandler {...}`: the class's own name
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module (#eq? @_module "module")
      property: (property_identifier) @_exports (#eq? @_exports "exports"))
    right: (class name: (_) @name body: (_) @body))) @symbol.class
;; tsc's ES5 class: `var Registry = /** @class */ (function (_super) { function Registry() {...}
;; Registry.prototype.get = function (...) {...}; return Registry; }(Base));`, a class whose
;; function body holds its constructor and methods
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (parenthesized_expression
      (call_expression function: (function_expression body: (statement_block) @body @scan))))
  (#match? @name "^[A-Z]")) @symbol.class
;; What a module-level function returns as an object literal is what its callers reach:
;; `function parseDateStruct(d) { ...; return { year: ..., month: ... } }`, then `struct.year`.
;; Each key is a member of the function's result (its @receiver: the function's name), a
;; method written short (`return { flush() {...} }`) too.
(function_declaration name: (identifier) @receiver body: (statement_block (return_statement (object (pair key: (property_identifier) @name value: (_) @body) @symbol.attribute))))
(function_declaration name: (identifier) @receiver body: (statement_block (return_statement (object (method_definition name: (property_identifier) @name body: (_) @body) @symbol.attribute))))
(lexical_declaration (variable_declarator name: (identifier) @receiver value: (arrow_function body: (statement_block (return_statement (object (pair key: (property_identifier) @name value: (_) @body) @symbol.attribute))))))
(lexical_declaration (variable_declarator name: (identifier) @receiver value: (arrow_function body: (statement_block (return_statement (object (method_definition name: (property_identifier) @name body: (_) @body) @symbol.attribute))))))
(lexical_declaration (variable_declarator name: (identifier) @receiver value: (arrow_function body: (parenthesized_expression (object (pair key: (property_identifier) @name value: (_) @body) @symbol.attribute)))))
(lexical_declaration (variable_declarator name: (identifier) @receiver value: (arrow_function body: (parenthesized_expression (object (method_definition name: (property_identifier) @name body: (_) @body) @symbol.attribute)))))
(lexical_declaration (variable_declarator name: (identifier) @receiver value: (function_expression body: (statement_block (return_statement (object (pair key: (property_identifier) @name value: (_) @body) @symbol.attribute))))))
(lexical_declaration (variable_declarator name: (identifier) @receiver value: (function_expression body: (statement_block (return_statement (object (method_definition name: (property_identifier) @name body: (_) @body) @symbol.attribute))))))
(variable_declaration (variable_declarator name: (identifier) @receiver value: (arrow_function body: (statement_block (return_statement (object (pair key: (property_identifier) @name value: (_) @body) @symbol.attribute))))))
(variable_declaration (variable_declarator name: (identifier) @receiver value: (arrow_function body: (statement_block (return_statement (object (method_definition name: (property_identifier) @name body: (_) @body) @symbol.attribute))))))
(variable_declaration (variable_declarator name: (identifier) @receiver value: (arrow_function body: (parenthesized_expression (object (pair key: (property_identifier) @name value: (_) @body) @symbol.attribute)))))
(variable_declaration (variable_declarator name: (identifier) @receiver value: (arrow_function body: (parenthesized_expression (object (method_definition name: (property_identifier) @name body: (_) @body) @symbol.attribute)))))
(variable_declaration (variable_declarator name: (identifier) @receiver value: (function_expression body: (statement_block (return_statement (object (pair key: (property_identifier) @name value: (_) @body) @symbol.attribute))))))
(variable_declaration (variable_declarator name: (identifier) @receiver value: (function_expression body: (statement_block (return_statement (object (method_definition name: (property_identifier) @name body: (_) @body) @symbol.attribute))))))
;; Babel's ES5 class, its call not in parentheses: `var Compiler = /*#__PURE__*/function (_Obj) {
;; _inheritsLoose(Compiler, _Obj); function Compiler() {...} ...; return Compiler; }(Obj);`
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression function: (function_expression body: (statement_block) @body @scan)))
  (#match? @name "^[A-Z]")) @symbol.class
;; Any other value a function makes when the module loads (`var divide = (function () { ...;
;; return function (x, y) {...}; })();`): that function's body is the definition's body, so
;; its signature is its first line, not the whole of it
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression function: (parenthesized_expression (function_expression body: (_) @body))))) @symbol.variable
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (parenthesized_expression (call_expression function: (function_expression body: (_) @body))))) @symbol.variable
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression function: (function_expression body: (_) @body)))) @symbol.variable
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression function: (parenthesized_expression (function_expression body: (_) @body))))) @symbol.variable
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (parenthesized_expression (call_expression function: (function_expression body: (_) @body))))) @symbol.variable
;; A module-level `if`/`try` holds definitions too (`if (native) { module.exports.mask =
;; function ... } else { ... }`): searched as the program is, never a function's
(if_statement) @scan
(else_clause) @scan
(try_statement) @scan
(catch_clause) @scan
(finally_clause) @scan
;; A file whose whole code sits in a wrapper function it calls when it loads: the body of
;; that function, and of each function passed to that call (a UMD's factory), is searched
;; as the program is. `(function () {...})();`, `(function ($) {...}(jQuery));`,
;; `!function () {...}();` (`void`, `+`, `!(function () {...})()`), `;(() => {...})()`,
;; `(function (global, factory) {...}(this, function (exports) {...}))`, CoffeeScript's
;; `(function () {...}).call(this);`, AMD's `define([...], function (...) {...})`. Only a
;; statement of a searched body (the program, a wrapper's, a module-level `if`): never
;; inside another function, never a function a call of anything else takes
;; (`describe("x", function () {...})`), nor one whose value a variable takes (above).
(expression_statement
  [(call_expression function: [(parenthesized_expression [(function_expression body: (statement_block) @scan)
                                                          (arrow_function body: (statement_block) @scan)])
                               (member_expression
                                 object: (parenthesized_expression (function_expression body: (statement_block) @scan))
                                 property: (property_identifier) @_call)])
   (parenthesized_expression (call_expression function: (function_expression body: (statement_block) @scan)))
   (unary_expression argument: (call_expression function: [(function_expression body: (statement_block) @scan)
                                                            (parenthesized_expression (function_expression body: (statement_block) @scan))]))]
  (#any-of? @_call "call" "apply"))
(expression_statement
  [(call_expression
     function: (parenthesized_expression [(function_expression) (arrow_function)])
     arguments: (arguments [(function_expression body: (statement_block) @scan)
                            (parenthesized_expression (function_expression body: (statement_block) @scan))]))
   (parenthesized_expression
     (call_expression
       function: (function_expression)
       arguments: (arguments [(function_expression body: (statement_block) @scan)
                              (parenthesized_expression (function_expression body: (statement_block) @scan))])))])
(expression_statement
  (call_expression
    function: (identifier) @_define (#eq? @_define "define")
    arguments: (arguments (function_expression body: (statement_block) @scan))))
(export_statement declaration: (_) @wrapped) @wrapper
(comment) @prefix
;; A JSDoc comment declares members in its tags (`@param {Number} [options.maxPayload]`,
;; `@property {string} id` of a `@typedef`): sparkls.context.docmembers reads them
((comment) @members (#match? @members "^/[*][*]"))
