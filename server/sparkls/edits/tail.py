"""The rewrite tail: a model's reply for a region -> a checked, minimal, versioned edit.

Every feature that rewrites a region (the fast edit, a quick fix, a comment
instruction, a refine, a next edit) ends the same way, here:

1. `read_region`: the reply's new text of the region (edits/reply.py reads the fenced
   block and the shapes models give), with the region's broken characters put back;
2. `region_shift`: where the region is now, past what the user typed elsewhere while
   the model wrote (`StaleEdit` when the typing touched it, `DocumentClosed`);
3. `finish`: the new text checked to parse where the old one did, diffed into the
   smallest replacements, in LSP positions, stamped with the document version: an
   `EditOutcome`, applied by the LSP edge or offered;
4. `rebase_outcome`: an outcome computed against an older version moved onto the
   document as it is now (a speculative quick fix, a next edit).

No LSP types; every failure raises a `SparkError` before anything is applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sparkls.context.region import Region
from sparkls.documents.positions import Position
from sparkls.documents.store import Document, DocumentStore
from sparkls.documents.unicode import restore
from sparkls.edits.diff import Replacement, diff_replacements
from sparkls.edits.rebase import rebase_region
from sparkls.edits.reply import RegionView, new_region_text
from sparkls.edits.validate import check_region_parses
from sparkls.errors import DocumentClosed, NoUsableReply, StaleEdit
from sparkls.models.chain import Turn
from sparkls.models.session import Reply


@dataclass(frozen=True, slots=True)
class PositionedEdit:
    start: Position
    end: Position
    text: str


@dataclass(frozen=True, slots=True)
class EditOutcome:
    uri: str
    version: int
    edits: list[PositionedEdit]
    tier: str
    model: str
    transport: str
    attempts: int
    region_lines: tuple[int, int]  # 0-based inclusive
    timings_ms: dict[str, float]
    # For rebasing onto a later version (`rebase_outcome`): the region and the
    # replacements as code-point offsets of the text at `version`, and its length.
    region_offsets: tuple[int, int] = (0, 0)
    replacements: list[Replacement] = field(default_factory=list)
    text_length: int = 0
    warnings: list[str] = field(default_factory=list)  # e.g. "possible invented API: foo.bar()"
    escalation: str | None = None  # why the deep tier served this edit, when it did
    turn: Turn | None = None  # the exchange that produced it, for a refine (refine/)


def read_region(reply_text: str, view: RegionView, path: str, *, may_delete: bool = False) -> str:
    """The region's new text in `reply_text`, read as every edit reads it; `may_delete`:
    an empty answer deletes the region's lines (an edit the user asked for)."""
    return with_surrogates(view.old, new_region_text(reply_text, view, may_delete=may_delete), path)


def rewrite(
    doc: Document, start: int, old: str, new: str, *, kind: str = "definition", check: bool = True,
) -> tuple[Region, list[Replacement], list[PositionedEdit]]:
    """`old` at `start` of `doc` becoming `new`: the region, checked to parse (when
    `check`), and the smallest replacements, as offsets and as LSP positions."""
    end = start + len(old)
    region = Region(*doc.lines.span(start, end), start, end, kind)
    if check:
        check_region_parses(doc, region, new)
    replacements = [Replacement(start + r.start, start + r.end, r.text) for r in diff_replacements(old, new)]
    return region, replacements, [PositionedEdit(doc.position(r.start), doc.position(r.end), r.text) for r in replacements]


def finish(
    doc: Document, start: int, old: str, new: str, *, reply: Reply, tier: str, model: str,
    timings_ms: dict[str, float], kind: str = "definition", check: bool = True,
    warnings: list[str] | None = None, escalation: str | None = None, turn: Turn | None = None,
) -> EditOutcome:
    """`old` (at `start` of `doc` as it is now) becoming `new`: checked to parse (when
    `check`), as the smallest replacements, an outcome of the document's version."""
    end = start + len(old)
    region, replacements, edits = rewrite(doc, start, old, new, kind=kind, check=check)
    return EditOutcome(
        uri=doc.uri,
        version=doc.version,
        edits=edits,
        tier=tier,
        model=model,
        transport=reply.transport,
        attempts=reply.attempts,
        region_lines=(region.start_line, region.end_line),
        timings_ms=timings_ms,
        region_offsets=(start, end),
        replacements=replacements,
        text_length=len(doc.text),
        warnings=warnings or [],
        escalation=escalation,
        turn=turn,
    )


def edit_timings(reply: Reply, started: float, context_done: float, replied: float, finished: float) -> dict[str, float]:
    """An edit's timings in ms (the summary's `timings_ms`), from `perf_counter` marks."""
    return {
        "context": (context_done - started) * 1000,
        "wait": reply.wait_ms,  # for a socket, a lane or a connection, before the request left
        "ttft": reply.ttft_ms,
        "stream": reply.stream_ms,
        "model": (replied - context_done) * 1000,
        "edit": (finished - replied) * 1000,
        "total": (finished - started) * 1000,
    }


def with_surrogates(old_region: str, new_region: str, path: str) -> str:
    """The new region with the old one's lone surrogates back (the model saw U+FFFD:
    documents/unicode.py); refused when they cannot all be put back exactly."""
    restored = restore(old_region, new_region)
    if restored is None:
        raise NoUsableReply(
            f"The region of {path} holds a broken character (half of a UTF-16 pair, such as half an emoji) "
            "and the model's rewrite does not keep it in place; nothing was changed. Fix that character "
            "and run the edit again."
        )
    return restored


def region_shift(
    store: DocumentStore, doc: Document, version: int, text_length: int, start: int, end: int,
    *, path: str, what: str, touched: str,
) -> int:
    """How far text[start:end] of `doc` as it was at `version` (`text_length` long) has
    moved since, past what the user typed elsewhere while the model wrote the `what`
    ("edit", "refine"): `DocumentClosed` if the document is gone, `StaleEdit` (with
    the message `touched`) if the typing touched the region."""
    if not store.is_open(doc.uri, doc):
        raise DocumentClosed(f"{path} was closed while the {what} was being written; nothing was changed.")
    if doc.version == version:
        return 0
    changes = doc.changes_since(version)
    if changes is None:
        raise StaleEdit(f"{path} changed too much while the {what} was being written; nothing was changed.")
    try:
        return rebase_region(text_length, start, end, changes)
    except StaleEdit:
        raise StaleEdit(touched) from None


def rebase_outcome(store: DocumentStore, outcome: EditOutcome) -> EditOutcome:
    """`outcome`, computed against an older version, moved onto the document as it is
    now (an edit computed ahead, say); `StaleEdit` when the user changed its region,
    `DocumentClosed` when the document is gone."""
    doc = store.get(outcome.uri)
    if doc.version == outcome.version:
        return outcome
    changes = doc.changes_since(outcome.version)
    if changes is None:
        raise StaleEdit()
    start, end = outcome.region_offsets
    shift = rebase_region(outcome.text_length, start, end, changes)
    replacements = [Replacement(r.start + shift, r.end + shift, r.text) for r in outcome.replacements]
    first_line = doc.position(start + shift).line
    return replace(
        outcome,
        version=doc.version,
        edits=[PositionedEdit(doc.position(r.start), doc.position(r.end), r.text) for r in replacements],
        region_lines=(first_line, first_line + outcome.region_lines[1] - outcome.region_lines[0]),
        region_offsets=(start + shift, end + shift),
        replacements=replacements,
        text_length=len(doc.text),
    )
