"""Real edits answered exactly are applied exactly: the reply checks accept them.

The corpus (tests/real_edits.py) holds small edits from public projects' histories;
each one, answered with its true new region as the protocol asks, must come out of the
rewrite tail's reader byte for byte, and parse; answered as a patch (the apply_patch
tool's diff, or V4A text), it must be applied byte for byte. The shapes below are the ones the
checks once refused (a function split in two, a deletion at the region's first line,
new code above or below the region that shares a few lines with its neighbours), and
beside them what the checks still refuse.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from sparkls.context.prompt import fence_tag
from sparkls.edits.patch import region_from_diff, region_from_reply
from sparkls.edits.reply import RegionView, new_region_text
from sparkls.edits.tail import read_region, rewrite
from sparkls.emulator.patches import v4a_diff, v4a_text
from sparkls.errors import NoUsableReply
from tests.real_edits import STRATA, RealEdit, load


def whole_region_reply(new_region: str, language_id: str) -> str:
    """The reply an exact model writes: the new region in one fence, longer than any
    fence line the region holds."""
    runs = [len(m.group(1)) for m in re.finditer(r"^[ \t]*(`{3,})", new_region, re.M)]
    fence = "`" * max([3, *(n + 1 for n in runs)])
    return f"{fence}{fence_tag(language_id)}\n{new_region.removesuffix(chr(10))}\n{fence}\n"


def read(doc: str, old: str, new: str) -> str:
    start = doc.index(old)
    return new_region_text(whole_region_reply(new, "python"), RegionView(doc, start, start + len(old), "python"))


# A module whose functions share lines with each other, as real code does.
MODULE = '''\
import json


def load(path):
    result = []
    with open(path) as f:
        for line in f:
            result.append(json.loads(line))
    return result


def dump(rows, path):
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\\n")
    return len(rows)


def count(path):
    return len(load(path))
'''
DUMP = MODULE[MODULE.index("def dump") : MODULE.index("\n\ndef count") + 1]
LOAD = MODULE[MODULE.index("def load") : MODULE.index("\n\ndef dump") + 1]


def test_a_function_split_in_two():
    """A helper split out above the function, sharing lines with the function before it."""
    new = '''\
def _lines(rows):
    result = []
    for row in rows:
        result.append(json.dumps(row) + "\\n")
    return result


def dump(rows, path):
    with open(path, "w") as f:
        f.writelines(_lines(rows))
    return len(rows)
'''
    assert read(MODULE, DUMP, new) == new


def test_a_new_function_above_the_region():
    """A new function written above the region whose lines the function before it also has."""
    new = '''\
def load_all(paths):
    result = []
    for path in paths:
        result.extend(load(path))
    return result


''' + DUMP
    assert read(MODULE, DUMP, new) == new


def test_a_new_function_below_the_region():
    """A new function written below the region whose lines the function after it also has."""
    new = LOAD + '''

def count_all(paths):
    return sum(len(load(path)) for path in paths)
'''
    assert read(MODULE, LOAD, new) == new


STATEMENTS = '''\
from app import Transport


async def hello(scope, receive, send):
    async def hello_again(scope, receive, send):
        await send({"type": "http.response.start", "status": 200})

    await hello_again(scope, receive, send)


async def test_hello():
    transport = Transport(app=hello)
    assert transport
'''


def test_a_deletion_at_the_region_start():
    """The region's first statement deleted: the rest is the region, not a part of it."""
    new = STATEMENTS.replace("from app import Transport\n\n\n", "").replace("Transport(", "app.Transport(")
    assert read("import app\n" + STATEMENTS, STATEMENTS, new) == new


def test_a_deletion_at_the_region_end():
    """The region's last line deleted."""
    new = DUMP.replace("    return len(rows)\n", "")
    assert read(MODULE, DUMP, new) == new


def test_an_added_decorator():
    new = "@functools.cache\n" + LOAD
    assert read(MODULE, LOAD, new) == new


def test_a_moved_block():
    """The `with` block moved above a statement of the region."""
    old = LOAD
    new = '''\
def load(path):
    with open(path) as f:
        for line in f:
            result.append(json.loads(line))
    result = []
    return result
'''
    assert read(MODULE, old, new) == new


@pytest.mark.parametrize(
    ("old", "reply"),
    [
        # The end of the function before, echoed with a change, then the region.
        (DUMP, "        for line in f:\n            result.append(json.loads(line.strip()))\n    return result\n\n\n" + DUMP),
        # The region, then the function after it echoed with a change.
        (LOAD, LOAD + '\n\ndef dump(rows, path):\n    with open(path, "w") as f:\n        for row in rows:\n'
         "            f.write(json.dumps(row))\n    return len(rows)\n"),
    ],
    ids=["above", "below"],
)
def test_an_echo_of_the_neighbours_with_a_change_is_still_refused(old: str, reply: str):
    """Lines that follow the region's neighbours in order, changed: an echo, refused whole."""
    with pytest.raises(NoUsableReply, match="echoed lines from outside the editable region"):
        read(MODULE, old, reply)


def test_only_an_inner_line_is_still_refused():
    """A reply holding only the changed inner line is a part of the region, not all of it."""
    with pytest.raises(NoUsableReply, match="only part of the region"):
        read(MODULE, LOAD, "            result.append(json.loads(line.strip()))")


def test_code_added_at_the_end_of_a_file_keeps_its_final_line_break():
    """An empty region at the end of a file (a cursor after its last line) gets whole lines."""
    doc = "x = 1\n"
    view = RegionView(doc, len(doc), len(doc), "python")
    assert new_region_text(whole_region_reply("y = 2\n", "python"), view) == "y = 2\n"


# ---------------------------------------------------------------- the corpus


def test_the_corpus_is_large_and_varied():
    """At least 150 edits from 5 projects, in Python, TypeScript/JavaScript and Go, in every size stratum."""
    edits = load()
    assert len(edits) >= 150
    assert len({e.project for e in edits}) >= 5
    languages = {e.language_id for e in edits}
    assert {"python", "go"} <= languages and languages & {"typescript", "javascript"}
    assert set(Counter(e.stratum for e in edits)) == set(range(len(STRATA)))


@pytest.mark.parametrize("edit", load(), ids=lambda e: e.name)
def test_a_real_edit_answered_whole_is_applied_exactly(edit: RealEdit):
    """The true new region, answered whole, is read byte for byte and parses where the old did."""
    view = edit.view()
    new = read_region(whole_region_reply(edit.new_region, edit.language_id), view, edit.path)
    assert new == edit.new_region
    rewrite(edit.document(), edit.region[0], edit.old_region, new)


@pytest.mark.parametrize("edit", [e for e in load() if e.old_region.strip()], ids=lambda e: e.name)
def test_a_real_edit_answered_as_a_patch_is_applied_exactly(edit: RealEdit):
    """The true edit as the apply_patch tool's diff and as V4A text, with 3 quoted lines
    each side and with the fewest that place it, is applied byte for byte."""
    view = RegionView(edit.text, *edit.region, edit.language_id)
    for context in (3, 0):
        diff = v4a_diff(edit.old_region, edit.new_region, context)
        assert diff is not None
        assert region_from_diff(diff, view, path=edit.path, named=edit.path) == edit.new_region
        text = v4a_text(edit.path, edit.old_region, edit.new_region, context)
        assert text is not None
        assert region_from_reply(text, view, path=edit.path) == edit.new_region
