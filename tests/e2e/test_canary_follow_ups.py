"""The canary net on the follow-ups in other files: what they read of other files goes
through the one guard.

A follow-up question shows another file's places with the line before and after each;
a key on such a line is a canary (tests/canaries.py: the emulator records any request
holding it and the `emulator` fixture fails the test) and must be redacted; a place
that holds a key itself is not shown at all (it would be rewritten); a file git
ignores, or a link out of the workspace, that uses the renamed name is never read.
"""

from __future__ import annotations

import os
import secrets
import string

from tests.e2e.conftest import start, wait_status
from tests.e2e.test_context import _index_ready
from tests.e2e.test_follow_ups import _follow_up_action, _offered_in, _rename_area, _run

# Built in pieces and new each run: no secret scanner flags this file.
TOKEN = "sk" + "-proj-" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(44))
SHAPES = "def area(r):\n    return 3.14159 * r * r\n\n\ndef double_area(r):\n    return 2 * area(r)\n"
REPORT = f'from pkg.shapes import area\nKEY = "{TOKEN}"\nprint(area(2))\n\n\nprint(area(3), "{TOKEN}")\n'
USER = "from pkg.shapes import area\n\nprint(area(4))\n"
FAST = {"next_edit": {"debounce_ms": 50, "enabled": True}}
QUESTION = "Edited file: "  # nextedit/prompt.py: only a follow-up question says it


async def test_follow_up_questions_hold_no_key_and_read_no_file_that_may_not_be_sent(client, emulator, tmp_path):
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "shapes.py").write_text(SHAPES)
    (root / "report.py").write_text(REPORT)
    (root / "ignored.py").write_text(USER.replace("area(4)", f'area(4), "{TOKEN}"'))
    (root / ".gitignore").write_text("/ignored.py\n")
    outside = tmp_path / "outside.py"
    outside.write_text(USER.replace("area(4)", f'area(5), "{TOKEN}"'))
    os.symlink(outside, root / "linked.py")
    emulator.set_canaries({**emulator.canaries, TOKEN: "key in a follower file"})
    await start(client, emulator, root, options=FAST)
    await wait_status(client, lambda fast: fast["state"] == "ready")
    await _index_ready(client)
    shapes = (root / "pkg" / "shapes.py").as_uri()
    client.editor.open(shapes, SHAPES)
    _rename_area(client, shapes)
    await _offered_in(client, shapes)
    action = await _follow_up_action(client, shapes)
    # report.py's three places; the one on line 6 holds the key: counted, never shown
    assert action.title == "Spark: update 3 uses of area in 1 file"
    result = await _run(client, action)
    assert result["applied"] is True and [f["path"] for f in result["files"]] == ["report.py"], result
    text = (root / "report.py").read_text()
    assert text.startswith("from pkg.shapes import circle_area\n") and "print(circle_area(2))" in text
    assert f'print(area(3), "{TOKEN}")' in text  # the place with a key: not asked about, not changed
    questions = [p for p in emulator.prompts() if QUESTION in p]
    assert len(questions) == 1 and "print(area(2))" in questions[0] and "[REDACTED]" in questions[0]
    assert all(TOKEN not in p for p in emulator.prompts()) and emulator.canary_hits() == []
