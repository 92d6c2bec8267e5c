"""Follow-ups in other files: which changes other files follow, and where. Pure.

`outward_changes(doc, edits)`: the changes among a document's recent edits that other
files follow, read from the tree:

- **a definition renamed**: a function, class, method or type, a variable outside any
  function (a module's or a class's), a field (`self.count = ...`, `this.count = ...`,
  a struct's or a class's field). A local's or a parameter's rename stays in its
  function, and a use renamed (not the definition) changes nothing elsewhere;
- **a changed signature** of a function or method (an edit inside its parameter list
  that changes how it is called: not a type added or changed, nextedit/contract.py);
- **a member added** to an enum-like type (`members.py`): its branches elsewhere need an arm.

`find_sites(other, changes, link)`: the lines of another file that follow them. Every
hit is a word in code (`candidates.in_code`: never in a comment or a string):

- a module-level name, only in a file that sees the edited module (`Link`, from
  `link_of`): Python `from .shapes import area`, `import pkg.shapes`; JS/TS `from
  './shapes'`, `require('../shapes')`; Go: a file of the same package (its folder) or
  one that imports the folder. There, every use of the name not bound by a function
  of its own (a parameter or local of that name is another variable), and
  `shapes.area` through the module's name or alias. A file that imports the name
  under another one (`from .core import Widget as BaseWidget`) follows on the import
  line only: its uses of the alias stay, and a bare `Widget` there is another binding.
  The imports are read by `context.resolve`, as the context engine reads them;
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from sparkls.context.definitions import symbol_table
from sparkls.context.follow import returns_in
from sparkls.context.resolve import (
    DEFAULT, MODULE, STAR, Imported, declared_type, go_package, imports, named_after, origin,
)
from sparkls.documents.store import Document
from sparkls.nextedit.candidates import (
    Scopes, call_lines, changed_signature, dotted, in_code, passes_by_name, renamed_definition, word_pattern,
)
from sparkls.nextedit.members import NewMembers, branch_of, container_of, has_arms, new_members
from sparkls.nextedit.history import Edit, only_renames, renames


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
    # (changed name, first line, last line) of the imports that give one another name
    # (`Widget as BaseWidget`): only there does the name follow, never the alias's uses
    aliases: frozenset[tuple[str, int, int]] = frozenset()


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
        if (signature := changed_signature(doc, edit)) is not None:
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

def _module_names(source_path: str) -> tuple[str, str]:
    """(the module's own name, its path without the extension): `pkg/shapes.py` ->
    (`shapes`, `pkg/shapes`); a package's `__init__.py` or an `index.js` is its folder's."""
    stem_path = posixpath.splitext(source_path)[0]
    folder, stem = posixpath.split(stem_path)
    if stem in ("__init__", "index", "mod"):
        stem_path, stem = folder, posixpath.basename(folder)
    return stem, stem_path


def _sees(imported: Imported, language: str, other_path: str, source_path: str, names: Sequence[str]) -> bool:
    """Whether one import of the file `other_path` is of the module at `source_path`
    (or, naming one of `names`, of a package that re-exports it)."""
    stem, stem_path = _module_names(source_path)
    module = imported.module
    if language == "python":
        return module.split(".")[-1] == stem or (
            imported.name is not MODULE and bool({imported.name, imported.local} & {*names, stem})
        )
    if language == "go":
        package = posixpath.basename(posixpath.dirname(source_path))
        return module.rstrip("/").endswith("/" + package) or module == package
    if module.startswith("."):
        target = posixpath.splitext(posixpath.normpath(posixpath.join(posixpath.dirname(other_path), module)))[0]
        return target in (stem_path, posixpath.splitext(source_path)[0])
    return posixpath.basename(posixpath.splitext(module)[0]) == stem


Leads = Callable[[Sequence[Imported], str, str, str], "tuple[str, str] | None"]


def leads_through(read: Callable[[str], str | None], where: Callable[[str], Sequence[str]]) -> Leads:
    """`context.resolve.origin` as `link_of` asks it, the context engine's rule: module
    files read by `read` (once each) and parsed once, for one search; `where(name)`: the
    files that define `name` at top level."""
    texts: dict[str, str | None] = {}
    parsed: dict[tuple[str, int, int], list[Imported]] = {}

    def cached(path: str) -> str | None:
        if path not in texts:
            texts[path] = read(path)
        return texts[path]

    def leads(found: Sequence[Imported], local: str, here: str, language: str) -> tuple[str, str] | None:
        return origin(found, local, here, language, cached, where, parsed=parsed)

    return leads


def link_of(
    other: Document, other_path: str, source_path: str, names: Sequence[str], defines: Sequence[str] = (),
    leads: Leads | None = None,
) -> Link:
    """How the file `other` (at `other_path`) sees the module at `source_path`; `names`:
    the names changed there; `defines`: those of them the file defines itself (from the
    index). Its imports are read by `context.resolve`, as the context engine reads them.
    An import of one of `names` from another module counts when `leads(found, local,
    other_path, language)` (`context.resolve.origin`, given the follow-ups' reader)
    says it leads to `source_path` through that module's re-exports (`from pkg import
    Thing`, `export * from './widgets'`) and not when it leads elsewhere; without an
    answer, a Python import naming one counts (a package re-exporting it)."""
    stem = _module_names(source_path)[0]
    language = other.language_id
    found = imports(other, language)
    imports_it = language == "go" and posixpath.dirname(other_path) == posixpath.dirname(source_path)
    qualifiers: set[str] = set()
    aliases: set[tuple[str, int, int]] = set()
    for imported in found:
        seen = _sees(imported, language, other_path, source_path, names)
        if (
            leads is not None and language != "go" and not imported.reexport and imported.local
            and imported.name not in (MODULE, STAR, DEFAULT) and imported.name in names
        ):
            lead = leads(found, imported.local, other_path, language)
            seen = lead[1] == source_path if lead is not None else seen
        if not seen:
            continue
        imports_it = True
        if language == "python" and imported.name == stem:
            qualifiers.add(imported.local)  # `from pkg import shapes [as sh]`
        elif imported.name is MODULE and imported.local and imported.local not in (".", "_"):
            qualifiers.add(imported.local)  # `import pkg.shapes`, `* as shapes`, `const shapes = require(`
        elif language != "python" and imported.name == DEFAULT and not imported.reexport:
            qualifiers.add(imported.local)  # `import shapes from './shapes'`
        if imported.renamed and imported.name in names:
            aliases.add((imported.name, imported.line, imported.end_line))  # `Widget as BaseWidget`
    foreign = frozenset(_imported_names(found, language)) - qualifiers
    return Link(imports_it, frozenset(qualifiers), frozenset(defines), foreign, frozenset(aliases))


def _imported_names(found: Sequence[Imported], language: str) -> set[str]:
    """The names a file gives the modules it imports (`os`, `sh` in `import x as sh`,
    `fmt`, `fs` in `const fs = require('fs')`)."""
    names: set[str] = set()
    for imported in found:
        if imported.reexport or not imported.local:
            continue
        if imported.name is MODULE:
            local = imported.local.split(".")[0] if language == "python" else imported.local
            names.add(go_package(imported.module) if local in (".", "_") else local)
        elif imported.name == DEFAULT:
            names.add(imported.local)
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
    one declared with it where it is used (`cxt: KeywordCxt`, `(e *Entry)`, `job = Job(`,
    `task = create_job()` where the file's `create_job` declares it returns a Job: the
    context's resolver, `context/follow.returns_in`)."""
    last = receiver.split(".")[-1]
    if change.container is None:
        return False
    if last in ("self", "this", "cls"):
        return container_of(doc, at) == change.container
    returns = returns_in(doc, symbol_table(doc), doc.language_id)  # `job = create_job()`: what it declares
    declared = declared_type(doc, at, last, returns) if "." not in receiver else None
    if declared is not None:
        return _plain(declared) == _plain(change.container)
    return named_after(last, change.container)


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
        renamed = [(first, last) for name, first, last in link.aliases if name == change.name]
        for match in pattern.finditer(text):
            at = match.start()
            if renamed and not any(first <= lines.line_of(at) <= last for first, last in renamed):
                continue  # imported under another name: the import follows, its other uses are another binding
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
