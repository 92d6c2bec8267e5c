"""The real server with its cache folder on a read-only or a full filesystem (issue 27,
items 2 and 7): a tmpfs mounted over `XDG_CACHE_HOME` in a private mount namespace of
the server's own (`unshare -rm`, where the machine allows it). The settings are pulled,
an edit is applied, and the user is told once, in plain words, which folder and what
to do, however many writes fail after."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start, wait_status
from tests.e2e.editor import make_editor_client
from tests.e2e.testbound import end_session

SAMPLE = "def area(raduis):\n    return 3.14 * raduis ** 2\n"
# many files, so that a full disk is met while the index is written, not only when opened
MODULES = {f"m{n}.py": "".join(f"def f{n}_{k}(x):\n    return x + {k}\n\n" for k in range(200)) for n in range(20)}


def _can_mount() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not _can_mount(), reason="no private mount namespace here (`unshare -rm` refused)")


@pytest.mark.parametrize("mount, told", [
    ("ro,size=1m", ["the workspace index is off", "Read-only file system", "Make ", "writable"]),
    ("size=96k", ["the workspace index cannot be written", "is full", "free some space"]),
], ids=["read-only", "full"])
async def test_a_cache_folder_that_cannot_take_the_index_stops_nothing(emulator, tmp_path, mount, told):
    root, cache = tmp_path / "w", tmp_path / "cache"
    root.mkdir()
    cache.mkdir()
    for name, text in MODULES.items():
        (root / name).write_text(text)
    client = make_editor_client()
    script = f'mount -t tmpfs -o {mount} tmpfs "$XDG_CACHE_HOME" && exec "$0" -m sparkls --stdio'
    await client.start_io("unshare", "-rm", "sh", "-c", script, sys.executable,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    try:
        # the tier only in workspace/configuration: pulled whatever the index does
        client.set_configuration({"fast": {"baseUrl": emulator.url, "apiKey": emulator.api_key}}, section="sparkls")
        await start(client, emulator, root, editor="neovim", fast={"baseUrl": "http://127.0.0.1:9/v1"})
        await wait_status(client, lambda s: s["state"] == "ready" and s["host"] == emulator.host)
        sample = (root / "a.py").as_uri()
        client.editor.open(sample, SAMPLE)
        assert (await run_edit(client, sample, 1, "REPLACE raduis WITH radius"))["applied"] is True
        async with asyncio.timeout(60):
            while not [m for m in client.messages if "workspace index" in m.message]:
                await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
        client.editor.type_text(sample, 0, 0, "# typing\n")  # more writes the index cannot take
        assert (await run_edit(client, sample, 2, "REPLACE radius WITH r"))["applied"] is True
    finally:
        await end_session(client)
    (message,) = [m.message for m in client.messages if "workspace index" in m.message]
    assert all(words in message for words in told), message
    assert str(cache) in message
