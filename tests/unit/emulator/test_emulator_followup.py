"""The scripted model continuing its last answer: chained, resent in full, and via the SDK."""

from __future__ import annotations

import openai
import pytest
import pytest_asyncio

from sparkls.emulator import Emulator
from sparkls.emulator.followup import answer_code, continue_answer, split_conversation

REQUEST = (
    "Instruction: REPLACE foo WITH bar\n"
    "<|editable_region_start|>\n"
    "def foo():\n"
    "    return 1\n"
    "<|editable_region_end|>\n"
)
FIRST = "```\ndef bar():\n    return 1\n```"
SECOND = "```\ndef bar():\n    return 2\n```"


def test_continue_applies_the_new_directives_to_the_previous_answer():
    """The new turn's directives apply to the previous answer's code, not the original region."""
    assert continue_answer(FIRST, "Revise: REPLACE 1 WITH 2") == SECOND


def test_continue_with_the_region_shown_again_answers_from_it():
    """A turn that shows the region again (the user changed it) is answered from that text."""
    turn = "It now reads:\n<|editable_region_start|>\ndef baz():\n    return 1\n<|editable_region_end|>\nREPLACE 1 WITH 3"
    assert continue_answer(FIRST, turn) == "```\ndef baz():\n    return 3\n```"


def test_answer_code_reads_a_fenced_or_a_bare_answer():
    """The code of an answer is its fenced block, or the whole text when it has none."""
    assert answer_code("Here:\n```python\nx = 1\n```\n") == "x = 1"
    assert answer_code("x = 1\n") == "x = 1"


def test_split_conversation_finds_the_last_assistant_turn():
    """The last assistant message is the previous answer; only what follows is the new turn."""
    body = {
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": REQUEST}]},
            {"role": "assistant", "content": FIRST},
            {"role": "user", "content": [{"type": "input_text", "text": "REPLACE 1 WITH 2"}]},
        ],
    }
    assert split_conversation(body) == (FIRST, "Be brief.\nREPLACE 1 WITH 2")
    assert split_conversation({"input": REQUEST}) == (None, REQUEST)


@pytest_asyncio.fixture
async def client():
    async with Emulator() as emulator:
        sdk = openai.AsyncOpenAI(base_url=emulator.url, api_key="sk-test", max_retries=0)
        sdk.emulator = emulator  # type: ignore[attr-defined]
        yield sdk
        await sdk.close()


async def _ws_turn(connection, **fields) -> object:
    await connection.response.create(model="spark", store=False, **fields)
    async for event in connection:
        if event.type in ("response.completed", "error"):
            return event
    raise AssertionError("the connection closed")


@pytest.mark.asyncio
async def test_sdk_websocket_chain_continues_the_last_answer(client):
    """Over one WebSocket, previous_response_id continues the last answer with the new turn only."""
    async with client.responses.connect() as connection:
        first = await _ws_turn(connection, input=REQUEST)
        second = await _ws_turn(connection, input="Revise: REPLACE 1 WITH 2", previous_response_id=first.response.id)
    assert first.response.output_text == FIRST
    assert second.response.output_text == SECOND
    assert second.response.previous_response_id == first.response.id
    assert client.emulator.stats["chained"] == 1


@pytest.mark.asyncio
async def test_sdk_full_resend_with_an_assistant_turn_continues_it(client):
    """Over HTTP, a conversation resent in full (assistant message in input) continues that answer."""
    response = await client.responses.create(
        model="spark",
        store=False,
        input=[
            {"role": "user", "content": [{"type": "input_text", "text": REQUEST}]},
            {"role": "assistant", "content": FIRST},
            {"role": "user", "content": [{"type": "input_text", "text": "Revise: REPLACE 1 WITH 2"}]},
        ],
    )
    assert response.output_text == SECOND
    assert client.emulator.stats["chained"] == 0


@pytest.mark.asyncio
async def test_stored_response_continues_on_another_connection(client):
    """A stored response (store not false) can be continued from another WebSocket, or over HTTP."""
    async with client.responses.connect() as connection:
        await connection.response.create(model="spark", input=REQUEST, store=True)
        first = [e async for e in _until_done(connection)][-1]
    async with client.responses.connect() as connection:
        second = await _ws_turn(connection, input="REPLACE 1 WITH 2", previous_response_id=first.response.id)
    assert second.type == "response.completed" and second.response.output_text == SECOND
    third = await client.responses.create(model="spark", input="REPLACE 1 WITH 2", previous_response_id=first.response.id)
    assert third.output_text == SECOND


async def _until_done(connection):
    async for event in connection:
        yield event
        if event.type in ("response.completed", "error"):
            return
