"""The gate: JSON-RPC 2.0 and the LSP lifecycle, decided before any handler runs."""

from __future__ import annotations

import json
import logging

import pytest

from sparkls.lsp.rpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    SERVER_NOT_INITIALIZED,
    Answer,
    BadParams,
    Deliver,
    Drop,
    Exit,
    Gate,
    Phase,
)

KNOWN = {"initialize", "initialized", "shutdown", "exit", "textDocument/didOpen", "textDocument/hover"}


def structure(message):
    if message.get("params") == {"bad": True}:
        raise BadParams("required field missing @ $.params.position")
    return message


def gate(phase: Phase = Phase.RUNNING) -> Gate:
    g = Gate(KNOWN.__contains__, structure)
    g.phase = phase
    return g


def request(method: str, msg_id: object = 1, **extra) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": {}, **extra}).encode()


def notification(method: str, **extra) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": {}, **extra}).encode()


def test_a_request_before_initialize_is_server_not_initialized():
    """-32002 for any request but initialize while the server is new."""
    assert gate(Phase.NEW).receive(request("textDocument/hover")) == Answer(1, SERVER_NOT_INITIALIZED, "Server not initialized: textDocument/hover came before initialize")


def test_a_notification_before_initialize_is_dropped():
    """Notifications before initialize are not handled (and never answered)."""
    assert isinstance(gate(Phase.NEW).receive(notification("textDocument/didOpen")), Drop)


def test_initialize_starts_the_session():
    """initialize is delivered and the gate is running from then on."""
    g = gate(Phase.NEW)
    assert isinstance(g.receive(request("initialize")), Deliver)
    assert g.phase is Phase.RUNNING


def test_initialize_with_invalid_params_leaves_the_server_new():
    """A refused initialize (-32602) does not start the session."""
    g = gate(Phase.NEW)
    assert g.receive(request("initialize", params={"bad": True})).code == INVALID_PARAMS
    assert g.phase is Phase.NEW


def test_a_second_initialize_is_an_invalid_request():
    """initialize may come once."""
    assert gate().receive(request("initialize")).code == INVALID_REQUEST


def test_a_request_after_shutdown_is_an_invalid_request():
    """After shutdown every request is answered -32600, naming the method."""
    g = gate()
    assert isinstance(g.receive(request("shutdown")), Deliver)
    answer = g.receive(request("textDocument/hover", 2))
    assert (answer.id, answer.code) == (2, INVALID_REQUEST) and "textDocument/hover" in answer.message


def test_a_notification_after_shutdown_is_dropped():
    """After shutdown notifications other than exit are ignored."""
    g = gate(Phase.SHUT_DOWN)
    assert isinstance(g.receive(notification("textDocument/didOpen")), Drop)


@pytest.mark.parametrize("phase, code", [(Phase.NEW, 1), (Phase.RUNNING, 1), (Phase.SHUT_DOWN, 0)])
def test_exit_ends_with_lsps_exit_code(phase, code):
    """exit: 0 after shutdown, 1 otherwise (before initialize too)."""
    assert gate(phase).receive(notification("exit")) == Exit(code)


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], 1.5, True, None])
def test_an_id_that_is_not_a_string_or_integer_is_an_invalid_request(bad_id):
    """Objects, arrays, floats, booleans and null as ids: -32600 with id null."""
    answer = gate().receive(request("textDocument/hover", bad_id))
    assert (answer.id, answer.code) == (None, INVALID_REQUEST)


@pytest.mark.parametrize("good_id", [0, -3, 2**70, "", "abc"])
def test_string_and_integer_ids_are_accepted(good_id):
    """Any integer or string id is a request id."""
    assert isinstance(gate().receive(request("textDocument/hover", good_id)), Deliver)


def test_invalid_params_are_answered_naming_the_method():
    """-32602 with the method and cattrs' reason in the message."""
    answer = gate().receive(request("textDocument/hover", 7, params={"bad": True}))
    assert (answer.id, answer.code) == (7, INVALID_PARAMS)
    assert "textDocument/hover" in answer.message and "position" in answer.message


def test_invalid_params_in_a_notification_are_logged():
    """A notification cannot be answered: a warning in the log instead."""
    verdict = gate().receive(notification("textDocument/didOpen", params={"bad": True}))
    assert isinstance(verdict, Drop) and verdict.level == logging.WARNING and "textDocument/didOpen" in verdict.reason


def test_an_unknown_request_is_method_not_found():
    """-32601 for a request nobody handles."""
    assert gate().receive(request("sparkls/nothing")) == Answer(1, METHOD_NOT_FOUND, "Method not found: sparkls/nothing")


def test_an_unknown_dollar_request_is_method_not_found():
    """`$/` requests without a handler are answered -32601, as LSP says."""
    assert gate().receive(request("$/unknown")).code == METHOD_NOT_FOUND


@pytest.mark.parametrize("method", ["sparkls/nothing", "$/progress", "$/unknown"])
def test_an_unknown_notification_is_dropped_quietly(method):
    """Unknown notifications (and `$/` ones) are ignored at debug level."""
    verdict = gate().receive(notification(method))
    assert isinstance(verdict, Drop) and verdict.level == logging.DEBUG


@pytest.mark.parametrize("body", [b"{not json", b"", b"\xff\xfe", b"[" * 100000])
def test_a_body_that_is_not_json_is_a_parse_error(body):
    """-32700 with id null, for bad JSON, bad UTF-8 and absurd nesting alike."""
    answer = gate().receive(body)
    assert (answer.id, answer.code) == (None, PARSE_ERROR)


@pytest.mark.parametrize("body", [b"42", b'"text"', b"null", b"true"])
def test_a_json_value_that_is_not_an_object_is_an_invalid_request(body):
    """Numbers, strings, null: -32600 with id null."""
    assert gate().receive(body).code == INVALID_REQUEST


def test_a_batch_is_an_invalid_request():
    """LSP does not use batches: one -32600 with id null, nothing in it handled."""
    answer = gate().receive(b"[" + request("shutdown") + b"]")
    assert (answer.id, answer.code) == (None, INVALID_REQUEST) and "batch" in answer.message


def test_jsonrpc_other_than_2_0_is_an_invalid_request():
    """`"jsonrpc": "1.0"` is answered -32600 with the request's id."""
    answer = gate().receive(request("textDocument/hover", 9, jsonrpc="1.0"))
    assert (answer.id, answer.code) == (9, INVALID_REQUEST)


def test_a_method_that_is_not_a_string_is_an_invalid_request():
    """`"method": 1` is -32600."""
    assert gate().receive(request(1)).code == INVALID_REQUEST  # type: ignore[arg-type]


def test_scalar_params_are_an_invalid_request():
    """params must be an object or an array."""
    assert gate().receive(request("textDocument/hover", params=5)).code == INVALID_REQUEST


def test_a_message_with_neither_method_nor_id_is_an_invalid_request():
    """`{"jsonrpc": "2.0"}` is answered -32600 with id null, as JSON-RPC's examples do."""
    assert gate().receive(b'{"jsonrpc": "2.0", "foo": 1}') == Answer(None, INVALID_REQUEST, "Invalid request: a message needs a method, or an id and a result")


def test_an_id_without_method_or_result_is_logged_not_answered():
    """Answering what may be a broken response could loop with the client: a warning."""
    verdict = gate().receive(b'{"jsonrpc": "2.0", "id": 4}')
    assert isinstance(verdict, Drop) and verdict.level == logging.WARNING


def test_a_response_is_delivered():
    """A client's answer to one of our requests goes to pygls."""
    assert isinstance(gate().receive(b'{"jsonrpc": "2.0", "id": "s1", "result": null}'), Deliver)


def test_a_response_with_an_object_id_is_logged():
    """A response whose id cannot be ours is not looked up (no unhashable-type crash)."""
    assert isinstance(gate().receive(b'{"jsonrpc": "2.0", "id": {}, "result": 1}'), Drop)


def pending_gate(*in_progress: int | str) -> Gate:
    g = Gate((KNOWN | {"$/cancelRequest"}).__contains__, structure, set(in_progress).__contains__)
    g.phase = Phase.RUNNING
    return g


def test_a_cancel_for_a_request_in_progress_is_delivered():
    """$/cancelRequest for a request still being served reaches pygls."""
    body = json.dumps({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 7}}).encode()
    assert isinstance(pending_gate(7).receive(body), Deliver)


def test_a_cancel_for_a_request_already_answered_is_a_quiet_drop():
    """$/cancelRequest that crossed the answer on the wire: dropped at debug level, not a warning."""
    body = json.dumps({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 7}}).encode()
    verdict = pending_gate().receive(body)
    assert isinstance(verdict, Drop) and verdict.level == logging.DEBUG


@pytest.mark.parametrize("msg_id", ["late-answer", 99])
def test_a_response_nothing_waits_for_is_a_quiet_drop(msg_id):
    """A late answer to a request given up, or to one never sent: dropped at debug level."""
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": None}).encode()
    verdict = pending_gate("awaited").receive(body)
    assert isinstance(verdict, Drop) and verdict.level == logging.DEBUG


def test_a_response_that_is_awaited_is_delivered():
    """The answer to a request in progress reaches pygls."""
    body = json.dumps({"jsonrpc": "2.0", "id": "awaited", "result": None}).encode()
    assert isinstance(pending_gate("awaited").receive(body), Deliver)
