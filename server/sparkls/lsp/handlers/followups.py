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
    from sparkls.nextedit.followups import Answered, FileSites, FollowUps
    from sparkls.nextedit.history import Edit
    from sparkls.request.environment import RequestEnv

logger = logging.getLogger(__name__)

FOLLOW_UPS_COMMAND = "sparkls.followUps"
MAX_OPEN_DOCUMENTS = 3  # other open documents asked for their next edit at once
REWRITE = types.CodeActionKind.RefactorRewrite


async def look(ls: SparkServer, env: RequestEnv, doc: Document, edits: list[Edit]) -> None:
    """Find and keep `doc`'s follow-ups in other files (and ask ahead, by setting)."""
    from sparkls.nextedit.followups import look as find

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
    followers = book.keep(doc.uri, found, ahead=(lambda f: _ask_ahead(ls, env, f)) if mode == "ahead" else None)
    if found is not None:
        await _suggest_in_open_documents(ls, env, found, followers)


def _ask_ahead(ls: SparkServer, env: RequestEnv, found: FollowUps) -> asyncio.Task[Answered]:
    from sparkls.nextedit.followups import ask

    async def held() -> Answered:
        ls.leases.hold(env.fast, env.deep)  # outlives the request that found them: a session of its own
        return await ask(env, found)

    task = asyncio.ensure_future(held())
    task.add_done_callback(_quiet)
    return task


async def _suggest_in_open_documents(ls: SparkServer, env: RequestEnv, found: FollowUps, followers: list[FileSites]) -> None:
    """Each other open document that follows gets its next edit, as the edited one does
    (at most `MAX_OPEN_DOCUMENTS`)."""
    from sparkls.nextedit.ask import ask_follow_up, prepare_follow_up

    settings = ls.settings.next_edit
    for file in followers[:MAX_OPEN_DOCUMENTS]:
        if not ls.documents.has(file.uri) or ls.documents.get(file.uri).version != file.version:
            continue
        other = ls.documents.get(file.uri)
        try:
            question = await prepare_follow_up(
                env, other, (found.path, found.uri), list(found.diffs), list(file.sites), limit=settings.max_candidates
            )
        except SparkError as exc:  # not to be sent (the guard): that document gets no suggestion
            logger.info("no next edit in %s: %s", file.path, exc)
            continue
        if question is None or not ls.documents.is_open(file.uri, other) or other.version != question.version:
            continue  # nothing to ask, or typed on while the question was sealed: its own typing asks anew

        async def ask_it(asking, other=other, question=question):
            ls.leases.hold(env.fast, env.deep)  # asked later, on this request's sessions
            ls.next_edits.asked_model()
            return await ask_follow_up(env, other, question, asking)

        ls.next_edits.schedule_elsewhere(other, ask_it, ttl=settings.ttl_seconds, diffs="\n".join(found.diffs))


def _quiet(task: asyncio.Task[Any]) -> None:
    """An answer asked ahead that nobody takes: its failure is told when picked, if ever."""
    if not task.cancelled() and task.exception() is not None:
        logger.info("follow-ups asked ahead failed: %s", task.exception())


def _moved_on(ls: SparkServer, found: FollowUps) -> bool:
    """Whether an open document the follow-ups read has changed since."""
    return any(
        f.version is not None and f.uri != found.uri
        and (not ls.documents.has(f.uri) or ls.documents.get(f.uri).version != f.version)
        for f in found.files
    )


async def _look_again(ls: SparkServer, env: RequestEnv, doc: Document) -> FollowUps:
    """The document's follow-ups searched anew (EditError when none are left)."""
    from sparkls.nextedit.followups import look as find

    history = ls.next_edits.histories.get(doc.uri)
    found = await find(env, doc, list(history.edits)) if history is not None and history.edits else None
    ls.follow_ups.put(doc.uri, found)
    if found is None:
        raise EditError("The other files need no more follow-ups (they were updated meanwhile); nothing was changed.")
    return found


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
            if _moved_on(ls, found):  # an open document was edited since (its next edit taken, say)
                found = await _look_again(ls, env, doc)
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
            if found.more:  # the files left for the next pick
                try:
                    await _look_again(ls, env, doc)
                except SparkError:
                    pass
            return {"applied": True, **answered.to_json()}
        except Exception as exc:  # every failure becomes a message; the server stays up
            return failure(ls, exc)
