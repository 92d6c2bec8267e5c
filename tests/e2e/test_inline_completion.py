"""Inline completions end to end: real sparkls over stdio, the emulator as the model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import converters, types

from tests.e2e.conftest import wait_emulator
from tests.e2e.editor import capabilities

SAMPLE = '''def add(a, b):
    # COMPLETE "a + b"
    return 
'''
RETURN = types.Position(line=2, character=11)  # after "    return "

GREET = '''def greet(name):
    # REPLACE nme WITH name.title()
    return "😀 名前: " + nme
'''


async def start(client, emulator, root, *, inline: bool = True, completion: dict[str, Any] | None = None):
    """Initialize as VS Code, with or without the inline completion capability."""
    caps = capabilities("visual_studio_code")
    if inline:
        caps.text_document.inline_completion = types.InlineCompletionClientCapabilities()
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            initialization_options={
                "fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key},
                "completion": {"debounceMs": 5, **(completion or {})},
                "context": {"index": False},
            },
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="w")],
        )
    )
    client.editor.encoding = result.capabilities.position_encoding or "utf-16"
    return result


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "calc.py"
    path.write_text(SAMPLE)
    return path.as_uri()


def inline(client, uri: str, pos: types.Position):
    return client.text_document_inline_completion_async(
        types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos,
            context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic),
        )
    )


def completion(client, uri: str, pos: types.Position):
    return client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    )


def only_item(result) -> types.InlineCompletionItem:
    assert result is not None, "no inline completion"
    items = result.items if isinstance(result, types.InlineCompletionList) else result
    (item,) = items
    return item


async def test_inline_completion_is_what_the_model_inserted_at_the_cursor(client, emulator, tmp_path, sample):
    """The item is the text the model put at <|cursor|>, with no range for an insertion."""
    result = await start(client, emulator, tmp_path)
    assert result.capabilities.inline_completion_provider is not None
    assert result.capabilities.completion_provider is None  # this client has ghost text
    client.editor.open(sample, SAMPLE)
    item = only_item(await inline(client, sample, RETURN))
    assert item.insert_text == "a + b" and item.range is None
    assert emulator.stats()["responses"] == 1


async def test_typing_through_is_served_without_the_model(client, emulator, tmp_path, sample):
    """Typing the suggestion's first characters gets the rest of it, with no new model request."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    assert only_item(await inline(client, sample, RETURN)).insert_text == "a + b"
    client.editor.type_text(sample, 2, 11, "a")
    assert only_item(await inline(client, sample, types.Position(line=2, character=12))).insert_text == " + b"
    client.editor.type_text(sample, 2, 12, " +")
    assert only_item(await inline(client, sample, types.Position(line=2, character=14))).insert_text == " b"
    assert emulator.stats()["responses"] == 1


async def test_a_diverging_keystroke_asks_the_model_again(client, emulator, tmp_path, sample):
    """A typed character that is not the suggestion's next one gets a fresh answer."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    await inline(client, sample, RETURN)
    client.editor.type_text(sample, 2, 11, "x")
    assert only_item(await inline(client, sample, types.Position(line=2, character=12))).insert_text == "a + b"
    assert emulator.stats()["responses"] == 2


async def test_a_newer_request_cancels_the_older_stream(client, emulator, tmp_path, sample):
    """Superseded mid-stream: the first answers nothing, the second is current. On lanes
    the first's lane is abandoned (the rest of its stream dropped as it comes, on the
    same connection); nothing is closed."""
    await start(client, emulator, tmp_path)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=10, count=1)  # the first request streams for seconds
    first = asyncio.ensure_future(inline(client, sample, RETURN))
    await wait_emulator(emulator, lambda s: s["responses"] >= 1)
    client.editor.type_text(sample, 2, 11, "x")
    second = await inline(client, sample, types.Position(line=2, character=12))
    assert await first is None  # never a completion for the text before "x"
    assert only_item(second).insert_text == "a + b"
    stats = emulator.stats()
    assert stats["responses"] == 2 and stats["lanes"] == 2 and stats["ws_connections"] == 1


async def test_replacement_after_an_emoji_has_a_utf16_range(client, emulator, tmp_path):
    """A suggestion that rewrites the rest of the line carries a range in UTF-16 columns."""
    path = tmp_path / "greet.py"
    path.write_text(GREET)
    uri = path.as_uri()
    await start(client, emulator, tmp_path)
    client.editor.open(uri, GREET)
    cursor = types.Position(line=2, character=23)  # before "nme"; the emoji counts two units
    item = only_item(await inline(client, uri, cursor))
    assert item.insert_text == "name.title()"
    assert item.range == types.Range(start=cursor, end=types.Position(line=2, character=26))


async def test_disabled_completions_ask_nothing(client, emulator, tmp_path, sample):
    """With completion.enabled false the server answers nothing and the model is not asked."""
    await start(client, emulator, tmp_path, completion={"enabled": False})
    client.editor.open(sample, SAMPLE)
    assert await inline(client, sample, RETURN) is None
    assert emulator.stats()["responses"] == 0


async def test_completion_item_fallback_never_waits_for_a_slow_model(client, emulator, tmp_path, sample):
    """Without inline completion: isIncomplete at once, then the Spark item once the model is done."""
    result = await start(client, emulator, tmp_path, inline=False, completion={"completionItemWaitMs": 20, "debounceMs": 0})
    assert result.capabilities.completion_provider is not None
    # As JSON, a non-empty object: a multiplexer that reads `{}` as false (rass) drops it.
    assert converters.get_converter().unstructure(result.capabilities.completion_provider)
    client.editor.open(sample, SAMPLE)
    emulator.set_faults(tokens_per_second=40, count=1)  # about a second for the region
    first = await completion(client, sample, RETURN)
    assert first.is_incomplete is True and not first.items
    for _ in range(500):  # each request waits at most 20 ms: the editor asks again as it would
        answer = await completion(client, sample, RETURN)
        if answer.items:
            break
    (item,) = answer.items
    assert item.label == "a + b" and item.detail == "Spark"
    assert item.text_edit.new_text == "a + b" and item.text_edit.range == types.Range(start=RETURN, end=RETURN)
    assert emulator.stats()["responses"] == 1  # asking again joined the work in progress
