"""The emulator over TLS: https/wss URLs, WebSocket mode and SSE with a self-signed cert;
and sparkls's own `wss` connections to it, which trust the system's CAs unless told
otherwise."""

from __future__ import annotations

import argparse
import json
import shutil
import ssl
import subprocess
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from websockets.asyncio.client import connect

from sparkls.emulator import Emulator, cli
from sparkls.errors import ConnectError
from sparkls.models.events import Where
from sparkls.models.websocket import dial

REGION_REQUEST = (
    "REPLACE foo WITH bar\n"
    "<|editable_region_start|>\n"
    "def foo():\n"
    "    return 1\n"
    "<|editable_region_end|>\n"
)
EXPECTED_TEXT = "```\ndef bar():\n    return 1\n```"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, made by the openssl CLI: (cert, key)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not on PATH: cannot make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", "k.pem", "-out", "c.pem"],
        cwd=folder, check=True, capture_output=True,
    )
    return folder / "c.pem", folder / "k.pem"


@pytest.fixture
def client_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(certificate[0]))


@pytest_asyncio.fixture
async def tls_emulator(certificate: tuple[Path, Path]):
    cert, key = certificate
    async with Emulator(ssl_context=cli.tls_context(str(cert), str(key))) as server:
        yield server


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    return parser.parse_args(argv)


def test_tls_flags_give_https_and_wss_urls(certificate):
    """--tls-cert and --tls-key make the emulator's URLs https and wss."""
    cert, key = certificate
    emulator = cli.build_emulator(parse("--port", "8443", "--tls-cert", str(cert), "--tls-key", str(key)))
    assert emulator.url == "https://127.0.0.1:8443/v1"
    assert emulator.ws_url == "wss://127.0.0.1:8443/v1/responses"


def test_tls_cert_without_key_is_refused(certificate):
    """--tls-cert without --tls-key is a usage error, not a plain-text server."""
    with pytest.raises(ValueError, match="go together"):
        cli.build_emulator(parse("--tls-cert", str(certificate[0])))


async def test_websocket_response_completes_over_tls(tls_emulator, client_context):
    """A wss client trusting the certificate gets a whole response."""
    message = {"type": "response.create", "model": "spark", "input": REGION_REQUEST}
    async with connect(tls_emulator.ws_url, ssl=client_context) as ws:
        await ws.send(json.dumps(message))
        deltas = []
        while (event := json.loads(await ws.recv()))["type"] != "response.completed":
            if event["type"] == "response.output_text.delta":
                deltas.append(event["delta"])
    assert "".join(deltas) == EXPECTED_TEXT


async def test_sse_response_completes_over_tls(tls_emulator, client_context):
    """An https POST with stream: true streams the reply to response.completed."""
    body = {"model": "spark", "input": REGION_REQUEST, "stream": True}
    async with httpx.AsyncClient(verify=client_context) as client:
        response = await client.post(f"{tls_emulator.url}/responses", json=body, timeout=10)
    assert response.status_code == 200
    assert "event: response.completed" in response.text
    deltas = [
        json.loads(line[len("data: "):])["delta"]
        for line in response.text.splitlines()
        if line.startswith("data: ") and '"response.output_text.delta"' in line
    ]
    assert "".join(deltas) == EXPECTED_TEXT


async def _dial(emulator: Emulator, context: ssl.SSLContext | None):
    return await dial(emulator.ws_url, "sk-test", Where("fast", "127.0.0.1", "m"), connect_timeout=10,
                      ssl_context=context, ping=(None, None))


async def test_a_wss_connection_trusts_the_system_cas_only_unless_given_a_bundle(tls_emulator, client_context):
    """Without a CA bundle a self-signed certificate is refused, saying so, on every
    attempt (the shared system context checks each); with the bundle it connects."""
    for _ in range(2):
        with pytest.raises(ConnectError, match="certificate"):
            await _dial(tls_emulator, None)
    ws = await _dial(tls_emulator, client_context)
    await ws.close()
