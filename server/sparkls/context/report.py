"""What the fast tier would get, as a report a person (or a test) can read.

`context_report` is the report: the region, each snippet with its workspace-relative
path and 1-based inclusive lines, and the prompt's estimated tokens; `context_result`
adds the prompt itself, the JSON of `sparkls context --json` and of the
`sparkls.showContext` command alike. Pure.
"""

from __future__ import annotations

from typing import Any

from sparkls.context.builder import EditContext
from sparkls.guard import Wire
from sparkls.context.tokens import estimate_tokens


def context_report(ctx: EditContext, prompt: Wire) -> dict[str, Any]:
    snippets = [
        {"path": s.path, "start_line": s.start_line + 1, "end_line": s.end_line + 1, "kind": s.kind}
        for s in ctx.snippets
    ]
    snippets += [
        {"path": ctx.path, "start_line": d.line + 1, "end_line": d.line + 1, "kind": "diagnostic"}
        for d in ctx.diagnostics
    ]
    return {
        "region": {"path": ctx.path, "start_line": ctx.region.start_line + 1, "end_line": ctx.region.end_line + 1},
        "snippets": snippets,
        "tokens": estimate_tokens(prompt.instructions) + estimate_tokens(prompt.input),
    }


def context_result(ctx: EditContext, prompt: Wire) -> dict[str, Any]:
    """The report and the prompt, as `sparkls.showContext` returns them."""
    return {**context_report(ctx, prompt), "prompt": {"instructions": prompt.instructions, "input": prompt.input}}


def render_report(report: dict[str, Any], prompt: Wire) -> str:
    """The report as text: a summary line, then exactly what would be sent."""
    region = report["region"]
    summary = (
        f"{region['path']} lines {region['start_line']}-{region['end_line']}: "
        f"{len(report['snippets'])} snippet(s), about {report['tokens']} tokens"
    )
    rule = "-" * min(len(summary), 78)
    return f"{summary}\n{rule}\n[instructions]\n{prompt.instructions}\n\n[input]\n{prompt.input}\n"
