"""Explain the selected code: ask the fast tier, keep its Markdown answer. No LSP types.

`explain(env, uri, start, end)` sends the selection (whole lines; the enclosing
function or block when nothing is selected) with what an edit there would send
around it: the file's imports and the definitions the code uses, from this file and,
through the index, from others (`context/prompt.prepare_context`). It is a `Draft`
of typed parts, sealed by the guard (`await env.seal`): the selection is a file part the model reads,
not one it rewrites, so a secret in it is redacted rather than refusing the request;
another file's definitions are left out when that file may not be sent. The answer
is the reply's text as it comes (`Explanation`), not read as an edit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sparkls.context.builder import EditContext
from sparkls.context.prompt import PIECE_SEPARATOR, fence_tag, prepare_context
from sparkls.context.region import refuse_long_lines
from sparkls.context.snippet import DEFINITION_KINDS, Snippet
from sparkls.documents.store import Document
from sparkls.errors import EditError
from sparkls.guard import Draft, FromFile, Section, fenced, joined
from sparkls.request.environment import RequestEnv

# The first words are what the emulator knows an explanation request by (docs/emulator.md).
EXPLAIN_INSTRUCTIONS = """\
Explain the selected code to a programmer reading it: what it does and how, and anything \
surprising. Answer in Markdown: one sentence first, then a few short bullets; name the \
definitions it relies on. Do not rewrite the code."""


@dataclass(frozen=True, slots=True)
class Explanation:
    uri: str
    path: str
    lines: tuple[int, int]  # the 0-based first and last line explained
    markdown: str  # the model's answer
    model: str
    timings_ms: dict[str, float]

    @property
    def title(self) -> str:
        first, last = self.lines
        return f"{self.path}, line {first + 1}" if first == last else f"{self.path}, lines {first + 1}-{last + 1}"

    def document(self) -> str:
        """The answer as a document of its own: what it explains, then the answer."""
        return f"# {self.title}\n\n{self.markdown}\n"


def selected_lines(doc: Document, start: int, end: int, ctx: EditContext) -> tuple[int, int]:
    """The whole lines `start`..`end` touch (a selection ending at a line's start leaves
    that line out); the context's region when nothing is selected."""
    if start == end:
        return ctx.region.start_line, ctx.region.end_line
    first = doc.lines.line_of(start)
    return first, max(first, doc.lines.line_of(end - 1))


def _part(ctx: EditContext, snippet: Snippet) -> FromFile:
    """A snippet as a file part: this document's buffer, or a file read from disk."""
    uri = ctx.uri if snippet.path == ctx.path else None
    return FromFile(snippet.text, snippet.path, uri, (snippet.start_line, snippet.end_line))


def explain_draft(ctx: EditContext, selection: FromFile) -> Draft:
    """The request: the file's path and imports, the definitions used (one block per
    file; another file's left out if it may not be sent), then the selected lines."""
    tag = fence_tag(ctx.language_id)
    sections = [Section.of(f"File: {ctx.path}")]
    imports = [_part(ctx, s) for s in ctx.snippets if s.kind == "import"]
    if imports:
        sections.append(Section.of("Imports:\n", *fenced(joined(imports), tag)))
    files: dict[str, list[Snippet]] = {}
    for snippet in ctx.snippets:
        if snippet.kind in DEFINITION_KINDS:
            files.setdefault(snippet.path, []).append(snippet)
    if files:
        sections.append(Section.of("Definitions the code uses:"))
    for path, pieces in files.items():
        body = joined((_part(ctx, s) for s in pieces), f"\n{PIECE_SEPARATOR}\n")
        sections.append(Section.of(f"{path}:\n", *fenced(body, tag), optional=path != ctx.path))
    assert selection.lines is not None
    first, last = selection.lines
    sections.append(Section.of(f"Selected code (lines {first + 1}-{last + 1}):\n", *fenced((selection,), tag)))
    return Draft(EXPLAIN_INSTRUCTIONS, tuple(sections))


async def explain(env: RequestEnv, uri: str, start: int, end: int) -> Explanation:
    """The fast tier's explanation of `start`..`end` of the open document `uri`."""
    started = time.perf_counter()
    env.guard.check_document(uri)
    doc, path = env.document(uri), env.path(uri)
    start, end = sorted((start, end))
    ctx = prepare_context(doc, start, end, path=path, settings=env.settings, lookup=env.lookup)
    first, last = selected_lines(doc, start, end, ctx)
    lines = doc.lines
    stop = lines.start(last + 1) if last + 1 < lines.line_count else len(doc.text)
    refuse_long_lines(first, last, stop - lines.start(first), path)  # a minified line: refused unread
    text = doc.text[lines.start(first) : stop]
    selection = FromFile(text.removesuffix("\n").removesuffix("\r"), path, uri, (first, last))
    wire = await env.seal(explain_draft(ctx, selection))
    asked = time.perf_counter()
    reply = await env.fast.complete(wire, notify=env.notify)
    if not reply.text.strip():
        raise EditError(f"The fast tier gave no explanation of {path} lines {first + 1}-{last + 1}; nothing to show.")
    timings = {"context": (asked - started) * 1000, "model": reply.total_ms, "total": (time.perf_counter() - started) * 1000}
    return Explanation(uri, path, (first, last), reply.text.strip(), env.fast.tier.model, timings)
