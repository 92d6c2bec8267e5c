"""Follow-ups in other files, in LSP terms (the work is nextedit/followups.py).

- After a document's edits settle (the next-edit question, `lsp/handlers/nextedit.py`),
  `look` finds the other files that follow a renamed or re-signatured definition and
  keeps them for the document's version (no model call); with
  `next_edit.other_files = "ahead"` the fast tier is asked at once.
- While they are there, the document's code actions include one `refactor.rewrite`
  action, "Spark: update 7 call sites in 3 files", that runs `sparkls.followUps
  {"uri"}`: the fast tier is asked per file in parallel (under a cancellable
  progress), and the answers go out as one `workspace/applyEdit`
  (`handlers/multifile.py`): versioned `documentChanges` (change annotations per
  file where the editor has them), or plain `changes`, and only when no file moved
  since it was read. The result: `{"applied", "files", "model_calls", ...}`; any
  failure is a message and `applied: false`, with nothing changed.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from sparkls.documents.store import Document
from sparkls.errors import EditError, SparkError
from sparkls.lsp.handlers.actions import Contribution, command_action, contribute
from sparkls.lsp.server import SparkServer

if TYPE_CHECKING:
    from sparkls.nextedit.followups import Answered, FollowUps
    from sparkls.nextedit.history import Edit
    from sparkls.request.environment import RequestEnv

logger = logging.getLogger(__name__)

FOLLOW_UPS_COMMAND = "sparkls.followUps"
REWRITE = types.CodeActionKind.RefactorRewrite


async def look(ls: SparkServer, env: RequestEnv, doc: Document, edits: list[Edit]) -> None:
    """Find and keep `doc`'s follow-ups in other files (and ask ahead, by setting)."""
    from sparkls.nextedit.followups import ask, look as find

    mode = ls.settings.next_edit.other_files
    if mode == "off":
        return
    book = ls.follow_ups
    version = doc.version
    try:
        found = await find(env, doc, edits, previous=book.latest(doc.uri))
    except (SparkError, OSError) as exc:
        logger.info("follow-ups in other files not looked for: %s", exc)
        return
    except Exception:  # never in the way of the next-edit question it comes with
        logger.warning("follow-ups in other files failed", exc_info=True)
        return
    if doc.version != version or not ls.documents.is_open(doc.uri, doc):
        return  # typed on meanwhile: the next question looks again
    if found is not None and mode == "ahead":
        previous = book.latest(doc.uri)
        if previous is not None and previous.ahead is not None and previous.files == found.files:
            found.ahead, previous.ahead = previous.ahead, None  # the same question: not asked twice
        else:
            found.ahead = asyncio.ensure_future(ask(env, found))
            found.ahead.add_done_callback(_quiet)
    book.put(doc.uri, found)


def _quiet(task: asyncio.Task[Any]) -> None:
    """An answer asked ahead that nobody takes: its failure is told when picked, if ever."""
    if not task.cancelled() and task.exception() is not None:
        logger.info("follow-ups asked ahead failed: %s", task.exception())


def code_actions(ls: SparkServer, doc: Document) -> list[types.CodeAction]:
    follow_ups = ls.follow_ups.get(doc.uri, doc.version)
    if follow_ups is None or not ls.documents.is_open(doc.uri, doc):
        return []
    return [command_action(follow_ups.title, REWRITE, FOLLOW_UPS_COMMAND, {"uri": doc.uri})]


def _tell(ls: SparkServer, follow_ups: FollowUps, answered: Answered) -> None:
    files = answered.edit.files
    where = ", ".join(f.path for f in files)
    ls.notify_user(
        f"updated {answered.rewritten} of {follow_ups.sites} places in {len(files)} "
        f"file{'s' if len(files) != 1 else ''} ({where}); {answered.calls} fast-tier "
        f"question{'s' if answered.calls != 1 else ''}, {answered.seconds:.1f} s.",
        types.MessageType.Info,
    )


def register(server: SparkServer) -> None:
    contribute(server, Contribution((REWRITE,), lambda ls, doc, _params: code_actions(ls, doc), rank=41))

    @server.command(FOLLOW_UPS_COMMAND)
    async def follow_ups(ls: SparkServer, *args: Any) -> dict[str, Any]:
        from sparkls.lsp.handlers.commands import failure
        from sparkls.lsp.handlers.multifile import send_multi_file_edit
        from sparkls.lsp.handlers.args import uri_argument
        from sparkls.lsp.handlers.progress import with_progress
        from sparkls.nextedit.followups import ask

        try:
            uri = uri_argument(FOLLOW_UPS_COMMAND, args)
            doc = ls.documents.get(uri)
            found = ls.follow_ups.get(uri, doc.version)
            if found is None:
                raise EditError(
                    "No follow-ups in other files are on offer for this document (they are looked for "
                    "after a definition is renamed or its parameters change); nothing was changed."
                )
            env = await ls.environment(uri)
            work = found.ahead if found.ahead is not None and not found.ahead.cancelled() else ask(env, found)
            answered = await with_progress(ls, found.title, work)
            if not answered.edit.operations:
                ls.notify_user("the fast tier saw nothing to change in the other files.", types.MessageType.Info)
                return {"applied": False, **answered.to_json()}
            await send_multi_file_edit(
                ls, answered.edit, found.title.removeprefix("Spark: ").capitalize(), what="the follow-up edit",
                during="while the follow-ups were asked for", again="pick the action again",
            )
            ls.follow_ups.forget(uri)
            _tell(ls, found, answered)
            return {"applied": True, **answered.to_json()}
        except Exception as exc:  # every failure becomes a message; the server stays up
            return failure(ls, exc)
