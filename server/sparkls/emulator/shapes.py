"""Reply shapes: the forms a fast model's answer really takes. Pure functions.

The protocol asks for the new region in one plain fenced block (``fenced``). Fast
models often answer in another shape; each shape here is a function of the new
region text, the old region text (None when the request has no region) and the
request text, returning the reply, or None when the shape does not apply to this
request (then the reply is ``fenced``). :func:`render` is the one entry point.

- ``fenced``: the protocol: the new region in one plain fenced block;
- ``bare``: the new region with no fence;
- ``empty``: no text at all;
- ``broken``: the fenced answer plus a line of unclosed brackets (does not parse);
- ``tagged``: a fence with a language tag guessed from the file path in the request;
- ``tilde``: a ``~~~`` fence;
- ``four_backticks``: a four-backtick fence;
- ``prose``: a sentence before and after the fenced block;
- ``markers``: the region marker lines echoed inside the block;
- ``context``: the excerpt lines the request shows around the region echoed around it;
- ``dedented``: the region's common indentation removed;
- ``reindented``: four more spaces on every non-blank line;
- ``tabs``: leading groups of four spaces as tabs (tabs as four spaces if the region
  used tabs);
- ``crlf``: the fenced answer with CRLF line ends;
- ``trailing_whitespace``: two spaces after every other non-blank line;
- ``elision``: the middle lines replaced by one ``# ... rest unchanged`` comment (in
  the file's comment syntax);
- ``two_blocks``: a "Before:" block with the old region and an "After:" block with the new;
- ``diff``: a unified diff of the old region to the new in a ``diff`` block.
"""

from __future__ import annotations

import difflib
import re
import textwrap
from typing import Callable

from sparkls.emulator.protocol import CURSOR, END_LINE_RE, REGION_END, REGION_START, START_LINE_RE, fence, find_region

BROKEN_TAIL = "(((\n"  # what `broken` adds: unclosed brackets, a syntax error in every language
CONTEXT_LINES = 3  # how many excerpt lines `context` echoes on each side at most

LANGUAGES = {
    "py": "python", "pyi": "python", "js": "javascript", "jsx": "jsx", "mjs": "javascript",
    "ts": "typescript", "tsx": "tsx", "rs": "rust", "go": "go", "java": "java", "c": "c",
    "h": "c", "cc": "cpp", "cpp": "cpp", "hpp": "cpp", "cs": "csharp", "rb": "ruby",
    "php": "php", "swift": "swift", "kt": "kotlin", "scala": "scala", "lua": "lua",
    "sh": "bash", "bash": "bash", "sql": "sql", "hs": "haskell", "toml": "toml",
    "yaml": "yaml", "yml": "yaml",
}
_HASH_COMMENTS = {"python", "ruby", "bash", "toml", "yaml"}
_DASH_COMMENTS = {"lua", "sql", "haskell"}
_PATH_RE = re.compile(r"(?<![\w.])([\w./\\-]*\w\.(" + "|".join(sorted(LANGUAGES, key=len, reverse=True)) + r"))(?![\w.])")


def file_path(request_text: str) -> str | None:
    """The first path with a known source extension that the request mentions."""
    match = _PATH_RE.search(request_text)
    return match.group(1) if match else None


def language(request_text: str) -> str | None:
    """The fence tag for the file the request is about, guessed from its path."""
    match = _PATH_RE.search(request_text)
    return LANGUAGES[match.group(2)] if match else None


def comment_prefix(request_text: str) -> str:
    """How a line comment starts in the request's language (``#`` when unknown)."""
    lang = language(request_text)
    if lang is None or lang in _HASH_COMMENTS:
        return "#"
    return "--" if lang in _DASH_COMMENTS else "//"


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _fenced(new: str, old: str | None, request: str) -> str:
    return fence(new)


def _bare(new: str, old: str | None, request: str) -> str:
    return new


def _broken(new: str, old: str | None, request: str) -> str | None:
    if old is None:
        return None
    return fence(new.rstrip("\n") + "\n" + BROKEN_TAIL)


def _tagged(new: str, old: str | None, request: str) -> str | None:
    tag = language(request)
    return fence(new, tag=tag) if tag else None


def _tilde(new: str, old: str | None, request: str) -> str:
    return fence(new, "~~~")


def _four_backticks(new: str, old: str | None, request: str) -> str:
    return fence(new, "````")


def _prose(new: str, old: str | None, request: str) -> str:
    return f"Here is the updated code:\n\n{fence(new)}\n\nNothing else in the file needs to change."


def _markers(new: str, old: str | None, request: str) -> str | None:
    if old is None:
        return None
    return fence(f"{REGION_START}\n{new}\n{REGION_END}")


def context_lines(request: str) -> tuple[list[str], list[str]]:
    """The excerpt lines shown just before and just after the region (up to
    :data:`CONTEXT_LINES` each, never past the excerpt's fence)."""
    bounds = find_region(request)
    if bounds is None:
        return [], []
    starts = [m for m in START_LINE_RE.finditer(request) if m.end() <= bounds[0]]
    end = END_LINE_RE.search(request, bounds[1])
    if not starts or end is None:
        return [], []
    before = request[: starts[-1].start()].split("\n")[:-1][::-1]
    after = request[end.end() :].split("\n")[1:]

    def take(lines: list[str]) -> list[str]:
        kept = []
        for line in lines[:CONTEXT_LINES]:
            if line.lstrip().startswith(("```", "~~~")):
                break
            kept.append(line.replace(CURSOR, ""))
        return kept

    return take(before)[::-1], take(after)


def _context(new: str, old: str | None, request: str) -> str | None:
    if old is None:
        return None
    before, after = context_lines(request)
    if not before and not after:
        return None
    return fence("\n".join([*before, new, *after]))


def _dedented(new: str, old: str | None, request: str) -> str | None:
    dedented = textwrap.dedent(new)
    return fence(dedented) if old is not None and dedented != new else None


def _reindented(new: str, old: str | None, request: str) -> str | None:
    if old is None or not new.strip():
        return None
    return fence("\n".join("    " + line if line.strip() else line for line in _lines(new)))


def _tabs(new: str, old: str | None, request: str) -> str | None:
    if old is None:
        return None
    uses_tabs = any(line.startswith("\t") for line in _lines(old))
    out = []
    for line in _lines(new):
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)]
        if uses_tabs:
            indent = indent.replace("\t", "    ")
        else:
            indent = indent.replace("    ", "\t")
        out.append(indent + body)
    converted = "\n".join(out)
    return fence(converted) if converted != new else None


def _crlf(new: str, old: str | None, request: str) -> str:
    return re.sub(r"\r?\n", "\r\n", fence(new))


def _trailing_whitespace(new: str, old: str | None, request: str) -> str | None:
    lines = _lines(new)
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if not filled:
        return None
    for i in filled[::2]:
        lines[i] += "  "
    return fence("\n".join(lines))


def _elision(new: str, old: str | None, request: str) -> str | None:
    lines = _lines(new)
    if old is None or len(lines) < 3:
        return None
    keep = max(1, len(lines) // 3)
    first_elided = lines[keep]
    indent = first_elided[: len(first_elided) - len(first_elided.lstrip())]
    comment = f"{indent}{comment_prefix(request)} ... rest unchanged"
    return fence("\n".join([*lines[:keep], comment, *lines[len(lines) - keep :]]))


def _two_blocks(new: str, old: str | None, request: str) -> str | None:
    if old is None:
        return None
    return f"Before:\n{fence(old.replace(CURSOR, ''))}\n\nAfter:\n{fence(new)}"


def _diff(new: str, old: str | None, request: str) -> str | None:
    if old is None:
        return None
    before = old.replace(CURSOR, "")
    if before == new:
        return None
    path = file_path(request) or "region"
    lines = difflib.unified_diff(_lines(before), _lines(new), f"a/{path}", f"b/{path}", lineterm="")
    return fence("\n".join(lines), tag="diff")


Shape = Callable[[str, "str | None", str], "str | None"]
SHAPES: dict[str, Shape] = {
    "fenced": _fenced,
    "bare": _bare,
    "empty": lambda new, old, request: "",
    "broken": _broken,
    "tagged": _tagged,
    "tilde": _tilde,
    "four_backticks": _four_backticks,
    "prose": _prose,
    "markers": _markers,
    "context": _context,
    "dedented": _dedented,
    "reindented": _reindented,
    "tabs": _tabs,
    "crlf": _crlf,
    "trailing_whitespace": _trailing_whitespace,
    "elision": _elision,
    "two_blocks": _two_blocks,
    "diff": _diff,
}
REPLY_STYLES = tuple(SHAPES)


def render(style: str, new: str, old: str | None, request: str) -> str:
    """The reply in *style* for the *new* region (*old*: the region as shown, with
    its cursor marker; None without a region); ``fenced`` where *style* does not apply."""
    try:
        shape = SHAPES[style]
    except KeyError:
        raise ValueError(f"unknown reply style {style!r}; expected one of {REPLY_STYLES}") from None
    reply = shape(new, old, request)
    return fence(new) if reply is None else reply
