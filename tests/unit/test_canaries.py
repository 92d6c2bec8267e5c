"""The canary net: what tests/canaries.py plants, and the emulator's check of every request."""

from __future__ import annotations

import json
import os

import httpx
import pytest
import pytest_asyncio
from websockets.asyncio.client import connect

from sparkls.emulator import Emulator
from sparkls.guard.exclusions import PathFilter, iter_files
from sparkls.guard.secrets import MARKER, redact
from tests import canaries
from tests.canaries import CANARIES


def _tree(root) -> dict[str, str]:
    """Every path below `root` (links as `-> target`) with what it holds."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in sorted(dirs + files):
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if os.path.islink(path):
                found[rel] = "-> " + os.readlink(path)
            elif os.path.isfile(path):
                found[rel] = open(path).read()
    return found


def test_the_canaries_are_distinct_and_redacted():
    """Five kinds kept off the wire by where they are, the corpus's shapes by what they
    are; all distinct, the token-shaped ones redacted whole alone or in code."""
    assert {"function string", "module constant", ".env file", "gitignored file", "link out"} < set(CANARIES)
    assert set(canaries.SHAPES) < set(CANARIES) and len(canaries.SHAPES) >= 15
    assert len(set(CANARIES.values())) == len(CANARIES)
    for kind in ("function string", "module constant", ".env file", "gitignored file", "link out", "sendgrid token",
                 "hugging face token", "npm token", "stripe restricted key"):  # fmt: skip
        canary = CANARIES[kind]
        assert redact(canary) == (MARKER, 1), kind
        assert redact(f'x = "{canary}"\n')[0] == f'x = "{MARKER}"\n', kind
        assert json.dumps(canary) == f'"{canary}"', kind  # JSON sends it as it is


def test_every_kind_is_planted(tmp_path):
    canaries.plant(tmp_path)
    source = (tmp_path / canaries.SOURCE).read_text()
    assert CANARIES["module constant"] in source.split("def ")[0]  # at module level
    assert f'    return "{CANARIES["function string"]}"' in source  # inside a function
    assert CANARIES[".env file"] in (tmp_path / canaries.ENV).read_text()
    assert CANARIES["gitignored file"] in (tmp_path / canaries.IGNORED).read_text()
    link = tmp_path / canaries.LINK
    assert link.is_symlink() and CANARIES["link out"] in link.read_text()
    assert not link.resolve().is_relative_to(tmp_path.resolve())
    planted = "".join((tmp_path / path).read_text() for path in canaries.contents())
    assert all(canary in planted for canary in canaries.SHAPES.values())
    # Only the files redaction guards may be sent; the others never are.
    paths = PathFilter.from_root(tmp_path)
    assert paths.reason(canaries.ENV) and paths.reason(canaries.IGNORED)
    sendable = {p.relative_to(tmp_path).as_posix() for p in iter_files(tmp_path, paths)}
    assert sendable == {".gitignore", canaries.SOURCE, canaries.SETTINGS, canaries.SERVICE, canaries.NOTEBOOK}


@pytest.mark.parametrize("path", [canaries.SOURCE, canaries.SETTINGS, canaries.SERVICE, canaries.NOTEBOOK])
def test_every_file_that_may_be_sent_comes_out_of_redaction_without_a_canary(tmp_path, path):
    """What the guard would send of each planted file holds none of the session's canaries."""
    canaries.plant(tmp_path)
    text = (tmp_path / path).read_text()
    out, count = redact(text)
    held = [kind for kind, canary in CANARIES.items() if canary in text]
    assert held and count >= len(held) - 1  # the AWS pair is one line with two secrets, the id no canary
    assert [kind for kind in held if CANARIES[kind] in out] == []
    assert out.count("\n") == text.count("\n")


def test_planting_is_idempotent_and_keeps_the_tests_gitignore(tmp_path):
    (tmp_path / ".gitignore").write_text("build/")  # no final newline
    canaries.plant(tmp_path)
    first = _tree(tmp_path)
    canaries.plant(tmp_path)
    assert _tree(tmp_path) == first
    assert (tmp_path / ".gitignore").read_text() == f"build/\n{canaries.GITIGNORE_LINE}\n"
    assert PathFilter.from_root(tmp_path).reason("build/gen.py")


def test_planting_repairs_what_is_missing(tmp_path):
    canaries.plant(tmp_path)
    first = _tree(tmp_path)
    (tmp_path / canaries.LINK).unlink()
    (tmp_path / canaries.ENV).write_text("changed\n")
    (tmp_path / ".gitignore").write_text("other.py\n")  # a test rewrote it
    canaries.plant(tmp_path)
    assert _tree(tmp_path) == {**first, ".gitignore": f"other.py\n{canaries.GITIGNORE_LINE}\n"}


# -- the emulator's check -------------------------------------------------------------

CANARY = "sk-" + "zzunitcanary0123456789abcdef"


@pytest_asyncio.fixture
async def emulator():
    async with Emulator() as server:
        yield server


async def _control(emulator, method: str, name: str, body=None) -> httpx.Response:
    """The control endpoint (asynchronously: the emulator runs on this event loop)."""
    async with httpx.AsyncClient() as http:
        return await http.request(method, emulator.url.removesuffix("/v1") + f"/_emulator/{name}", json=body)


def _request(text: str, **fields) -> dict:
    return {"model": "spark", "input": text, **fields}


@pytest.mark.asyncio
async def test_a_request_holding_a_canary_is_recorded_on_every_api(emulator):
    """WebSocket (a warm-up too), Responses over HTTP, Chat: every body is checked."""
    assert (await _control(emulator, "POST", "canaries", {"canaries": [CANARY, "another-canary-1"]})).json() == {
        "canaries": [CANARY, "another-canary-1"]
    }
    line = f'    token = "{CANARY}"\n'
    warmup = json.dumps({"type": "response.create", "generate": False, **_request("x" * 100 + line)})
    async with connect(emulator.ws_url) as ws:
        await ws.send(warmup)
        assert json.loads(await ws.recv())["type"] == "response.created"
    async with httpx.AsyncClient(base_url=emulator.url) as http:
        await http.post("/responses", json=_request("nothing here"))
        await http.post("/responses", json=_request(line))
        chat = {"model": "spark", "messages": [{"role": "user", "content": f"Ünïcode {CANARY}\n"}]}
        await http.post("/chat/completions", json=chat)
        await http.post("/responses", content=b"not json " + CANARY.encode())  # refused, still checked
    stats = (await _control(emulator, "GET", "stats")).json()
    assert stats["canary_checked"] == 5
    hits = stats["canary_hits"]
    assert [(h["canary"], h["request"], h["number"]) for h in hits] == [
        (CANARY, "WebSocket message", 1),
        (CANARY, "POST /v1/responses", 3),
        (CANARY, "POST /v1/chat/completions", 4),
        (CANARY, "POST /v1/responses", 5),
    ]
    # About 80 characters of the request (as sent: JSON) around the canary.
    at = warmup.index(CANARY)
    assert hits[0]["excerpt"] == warmup[at - 40 : at + len(CANARY) + 40]  # as sent: JSON
    assert hits[0]["excerpt"].startswith("xxx") and hits[0]["excerpt"].endswith('\\"\\n"}')
    assert "code " + CANARY + "\\n" in hits[2]["excerpt"]


@pytest.mark.asyncio
async def test_a_canary_json_escapes_is_found_as_sent(emulator):
    canary = 'quote"and\\back-canary'
    await _control(emulator, "POST", "canaries", {"canaries": [canary]})
    async with httpx.AsyncClient(base_url=emulator.url) as http:
        await http.post("/responses", json=_request(f"a {canary} b"))
    (hit,) = (await _control(emulator, "GET", "stats")).json()["canary_hits"]
    assert hit["canary"] == canary and json.dumps(canary)[1:-1] in hit["excerpt"]


@pytest.mark.asyncio
async def test_a_canary_is_found_however_a_client_escapes_it(emulator):
    """A canary with slashes (a webhook's path, base64) sent as JSON with `\\/`, or
    percent-encoded in a URL: found all the same."""
    canary = "zzUnit/canary+path=9"
    await _control(emulator, "POST", "canaries", {"canaries": [canary]})
    async with httpx.AsyncClient(base_url=emulator.url) as http:
        await http.post("/responses", content=b'{"model": "spark", "input": "a zzUnit\\/canary+path=9 b"}')
        await http.post("/responses", json=_request("see https://x.example/?q=zzUnit%2Fcanary%2Bpath%3D9"))
        await http.post("/responses", json=_request("zzUnit canary path 9"))
    hits = (await _control(emulator, "GET", "stats")).json()["canary_hits"]
    assert [hit["number"] for hit in hits] == [1, 2]


@pytest.mark.asyncio
async def test_reset_clears_the_hits_and_keeps_the_canaries(emulator):
    await _control(emulator, "POST", "canaries", {"canaries": [CANARY]})
    async with httpx.AsyncClient(base_url=emulator.url) as http:
        await http.post("/responses", json=_request(CANARY))
        assert (await _control(emulator, "GET", "stats")).json()["canary_hits"]
        await _control(emulator, "POST", "reset")
        stats = (await _control(emulator, "GET", "stats")).json()
        assert stats["canary_hits"] == [] and stats["canary_checked"] == 0
        assert (await _control(emulator, "GET", "canaries")).json() == {"canaries": [CANARY]}
        await http.post("/responses", json=_request(CANARY))
    assert len((await _control(emulator, "GET", "stats")).json()["canary_hits"]) == 1


@pytest.mark.asyncio
async def test_control_requests_are_not_checked_and_bad_lists_are_refused(emulator):
    assert (await _control(emulator, "POST", "canaries", {"canaries": "one"})).status_code == 400
    assert (await _control(emulator, "POST", "canaries", {"canaries": ["short"]})).status_code == 400
    assert (await _control(emulator, "POST", "canaries", {"canaries": [CANARY]})).status_code == 200
    stats = (await _control(emulator, "GET", "stats")).json()
    assert stats["canary_checked"] == 0 and stats["canary_hits"] == []
