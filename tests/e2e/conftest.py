"""End-to-end fixtures: the real sparkls process over stdio, driven by pytest-lsp."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests import canaries
from tests.e2e.editor import capabilities, make_editor_client
from tests.e2e.testbound import TEST_BOUND, TestBound, end_session

SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "sparkls", "--stdio"],
    client_factory=make_editor_client,
)


@pytest.fixture(autouse=True)
async def test_bound(request: pytest.FixtureRequest):
    """Every async test ends within its bound (testbound.py), and so does every request
    a client it started sends or answers (watchdog.py): what outlived them fails the test."""
    if not inspect.iscoroutinefunction(inspect.unwrap(request.node.function)):
        yield  # a sync test's blocking calls carry their own timeouts
        return
    marker = request.node.get_closest_marker("bound")
    with TestBound(request.node, marker.args[0] if marker else TEST_BOUND) as bound:
        yield
    if problems := await bound.end():
        pytest.fail("the request watchdog: " + "; ".join(problems), pytrace=False)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    """A started (not yet initialized) sparkls; each test initializes it its own way.
    Its end is bounded: a server that would not stop is stopped, and the test fails."""
    yield
    await end_session(lsp_client)


async def start(
    client: LanguageClient,
    emulator: Any,
    root: Path,
    *,
    editor: str = "visual_studio_code",
    fast: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    position_encodings: list[str] | None = None,
    client_name: str | None = None,
) -> types.InitializeResult:
    """Initialize the session against the emulator (override any tier key with `fast`),
    asking for sparkls's notifications as the VS Code extension does.

    The workspace gets the canaries first (tests/canaries.py: files under
    `zz_canaries/` and a line in `.gitignore`); a request holding one fails the test.
    """
    if root.is_dir():
        canaries.plant(root)
    init_options = {
        "fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key, **(fast or {})},
        "notifications": ["status", "nextEdit"],
    }
    init_options.update(options or {})
    if (watchdog := getattr(client, "watchdog", None)) is not None and "requestTimeout" in init_options["fast"]:
        watchdog.request_timeout = init_options["fast"]["requestTimeout"] or float("inf")
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(editor, position_encodings=position_encodings),
            client_info=types.ClientInfo(name=client_name) if client_name else None,
            initialization_options=init_options,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="w")],
        )
    )
    client.editor.encoding = result.capabilities.position_encoding or "utf-16"
    return result


@contextlib.asynccontextmanager
async def second_server(emulator: Any, root: Path):
    """Another real `sparkls --stdio` on the same workspace (another editor's), started as
    `start` starts one, and shut down after the block."""
    second = make_editor_client()
    await second.start_io(sys.executable, "-m", "sparkls", "--stdio")
    try:
        await start(second, emulator, root)
        yield second
    finally:
        await end_session(second)


async def run_edit(client: LanguageClient, uri: str, line: int, instruction: str, *, end_line: int | None = None) -> dict:
    """`sparkls.edit` on whole lines `line`..`end_line` (or a cursor at `line`)."""
    end = types.Position(line=end_line, character=0) if end_line is not None else types.Position(line=line, character=0)
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="sparkls.edit",
            arguments=[
                {
                    "uri": uri,
                    "range": {"start": {"line": line, "character": 0}, "end": {"line": end.line, "character": end.character}},
                    "instruction": instruction,
                }
            ],
        )
    )


def _fast(client) -> dict:
    """The latest `sparkls/status` of the fast tier, as a dict."""
    return client.editor.statuses[-1]["tiers"]["fast"]


async def wait_status(client, predicate) -> dict:
    """Wait for a fast-tier status that satisfies `predicate` (event driven, bounded)."""
    try:
        async with asyncio.timeout(30):
            while not (client.editor.statuses and predicate(_fast(client))):
                await client.wait_for_notification("sparkls/status")
    except TimeoutError:
        raise AssertionError(f"no such status; got {[s['tiers']['fast'] for s in client.editor.statuses]}") from None
    return _fast(client)


async def wait_emulator(emulator, predicate) -> dict:
    """Poll the emulator's counters until `predicate` holds (bounded)."""
    for _ in range(1000):
        stats = emulator.stats()
        if predicate(stats):
            return stats
        await asyncio.sleep(0.01)
    raise AssertionError(f"the emulator never got there: {emulator.stats()}")


@pytest.fixture
def recording_endpoint():
    """A loopback endpoint that answers every request `401` and records what it was
    sent: headers, bodies, WebSocket frames (tests/e2e/hostile_endpoint.py)."""
    from tests.e2e.hostile_endpoint import RecordingEndpoint

    endpoint = RecordingEndpoint()
    yield endpoint
    endpoint.close()


@pytest.fixture
def recording_emulator(emulator):
    """The test's emulator behind a recording endpoint: sessions work as usual, and
    every header, body and frame they send is recorded on the way."""
    from tests.e2e.hostile_endpoint import RecordingEndpoint

    endpoint = RecordingEndpoint(upstream=emulator.url)
    yield endpoint
    endpoint.close()
