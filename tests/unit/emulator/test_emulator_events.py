"""The emulator's wire shapes: Responses events, Chat chunks, error bodies (pure)."""

import json

import pytest

from sparkls.emulator import events
from sparkls.emulator.chat import ChatChunks, chat_usage
from sparkls.emulator.model import answer
from sparkls.emulator.responses import ResponseEvents, responses_usage

TRICKY = 'say "hi"\n\t\\ 😀 漢字 </script> 100%s %d'


def test_delta_template_is_valid_json_for_tricky_text():
    """Deltas built from the template are valid JSON carrying the exact text."""
    reply = ResponseEvents({}, model="m", created_at=1)
    reply.created()
    (added, _) = reply.open_message("final_answer")
    delta = json.loads(reply.delta(TRICKY))
    obfuscation = delta.pop("obfuscation")
    assert delta == {
        "type": "response.output_text.delta",
        "sequence_number": 3,
        "item_id": added["item"]["id"],
        "output_index": 0,
        "content_index": 0,
        "delta": TRICKY,
        "logprobs": [],
    }
    assert obfuscation.isalnum()


def test_delta_without_obfuscation_when_asked():
    """With obfuscation off, text deltas carry no obfuscation field."""
    reply = ResponseEvents({}, model="m", created_at=1, obfuscate=False)
    reply.open_message(None)
    assert "obfuscation" not in json.loads(reply.delta("x"))


def test_refusal_delta_has_no_logprobs():
    """A refusal's deltas are response.refusal.delta events, without logprobs."""
    reply = ResponseEvents({}, model="m", created_at=1)
    reply.open_message("final_answer", refusal=True)
    delta = json.loads(reply.delta("No"))
    assert delta["type"] == "response.refusal.delta" and "logprobs" not in delta


def test_closed_items_make_the_final_output():
    """Items closed during the stream are exactly the final response's output."""
    reply = ResponseEvents({}, model="m", created_at=1)
    reply.reasoning_item()
    reply.open_message("commentary")
    reply.close_message("Prose.")
    reply.open_message("final_answer")
    done = reply.close_message("```\nx\n```")
    output = reply.completed(responses_usage(3, 4))["response"]["output"]
    assert [item["type"] for item in output] == ["reasoning", "message", "message"]
    assert [item.get("phase") for item in output[1:]] == ["commentary", "final_answer"]
    assert output[2] == done[-1]["item"]


def test_chat_content_chunk_is_valid_json():
    """Chat content chunks built from the template are valid JSON, in every flavour."""
    for flavour in ("openai", "llama.cpp", "ollama", "vllm"):
        chunks = ChatChunks(model='m"od%el', created=5, flavour=flavour)
        chunk = json.loads(chunks.content(TRICKY))
        assert chunk["choices"][0]["delta"]["content"] == TRICKY
        assert chunk["model"] == 'm"od%el' and chunk["object"] == "chat.completion.chunk"


def test_response_object_echoes_request_fields():
    """The response object carries the request's instructions and previous id."""
    body = {"instructions": "be brief", "previous_response_id": "resp_1", "store": False}
    reply = ResponseEvents(body, model="m", created_at=7)
    response = reply.completed(responses_usage(3, 1))["response"]
    assert response["instructions"] == "be brief"
    assert response["previous_response_id"] == "resp_1"
    assert response["created_at"] == 7
    assert response["usage"]["total_tokens"] == 4


def test_usage_writes_long_prompts_to_the_cache():
    """A prompt past the cache minimum writes its uncached part; a short one writes none."""
    assert responses_usage(100, 5)["input_tokens_details"] == {"cached_tokens": 0, "cache_write_tokens": 0}
    details = responses_usage(3000, 5, cached_tokens=1024)["input_tokens_details"]
    assert details == {"cached_tokens": 1024, "cache_write_tokens": 1976}


def test_chat_usage_by_flavour():
    """OpenAI's usage has token details; llama.cpp's and Ollama's only the counts."""
    assert "completion_tokens_details" in chat_usage("openai", 1, 2)
    assert set(chat_usage("ollama", 1, 2)) == {"prompt_tokens", "completion_tokens", "total_tokens"}


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
    in_stream = events.sse_error_event("server_error", "boom", 7)
    assert in_stream == {"type": "error", "sequence_number": 7, "code": "server_error",
                         "message": "boom", "param": None}


def test_unknown_reply_style_is_refused():
    """An unknown reply style is a programming error, not a silent default."""
    with pytest.raises(ValueError):
        answer("x", reply="loud")
