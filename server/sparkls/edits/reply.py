"""Read the region's new text out of a fast-tier reply (docs/model-protocol.md). Pure.

The protocol asks for the complete new region in one fenced code block. Real fast
models bend it; `new_region_text` takes what they send and returns exactly the new
region, or raises a `NoUsableReply` naming what was wrong. In order:

1. the code blocks (edits/fences.py): none, or one left open, is refused; a unified
   diff instead of a block (fenced or not) is applied to the region (edits/udiff.py);
2. in each block, region markers the model echoed: with both, what is between them is
   the region; a lone start (end) marker keeps what follows (precedes) it; cursor
   markers go (unless the document itself holds marker text: then they are code);
   blank lines after the code go unless the old region ends with one;
3. the block is brought back to the region's shape (edits/reshape.py): echoed lines
   from around the region stripped, tabs/spaces matched to the file, a dedented or
   re-indented region moved back, added trailing whitespace dropped;
4. several blocks: a block that only quotes the old region (all of it or a run of its
   lines) loses to one that differs; among several that differ, the one most like the
   old region wins by a clear margin, else the reply is refused as ambiguous;
5. an empty block (or one of blank lines) deletes the region's lines where the caller
   allows it (`may_delete`: an edit or refine the user asked for, "remove this
   import"), and is refused elsewhere (a next edit, a follow-up); refused: a block with a comment
   standing in for left-out code (edits/elision.py), a block holding only inner lines
   of the region (the changed line alone), several blocks (or one left open) whose
   fence is no longer than a fence line inside the region (it may close early);
6. the lines are joined with the region's line break (CRLF in a CRLF file), with a
   final break when the old region had one, and none when it had none.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher

from sparkls.context.builder import EditContext
from sparkls.documents.positions import LINE_BREAK, split_lines
from sparkls.context.prompt import CURSOR, EXCERPT_PLACEHOLDER, REGION_END, REGION_START
from sparkls.edits.elision import first_elision
from sparkls.edits.fences import FencedBlock, Fences, find_fences, opening_fence
from sparkls.edits.reshape import (
    Around,
    indent_of,
    match_base_indent,
    match_indent_style,
    strip_added_trailing_whitespace,
    strip_echo,
)
from sparkls.edits.udiff import apply_unified_diff, is_unified_diff
from sparkls.errors import AmbiguousReply, CodeLeftOut, NoUsableReply

CLEAR_MARGIN = 0.3  # similarity to the old region by which one block must beat the next
FRAGMENT_LIKENESS = 0.75  # how close a reply's first line must be to an inner line to be that line


@dataclass(frozen=True, slots=True)
class RegionView:
    """The editable region as the model was shown it: the document's text when the
    request was built, the region's offsets in it, and the excerpt lines shown above
    and below the region's markers."""

    text: str
    start: int
    end: int
    language_id: str = ""
    shown_before: tuple[str, ...] = ()
    shown_after: tuple[str, ...] = ()
    placeholder: str = "..."  # the excerpt's line for what lies between a header and the region

    @classmethod
    def of(cls, ctx: EditContext, text: str, language_id: str) -> RegionView:
        """The region as `render_edit_prompt` shows it, in `text` (the document when
        the prompt was built)."""
        shown_before = [*ctx.headers, EXCERPT_PLACEHOLDER] if ctx.headers else []
        shown_before += ctx.before.splitlines()
        return cls(
            text, ctx.region.start, ctx.region.end, language_id,
            tuple(shown_before), tuple(ctx.after.splitlines()), EXCERPT_PLACEHOLDER.strip(),
        )

    @property
    def old(self) -> str:
        return self.text[self.start : self.end]

    @property
    def line_ending(self) -> str:
        """The region's most frequent line break, else the one ending the line before
        it, else the one after it, else "\\n"."""
        found = Counter(m.group() for m in LINE_BREAK.finditer(self.old))
        if found:
            return found.most_common(1)[0][0]
        before = LINE_BREAK.search(self.text[max(0, self.start - 2) : self.start])
        after = LINE_BREAK.search(self.text, self.end)
        return before.group() if before else after.group() if after else "\n"

    def around(self, n: int) -> Around:
        """Up to `n` document lines on each side of the region, and the excerpt's lines."""
        before, before_complete = _lines_before(self.text, self.start, n)
        after, after_complete = _lines_after(self.text, self.end, n)
        return Around(
            before, before_complete, after, after_complete, _file_start(self.text, self.start),
            self.shown_before, self.shown_after, self.placeholder,
        )


def _lines_before(text: str, start: int, n: int) -> tuple[tuple[str, ...], bool]:
    if start == 0:
        return (), True
    if text[start - 1] != "\n":
        return (), False  # the region starts mid-line: no whole line before it to compare
    lines: list[str] = []
    end = start - 1
    while len(lines) < n:
        begin = text.rfind("\n", 0, end) + 1
        lines.append(text[begin:end].removesuffix("\r"))
        if begin == 0:
            return tuple(reversed(lines)), True
        end = begin - 1
    return tuple(reversed(lines)), False


def _lines_after(text: str, end: int, n: int) -> tuple[tuple[str, ...], bool]:
    if end >= len(text):
        return (), True
    if end > 0 and text[end - 1] != "\n":
        return (), False
    lines: list[str] = []
    pos = end
    while len(lines) < n and pos < len(text):
        stop = text.find("\n", pos)
        if stop < 0:
            stop = len(text)
        lines.append(text[pos:stop].removesuffix("\r"))
        pos = stop + 1
    return tuple(lines), pos >= len(text)


def _file_start(text: str, start: int) -> str | None:
    pos = 0
    while pos < start:
        stop = text.find("\n", pos)
        stop = len(text) if stop < 0 else stop
        line = text[pos:stop].removesuffix("\r")
        if line.strip():
            return line
        pos = stop + 1
    return None


@dataclass(slots=True)
class _Candidate:
    lines: list[str]
    problem: NoUsableReply | None = None


def _between_markers(lines: tuple[str, ...], document: str = "") -> tuple[list[str], bool, bool]:
    """The block's lines within echoed region markers, and which markers bounded them.
    Markers that the document itself holds (as text) are code, not echoes: kept."""
    text = "\n".join(lines)
    if CURSOR not in document:
        text = text.replace(CURSOR, "")
    if REGION_START in document or REGION_END in document:
        return text.split("\n"), False, False
    start, end = text.find(REGION_START), text.rfind(REGION_END)
    bounded_start = bounded_end = False
    if start >= 0 and end >= 0 and end < start:
        start = end = -1  # markers in the wrong order: only their lines are dropped
    if start >= 0:
        text = text[start + len(REGION_START) :].removeprefix("\n")
        bounded_start = True
        end = text.rfind(REGION_END)
    if end >= 0:
        head = text[:end]
        # The end marker's own line: what precedes it on that line is code, if anything.
        text = head[:-1] if head.endswith("\n") else head
        bounded_end = True
    inner = [ln for ln in text.split("\n") if ln.strip() not in (REGION_START, REGION_END)]
    return inner, bounded_start, bounded_end


def _from_block(block: FencedBlock, view: RegionView, old: list[str], around: Around) -> _Candidate:
    if is_unified_diff(block.lines, block.tag, view.language_id, old):
        try:
            return _Candidate(apply_unified_diff(old, block.lines))
        except NoUsableReply as exc:
            return _Candidate(list(block.lines), exc)
    lines, bounded_start, bounded_end = _between_markers(block.lines, view.text)
    if not (old and not old[-1].strip()):
        while lines and not lines[-1].strip():
            lines.pop()
    try:
        if not (bounded_start and bounded_end):
            lines = strip_echo(lines, old, around)
    except NoUsableReply as exc:
        return _Candidate(lines, exc)
    if (part := _fragment(lines, old)) is not None:
        return _Candidate(lines, NoUsableReply(
            f"The model answered with only part of the region (from {part.strip()!r}), not the whole region; "
            "applying it would delete the rest, so nothing was changed."
        ))
    lines = match_indent_style(lines, old, around.doc_before[-20:] + around.doc_after[:20])
    lines = match_base_indent(lines, old)
    return _Candidate(strip_added_trailing_whitespace(lines, old))


def _quotes_old(lines: list[str], old: list[str]) -> bool:
    """Whether `lines` are the old region, or one run of its lines (ignoring indentation
    and blank lines): a "before" block."""
    want = [ln.strip() for ln in lines if ln.strip()]
    have = [ln.strip() for ln in old if ln.strip()]
    if not want:
        return False
    n = len(want)
    return any(have[i : i + n] == want for i in range(len(have) - n + 1))


def _likeness(lines: list[str], old: list[str]) -> float:
    return SequenceMatcher(None, [ln.strip() for ln in old], [ln.strip() for ln in lines], autojunk=False).ratio()


def _choose(candidates: list[_Candidate], old: list[str]) -> _Candidate:
    """The block that is the new region (see the module doc, step 4)."""
    filled = [c for c in candidates if any(ln.strip() for ln in c.lines)] or candidates[:1]
    if len(filled) == 1:
        return filled[0]
    changed = [c for c in filled if not _quotes_old(c.lines, old)]
    if not changed:
        return filled[-1]
    distinct = {tuple(c.lines): c for c in changed}
    if len(distinct) == 1:
        return changed[0]
    ranked = sorted(changed, key=lambda c: _likeness(c.lines, old), reverse=True)
    if _likeness(ranked[0].lines, old) - _likeness(ranked[1].lines, old) >= CLEAR_MARGIN:
        return ranked[0]
    raise AmbiguousReply(
        f"The model's reply has {len(changed)} code blocks that each change the region differently; "
        "sparkls cannot tell which one is the new region, so nothing was changed."
    )


def _fence_too_short(lines: list[str], fences: Fences, old: list[str]) -> bool:
    """Whether the reply's first fence is no longer than a fence line the old region
    holds (a Markdown region, a docstring with an example), so it may close early."""
    first = fences.blocks[0].start if fences.blocks else fences.unclosed
    opened = opening_fence(lines[first]) if first is not None else None
    if opened is None:
        return False
    fence = opened[1]
    for line in old:
        inner = opening_fence(line)
        if inner is not None and inner[1][0] == fence[0] and len(inner[1]) >= len(fence):
            return True
    return False


def _fragment(lines: list[str], old: list[str]) -> str | None:
    """The first line of a reply that holds only some inner lines of the region: it
    starts with (a close variant of) one of the region's more indented lines, lacks
    the region's first line and is shorter. None when the reply is not such a part,
    and when it starts with a line the region has at its own depth (the region's
    first statements deleted, the rest kept)."""
    first_old, first_new = _first_line(old), _first_line(lines)
    if first_old is None or first_new is None or first_old.strip() in {ln.strip() for ln in lines}:
        return None
    if sum(1 for ln in lines if ln.strip()) >= sum(1 for ln in old if ln.strip()):
        return None
    base = len(indent_of(first_old))
    if any(ln.strip() == first_new.strip() and len(indent_of(ln)) <= base for ln in old[1:]):
        return None  # it starts at a later statement of the region's own depth: its first ones deleted
    for line in old[1:]:
        if line.strip() and len(indent_of(line)) > base:
            if SequenceMatcher(None, line.strip(), first_new.strip(), autojunk=False).ratio() >= FRAGMENT_LIKENESS:
                return first_new
    return None


def _first_line(lines: list[str]) -> str | None:
    return next((ln for ln in lines if ln.strip()), None)


def is_words(reply: str) -> bool:
    """Whether a reply without a code block is written in words (a sentence: a capital,
    a space, no indentation), as an answer that will not write code is, rather than
    code left unfenced."""
    first = _first_line(reply.split("\n"))
    return first is not None and bool(re.match(r"[A-Z][a-z']*[ ,]", first)) and not first[:1].isspace()


def _no_block(reply: str) -> NoUsableReply:
    said = " ".join(reply.split())
    if said and is_words(reply):
        # An answer in words (it will not, or cannot, do this) is the answer: heard out whole.
        return NoUsableReply(f'The answer was words, not code, so nothing was changed: "{said[:600]}"')
    preview = said[:240]
    return NoUsableReply(
        "The model's reply had no complete code block, so nothing was changed"
        + (f" (it began: {preview!r})." if preview else " (the reply was empty).")
    )


def new_region_text(reply: str, view: RegionView, *, may_delete: bool = False) -> str:
    """The region's new text in `reply`, with the region's line breaks; raises a
    `NoUsableReply` (or its `AmbiguousReply`, `CodeLeftOut`) saying what was wrong.
    `may_delete`: an empty block is an answer (the region's lines go), not a fault."""
    old_text = view.old
    old = split_lines(old_text)
    lines = LINE_BREAK.split(reply)
    fences = find_fences(lines)
    if (fences.unclosed is not None or len(fences.blocks) > 1) and _fence_too_short(lines, fences, old):
        raise AmbiguousReply(
            "The region holds code-fence lines and the model fenced its code with the same fence, so where "
            "its code block ends is ambiguous; nothing was changed."
        )
    if fences.unclosed is not None:
        raise NoUsableReply(
            f"The model's reply opens a code block (its line {fences.unclosed + 1}) that is never closed; "
            "the reply may have been cut off, so nothing was changed."
        )
    if fences.blocks:
        around = view.around(max(len(block.lines) for block in fences.blocks) + 1)
        chosen = _choose([_from_block(block, view, old, around) for block in fences.blocks], old)
    elif is_unified_diff(lines, "", view.language_id, old, after_prose=True):
        chosen = _Candidate(apply_unified_diff(old, lines))
    else:
        raise _no_block(reply)
    if chosen.problem is not None:
        raise chosen.problem
    new = chosen.lines
    if not any(ln.strip() for ln in new) and any(ln.strip() for ln in old):
        if may_delete:
            return ""  # the region's lines are deleted, their line breaks with them
        raise NoUsableReply(
            "The model's code block was empty; applying it would delete the whole region, so nothing was changed."
        )
    if (elided := first_elision(new, old, view.language_id)) is not None:
        raise CodeLeftOut(
            f"The model left part of the code out: it wrote {elided[1].strip()!r} (line {elided[0] + 1} of its "
            "code) instead of the code itself; applying it would delete that code, so nothing was changed."
        )
    text = join_like(new, old_text, view.line_ending)
    if not old_text and text and view.start == len(view.text) and view.text.endswith(("\n", "\r")):
        text += view.line_ending  # an empty region at the end of a file that ends with a line break: so does the code
    return text


def join_like(new: list[str], old_text: str, ending: str) -> str:
    """`new` lines joined as the old region's were: a line the old region had keeps its
    own break (a file of mixed line endings stays as it was), other lines take `ending`;
    a final break when the old region ended with one."""
    old = split_lines(old_text)
    breaks = [m.group() for m in LINE_BREAK.finditer(old_text)]
    kept: dict[int, str] = {}
    if len(set(breaks)) > 1:  # mixed: align, so unchanged lines keep theirs
        for block in SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks():
            for k in range(block.size):
                if block.a + k < len(breaks):
                    kept[block.b + k] = breaks[block.a + k]
    final = breaks[-1] if breaks and len(breaks) == len(old) else ""
    out = []
    for j, line in enumerate(new):
        last = j == len(new) - 1
        out.append(line + (kept.get(j, final or ending) if last and final else "" if last else kept.get(j, ending)))
    return "".join(out)

