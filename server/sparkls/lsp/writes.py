"""The last check before an edit reaches the editor: which files it writes.

Every WorkspaceEdit sparkls sends (`workspace/applyEdit`) or returns (a code action's
resolved `edit`) passes `checked_edit` first. Each file it touches gets its verdict
from guard/protected.py, by the name the edit gives and by the real file a link leads
to:

- a file in a git directory: the edit is refused whole (`EditRejected`, naming the
  file and why); nothing is written;
- a protected file (one that makes a tool run code, or sparkls's own settings): the
  edit goes out only after the user said yes to it by name. An editor that supports
  change annotations gets that file's changes under an annotation with
  `needsConfirmation` (VS Code shows them for review, unticked, before anything is
  written); any other editor is asked with `window/showMessageRequest`, and only
  "Apply" sends the edit: "Don't apply", a dismissal, no answer within
  `trust.ask_timeout` seconds or an editor that cannot ask all refuse it whole.

The server never writes a file itself: the editor does, so a created file gets the
editor's ordinary mode (never an executable bit from sparkls).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from sparkls.errors import EditRejected
from sparkls.guard.protected import Decision, Protection

if TYPE_CHECKING:
    from sparkls.lsp.server import SparkServer

logger = logging.getLogger(__name__)

APPLY = "Apply"
DONT_APPLY = "Don't apply"
ANNOTATION_PREFIX = "sparkls.protected:"


def touched_uris(edit: types.WorkspaceEdit) -> Iterator[str]:
    """Every URI `edit` writes, creates, renames or deletes, in order, each once."""
    seen: set[str] = set()
    uris: list[str] = list(edit.changes or {})
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            uris.append(change.text_document.uri)
        elif isinstance(change, types.RenameFile):
            uris += [change.old_uri, change.new_uri]
        else:
            uris.append(change.uri)
    for uri in uris:
        if uri not in seen:
            seen.add(uri)
            yield uri


def decisions(ls: SparkServer, edit: types.WorkspaceEdit) -> dict[str, Decision]:
    """The verdict on each file `edit` touches (a buffer that is not a file is free)."""
    protection = Protection(ls.folders(), ls.settings.trust.protect)
    found = {}
    for uri in touched_uris(edit):
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if path:
            found[uri] = protection.verdict(path)
    return found


def writes_freely(ls: SparkServer, uri: str) -> bool:
    """Whether an edit of `uri` may be offered ready-made (a code action carrying its
    edit, ghost text): not for a protected file or one in a git directory, where the
    user must first be asked (`checked_edit`)."""
    edit = types.WorkspaceEdit(changes={uri: []})
    return all(d.verdict == "free" for d in decisions(ls, edit).values())


async def checked_edit(ls: SparkServer, edit: types.WorkspaceEdit, *, what: str = "the edit") -> types.WorkspaceEdit:
    """`edit` as it may go to the editor (see the module doc), or EditRejected."""
    found = decisions(ls, edit)
    for decision in found.values():
        if decision.verdict == "never":
            raise EditRejected(f"{_capital(what)} was not applied: {decision.message()}; nothing was changed.")
    asked = {uri: d for uri, d in found.items() if d.verdict == "ask"}
    if not asked:
        return edit
    if edit.document_changes is not None and _annotations(ls):
        return _annotated(edit, asked)
    names = ", ".join(d.shown for d in asked.values())
    if not await _user_says_yes(ls, asked, what):
        raise EditRejected(f"{_capital(what)} was not applied: you did not allow it to change {names}; nothing was changed.")
    logger.info("the user allowed %s to change %s", what, names)
    return edit


def _capital(what: str) -> str:
    return what[:1].upper() + what[1:]


def _annotations(ls: SparkServer) -> bool:
    workspace = ls.client_capabilities.workspace
    support = workspace.workspace_edit if workspace else None
    return bool(support and support.change_annotation_support is not None)


def _annotated(edit: types.WorkspaceEdit, asked: dict[str, Decision]) -> types.WorkspaceEdit:
    """`edit` with every change to a protected file under an annotation of its own that
    needs the user's confirmation, naming the file and why."""
    annotations = dict(edit.change_annotations or {})
    ids = {}
    for uri, decision in asked.items():
        ids[uri] = ANNOTATION_PREFIX + decision.shown
        annotations[ids[uri]] = types.ChangeAnnotation(
            label=f"{decision.shown} (protected)", needs_confirmation=True,
            description=f"{decision.shown} {decision.why}. Applied only if you tick it.",
        )
    changes: list[types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile] = []
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit) and change.text_document.uri in ids:
            annotation = ids[change.text_document.uri]
            edits = [types.AnnotatedTextEdit(range=e.range, new_text=e.new_text, annotation_id=annotation) for e in change.edits]
            change = types.TextDocumentEdit(text_document=change.text_document, edits=edits)
        elif isinstance(change, (types.CreateFile, types.DeleteFile)) and change.uri in ids:
            change.annotation_id = ids[change.uri]
        elif isinstance(change, types.RenameFile) and (change.new_uri in ids or change.old_uri in ids):
            change.annotation_id = ids.get(change.new_uri) or ids[change.old_uri]
        changes.append(change)
    return types.WorkspaceEdit(document_changes=changes, change_annotations=annotations)


async def _user_says_yes(ls: SparkServer, asked: dict[str, Decision], what: str) -> bool:
    """Ask once, naming each protected file and why; True only for "Apply"."""
    names = ", ".join(d.shown for d in asked.values())
    reasons = "; ".join(d.message() for d in asked.values())
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=f"Spark: {what} would change {names}. {_capital(reasons)}. Apply it?",
        actions=[types.MessageActionItem(title=APPLY), types.MessageActionItem(title=DONT_APPLY)],
    )
    request = asyncio.ensure_future(ls.window_show_message_request_async(params))
    try:
        # Shielded: on a timeout the editor's late answer still finds a live request.
        choice = await asyncio.wait_for(asyncio.shield(request), ls.settings.trust.ask_timeout)
    except TimeoutError:
        logger.info("no answer to %r within %g s: not applied", params.message, ls.settings.trust.ask_timeout)
        return False
    except Exception as exc:  # an editor that cannot ask: no yes was given
        logger.info("could not ask the user (%s): not applied", exc)
        return False
    return choice is not None and choice.title == APPLY
