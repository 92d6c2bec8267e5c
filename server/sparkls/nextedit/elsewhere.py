"""Follow-ups in other files: which changes other files follow, and where. Pure.

`outward_changes(doc, edits)`: the changes among a document's recent edits that other
files follow, read from the tree:

- **a definition renamed**: a function, class, method or type, a variable outside any
  function (a module's or a class's), a field (`self.count = ...`, `this.count = ...`,
  a struct's or a class's field). A local's or a parameter's rename stays in its
  function, and a use renamed (not the definition) changes nothing elsewhere;
- **a changed signature** of a function or method (an edit inside its parameter list);
- **a member added** to an enum-like type (`members.py`): its branches elsewhere need an arm.

`find_sites(other, changes, link)`: the lines of another file that follow them. Every
hit is a word in code (`candidates.in_code`: never in a comment or a string):

- a module-level name, only in a file that sees the edited module (`Link`, from
  `link_of`): Python `from .shapes import area`, `import pkg.shapes`; JS/TS `from
  './shapes'`, `require('../shapes')`; Go: a file of the same package (its folder) or
  one that imports the folder. There, every use of the name not bound by a function
  of its own (a parameter or local of that name is another variable), and
  `shapes.area` through the module's name or alias;
- a member (a method, a field): through a member access, `obj.area`, in a file that
  sees the module or names the member's class; never through the module itself
  (`shapes.area` is the module's function), an `exports` object, a file's own
  `self`/`this` where it defines that name, or a receiver named after another class
  that defines one (`option.default` when `Option` has a `default`: `Outward.rivals`,
  which the caller reads from the index); and when other classes do define a member of
  that name, only through a receiver plainly of the class: `self`/`this` inside it, or
  one named after it (`job.`, `new_job.` for `Job`);
- a changed signature: the calls (`area(`, or `obj.area(` for a method, as the lines
  of the call); a parameter only renamed changes only the calls that pass it by name;
- a member added: the branching statements whose test names a member of the type but
  not the new one (`members.branch_of`), in a file that sees the module.

Sites on touching lines make one region. No LSP, no I/O: the caller gives the texts.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from tree_sitter import Node

from sparkls.documents.store import Document
from sparkls.nextedit.candidates import (
    Scopes, call_lines, dotted, in_code, passes_by_name, renamed_definition, signature_of, word_pattern,
)
from sparkls.nextedit.members import NewMembers, branch_of, container_of, has_arms, new_members
from sparkls.nextedit.history import Edit, only_renames, renames
from sparkls.nextedit.tree import ancestors, node_at


@dataclass(frozen=True, slots=True)
class Outward:
    """A change in the edited file that other files follow."""

    name: str  # the name other files use now: a renamed definition's old name, a changed function's
    new: str | None = None  # a rename's new name; None for a changed signature
    member: bool = False  # a method or a field: used through a member access (`obj.name`)
    container: str | None = None  # the class or type a member belongs to
    keywords: tuple[str, ...] | None = None  # a signature only renamed: calls that pass these by name
    rivals: frozenset[str] = frozenset()  # other classes defining a member of that name (lower case, no `_`)
    added: NewMembers | None = None  # members added to the type `name`: its branches need an arm

    @property
    def reason(self) -> str:
        if self.added is not None:
            return self.added.reason
        return f"use of {self.name} (now {self.new})" if self.new is not None else f"call of {self.name}"

    @property
    def words(self) -> tuple[str, ...]:
        """The words a file that follows holds: the name, or a bare member's siblings."""
        return (self.name, *(self.added.siblings if self.added is not None else ()))


@dataclass(frozen=True, slots=True)
class Link:
    """How another file sees the edited module."""

    imports: bool  # it imports the module, or is of the same Go package
    qualifiers: frozenset[str] = frozenset()  # names it reaches the module's names through (`shapes.`)
    defines: frozenset[str] = frozenset()  # changed names it defines itself (its `self.name` is its own)
    foreign: frozenset[str] = frozenset()  # other modules it imports (`os`, `fmt`): their members are theirs


def outward_changes(doc: Document, edits: list[Edit]) -> list[Outward]:
    """The changes in `edits` (oldest first) that other files follow, newest first."""
    if not doc.parses:
        return []
    text, found = doc.text, []
    for edit in reversed(edits):
        for old, new in renames(edit, text):
            defined = renamed_definition(doc, edit, old, new)
            if defined is not None:
                found.append(Outward(old, new, member=defined[0], container=defined[1]))
        if (signature := signature_of(doc, edit.start)) is not None:
            name, method = signature
            keywords = tuple(old for old, _ in renames(edit, text)) if only_renames(edit, text) else None
            container = container_of(doc, edit.start) if method else None
            found.append(Outward(name, member=method, container=container, keywords=keywords))
        if (added := new_members(doc, edit)) is not None:
            found.append(Outward(added.owner, added=added))
    unique: list[Outward] = []
    for change in found:  # the newest edit's word on a name wins
        if all(c.name != change.name for c in unique):
            unique.append(change)
    return unique


def with_index(
    changes: Sequence[Outward], source: str, rows: Mapping[str, Sequence[tuple[str, str | None]]],
) -> list[Outward]:
    """`changes` with what the workspace index says of their names (`rows`: name ->
    (path, container) of each definition): a member's `rivals`, the other classes that
    define a member of that name (outside the edited file `source`)."""
    out = []
    for change in changes:
        rivals = {_plain(c) for path, c in rows.get(change.name, ()) if path != source and c and c != change.container}
        rivals.discard("")
        out.append(replace(change, rivals=frozenset(rivals) if change.member else frozenset()))
    return out


def _plain(name: str) -> str:
    """A receiver or class name compared loosely: `_option`, `Option` -> `option`."""
    return name.lstrip("_$").lower()


# -- how another file sees the edited module ------------------------------------------

_PY_FROM = re.compile(r"^[ \t]*from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.MULTILINE)
_PY_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n]+)", re.MULTILINE)
_JS_SPEC = re.compile(r"""(?:\bfrom|\bimport|\brequire\s*\(|\bimport\s*\()\s*['"]([^'"\n]+)['"]""")
_GO_SPEC = re.compile(r'^\s*(?:import\s+)?(?:(\w+)\s+)?"([^"\n]+)"', re.MULTILINE)
_ALIAS = re.compile(r"\bas\s+(\w+)")


def _module_names(source_path: str) -> tuple[str, str]:
    """(the module's own name, its path without the extension): `pkg/shapes.py` ->
    (`shapes`, `pkg/shapes`); a package's `__init__.py` or an `index.js` is its folder's."""
    stem_path = posixpath.splitext(source_path)[0]
    folder, stem = posixpath.split(stem_path)
    if stem in ("__init__", "index", "mod"):
        stem_path, stem = folder, posixpath.basename(folder)
    return stem, stem_path


def link_of(
    other: Document, other_path: str, source_path: str, names: Sequence[str], defines: Sequence[str] = ()
) -> Link:
    """How the file `other` (at `other_path`) sees the module at `source_path`; `names`:
    the names changed there (an import that names one counts: a package re-exporting it);
    `defines`: those of them the file defines itself (from the index)."""
    stem, stem_path = _module_names(source_path)
    text, language = other.text, other.language_id
    qualifiers: set[str] = set()
    imports = False
    if language == "python":
        for match in _PY_FROM.finditer(text):
            module, imported = match.group(1), match.group(2)
            if module.split(".")[-1] == stem or any(re.search(rf"\b{re.escape(n)}\b", imported) for n in (*names, stem)):
                imports = True
            if re.search(rf"\b{re.escape(stem)}\b", imported):
                alias = re.search(rf"\b{re.escape(stem)}\s+as\s+(\w+)", imported)
                qualifiers.add(alias.group(1) if alias else stem)
        for match in _PY_IMPORT.finditer(text):
            for item in match.group(1).split(","):
                dotted = item.split(" as ")[0].strip()
                if dotted.split(".")[-1] == stem:
                    imports = True
                    alias = _ALIAS.search(item)
                    qualifiers.add(alias.group(1) if alias else dotted)
    elif language == "go":
        if posixpath.dirname(other_path) == posixpath.dirname(source_path):
            imports = True
        package = posixpath.basename(posixpath.dirname(source_path))
        for match in _GO_SPEC.finditer(text):
            if match.group(2).rstrip("/").endswith("/" + package) or match.group(2) == package:
                imports = True
                qualifiers.add(match.group(1) or package)
    else:
        here = posixpath.dirname(other_path)
        for match in _JS_SPEC.finditer(text):
            spec = match.group(1)
            if spec.startswith("."):
                target = posixpath.splitext(posixpath.normpath(posixpath.join(here, spec)))[0]
                seen = target in (stem_path, posixpath.splitext(source_path)[0])
            else:
                seen = posixpath.basename(posixpath.splitext(spec)[0]) == stem
            if seen:
                imports = True
                line = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
                alias = re.search(r"(?:\*\s+as\s+|(?:const|let|var)\s+|import\s+)(\w+)", line)
                if alias is not None:
                    qualifiers.add(alias.group(1))
    foreign = frozenset(_imported_names(text, language)) - qualifiers
    return Link(imports, frozenset(qualifiers), frozenset(defines), foreign)


_JS_DEFAULT = re.compile(r"""(?:\bimport\s+(?:\*\s+as\s+)?([\w$]+)\s+from|\b(?:const|let|var)\s+([\w$]+)\s*=\s*require\s*\()""")


def _imported_names(text: str, language: str) -> set[str]:
    """The names a file gives the modules it imports (`os`, `sh` in `import x as sh`,
    `fmt`, `fs` in `const fs = require('fs')`)."""
    names: set[str] = set()
    if language == "python":
        for match in _PY_IMPORT.finditer(text):
            for item in match.group(1).split(","):
                alias = _ALIAS.search(item)
                names.add(alias.group(1) if alias else item.split(" as ")[0].strip().split(".")[0])
    elif language == "go":
        for match in _GO_SPEC.finditer(text):
            names.add(match.group(1) or posixpath.basename(match.group(2)))
    else:
        for match in _JS_DEFAULT.finditer(text):
            names.add(match.group(1) or match.group(2))
    return names


# -- the sites ---------------------------------------------------------------------------


def _receiver(text: str, at: int) -> str:
    """What the word at `at` is reached through: `shapes` in `shapes.area`,
    `this._option` in `this._option.area` ("" after a call or a bracket)."""
    match = re.search(r"([\w$.]+)\s*\.\s*$", text[max(0, at - 80) : at])
    return match.group(1) if match is not None else ""


def _foreign_member(change: Outward, link: Link, receiver: str) -> bool:
    """Whether `receiver.name` is plainly not the changed member: reached through the
    module itself (`schedule.run_all()` is the module's function), an `exports` object,
    the file's own `self`/`this` where it defines that name, or a receiver named after
    another class that defines it (`option.default` for `Option.default`)."""
    if receiver in link.qualifiers or receiver.split(".")[0] in ("exports", "module", *link.foreign):
        return True
    if receiver in ("self", "this", "cls") and change.name in link.defines:
        return True
    plain = _plain(receiver.split(".")[-1])
    return any(plain == rival or plain.endswith(rival) for rival in change.rivals)  # `helpCommand.`


def _plainly_ours(doc: Document, at: int, receiver: str, change: Outward) -> bool:
    """Whether `receiver.name` is plainly the changed class's member: `self`/`this`
    inside that class, a receiver named after it (`job.`, `self.job.`, `new_job.`), or
    one declared with it where it is used (`cxt: KeywordCxt`, `(e *Entry)`, `job = Job(`)."""
    last = receiver.split(".")[-1]
    if change.container is None:
        return False
    if last in ("self", "this", "cls"):
        return container_of(doc, at) == change.container
    declared = _declared_type(doc, at, last) if "." not in receiver else None
    if declared is not None:
        return _plain(declared) == _plain(change.container)
    return _plain(last).endswith(_plain(change.container))


def _start(doc: Document, node: Node) -> int:
    """The node's start as an offset of the document's text (code points)."""
    row, column = node.start_point
    return doc.lines.starts[row] + len(doc.lines.line_text(row).encode("utf-8")[:column].decode("utf-8", "ignore"))


def _declared_type(doc: Document, at: int, name: str) -> str | None:
    """The type `name` has where `at` is, when it is plain to see: a parameter's or a Go
    receiver's declared type in an enclosing function (`cxt: KeywordCxt`, `e *Entry`),
    or what it was made from earlier in that function (`job = Job(`, `e := &Entry{`)."""
    typed = re.compile(rf"(?<![\w$]){re.escape(name)}\s*(?::\s*|\s+\*?)([A-Za-z_$][\w$.]*)")
    made = re.compile(rf"(?<![\w$.]){re.escape(name)}\s*(?::=|=)\s*&?(?:new\s+)?([A-Za-z_$][\w$.]*)\s*[({{]")
    for node in ancestors(node_at(doc, at)):
        body = node.child_by_field_name("body")
        for field in ("parameters", "receiver"):
            params = node.child_by_field_name(field)
            if params is not None and (found := typed.search(doc.node_text(params))) is not None:
                return found.group(1).split(".")[-1]
        if body is not None and node.child_by_field_name("parameters") is not None:
            made_here = list(made.finditer(doc.text, _start(doc, body), at))
            if made_here:
                return made_here[-1].group(1).split(".")[-1]
    return None


def find_sites(other: Document, changes: Sequence[Outward], link: Link) -> list[tuple[int, int, str]]:
    """(first line, last line, reason) of each region of `other` that follows `changes`."""
    text, lines = other.text, other.lines
    found: list[tuple[int, int, str]] = []
    scopes = Scopes(other)
    for change in changes:
        if change.member:
            if not (link.imports or (change.container and word_pattern(change.container).search(text))):
                continue
        elif not link.imports:
            continue
        if change.added is not None:
            found += _branches(other, change.added)
            continue
        call = change.new is None
        pattern = re.compile(rf"(?<![\w$]){re.escape(change.name)}(?![\w$])" + (r"(?=\s*\()" if call else ""))
        for match in pattern.finditer(text):
            at = match.start()
            after_dot = dotted(text, at)
            if change.member:
                receiver = _receiver(text, at)
                if not after_dot or _foreign_member(change, link, receiver):
                    continue
                if change.rivals and not _plainly_ours(other, at, receiver, change):
                    continue  # other classes have a member of that name: only a receiver plainly of ours
            elif after_dot and _receiver(text, at) not in link.qualifiers:
                continue  # another object's member of that name
            elif not after_dot and scopes.home(at, (change.name,)) is not None:
                continue  # a function's own variable of that name
            if not in_code(other, at):
                continue
            line = lines.line_of(at)
            first, last = call_lines(other, at, line) if call else (line, line)
            if change.keywords is not None and not passes_by_name(other, first, last, list(change.keywords)):
                continue
            found.append((first, last, change.reason))
    merged: list[tuple[int, int, str]] = []
    for first, last, reason in sorted(found):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last), merged[-1][2])
        else:
            merged.append((first, last, reason))
    return merged


def _branches(doc: Document, added: NewMembers) -> list[tuple[int, int, str]]:
    """The branches of `doc` whose test names a member of the type but not the new ones."""
    found = []
    for match in added.pattern().finditer(doc.text):
        if in_code(doc, match.start(), literal=added.quoted) and (branch := branch_of(doc, match.start())) is not None:
            if not has_arms(doc, branch, added) and (*branch, added.reason) not in found:
                found.append((*branch, added.reason))
    return found


def far_sites(doc: Document, changes: Sequence[Outward], first: int, last: int, window: int) -> list[tuple[int, int, str]]:
    """The edited document's own sites more than `window` lines away from its newest
    edit (lines `first`..`last`): where the next-edit window does not reach."""
    return [s for s in find_sites(doc, changes, Link(imports=True)) if s[1] < first - window or s[0] > last + window]
