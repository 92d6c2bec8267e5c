"""The emulator's scripted deep tier: SEARCH/REPLACE blocks, or a plan. Pure.

A request is a deep-tier one when it has the shape of the deep prompt
(docs/deep-tier.md): instructions that show a ``<<<<<<< SEARCH`` block (edit mode) or
ask for the plan only (plan mode), files shown as a path line followed by a fenced
block, and a ``Task:`` line. Directives in the request (the task, normally):

- ``REPLACE <old> WITH <new>``: every *old* in every file shown becomes *new*; one
  block per run of changed lines, its SEARCH widened with neighbouring lines until
  it is unique in the file (as a careful model does);
- ``AMBIGUOUS <old> WITH <new>``: the same, but the SEARCH is only the changed lines,
  never widened: where such a line occurs twice, the block is ambiguous;
- ``CREATE <path> WITH <text>``: a block with an empty SEARCH creating *path* (written
  as given, so ``CREATE ../outside.py WITH x`` names a path outside the workspace);
- ``EDIT <path> FROM <old> WITH <new>``: a block for *path* whose SEARCH is *old* and
  REPLACE *new*, shown or not (as a model steered by text in the repository may name
  any file it guesses: ``EDIT gitcfg FROM "[core]" WITH "[core]\n\tfsmonitor = x"``).

Operands are as for the fast tier (bare, ``"quoted"`` with ``\\n``, or
```backticked```). Lines of a file that hold a directive are left alone; replacing
works line by line (an operand does not span lines here). An *old* that is an
identifier is renamed where it is code, never in a string or a comment (``code.py``).

A task with no directive is read as plain words (``phrasings.py``): "rename the
function area to surface everywhere" renames as ``REPLACE area WITH surface`` would;
words it cannot follow are answered with the one line that says so and what it follows.

In plan mode the answer is one step per file shown that a directive changes, whose
instruction carries the directives for that file (``REPLACE `a` WITH `b```), and one
``(new)`` step per CREATE whose instruction is ``COMPLETE "<text>"``: so the fast
tier, seeing only that file and its step, makes the same change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkls.emulator import phrasings
from sparkls.emulator.code import is_identifier, rename_in_code

SEARCH_LINE = "<<<<<<< SEARCH"
DIVIDER_LINE = "======="
REPLACE_LINE = ">>>>>>> REPLACE"
PLAN_MARK = "Answer with the plan only"
NO_CHANGE_ANSWER = "No file shown needs a change for this task."

_OPERAND = r'"(?:\\.|[^"\\\n])*"|`[^`\n]*`|[^\s]+'
_REPLACE_RE = re.compile(rf"(?<!\w)(REPLACE|AMBIGUOUS)[ \t]+({_OPERAND})[ \t]+WITH[ \t]+({_OPERAND})")
_CREATE_RE = re.compile(rf"(?<!\w)CREATE[ \t]+({_OPERAND})[ \t]+WITH[ \t]+({_OPERAND})")
_EDIT_RE = re.compile(rf"(?<!\w)EDIT[ \t]+({_OPERAND})[ \t]+FROM[ \t]+({_OPERAND})[ \t]+WITH[ \t]+({_OPERAND})")
_ANY_DIRECTIVE = re.compile(r"(?<!\w)(?:REPLACE|AMBIGUOUS|CREATE|COMPLETE|EDIT)[ \t]")
_FILE_RE = re.compile(r"^(?P<path>[^\n`]+)\n(?P<fence>`{3,})[^\n`]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
_TASK_RE = re.compile(r"^Task: ", re.M)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "`": "`"}


@dataclass(frozen=True, slots=True)
class Substitution:
    old: str
    new: str
    widen: bool  # False for AMBIGUOUS: the SEARCH stays the changed lines only
    words: bool = False  # a rename the task said in words: whole identifiers only

    @property
    def directive(self) -> str:
        """How a plan step says it to the fast tier (which reads it the same way)."""
        if self.words:
            return f"rename {quote(self.old)} to {quote(self.new)}"
        return f"{'REPLACE' if self.widen else 'AMBIGUOUS'} {quote(self.old)} WITH {quote(self.new)}"


@dataclass(frozen=True, slots=True)
class Creation:
    path: str
    text: str


@dataclass(frozen=True, slots=True)
class ShownFile:
    path: str
    lines: tuple[str, ...]


def _unquote(operand: str) -> str:
    if len(operand) >= 2 and operand[0] == operand[-1] and operand[0] in "\"`":
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), operand[1:-1])
    return operand


def quote(value: str) -> str:
    """An operand for *value*: backticked when it can be, else double-quoted."""
    if "`" not in value and "\n" not in value and "\t" not in value and value:
        return f"`{value}`"
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def is_deep_request(text: str) -> bool:
    """Whether *text* has the shape of a deep-tier prompt (edit or plan mode)."""
    return (SEARCH_LINE in text or PLAN_MARK in text) and bool(_TASK_RE.search(text))


def is_plan_request(text: str) -> bool:
    return PLAN_MARK in text


def shown_files(text: str) -> list[ShownFile]:
    """The files the request shows: a path line, then the file in a fence."""
    return [
        ShownFile(m.group("path").strip(), tuple(m.group("body").split("\n")[:-1]))
        for m in _FILE_RE.finditer(text)
    ]


def substitutions(text: str) -> list[Substitution]:
    return [
        Substitution(_unquote(m.group(2)), _unquote(m.group(3)), m.group(1) == "REPLACE")
        for m in _REPLACE_RE.finditer(text)
        if _unquote(m.group(2))
    ]


def creations(text: str) -> list[Creation]:
    return [Creation(_unquote(m.group(1)), _unquote(m.group(2))) for m in _CREATE_RE.finditer(text)]


_LANGUAGES = {".py": "python", ".pyi": "python", ".rb": "ruby", ".sh": "sh", ".toml": "toml", ".yaml": "yaml",
               ".yml": "yaml", ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
               ".ts": "typescript", ".tsx": "typescript", ".go": "go", ".rs": "rust", ".c": "c", ".h": "c", ".java": "java"}


def _renamed(lines: list[str], sub: Substitution, path: str) -> list[str]:
    """*lines* after *sub*, directive lines kept: an identifier replaced in code only (a
    file of a known language; whole words for a rename said in words), any other text
    replaced wherever it stands."""
    language = _LANGUAGES.get(path[path.rfind(".") :].lower()) if "." in path else None
    if is_identifier(sub.old) and language is not None:
        text = "\n".join(lines)
        return rename_in_code(
            text, [(sub.old, sub.new)], language, keep_line=_ANY_DIRECTIVE.search, whole_words=sub.words,
        ).split("\n")
    if sub.words:
        word = re.compile(rf"(?<![\w$]){re.escape(sub.old)}(?![\w$])")
        return [ln if _ANY_DIRECTIVE.search(ln) else word.sub(lambda _m: sub.new, ln) for ln in lines]
    return [ln if _ANY_DIRECTIVE.search(ln) else ln.replace(sub.old, sub.new) for ln in lines]


def _changed(file: ShownFile, subs: list[Substitution]) -> tuple[list[str], set[int], set[int]]:
    """The new lines, the changed line numbers, and those changed by a non-widening directive."""
    new_lines = list(file.lines)
    changed: set[int] = set()
    loose: set[int] = set()
    for sub in subs:
        renamed = _renamed(new_lines, sub, file.path)
        for i, (before, after) in enumerate(zip(new_lines, renamed)):
            if before != after:
                changed.add(i)
                if not sub.widen:
                    loose.add(i)
        new_lines = renamed
    return new_lines, changed, loose


def _occurrences(lines: tuple[str, ...], search: tuple[str, ...]) -> int:
    n = len(search)
    return sum(1 for i in range(len(lines) - n + 1) if lines[i : i + n] == search)


def _hunks(changed: set[int]) -> list[tuple[int, int]]:
    runs: list[list[int]] = []
    for i in sorted(changed):
        if runs and runs[-1][1] == i:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1])
    return [(a, b) for a, b in runs]


def _block(path: str, search: list[str] | tuple[str, ...], replace: list[str]) -> str:
    body = [path, SEARCH_LINE, *search, DIVIDER_LINE, *replace, REPLACE_LINE]
    return "\n".join(body)


def file_blocks(file: ShownFile, subs: list[Substitution]) -> list[str]:
    """The blocks that make *subs* in *file*, one per run of changed lines."""
    new_lines, changed, loose = _changed(file, subs)
    blocks = []
    for start, end in _hunks(changed):
        widen = not any(i in loose for i in range(start, end))
        while widen and _occurrences(file.lines, file.lines[start:end]) > 1:
            if start > 0:
                start -= 1
            elif end < len(file.lines):
                end += 1
            else:
                break
        blocks.append(_block(file.path, file.lines[start:end], new_lines[start:end]))
    return blocks


def edit_answer(text: str, said: list[Substitution] | None = None) -> str:
    """The SEARCH/REPLACE blocks a deep-tier edit request asks for (*said*: the renames
    its task said in words)."""
    subs = substitutions(text) + (said or [])
    blocks = [block for file in shown_files(text) for block in file_blocks(file, subs)]
    blocks += [_block(c.path, (), c.text.removesuffix("\n").split("\n")) for c in creations(text)]
    blocks += [
        _block(_unquote(m.group(1)), _unquote(m.group(2)).split("\n"), _unquote(m.group(3)).split("\n"))
        for m in _EDIT_RE.finditer(text)
    ]
    return "\n\n".join(blocks) + "\n" if blocks else NO_CHANGE_ANSWER


def plan_answer(text: str, said: list[Substitution] | None = None) -> str:
    """The plan a deep-tier plan request asks for: one step per changed or created file."""
    subs = substitutions(text) + (said or [])
    steps = []
    for file in shown_files(text):
        used = [s for s in subs if _changed(file, [s])[1]]
        if used:
            steps.append(f"{file.path}: {' and '.join(s.directive for s in used)}")
    steps += [f"{c.path} (new): COMPLETE {quote(c.text)}" for c in creations(text)]
    if not steps:
        return NO_CHANGE_ANSWER
    return "".join(f"{n}. {step}\n" for n, step in enumerate(steps, start=1))


def _task_words(text: str) -> str:
    at = list(_TASK_RE.finditer(text))[-1].end()
    return text[at:].strip()


def answer(text: str) -> str:
    """The deep tier's answer to a deep-tier request (see the module doc)."""
    said = None
    if not (substitutions(text) or creations(text) or _EDIT_RE.search(text)):
        words = _task_words(text)
        reading = phrasings.read(words)
        if not reading.renames:
            return phrasings.not_understood(words)
        said = [Substitution(old, new, True, words=True) for old, new in reading.renames]
    return plan_answer(text, said) if is_plan_request(text) else edit_answer(text, said)
