"""The canary net on next edit: a key in the file never reaches the model unredacted.

A next-edit question shows each candidate region with the line before and the line
after it; those lines come from the file like the region, and a key on one of them
must be redacted as anywhere else. The key here is a canary (tests/canaries.py): the
emulator records any request holding it and the `emulator` fixture fails the test,
besides the test's own check of the questions.

The leak was real: up to d4787ce the lines around a candidate were sent as they were
(both tests fail there on the canary); 5957f24 redacts every part of a request that
comes from a file.
"""

from __future__ import annotations

import asyncio
import secrets
import string

from tests.e2e.conftest import start, wait_emulator, wait_status

# Built in pieces and new each run: no secret scanner flags this file.
TOKEN = "sk" + "-proj-" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(44))
SOURCE = f'''AWS_ACCESS = "read-only"
HOST = "db.internal"


def connect(user):
    key = AWS_ACCESS
    return open_client(user, key, HOST)


def open_client(user, key, host):
    token = "{TOKEN}"
    return (user, key, host, token)
'''
OPTIONS = {"next_edit": {"enabled": True, "debounce_ms": 50}}
QUESTION = "Recent edits (oldest first):"  # nextedit/prompt.py: only a next-edit question says it
QUIET_SECONDS = 3.0  # after the last keystroke (debounce 50 ms): no question by then, none comes


async def _session(client, emulator, tmp_path, source: str) -> str:
    """The key in `source` is a canary too; next edit on; `source` open as client.py."""
    emulator.set_canaries({**emulator.canaries, TOKEN: "key in the open file"})
    path = tmp_path / "client.py"
    path.write_text(source)
    await start(client, emulator, tmp_path, options=OPTIONS)
    await wait_status(client, lambda fast: fast["state"] == "ready")
    client.editor.open(path.as_uri(), source)
    return path.as_uri()


async def _questions(emulator, *, required: bool) -> list[str]:
    """The next-edit questions the emulator received, once one was answered; with
    `required` False, none after QUIET_SECONDS is an answer too."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (30 if required else QUIET_SECONDS)
    while loop.time() < deadline:
        asked = [p for p in emulator.prompts() if QUESTION in p]
        if asked and emulator.stats()["streaming"] == 0:
            return asked
        await asyncio.sleep(0.02)
    assert not required, "no next-edit question reached the emulator"
    return []


def _holding_the_key(asked: list[str]) -> str | None:
    """About 80 characters around the key in the first question that holds it."""
    for text in asked:
        if TOKEN in text:
            at = text.index(TOKEN)
            return text[max(0, at - 40) : at + len(TOKEN) + 40]
    return None


async def test_a_renamed_local_does_not_send_the_key_in_another_function(client, emulator, tmp_path):
    """Rename connect's local `key` to `k`, both places, one incremental didChange each.

    `open_client` has a parameter `key` and the key on the line below it. Up to d4787ce
    it was a candidate (`def open_client(user, key, host):` with the key line after
    it, unredacted); since 84831fe a renamed local offers no other function, and the
    rename may ask nothing at all. Whatever is asked must not hold the key."""
    uri = await _session(client, emulator, tmp_path, SOURCE)
    client.editor.replace_text(uri, 5, 4, 7, "k")
    use = SOURCE.splitlines()[6].index("key")
    client.editor.replace_text(uri, 6, use, use + 3, "k")
    assert client.editor.text(uri).splitlines()[5:7] == ["    k = AWS_ACCESS", "    return open_client(user, k, HOST)"]
    shown = _holding_the_key(await _questions(emulator, required=False))
    assert shown is None, f"a next-edit question holds the key: ...{shown!r}..."


async def test_the_line_before_a_candidate_is_redacted(client, emulator, tmp_path):
    """Rename connect's local `key` at its assignment only: its use two lines down is the
    candidate, and the line before it holds the key. The question is asked; the key
    in it is `[REDACTED]`."""
    source = SOURCE.replace(
        "    return open_client(user, key, HOST)\n",
        f'    token = "{TOKEN}"\n    return open_client(user, key, HOST, token)\n',
    )
    uri = await _session(client, emulator, tmp_path, source)
    client.editor.replace_text(uri, 5, 4, 7, "k")
    asked = await _questions(emulator, required=True)
    shown = _holding_the_key(asked)
    assert shown is None, f"the next-edit question holds the key: ...{shown!r}..."
    assert any("open_client(user, key, HOST, token)" in text and '    token = "[REDACTED]"' in text for text in asked), asked


async def test_a_newer_question_steered_in_is_redacted(client, emulator, tmp_path):
    """The user types on while the question streams: the newer question goes as a
    `response.steer` into it (WebSocket lanes), through the same guard. The canary net
    checks that message too; the key in it is redacted."""
    source = SOURCE.replace(
        "    return open_client(user, key, HOST)\n",
        f'    token = "{TOKEN}"\n    return open_client(user, key, HOST, token)\n',
    )
    uri = await _session(client, emulator, tmp_path, source)
    emulator.set_faults(tokens_per_second=20)  # the first question streams for seconds
    client.editor.replace_text(uri, 5, 4, 7, "k")
    await wait_emulator(emulator, lambda s: s["responses"] >= 1 and s["deltas"] >= 2)
    client.editor.replace_text(uri, 5, 4, 5, "k2")
    stats = await wait_emulator(emulator, lambda s: s["steers_accepted"] >= 1)
    assert stats["canary_checked"] >= 3 and stats["canary_hits"] == []
