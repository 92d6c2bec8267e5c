"""sparkls.lsp.protocol over pygls: what it relies on in pygls, checked so a pygls upgrade
that moves any of it fails here first (STYLE.md: "a test that fails when pygls changes
under it")."""

from __future__ import annotations

import asyncio
import json
from importlib.metadata import version

import pytest
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.exceptions import FeatureNotificationError, JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.protocol.json_rpc import JsonRPCProtocol

from sparkls.lsp.protocol import SparkProtocol
from sparkls.lsp import build_server

TESTED_PYGLS = "2.1."  # the pygls whose internals protocol.py was written against


class Capture:
    """A pygls writer that keeps what is sent."""

    def __init__(self) -> None:
        self.sent: list[dict] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))

    def close(self) -> None:
        self.closed = True


def msg(**fields) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **fields}).encode()


INITIALIZE = msg(id=0, method="initialize", params={"capabilities": {}, "processId": None, "rootUri": None})


@pytest.fixture
def session():
    """A built server with a capturing writer, run inside an event loop."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    server = build_server()
    writer = Capture()
    server.protocol.set_writer(writer)

    async def call(body: bytes):
        code = server.protocol.receive(body)
        await asyncio.sleep(0)  # let a task the message started take its first step
        return code

    yield server, writer, lambda body: loop.run_until_complete(call(body))
    for task in asyncio.all_tasks(loop):
        task.cancel()
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
    asyncio.set_event_loop(None)


def test_pygls_is_the_version_protocol_py_was_checked_against():
    """A new pygls minor version: re-read protocol.py's uses of its internals, then bump this."""
    assert version("pygls").startswith(TESTED_PYGLS)


def test_the_pygls_internals_protocol_py_uses_are_there():
    """Private names SparkProtocol calls or overrides still exist on pygls's protocol."""
    for name in ("handle_message", "_send_data", "_execute_handler", "_run_generator", "_handle_cancel_notification", "get_message_type"):
        assert callable(getattr(JsonRPCProtocol, name)), name
    for name in ("lsp_text_document__did_open", "lsp_text_document__did_change", "lsp_text_document__did_close"):
        assert hasattr(LanguageServerProtocol, name), name
    protocol = build_server().protocol
    assert isinstance(protocol._request_futures, dict) and isinstance(protocol._result_types, dict)
    assert protocol._converter is not None and protocol.fm.builtin_features and protocol.fm.features


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {"textDocument": {"uri": "file:///a.py"}, "position": {"line": 1, "character": 2}}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///a.py", "languageId": "python", "version": 1, "text": "x"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "sparkls/custom", "params": {"a": 1}},
        {"jsonrpc": "2.0", "method": "sparkls/note", "params": [1, 2]},
        {"jsonrpc": "2.0", "id": "r", "error": {"code": -32601, "message": "no"}},
        {"jsonrpc": "2.0", "id": "r", "result": {"x": 1}},
    ],
)
def test_structure_makes_what_pygls_makes(message):
    """Our whole-message structuring gives the object pygls's structure_message gives."""
    protocol = build_server().protocol
    assert protocol._structure(dict(message)) == protocol.structure_message(dict(message))


def test_a_typed_response_is_structured_with_its_requests_result_type(session):
    """The result type pygls keeps per pending request (`_result_types`) is used and consumed."""
    server, _, _ = session
    protocol = server.protocol
    protocol._result_types["c1"] = types.ShowMessageResponse
    structured = protocol._structure({"jsonrpc": "2.0", "id": "c1", "result": {"title": "Cancel"}})
    assert structured.result == types.MessageActionItem(title="Cancel") and "c1" not in protocol._result_types


def test_initialize_through_receive_answers_with_capabilities(session):
    """A message the gate lets through is handled by pygls and answered on the writer."""
    _, writer, receive = session
    receive(INITIALIZE)
    assert writer.sent[-1]["id"] == 0 and "capabilities" in writer.sent[-1]["result"]


def test_pygls_keeps_no_copy_of_an_opened_document(session):
    """didOpen reaches our handler only: pygls's workspace stays empty."""
    server, _, receive = session
    receive(INITIALIZE)
    receive(msg(method="textDocument/didOpen", params={"textDocument": {"uri": "file:///a.py", "languageId": "python", "version": 1, "text": "x = 1\n"}}))
    assert server.documents.has("file:///a.py") and not server.protocol.workspace.text_documents


def test_invalid_params_are_answered_and_never_a_popup(session):
    """-32602 goes back to the client; nothing reaches window/showMessage."""
    _, writer, receive = session
    receive(INITIALIZE)
    receive(msg(id=5, method="textDocument/codeAction", params={"x": 1}))
    assert writer.sent[-1]["error"]["code"] == -32602
    assert "textDocument/codeAction" in writer.sent[-1]["error"]["message"]
    assert not [m for m in writer.sent if m.get("method") == types.WINDOW_SHOW_MESSAGE]


def test_an_answer_with_a_null_id_carries_it(session):
    """JSON-RPC wants `"id": null` in the error for an unreadable message, not a missing id."""
    _, writer, receive = session
    receive(b"{oops")
    assert writer.sent[-1]["id"] is None and writer.sent[-1]["error"]["code"] == -32700


def test_a_response_that_does_not_fit_fails_the_pending_request(session):
    """The waiter gets an error rather than waiting for ever."""
    server, _, receive = session
    receive(INITIALIZE)
    params = types.ShowMessageRequestParams(type=types.MessageType.Info, message="?", actions=[])
    future = server.protocol.send_request(types.WINDOW_SHOW_MESSAGE_REQUEST, params, msg_id="c2")
    receive(msg(id="c2", result=5))
    assert future.done() and future.exception() is not None


def test_exit_closes_the_writer_and_returns_the_code(session):
    """exit returns LSP's exit code to the reader and closes the output."""
    _, writer, receive = session
    assert receive(msg(method="exit")) == 1 and writer.closed


def test_exit_sent_as_a_request_never_reaches_pyglss_exit(session):
    """pygls's own exit would sys.exit from inside the reader: the gate keeps it away."""
    server, _, receive = session
    assert isinstance(server.protocol, SparkProtocol)
    assert receive(msg(id=1, method="exit")) == 1


def shown_for(error: Exception, source: type) -> list:
    server = build_server()
    shown: list = []
    server.window_show_message = shown.append
    server.report_server_error(error, source)
    return shown


def test_a_protocol_error_reported_by_pygls_is_not_a_popup():
    """pygls's error hook: a JSON-RPC error about a message, or one from its reader, is only logged."""
    assert shown_for(JsonRpcInvalidParams(), FeatureNotificationError) == []
    assert shown_for(RuntimeError("unreadable"), JsonRpcException) == []


def test_a_failure_of_our_handler_is_still_shown():
    """A notification handler of ours that raises is reported to the user, as before."""
    assert len(shown_for(JsonRpcInternalError("KeyError: 'uri'"), FeatureNotificationError)) == 1
