"""What a file's names stand for: its imports and aliases, and a receiver's plain type.

The one place that reads imports as bindings, for the context engine (which of a
name's definitions a region means) and next edit's follow-ups in other files (which
files see a module, through which names). Per imported name, an `Imported`: the name
the file uses, the name it has in its module, the module as written, the line:

- Python: `from x import A as B`, `from . import m`, `import a.b as c`, `import a.b`,
  `from .x import *` (the module's `__all__` when the caller can read it);
- JavaScript/TypeScript: `import x from`, `import {a as b} from`, `import * as ns from`,
  `export {a as b} from`, `export * from` (re-exports: they bind nothing here),
  `const {a: b} = require()`, `const x = require()`, `import 'm'`, `import('m')`;
- Go: `import f "fmt"`, `import ( "a/b" )`.

`original` gives the name and module a local name stands for; `reexported` follows a
name through a package's `__init__`/`index` re-exports. `declared_type` reads a
receiver's type where it is plain to see (declared, made by a constructor, or
returned by a function whose signature declares it, as the caller's `returns` reads it);
`receiver_type` is the rule "a receiver named after its type" that the context's
ranking and the follow-ups share (written types are read by `written.py`).
Pure: texts in, records out; regexes, and the tree only to find enclosing functions.
"""

from __future__ import annotations

import posixpath
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from tree_sitter import Node

from sparkls.context.scripts import SCRIPT_EXTENSIONS, resolution_order, script_stem
from sparkls.documents.store import Document

MODULE = None  # `Imported.name` of a binding of the module itself (`import os`, `* as ns`)
STAR = "*"
DEFAULT = "default"  # `Imported.name` of a JavaScript default import


@dataclass(frozen=True, slots=True)
class Imported:
    """One name an import statement binds (or, `reexport`, makes its module export)."""

    local: str  # the name the file uses: `B`, `ns`, `a.b` (`import a.b`); "" for `import 'm'`
    name: str | None  # its name in `module`; MODULE (None) for the module itself; STAR for `*`
    module: str  # the module as written: `..auto`, `a.b`, `./x.js`, `fmt`
    line: int  # 0-based line of the statement
    end_line: int  # its last line
    reexport: bool = False  # `export {a as b} from`, `export * from`: the file exports it, binds nothing

    @property
    def renamed(self) -> bool:
        return self.name not in (MODULE, STAR, DEFAULT) and self.name != self.local


def _lines(text: str, match: re.Match[str]) -> tuple[int, int]:
    """The first and last line of a statement the match spans."""
    first = text.count("\n", 0, match.start())
    return first, first + match.group().rstrip().count("\n")


# -- Python ----------------------------------------------------------------------------

_PY_FROM = re.compile(r"^[ \t]*from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\n)*)", re.MULTILINE)
_PY_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.MULTILINE)
_PY_ITEM = re.compile(r"([\w.]+|\*)(?:\s+as\s+(\w+))?")
_COMMENT = re.compile(r"#[^\n]*")


def _python(text: str, exported: Callable[[str], Sequence[str] | None] | None) -> list[Imported]:
    found: list[tuple[int, Imported]] = []
    for match in _PY_FROM.finditer(text):
        module, line = match.group(1), _lines(text, match)
        items = _COMMENT.sub(" ", match.group(2)).strip("()").replace("\\\n", " ")
        for item in _PY_ITEM.finditer(items):
            name, alias = item.group(1), item.group(2)
            if name == STAR:
                names = exported(module) if exported is not None else None
                found += [(match.start(), Imported(n, n, module, *line)) for n in names or ()]
                if names is None:
                    found.append((match.start(), Imported(STAR, STAR, module, *line)))
            else:
                found.append((match.start(), Imported(alias or name, name, module, *line)))
    for match in _PY_IMPORT.finditer(text):
        line = _lines(text, match)
        for item in _PY_ITEM.finditer(match.group(1)):
            found.append((match.start(), Imported(item.group(2) or item.group(1), MODULE, item.group(1), *line)))
    return [imported for _, imported in sorted(found, key=lambda pair: pair[0])]


_ALL = re.compile(r"^__all__\s*(?::[^=\n]*)?=\s*[\[(]([^\])]*)[\])]", re.MULTILINE)


def dunder_all(text: str) -> list[str] | None:
    """The names a Python module's `__all__ = [...]` lists, or None when it has none."""
    match = _ALL.search(text)
    return re.findall(r"""['"](\w+)['"]""", match.group(1)) if match is not None else None


# -- JavaScript / TypeScript -----------------------------------------------------------

_JS_FROM = re.compile(
    r"""\b(import|export)\s+(?:type\s+)?((?:[\w$]+\s*,?\s*)?(?:\*(?:\s*as\s+[\w$]+)?|\{[^{}]*\})?)\s*"""
    r"""from\s*['"]([^'"\n]+)['"]"""
)
_JS_BARE = re.compile(r"""\bimport\s*(?:\(\s*)?['"]([^'"\n]+)['"]""")
# `const x = require("m")`, and tsc's `var x_1 = __importDefault(require("./x"))` (one helper call around it)
_REQUIRE = re.compile(
    r"""\b(?:const|let|var)\s+(\{[^{}]*\}|[\w$]+)\s*=\s*(?:[\w$.]+\s*\(\s*)?require\s*\(\s*['"]([^'"\n]+)['"]\s*\)"""
)
_ANY_REQUIRE = re.compile(r"""\brequire\s*\(\s*['"]([^'"\n]+)['"]""")
_JS_ITEM = re.compile(r"(?:type\s+)?([\w$]+)(?:\s*(?:as|:)\s*([\w$]+))?")


def _javascript(text: str) -> list[Imported]:
    found: list[tuple[int, Imported]] = []
    taken: set[int] = set()  # where a spec was read already
    for match in _JS_FROM.finditer(text):
        reexport, clause, module = match.group(1) == "export", match.group(2).strip(), match.group(3)
        line, taken = _lines(text, match), taken | {match.start(3)}
        default, _, rest = clause.partition(",") if not clause.startswith(("{", "*")) else ("", "", clause)
        rest = rest.strip()
        if default.strip():
            found.append((match.start(), Imported(default.strip(), DEFAULT, module, *line, reexport)))
        if rest.startswith("*"):
            alias = re.search(r"as\s+([\w$]+)", rest)
            found.append((match.start(), Imported(alias.group(1) if alias else STAR, MODULE if alias else STAR,
                                                  module, *line, reexport)))
        for item in _JS_ITEM.finditer(rest.strip("{}") if rest.startswith("{") else ""):
            found.append((match.start(), Imported(item.group(2) or item.group(1), item.group(1), module, *line, reexport)))
    for match in _REQUIRE.finditer(text):
        binding, module, line = match.group(1), match.group(2), _lines(text, match)
        taken.add(match.start(2))
        if binding.startswith("{"):
            for item in _JS_ITEM.finditer(binding.strip("{}")):
                found.append((match.start(), Imported(item.group(2) or item.group(1), item.group(1), module, *line)))
        else:
            found.append((match.start(), Imported(binding, MODULE, module, *line)))
    for pattern in (_JS_BARE, _ANY_REQUIRE):
        for match in pattern.finditer(text):
            if match.start(1) not in taken:
                taken.add(match.start(1))
                found.append((match.start(), Imported("", MODULE, match.group(1), *_lines(text, match))))
    return [imported for _, imported in sorted(found, key=lambda pair: pair[0])]


# -- Go ----------------------------------------------------------------------------------

_GO_BLOCK = re.compile(r"^import\s*\(([^)]*)\)", re.MULTILINE)
_GO_ONE = re.compile(r'^import\s+((?:[\w.]+\s+)?"[^"\n]+")', re.MULTILINE)
_GO_SPEC = re.compile(r'(?:([\w.]+)\s+)?"([^"\n]+)"')


def go_package(path: str) -> str:
    """The name a Go import path's package has by convention: its last element
    (`gopkg.in/yaml.v3` -> `yaml`, `github.com/x/y/v2` -> `y`)."""
    parts = path.rstrip("/").split("/")
    last = parts[-1]
    if re.fullmatch(r"v\d+", last) and len(parts) > 1:
        last = parts[-2]
    return re.sub(r"\.v\d+$", "", last).replace("-", "_")


def _go(text: str) -> list[Imported]:
    found: list[tuple[int, Imported]] = []
    for pattern in (_GO_BLOCK, _GO_ONE):
        for match in pattern.finditer(text):
            body = _COMMENT_GO.sub(lambda c: " " * len(c.group()), match.group(1))
            for spec in _GO_SPEC.finditer(body):
                line = text.count("\n", 0, match.start(1) + spec.start())
                found.append((match.start(1) + spec.start(),
                              Imported(spec.group(1) or go_package(spec.group(2)), MODULE, spec.group(2), line, line)))
    return [imported for _, imported in sorted(found, key=lambda pair: pair[0])]


_COMMENT_GO = re.compile(r"//[^\n]*")


# -- one entry for all ------------------------------------------------------------------


def imports(
    source: Document | str, language: str, *, exported: Callable[[str], Sequence[str] | None] | None = None
) -> list[Imported]:
    """What the file's import statements bind, in file order. `language`: a language id
    (`python`, `typescript`, `javascriptreact`, `go`, ...); `exported(module)`: the names
    a module's `__all__` lists, for `from module import *` (None: not known)."""
    text = source if isinstance(source, str) else source.text
    if language == "python":
        return _python(text, exported)
    if language == "go":
        return _go(text)
    if language in ("javascript", "javascriptreact", "typescript", "typescriptreact", "tsx"):
        return _javascript(text)
    return []


def original(found: Sequence[Imported], local: str) -> tuple[str, str] | None:
    """(its name in its module, the module) of an imported name the file uses under
    another one (`tqdm_auto` -> (`tqdm`, `..auto`)); None when `local` is no renamed import."""
    for imported in found:
        if imported.local == local and not imported.reexport and imported.renamed:
            return imported.name or local, imported.module
    return None


def reexported(found: Sequence[Imported], name: str) -> tuple[str, str] | None:
    """Where a package's `__init__`/`index` file gets `name` from (`from .core import
    Widget` makes `pkg.Widget` `.core`'s `Widget`): (its name there, the module)."""
    for imported in found:
        if imported.local == name and imported.name not in (MODULE, STAR, DEFAULT):
            return imported.name or name, imported.module
    return None


def module_files(module: str, here: str, language: str) -> list[str]:
    """The workspace-relative paths a module spec may be, seen from the file `here`:
    Python `..auto` from `pkg/sub/x.py` -> `pkg/auto.py`, `pkg/auto/__init__.py`; an
    absolute `a.b` -> `a/b.py`, `a/b/__init__.py` (a suffix: the root may hold `src/`);
    JS `./x` -> `x`, `x.js`, `x/index`... without extension; Go: the folder."""
    folder = posixpath.dirname(here)
    if language == "python":
        dots = len(module) - len(module.lstrip("."))
        rest = module[dots:].replace(".", "/")
        if dots:
            base = folder
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            stem = posixpath.join(base, rest) if rest else base
        else:
            stem = rest
        return [f"{stem}.py", f"{stem}/__init__.py"]
    if language == "go":
        return [module]
    if module.startswith("."):
        stem = posixpath.splitext(posixpath.normpath(posixpath.join(folder, module)))[0]
        return [stem, f"{stem}/index"]
    return [posixpath.splitext(module)[0]]


def is_module_file(path: str, module: str, here: str, language: str) -> bool:
    """Whether the workspace file `path` is plausibly the module `module` names from `here`."""
    if language == "go":
        return module.rstrip("/").endswith("/" + posixpath.dirname(path)) or module == posixpath.dirname(path)
    candidates = module_files(module, here, language)
    bare = path if language == "python" else script_stem(path)
    relative = language != "python" or module.startswith(".")
    return any(bare == c or (not relative and bare.endswith("/" + c)) for c in candidates)


MAX_REEXPORT_HOPS = 3  # `pkg/__init__.py` -> `pkg/auto.py` -> `pkg/std.py`


def module_file(module: str, here: str, language: str, read: Callable[[str], str | None]) -> tuple[str, str] | None:
    """(path, text) of the workspace file a module spec names from `here`, when it can be
    read; an absolute Python module is tried under `here`'s folders too (`src/pkg`)."""
    stems = module_files(module, here, language)
    if language == "python" and not module.startswith("."):
        folders = [""] + [f"{p}/" for p in _folders(here)]
        stems = [f"{folder}{stem}" for folder in folders for stem in stems]
    for stem in stems:
        for extension in SCRIPT_EXTENSIONS if language != "python" else ("",):
            text = read(stem + extension)
            if text is not None:
                return stem + extension, text
    return None


def _folders(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[: n + 1]) for n in range(len(parts))]


class ModuleImports:
    """Module files' imports by (path, length, hash of the text), for `origin`: a
    package's index file read again is parsed once. Kept as long as its holder keeps it
    (a workspace index, for its session); at most `limit` files, the one read least
    recently forgotten first."""

    def __init__(self, limit: int = 512) -> None:
        self._limit = limit
        self._found: OrderedDict[tuple[str, int, int], list[Imported]] = OrderedDict()

    def get(self, key: tuple[str, int, int]) -> list[Imported] | None:
        found = self._found.get(key)
        if found is not None:
            self._found.move_to_end(key)
        return found

    def __setitem__(self, key: tuple[str, int, int], found: list[Imported]) -> None:
        self._found[key] = found
        self._found.move_to_end(key)
        while len(self._found) > self._limit:
            self._found.popitem(last=False)

    def __len__(self) -> int:
        return len(self._found)


def origin(
    found: Sequence[Imported], word: str, here: str, language: str,
    read: Callable[[str], str | None], where: Callable[[str], Sequence[str]], hops: int = MAX_REEXPORT_HOPS,
    parsed: dict[tuple[str, int, int], list[Imported]] | ModuleImports | None = None,
) -> tuple[str, str] | None:
    """(its name there, the path of the file) that defines a name the file imports: the
    module it names when that file is among `where(name)` (the files defining `name`, by
    the index), else through the re-exports of that module's file (`from .std import
    tqdm` in `tqdm/__init__.py`; `export {a as b} from`; `from .x import *` where `x`
    lists the name in `__all__`, `export * from`), at most `hops` files on. A name no
    import binds by name is looked for in the modules the file imports with `*`. None
    when it leads nowhere readable (a module outside the workspace). Only module files
    are read (`read(path)`: a workspace file's text or None), and only to go on past one
    that does not define the name; `parsed` keeps their imports by path and text (a
    dict for one search, or a `ModuleImports` kept across calls); pure otherwise."""
    bound = reexported(found, word)
    leads = [bound] if bound is not None else [(word, i.module) for i in found if i.name == STAR]
    for name, module in leads:  # the module's own file defines it: no file read
        direct = [p for p in where(name) if is_module_file(p, module, here, language)]
        if direct:
            return name, min(direct, key=resolution_order)
    for name, module in leads if hops > 1 else ():
        file = module_file(module, here, language, read)
        if file is None:
            continue
        path, text = file
        key = (path, len(text), hash(text))
        theirs = parsed.get(key) if parsed is not None else None
        if theirs is None:

            def exported(star: str, at: str = path) -> Sequence[str] | None:
                target = module_file(star, at, language, read)
                return dunder_all(target[1]) if target is not None else None

            theirs = imports(text, language, exported=exported if language == "python" else None)
            if parsed is not None:
                parsed[key] = theirs
        nested = origin(theirs, name, path, language, read, where, hops - 1, parsed)
        if nested is not None:
            return nested
    return None


def _ancestors(node: Node | None) -> Iterator[Node]:
    while node is not None:
        yield node
        node = node.parent


# -- receivers -----------------------------------------------------------------------------

OWN = frozenset({"self", "cls", "this"})


def receiver_type(receiver: str) -> str | None:
    """The type a receiver is named after (`subscriber` -> `Subscriber`, `_option` ->
    `Option`, `new_job` -> `New_job`, whose tail `job` names `Job`); None for self/cls/this."""
    bare = receiver.lstrip("_$")
    if not bare or receiver in OWN:
        return None
    return bare[:1].upper() + bare[1:]


def named_after(receiver: str, type_name: str) -> bool:
    """Whether a receiver is named after the type: `job`, `new_job`, `self.job` for `Job`."""
    guessed = receiver_type(receiver.split(".")[-1])
    plain = type_name.lstrip("_$").lower()
    return guessed is not None and bool(plain) and guessed.lower().endswith(plain)


def declared_type(
    doc: Document, at: int, name: str, returns: Callable[[str], str | None] | None = None
) -> str | None:
    """The type `name` has where `at` is, when it is plain to see: a parameter's or a Go
    receiver's declared type in an enclosing function (`cxt: KeywordCxt`, `e *Entry`),
    or what it was made from earlier in that function (`job = Job(`, `e := &Entry{`),
    or, given `returns` (a function's name -> the type its signature declares it
    returns), what the function it was assigned from returns (`job = create_job(`)."""
    typed = re.compile(rf"(?<![\w$]){re.escape(name)}\s*(?::\s*|\s+\*?)([A-Za-z_$][\w$.]*)")
    made = re.compile(rf"(?<![\w$.]){re.escape(name)}\s*(?::=|=)\s*&?(?:new\s+)?([A-Za-z_$][\w$.]*)\s*[({{]")
    tree = doc.tree_around(at, at)
    node = tree.root_node.descendant_for_byte_range(*(doc.lines.byte_point(at)[0],) * 2) if tree is not None else None
    for node in _ancestors(node):
        body = node.child_by_field_name("body")
        for field in ("parameters", "receiver"):
            params = node.child_by_field_name(field)
            if params is not None and (found := typed.search(doc.node_text(params))) is not None:
                return found.group(1).split(".")[-1]
        if body is not None and node.child_by_field_name("parameters") is not None:
            row, column = body.start_point
            start = doc.lines.starts[row] + len(doc.lines.line_text(row).encode("utf-8")[:column].decode("utf-8", "ignore"))
            made_here = list(made.finditer(doc.text, start, at))
            if made_here:
                maker = made_here[-1].group(1).split(".")[-1]
                if returns is not None and not maker[:1].isupper():
                    return returns(maker) or maker
                return maker
    return None
