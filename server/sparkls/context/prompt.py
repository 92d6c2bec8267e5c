"""The fast-tier prompt, in the model protocol of DESIGN.md.

Stable parts come first so the provider's prompt cache hits: the instructions (the
same for every request), then the file (path, imports, enclosing headers); the
variable part, the marked region and the instruction, comes last.
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkls.context.builder import EditContext
from sparkls.context.snippet import DEFINITION_KINDS, Snippet
from sparkls.guard.secrets import redact
from sparkls.documents.languages import grammar_record

REGION_START = "<|editable_region_start|>"
REGION_END = "<|editable_region_end|>"
CURSOR = "<|cursor|>"
PIECE_SEPARATOR = "⋮"  # between two pieces of one file in the definitions block

# The same on every request, and first (the `instructions` field, then the stable parts
# of the input): the provider's prompt cache holds it. Every rule of the model protocol
# in as few tokens as it takes (130 before, 72 now, by `tokens.estimate_tokens`).
FAST_INSTRUCTIONS = f"""\
Rewrite the code between {REGION_START} and {REGION_END} to carry out the instruction; \
{CURSOR} marks the cursor.
Answer with the region's complete new text in one fenced code block, without the marker \
lines or {CURSOR}. Keep indentation and unchanged lines exactly. No explanation."""


@dataclass(frozen=True, slots=True)
class Prompt:
    instructions: str
    input: str
    # Earlier turns of the same conversation, sent before `input` when the request
    # does not continue a stored or connection-local response (a refine resent in
    # full): ("user" | "assistant", text) pairs, oldest first.
    history: tuple[tuple[str, str], ...] = ()


EXCERPT_PLACEHOLDER = "    ..."  # the excerpt's line between the class headers and the region

def _fence(body: str, language: str) -> str:
    fence = "```"
    while fence in body:
        fence += "`"
    return f"{fence}{language}\n{body}\n{fence}"


def fenced(body: str, language_id: str) -> str:
    """`body` in a code fence longer than any fence inside it, tagged for `language_id`."""
    return _fence(body, _fence_tag(language_id))


def _fence_tag(language_id: str) -> str:
    """The code fence's language tag: the grammar's name (`tsx` for typescriptreact)."""
    record = grammar_record(language_id)
    return record.name if record is not None else language_id


def _lines(snippet: Snippet) -> str:
    first, last = snippet.start_line + 1, snippet.end_line + 1
    return f"{first}" if first == last else f"{first}-{last}"


def _by_file(snippets: list[Snippet], tag: str) -> list[str]:
    """One fenced block per file (snippets come in file order): its path and the
    line ranges shown, then the pieces separated by a `⋮` line."""
    files: dict[str, list[Snippet]] = {}
    for snippet in snippets:
        files.setdefault(snippet.path, []).append(snippet)
    return [
        f"{path} (lines {', '.join(_lines(s) for s in pieces)}):\n"
        + _fence(f"\n{PIECE_SEPARATOR}\n".join(s.text for s in pieces), tag)
        for path, pieces in files.items()
    ]


def render_edit_prompt(ctx: EditContext, instruction: str) -> Prompt:
    tag = _fence_tag(ctx.language_id)
    parts = [f"File: {ctx.path}"]
    if ctx.imports:
        parts.append("Imports:\n" + _fence("\n".join(ctx.imports), tag))
    definitions = [s for s in ctx.snippets if s.kind in DEFINITION_KINDS]
    if definitions:
        parts.append("Definitions the region uses:\n\n" + "\n\n".join(_by_file(definitions, tag)))
    region = ctx.region_text
    if ctx.cursor is not None:
        region = region[: ctx.cursor] + CURSOR + region[ctx.cursor :]
    excerpt = [*ctx.headers, EXCERPT_PLACEHOLDER] if ctx.headers else []
    if ctx.before:
        excerpt.append(ctx.before.removesuffix("\n").removesuffix("\r"))
    excerpt += [REGION_START, region.removesuffix("\n").removesuffix("\r"), REGION_END]
    if ctx.after:
        excerpt.append(ctx.after.removesuffix("\n").removesuffix("\r"))
    parts.append(
        f"Excerpt (lines {ctx.region.start_line - len(ctx.before.splitlines()) + 1}-"
        f"{ctx.region.end_line + len(ctx.after.splitlines()) + 1}):\n"
        + _fence("\n".join(excerpt), tag)
    )
    if ctx.diagnostics:
        lines = []
        for d in ctx.diagnostics:
            origin = " ".join(x for x in (d.source, f"[{d.code}]" if d.code else None) if x)
            message = redact(d.message)[0]
            lines.append(f"- line {d.line + 1}: {message}" + (f" ({origin})" if origin else ""))
        parts.append("Diagnostics:\n" + "\n".join(lines))
    parts.append(f"Instruction: {instruction.strip()}")
    return Prompt(FAST_INSTRUCTIONS, "\n\n".join(parts))
