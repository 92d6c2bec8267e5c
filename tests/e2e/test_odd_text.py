"""Any text an editor can send works (issue 12, item 3): lone surrogates, NUL, a 1 MB
line, mixed line endings — an exact edit or a clear refusal, never an internal error."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import run_edit, start

FUNC = "def area(radius):\n    return 3.14 * raduis ** 2\n"
FIX = "REPLACE raduis WITH radius"
LONE = "\ud83d"  # half of an emoji, as a half-pasted one arrives


def _case(before: str, after: str = "", func: str = FUNC) -> tuple[str, int]:
    """A file: `before`, the function, `after`; and the line of the function's body."""
    return before + func + after, before.count("\n") + 1


CASES = {
    "lone surrogate elsewhere": _case(f"# broken {LONE} emoji\n\n\n"),
    "lone surrogate in the region": _case("", func=f"def area(radius):\n    s = '{LONE}'\n    return 3.14 * raduis ** 2\n"),
    "surrogate pair split in two": _case("# \ud83d\ude00 ok\n\n\n"),
    "NUL byte elsewhere": _case("DATA = 'a\x00b'\n\n\n"),
    "a 1 MB line elsewhere": _case("BLOB = '" + "x" * 1_000_000 + "'\n\n\n"),
    "mixed line endings": _case("import math\r\n\r\n\r\n", "\r\nx = 1\r"),
    "CR only": _case("", func=FUNC.replace("\n", "\r")),
}


@pytest.mark.parametrize("name", list(CASES))
async def test_odd_text_edits_exactly(client, emulator, tmp_path, name):
    """The edit lands exactly (only the fix changes; the odd characters stay as they were)."""
    text, line = CASES[name]
    if name == "lone surrogate in the region":
        line += 1
    path = tmp_path / "odd.py"
    path.write_text("")
    await start(client, emulator, tmp_path)
    client.editor.open(path.as_uri(), text)
    result = await run_edit(client, path.as_uri(), line, FIX)
    assert result["applied"] is True, str(result)
    assert client.editor.text(path.as_uri()) == text.replace("raduis", "radius")


async def test_a_1mb_line_as_the_region(client, emulator, tmp_path):
    """Editing a 1 MB line itself is refused, saying why; nothing is sent."""
    text = "BLOB = '" + "x" * 1_000_000 + " raduis'\n\n\n" + FUNC
    path = tmp_path / "blob.py"
    path.write_text("")
    await start(client, emulator, tmp_path)
    client.editor.open(path.as_uri(), text)
    before = emulator.stats()["responses"]
    result = await run_edit(client, path.as_uri(), 0, FIX)
    assert result["applied"] is False and "1,000,017 characters" in result["error"]["message"]
    assert client.editor.text(path.as_uri()) == text and emulator.stats()["responses"] == before


def _big(functions: int) -> str:
    return "".join(f"def f{k}(x):\n    return x + {k}\n\n\n" for k in range(functions)) + FUNC


async def test_a_file_over_the_size_limit_gets_a_line_window(client, emulator, tmp_path):
    """Over context.max_file_bytes: one message on open, and an edit there still lands exactly."""
    text = _big(200_000)  # about 6 MB
    path = tmp_path / "huge.py"
    path.write_text("")
    await start(client, emulator, tmp_path, options={"context": {"maxFileBytes": 1_000_000}})
    client.editor.open(path.as_uri(), text)
    message = await client.wait_for_notification("window/showMessage")
    assert "huge.py is over context.max_file_bytes (1 MB)" in message.message
    line = text.count("\n") - 1
    result = await run_edit(client, path.as_uri(), line, FIX)
    assert result["applied"] is True, result
    assert client.editor.text(path.as_uri()) == text.replace("raduis", "radius")


async def test_a_big_file_is_edited_right_after_it_opens(client, emulator, tmp_path):
    """Under the limit but big: the first request waits for the background parse, then lands exactly."""
    text = _big(30_000)  # about 900 KB
    path = tmp_path / "big.py"
    path.write_text("")
    await start(client, emulator, tmp_path)
    client.editor.open(path.as_uri(), text)
    result = await run_edit(client, path.as_uri(), text.count("\n") - 1, FIX)
    assert result["applied"] is True and result["region"]["start_line"] == text.count("\n") - 2, result
    assert client.editor.text(path.as_uri()) == text.replace("raduis", "radius")
