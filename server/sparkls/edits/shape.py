"""Whether a fast edit is asked for as a patch or as the whole region: one decision per request. Pure.

What a user waits for, with a fast model on a warm socket, is the reply's length. A
whole-region reply costs the region, however small the change; a patch costs about the
same whatever the region's size: its envelope (``*** Begin Patch``, ``*** Update File:
<path>``, ``@@``, ``*** End Patch``, or the `apply_patch` tool call's path), the
unchanged lines it quotes to say where the change goes (three each side, as Codex
models write them) and the changed lines. So `choose_reply_shape` asks for a patch when
the region is longer than the smallest patch it expects: the envelope and
`PATCH_LINES` lines (three quoted above, three below, one removed, one added) as wide
as the region's own lines on average; otherwise for the whole region.

Measured on the real-edit corpus (bench/real_edits.py, figures in bench/README.md:
small edits from public projects' histories, each answered exactly in both shapes),
the characters this rule has streamed stay within a few percent of the smaller shape's
for nine edits in ten, where the whole region always is several times it.

What it deliberately does not use: the selection. A selection runs from the first
changed line to the last, over the unchanged lines between hunks, so an estimate of the
patch from it is too big exactly where patches pay most (two small changes far apart in
a long function); on the corpus it made the 90th percentile 2.4x the smaller shape.
Nor the instruction: what it will change is the model's to say.

A patch that cannot be applied is asked again once as the whole region (the request
path's business, not this module's).
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkls.documents.positions import split_lines

PATCH_LINES = 8  # 3 quoted lines above the change, 3 below, the line removed, the line added
ENVELOPE_CHARS = 50  # "*** Begin Patch", "*** Update File: ", "@@", "*** End Patch" and their breaks, less the path


@dataclass(frozen=True, slots=True)
class ReplyShape:
    """The decision for one request, and the two sizes it compared (in characters)."""

    patch: bool  # True: ask for a patch; False: ask for the whole region
    region_chars: int
    patch_chars: int  # the smallest patch expected: envelope + PATCH_LINES lines of mean width

    @property
    def why(self) -> str:
        if self.patch:
            return f"a patch (about {self.patch_chars} characters) is shorter than the region ({self.region_chars})"
        return f"the region ({self.region_chars} characters) is no longer than a patch (about {self.patch_chars})"


def choose_reply_shape(region: str, path: str) -> ReplyShape:
    """Ask for a patch of `region` (of the file shown as `path`) or for the whole region
    (see the module doc). A region with no code is always asked for whole: a patch could
    not say where its change goes."""
    lines = split_lines(region)
    code = [line for line in lines if line.strip()]
    width = (sum(len(line) + 1 for line in lines) / len(lines)) if lines else 0.0
    expected = ENVELOPE_CHARS + len(path) + round(PATCH_LINES * (width + 1))  # + 1: each patch line's op
    return ReplyShape(bool(code) and expected < len(region), len(region), expected)
