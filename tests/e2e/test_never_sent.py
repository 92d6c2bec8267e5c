"""What must never leave the machine: secret files, ignored files, secrets in code."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.e2e.conftest import run_edit, start

CODE = "def area(radius):\n    return 3.14 * raduis ** 2\n"
FAKE_KEY = "sk-" + "proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2"  # built in pieces: no scanner flags this file


def _refusal(client) -> str:
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert len(errors) == 1, client.messages
    return errors[0]


@pytest.mark.parametrize(
    ("relative", "setup", "options", "reason"),
    [
        (".env.local", None, None, ".env*"),
        ("deploy/prod.pem", None, None, "*.pem"),
        ("build/gen.py", (".gitignore", "build/\n"), None, ".gitignore"),
        ("vendor/lib.py", None, {"context": {"exclude": ["vendor/"]}}, "vendor/"),
    ],
)
async def test_excluded_files_are_never_sent(client, emulator, tmp_path, relative, setup, options, reason):
    """Edits in excluded files are refused before anything goes to the model."""
    if setup:
        (tmp_path / setup[0]).write_text(setup[1])
    path = tmp_path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CODE)
    await start(client, emulator, tmp_path, options=options)
    client.editor.open(path.as_uri(), CODE)
    result = await run_edit(client, path.as_uri(), 1, "REPLACE raduis WITH radius")
    assert result["applied"] is False
    message = _refusal(client)
    assert "does not send" in message and reason in message
    assert emulator.stats()["responses"] == 0
    assert client.editor.text(path.as_uri()) == CODE


async def test_region_holding_a_secret_is_not_sent(client, emulator, tmp_path):
    """A region with a key in it is refused with a clear message; nothing is sent."""
    code = f'def client():\n    key = "{FAKE_KEY}"\n    return connect(key)\n'
    path = tmp_path / "client.py"
    path.write_text(code)
    await start(client, emulator, tmp_path)
    client.editor.open(path.as_uri(), code)
    result = await run_edit(client, path.as_uri(), 2, "REPLACE connect WITH open_client")
    assert result["applied"] is False and "looks like a secret" in _refusal(client)
    assert emulator.stats()["responses"] == 0
