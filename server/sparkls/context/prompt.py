"""The fast-tier prompt, in the model protocol (docs/model-protocol.md), as a draft.

Stable parts come first so the provider's prompt cache hits: the instructions (the
same for every request), then the file (path, imports, enclosing headers); the
variable part, the marked region and the instruction, comes last.

`render_edit_prompt` makes a `Draft` of typed parts (guard/parts.py): the region is
a file part to be rewritten, the snippets file parts of their files, the diagnostics
the editor's words, the instruction the user's. `prepare_edit` is the one way from a
document and a range to what the fast tier is sent: context, draft, and the guard's
seal. Pure but for the guard's path checks.
"""

from __future__ import annotations

from sparkls.config import Settings
from sparkls.context.builder import DiagnosticInfo, EditContext, build_edit_context
from sparkls.context.lookup import Lookup
from sparkls.context.snippet import DEFINITION_KINDS, Snippet
from sparkls.documents.languages import grammar_record
from sparkls.documents.store import Document
from sparkls.guard import Draft, FromEditor, FromFile, FromUser, Guard, Section, Wire, fenced, joined
from sparkls.guard.parts import Part

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


EXCERPT_PLACEHOLDER = "    ..."  # the excerpt's line between the class headers and the region


def fence_tag(language_id: str) -> str:
    """The code fence's language tag: the grammar's name (`tsx` for typescriptreact)."""
    record = grammar_record(language_id)
    return record.name if record is not None else language_id


def _lines(snippet: Snippet) -> str:
    first, last = snippet.start_line + 1, snippet.end_line + 1
    return f"{first}" if first == last else f"{first}-{last}"


def _snippet(ctx: EditContext, snippet: Snippet) -> FromFile:
    """A snippet as a file part: this document's buffer, or a file read from disk."""
    uri = ctx.uri if snippet.path == ctx.path else None
    return FromFile(snippet.text, snippet.path, uri, (snippet.start_line, snippet.end_line))


def _by_file(ctx: EditContext, snippets: list[Snippet], tag: str) -> list[Section]:
    """One fenced block per file (snippets come in file order): its path and the
    line ranges shown, then the pieces separated by a `⋮` line. Another file's block
    is optional: left out if that file may not be sent."""
    files: dict[str, list[Snippet]] = {}
    for snippet in snippets:
        files.setdefault(snippet.path, []).append(snippet)
    return [
        Section.of(
            f"{path} (lines {', '.join(_lines(s) for s in pieces)}):\n",
            *fenced(joined((_snippet(ctx, s) for s in pieces), f"\n{PIECE_SEPARATOR}\n"), tag),
            optional=path != ctx.path,
        )
        for path, pieces in files.items()
    ]


def _strip_break(text: str) -> str:
    return text.removesuffix("\n").removesuffix("\r")


def _excerpt(ctx: EditContext) -> list[Part | str]:
    """The headers, the lines before, the marked region (with the cursor), the lines after."""
    mine = (ctx.path, ctx.uri)
    shown: list[Part | str] = [_snippet(ctx, h) for h in ctx.snippets if h.kind == "container"]
    if shown:
        shown.append(EXCERPT_PLACEHOLDER)
    if ctx.before:
        shown.append(FromFile(_strip_break(ctx.before), *mine))
    region = _strip_break(ctx.region_text)
    if ctx.cursor is not None and ctx.cursor > len(region):
        region = ctx.region_text  # the cursor after the last line break: it stays before the marker
    marks = ((ctx.cursor, CURSOR),) if ctx.cursor is not None else ()
    lines = (ctx.region.start_line, ctx.region.end_line)
    shown += [REGION_START, FromFile(region, *mine, lines, rewrite=True, marks=marks), REGION_END]
    if ctx.after:
        shown.append(FromFile(_strip_break(ctx.after), *mine))
    return shown


def render_edit_prompt(ctx: EditContext, instruction: str) -> Draft:
    """The fast tier's draft for `ctx` and the user's `instruction`."""
    tag = fence_tag(ctx.language_id)
    sections = [Section.of(f"File: {ctx.path}")]
    imports = [s for s in ctx.snippets if s.kind == "import"]
    if imports:
        sections.append(Section.of("Imports:\n", *fenced(joined(_snippet(ctx, s) for s in imports), tag)))
    definitions = [s for s in ctx.snippets if s.kind in DEFINITION_KINDS]
    if definitions:
        sections.append(Section.of("Definitions the region uses:"))
        sections += _by_file(ctx, definitions, tag)
    first = ctx.region.start_line - len(ctx.before.splitlines()) + 1
    last = ctx.region.end_line + len(ctx.after.splitlines()) + 1
    sections.append(Section.of(f"Excerpt (lines {first}-{last}):\n", *fenced(joined(_excerpt(ctx)), tag)))
    if ctx.diagnostics:
        lines: list[Part | str] = []
        for d in ctx.diagnostics:
            origin = " ".join(x for x in (d.source, f"[{d.code}]" if d.code else None) if x)
            lines += [f"- line {d.line + 1}: ", FromEditor(d.message)] + ([" (", FromEditor(origin), ")"] if origin else [])
            lines.append("\n")
        sections.append(Section.of("Diagnostics:\n", *lines[:-1]))
    sections.append(Section.of("Instruction: ", FromUser(instruction.strip())))
    return Draft(FAST_INSTRUCTIONS, tuple(sections))


def prepare_context(
    doc: Document, start: int, end: int, *, path: str, settings: Settings,
    diagnostics: list[DiagnosticInfo] | None = None, lookup: Lookup | None = None,
) -> EditContext:
    """The context for an edit of `start`..`end`, refused at once (`RegionTooLong`)
    when its lines weigh more than the fast tier is sent (`region.MAX_REGION_CHARS`)."""
    return build_edit_context(
        doc, start, end, path=path, max_region_lines=settings.context.max_region_lines,
        budget_tokens=settings.context.budget_tokens, diagnostics=diagnostics, lookup=lookup,
    )


def prepare_draft(
    doc: Document, start: int, end: int, *, path: str, settings: Settings, instruction: str,
    diagnostics: list[DiagnosticInfo] | None = None, lookup: Lookup | None = None,
) -> tuple[EditContext, Draft]:
    """The context and draft for an edit of `start`..`end`: what the model would get."""
    ctx = prepare_context(doc, start, end, path=path, settings=settings, diagnostics=diagnostics, lookup=lookup)
    return ctx, render_edit_prompt(ctx, instruction)


async def prepare_edit(
    doc: Document, start: int, end: int, *, guard: Guard, settings: Settings, instruction: str,
    diagnostics: list[DiagnosticInfo] | None = None, lookup: Lookup | None = None,
) -> tuple[EditContext, Wire]:
    """The context and the sealed request for an edit of `start`..`end`, as every
    fast-tier feature, `sparkls.showContext` and `sparkls context` send or show it.
    The guard refuses a document that may not be sent, and a region holding a secret."""
    ctx, draft = prepare_draft(
        doc, start, end, path=guard.display_path(doc.uri), settings=settings, instruction=instruction,
        diagnostics=diagnostics, lookup=lookup,
    )
    return ctx, await guard.seal_async(draft)
