""""Spark: Explain" at the LSP edge (`FEATURE`): a code action on a selection, and
`sparkls.explain {"uri", "range"}` for keymaps and clients that cannot resolve one.

The fast tier's answer (explain/service.py) is shown, not applied: as Markdown in a
private file (`explain.md`, 0600 in this server's own 0700 folder) that the editor
opens with `window/showDocument`, or, in an editor without it, as a message. A
client that resolves code actions gets it when the action is resolved (the action
comes back without an edit); any other runs the command. The command returns
`{"explained": true, "path", "markdown", "model", "timings_ms"}`; a failure is a
message and `{"applied": false, "error": {...}}`, as every command's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sparkls.documents.positions import Position
from sparkls.documents.store import Document
from sparkls.errors import EditError
from sparkls.lsp.edge import Edge, range_json
from sparkls.lsp.feature import Command, Contribution, Feature, Shown

if TYPE_CHECKING:
    from sparkls.explain.service import Explanation

EXPLAIN_COMMAND = "sparkls.explain"
EXPLAIN_KIND = "refactor.sparkls.explain"
EXPLAIN_DATA = "explain"  # the `spark` field of the action's data
TITLE = "Spark: Explain"


def _menu(edge: Edge, doc: Document, params: types.CodeActionParams) -> list[types.CodeAction]:
    """"Spark: Explain" on a selection, in every client."""
    if params.range.start == params.range.end:
        return []
    args = {"spark": EXPLAIN_DATA, "uri": doc.uri, "range": range_json(params.range)}
    return [edge.action(TITLE, EXPLAIN_KIND, args, None, command=EXPLAIN_COMMAND)]


def _position(value: Any) -> Position:
    if not isinstance(value, dict) or not all(type(value.get(k)) is int and value[k] >= 0 for k in ("line", "character")):
        raise EditError(f'{EXPLAIN_COMMAND} takes one argument {{"uri", "range"}}; the range is not one.')
    return Position(value["line"], value["character"])


async def _explained(edge: Edge, args: Any) -> Explanation:
    from sparkls.explain.service import explain

    if not isinstance(args, dict) or not isinstance(args.get("uri"), str) or not isinstance(args.get("range"), dict):
        raise EditError(f'{EXPLAIN_COMMAND} takes one argument {{"uri", "range"}}.')
    uri = args["uri"]
    env = await edge.environment(uri)
    doc = env.document(uri)
    start, end = (doc.offset(_position(args["range"].get(k))) for k in ("start", "end"))
    return await explain(env, uri, start, end)


def _shown(explanation: Explanation) -> Shown:
    return Shown("explain.md", explanation.document(), f"{explanation.title}: {explanation.markdown}")


async def _resolve(edge: Edge, data: dict[str, Any]) -> Shown:
    return _shown(await _explained(edge, data))


async def explain_command(edge: Edge, *args: Any) -> dict[str, Any]:
    """`sparkls.explain`: explain and show; the answer is in the result too."""
    try:
        if len(args) != 1:
            raise EditError(f'{EXPLAIN_COMMAND} takes one argument {{"uri", "range"}}, got {len(args)}.')
        explanation = await edge.with_progress("Spark explain", _explained(edge, args[0]))
        path = await edge.show(_shown(explanation))
        timings = {k: round(v, 3) for k, v in explanation.timings_ms.items()}
        return {"explained": True, "path": str(path) if path else None, "markdown": explanation.markdown,
                "model": explanation.model, "timings_ms": timings}
    except Exception as exc:  # every failure becomes a message; the server stays up
        return edge.failure(exc)


FEATURE = Feature(
    "explain",
    commands=(Command(EXPLAIN_COMMAND, explain_command),),
    actions=(Contribution((EXPLAIN_KIND,), _menu, rank=60, tag=EXPLAIN_DATA, resolve=_resolve, title="Spark explain"),),
    preload=("sparkls.explain.service",),
)
