"""Names an edit calls that exist nowhere: reported to the user, not silently applied.

A fast model sometimes calls a function that does not exist. `invented_names` looks
at the calls the new region makes that the old one did not: a bare name (`foo(...)`)
and a method of the object itself (`self.foo(...)`, `this.foo(...)`) must be defined
somewhere — in the file, in the workspace index, among the language's builtins, or
bound by an import — else it is reported as "possible invented API: foo()". Calls on
other objects (`items.append(...)`, `json.dumps(...)`) are not judged: their type
is unknown here, and a false alarm costs the user's trust. A method of the object
itself is judged only in a class without base classes (an inherited method may live
in a library).

Pure: reads the document, the two region texts and the index; returns messages.
"""

from __future__ import annotations

import builtins
import re

from sparkls.context.definitions import WORD, Lookup
from sparkls.context.resolve import OWN
from sparkls.documents.languages import grammar_record
from sparkls.documents.store import Document

# `foo(`, `self.foo(`, `obj.foo(`, `Type::foo(`: the object (or None) and the name.
_CALL = re.compile(r"(?:\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:\.|::)\s*|(?<![\w.:]))\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_DEFINES = re.compile(r"\b(?:def|function|fn|func|class|struct|interface|type)\s+([A-Za-z_][A-Za-z0-9_]*)")
_CLASS_HEADER = re.compile(r"^\s*(?:export\s+)?(?:abstract\s+)?class\s+\w+\s*(.*)$", re.MULTILINE)

_ECMASCRIPT = (
    "Array Boolean Date Error JSON Map Math Number Object Promise Proxy Reflect RegExp Set String Symbol "
    "TypeError WeakMap WeakSet BigInt console decodeURIComponent encodeURIComponent fetch isFinite isNaN "
    "parseFloat parseInt queueMicrotask require setInterval setTimeout clearInterval clearTimeout structuredClone "
    "if for while switch catch return typeof super import"
)
BUILTINS = {
    "python": frozenset(dir(builtins)) | {"super", "print", "if", "elif", "while", "for", "return", "not", "and", "or",
                                          "in", "assert", "yield", "await", "lambda", "with", "except"},
    "javascript": frozenset(_ECMASCRIPT.split()),
    "typescript": frozenset(_ECMASCRIPT.split()),
    "tsx": frozenset(_ECMASCRIPT.split()),
    "go": frozenset(
        "append cap clear close complex copy delete imag len make max min new panic print println real recover "
        "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 "
        "uint16 uint32 uint64 uintptr any if for switch return func go defer".split()
    ),
    "rust": frozenset("Some Ok Err Box Vec String drop if while for match return loop".split()),
}


def _has_bases(header_rest: str) -> bool:
    """Whether what follows `class Name` names a base class (`(Base):`, `extends Base`)."""
    rest = header_rest.strip()
    if rest.startswith("("):
        return not rest.startswith(("():", "(object):"))
    return "extends " in rest or "implements " in rest


def invented_names(doc: Document, new_region: str, old_region: str, lookup: Lookup | None) -> list[str]:
    """Warnings for the calls `new_region` adds that nothing defines."""
    record = grammar_record(doc.language_id)
    if record is None:
        return []
    known = BUILTINS.get(record.name, frozenset())
    old_words = set(WORD.findall(old_region))
    defined_here = set(_DEFINES.findall(new_region))
    candidates: dict[str, tuple[str | None, str]] = {}  # shown -> (owner, name), in order
    for match in _CALL.finditer(new_region):
        owner, name = match.group(1), match.group(2)
        if owner is not None and owner not in OWN:
            continue  # a method of some other object: its type is unknown here
        if name in old_words or name in known or name in defined_here:
            continue
        candidates.setdefault(f"{owner}.{name}()" if owner else f"{name}()", (owner, name))
    if not candidates:
        return []  # the common case: nothing new is called, and the file is not scanned
    own_calls_judged: bool | None = None  # no class has a base (worked out once, if needed)
    warnings: list[str] = []
    for shown, (owner, name) in candidates.items():
        if owner is not None:
            if own_calls_judged is None:
                own_calls_judged = not any(_has_bases(rest) for rest in _CLASS_HEADER.findall(doc.text))
            if not own_calls_judged:
                continue  # the method may be inherited from a library
        if re.search(rf"\b{re.escape(name)}\b", doc.text):
            continue  # the file (the old region included) has it
        if lookup is not None and lookup.definitions(name):
            continue
        warnings.append(f"possible invented API: {shown}")
    return warnings
