"""pygls's LSP protocol, changed where sparkls needs it.

This is the one module that reaches into pygls's internals; tests/unit/test_rpc_pygls.py
fails when one of them changes under it. What it changes:

- **Messages come in through `receive(body)`**: the gate (rpc.py) applies JSON-RPC 2.0
  and the LSP lifecycle first, so only a well-formed message with params of the right
  shape reaches pygls's `handle_message`. Everything else is answered with the error
  JSON-RPC names (-32700, -32600, -32601, -32602, -32002) or logged; none of it is a
  popup. `exit` closes the output and returns LSP's exit code to the reader.
- **No second copy of each open document**: sparkls keeps them in `DocumentStore`.
- **`$/cancelRequest` for commands** cancels the command's own task, not only the
  future pygls answers from.
- **No future kept after its handler ends**: pygls files every running handler's
  future in `_request_futures`, under the client's id for a request and under an id
  it makes up (a uuid) for a notification's handler and for each step of a generator
  handler (`workspace/executeCommand`, `didChange`, ...). Only a request's entry is
  ever removed, so a long session kept one or two futures per keystroke and command.
  Each entry now leaves when its future is done.
- **`shutdown` ends what is in flight first**: every request still being served and
  every request of ours still awaiting the editor is cancelled (the client's answered
  "cancelled", ours withdrawn with `$/cancelRequest`), the handlers' tasks are given
  `SHUTDOWN_GRACE` seconds to unwind, and only then do the sessions close and
  `shutdown` answer. pygls's own `lsp_shutdown` cancels them while iterating
  `_request_futures`, and cancelling a generator's or a sent request's future runs its
  callbacks at once, which remove entries from that dict: "dictionary changed size
  during iteration", an internal error for `shutdown`. We cancel from a copy.
- **A generator handler whose step was cancelled answers "cancelled"**: pygls passes
  the step's `CancelledError` on (it is not an `Exception`), and the request was never
  answered.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import uuid
from collections.abc import Generator
from concurrent.futures import Future
from functools import partial
from typing import Any

import cattrs
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage

from sparkls.lsp.rpc import INVALID_PARAMS, PARSE_ERROR, Answer, BadParams, Deliver, Drop, Gate

logger = logging.getLogger(__name__)

# Seconds `shutdown` waits for the cancelled handlers to unwind before it closes the
# sessions and answers; one that takes longer is left to the exit (stdio.py).
SHUTDOWN_GRACE = 2.0


def _user_handler_only(method: str) -> Any:
    @lsp_method(method)
    def handler(self: LanguageServerProtocol, params: Any) -> Any:
        if (user := self.fm.features.get(method)) is not None:
            yield user, (params,), None

    return handler


def _problems(exc: Exception) -> str:
    """cattrs' account of why a message did not fit its type, in a line or two."""
    problems = cattrs.transform_error(exc) if isinstance(exc, cattrs.BaseValidationError) else [repr(exc)]
    return "; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")


class SparkProtocol(LanguageServerProtocol):
    """pygls's protocol behind sparkls's gate, minus its document copies."""

    lsp_text_document__did_open = _user_handler_only(types.TEXT_DOCUMENT_DID_OPEN)
    lsp_text_document__did_change = _user_handler_only(types.TEXT_DOCUMENT_DID_CHANGE)
    lsp_text_document__did_close = _user_handler_only(types.TEXT_DOCUMENT_DID_CLOSE)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._inner: dict[int, Any] = {}  # id(result future) -> the handler's future
        self._sent: dict[Any, str] = {}  # our requests awaiting the client: id -> method
        self.gate = Gate(self._handles, self._structure, lambda i: (f := self._request_futures.get(i)) is not None and not f.done())

    def receive(self, body: bytes) -> int | None:
        """Handle one message body; the process's exit code once the client said `exit`."""
        verdict = self.gate.receive(body)
        if isinstance(verdict, Deliver):
            try:
                self.handle_message(verdict.message)
            except Exception:  # pygls's own bookkeeping (a late response, say): never the reader's end
                logger.exception("pygls could not handle a message")
        elif isinstance(verdict, Answer):
            logger.log(logging.WARNING if verdict.code == PARSE_ERROR else logging.INFO, "answered %s: %s", verdict.code, verdict.message)
            self._send_data(verdict.to_json())
        elif isinstance(verdict, Drop):
            logger.log(verdict.level, "%s", verdict.reason)
        else:
            if self.writer is not None and inspect.isawaitable(closed := self.writer.close()):
                closed.close()  # an async writer's close coroutine: the process is ending anyway
            return verdict.code
        return None

    def _handles(self, method: str) -> bool:
        fm = self.fm
        return method in fm.builtin_features or method in fm.features or method == types.CANCEL_REQUEST

    def _structure(self, message: dict[str, Any]) -> Any:
        """The lsprotocol object pygls's `structure_message` would make, for a whole message."""
        method = message.get("method")
        if method is None:
            return self._structure_response(message)
        is_request = "id" in message
        kind = self.get_message_type(method) or (JsonRPCRequestMessage if is_request else JsonRPCNotification)
        if "params" not in message:
            message = {**message, "params": None}
        try:
            structured = self._converter.structure(message, kind)
        except Exception as exc:
            raise BadParams(_problems(exc)) from exc
        if is_request and not hasattr(structured, "id"):
            raise BadParams(f"{method} is a notification: it takes no id")
        return structured

    def _structure_response(self, message: dict[str, Any]) -> Any:
        """A response to one of our requests; one that does not fit fails that request."""
        msg_id = message["id"]
        try:
            if "error" in message:
                return self._converter.structure(message, types.ResponseErrorMessage)
            kind = self._result_types.pop(msg_id, None) or JsonRPCResponseMessage
            return self._converter.structure(message, kind)
        except Exception as exc:
            problem = f"the client's response to request {msg_id!r} could not be read: {_problems(exc)}"
            logger.warning("%s", problem)
            return types.ResponseErrorMessage(id=msg_id, error=types.ResponseError(code=INVALID_PARAMS, message=problem))

    # Futures: pygls removes a request's entry from `_request_futures` when it answers
    # (`_send_handler_result`), and nothing else, though `_execute_handler` files the
    # future of every handler that does not finish at once. Every entry goes when its
    # future is done (after pygls's own callback, so an answer still finds its request).

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any, args: Any = None, kwargs: Any = None) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        if (future := self._request_futures.get(msg_id)) is not None:
            future.add_done_callback(partial(self._forget_future, msg_id))

    def _forget_future(self, msg_id: Any, future: Any) -> None:
        # A thread handler's callback runs in its worker: remove only this future's entry.
        if self._request_futures.get(msg_id) is future:
            self._request_futures.pop(msg_id, None)

    # $/cancelRequest for commands: pygls runs `workspace/executeCommand` as a generator
    # whose result future it cancels, but the command's own task keeps running. We
    # remember which task serves which request and cancel that too.
    # A step that ended cancelled (its task was cancelled: the request's own cancel, a
    # newer request, `shutdown`) cancels the request, which pygls answers "cancelled".

    def _run_generator(self, future: Any, *, gen: Any, result_future: Any) -> None:
        if future is not None and future.cancelled():
            gen.close()
            if not result_future.done():
                result_future.cancel()
            return
        before = set(self._request_futures)
        super()._run_generator(future, gen=gen, result_future=result_future)
        started = [f for key, f in self._request_futures.items() if key not in before]
        if started:
            self._inner[id(result_future)] = started[0]
            result_future.add_done_callback(lambda f: self._inner.pop(id(f), None))

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        outer = self._request_futures.get(msg_id)
        inner = self._inner.pop(id(outer), None) if outer is not None else None
        super()._handle_cancel_notification(msg_id)
        if inner is not None:
            inner.cancel()

    # Our own requests to the client, remembered until answered, so that `shutdown`
    # can withdraw them.

    def send_request(self, method: str, params: Any | None = None, callback: Any = None, msg_id: Any = None) -> Future[Any]:
        key = msg_id if msg_id is not None else str(uuid.uuid4())
        self._sent[key] = method
        future = super().send_request(method, params, callback, key)
        future.add_done_callback(lambda _: self._sent.pop(key, None))
        return future

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """Cancel everything in flight (from a copy: see the module doc), let it unwind,
        then the user's `shutdown` handler (which closes the sessions)."""
        current = self.msg_id
        in_flight = [(key, f) for key, f in list(self._request_futures.items()) if key != current and not f.done()]
        for key, future in in_flight:
            if key in self._sent:
                self.notify(types.CANCEL_REQUEST, types.CancelParams(id=key))
            future.cancel()
        tasks = [f for _, f in in_flight if isinstance(f, asyncio.Future)]
        if tasks:
            yield _unwound, (tasks,), None
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        self._shutdown = True


async def _unwound(tasks: list[asyncio.Future[Any]]) -> None:
    """Wait (a bounded while) for cancelled handler tasks to finish unwinding."""
    _, left = await asyncio.wait(tasks, timeout=SHUTDOWN_GRACE)
    if left:
        logger.warning("shutdown: %d cancelled request(s) still unwinding after %.0f s", len(left), SHUTDOWN_GRACE)
