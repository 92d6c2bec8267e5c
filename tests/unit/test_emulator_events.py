"""The emulator's wire shapes: Responses events, Chat chunks, error bodies (pure)."""

import json

import pytest

from sparkls.emulator import events
from sparkls.emulator.model import answer

TRICKY = 'say "hi"\n\t\\ 😀 漢字 </script>'


def test_delta_template_is_valid_json_for_tricky_text():
    """Deltas built from the template are valid JSON carrying the exact text."""
    reply = events.ResponseEvents({}, model="m", created_at=1)
    reply.created()
    delta = json.loads(reply.delta(TRICKY))
    assert delta == {
        "type": "response.output_text.delta",
        "sequence_number": 1,
        "item_id": reply.item_id,
        "output_index": 0,
        "content_index": 0,
        "delta": TRICKY,
        "logprobs": [],
    }


def test_chat_content_chunk_is_valid_json():
    """Chat content chunks built from the template are valid JSON."""
    chunks = events.ChatChunks(model='m"odel', created=5)
    chunk = json.loads(chunks.content(TRICKY))
    assert chunk["choices"][0]["delta"] == {"content": TRICKY}
    assert chunk["model"] == 'm"odel' and chunk["object"] == "chat.completion.chunk"


def test_response_object_echoes_request_fields():
    """The response object carries the request's instructions and previous id."""
    body = {"instructions": "be brief", "previous_response_id": "resp_1", "store": False}
    reply = events.ResponseEvents(body, model="m", created_at=7)
    response = reply.completed("text", events.responses_usage(3, 1))["response"]
    assert response["instructions"] == "be brief"
    assert response["previous_response_id"] == "resp_1"
    assert response["store"] is False and response["created_at"] == 7
    assert response["usage"]["total_tokens"] == 4


def test_error_shapes():
    """Error events and HTTP error bodies share the inner error object."""
    event = events.error_event(404, "model_not_found", "no such model", "model")
    assert event == {
        "type": "error",
        "status": 404,
        "error": {"type": "invalid_request_error", "code": "model_not_found",
                  "message": "no such model", "param": "model"},
    }
    body = events.http_error_body(500, None, "boom")
    assert body == {"error": {"type": "server_error", "code": "server_error",
                              "message": "boom", "param": None}}


def test_unknown_reply_style_is_refused():
    """An unknown reply style is a programming error, not a silent default."""
    with pytest.raises(ValueError):
        answer("x", reply="loud")
