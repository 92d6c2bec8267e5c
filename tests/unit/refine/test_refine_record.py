"""The last edit's region followed through later changes (refine/record.py), and the refine turn."""

from __future__ import annotations

import pytest

from sparkls.edits.diff import Replacement
from sparkls.errors import NothingToRefine
from sparkls.guard import Draft, FromFile
from sparkls.refine.prompt import refine_drafts, refine_sections
from sparkls.refine.record import KEPT_TURNS, LastEdit, conversation, follow, locate, settled
from bench.kit.sealing import seal

BEFORE = "x = 1\ndef f():\n    return 😀 + 1\ny = 2\n"
START = BEFORE.index("def")
END = BEFORE.index("y = 2")
OLD = BEFORE[START:END]
NEW = "def f():\n    return 😀 + 2\n"


def _record(**changes) -> LastEdit:
    fields = dict(
        uri="file:///a.py", path="a.py", language_id="python", version=1, start=START, end=END, text=NEW,
        before=OLD, instructions="Edit.", history=(("user", "first"), ("assistant", "```\n" + NEW + "```")), chain=None,
    )
    fields.update(changes)
    return LastEdit(**fields)


def _apply(text: str, changes: list[Replacement]) -> str:
    for c in changes:
        text = text[: c.start] + c.text + text[c.end :]
    return text


EDIT = Replacement(BEFORE.index("1\ny"), BEFORE.index("1\ny") + 1, "2")  # the edit's own change


def test_an_applied_edit_is_found_unchanged():
    """After the edit's own change, the region reads as the edit left it: nothing else to send."""
    after = _apply(BEFORE, [EDIT])
    where = locate(_record(), after, [EDIT])
    assert (where.text, where.changed) == (NEW, False)


def test_typing_above_moves_the_region():
    """A line typed above the region moves it; its text is unchanged."""
    changes = [EDIT, Replacement(0, 0, "# 名前\n")]
    where = locate(_record(), _apply(BEFORE, changes), changes)
    assert where.start == START + len("# 名前\n") and not where.changed


def test_typing_inside_the_region_is_sent_as_the_current_text():
    """A change inside the region makes it `changed`, with the current text."""
    applied = _apply(BEFORE, [EDIT])
    inside = Replacement(applied.index("    return"), applied.index("    return"), "    # note\n")
    where = locate(_record(), _apply(applied, [inside]), [EDIT, inside])
    assert where.changed and where.text == "def f():\n    # note\n    return 😀 + 2\n"


def test_an_edit_not_applied_or_undone_is_nothing_to_refine():
    """A region that still reads as before the edit: the edit is not in the document."""
    with pytest.raises(NothingToRefine, match="not in the document"):
        locate(_record(), BEFORE, [])


def test_deleted_lines_are_nothing_to_refine():
    """When the region's lines were deleted, there is nothing to refine."""
    applied = _apply(BEFORE, [EDIT])
    record = settled(_record(), 2, locate(_record(), applied, [EDIT]))
    gone = Replacement(START, START + len(NEW), "")
    with pytest.raises(NothingToRefine, match="replaced"):
        locate(record, _apply(applied, [gone]), [gone])


def test_history_too_far_back_is_nothing_to_refine():
    """Changes the document no longer remembers: nothing to refine, said so."""
    with pytest.raises(NothingToRefine, match="changed too much"):
        locate(_record(), BEFORE, None)


def test_settled_record_keeps_typing_at_its_edge_outside():
    """Once settled, a line typed right below the region stays outside it."""
    assert follow(10, 20, Replacement(20, 20, "x\n"), edges_inside=False) == (10, 20)
    assert follow(10, 20, Replacement(20, 20, "x\n"), edges_inside=True) == (10, 22)
    assert follow(10, 20, Replacement(10, 10, "ab"), edges_inside=False) == (12, 22)


def test_conversation_keeps_the_first_exchange_and_the_latest():
    """A long chain of refines keeps the original request and reply, and the latest turns."""
    history: tuple[tuple[str, str], ...] = ()
    for n in range(KEPT_TURNS + 4):
        history = conversation(history, f"ask {n}", f"answer {n}")
    assert history[:2] == (("user", "ask 0"), ("assistant", "answer 0"))
    assert history[-1] == ("assistant", f"answer {KEPT_TURNS + 3}")
    assert len(history) == 2 * (KEPT_TURNS + 1)


def test_refine_turn_carries_the_changed_region_between_markers():
    """The changed region goes between the region markers; an unchanged one is not sent."""
    def turn(current: str | None) -> str:
        shown = FromFile(current, "a.py", "file:///w/a.py") if current is not None else None
        return seal(Draft("", refine_sections(_record(), "REPLACE 2 WITH 3", shown))).input

    changed = turn("def f():\n    return 2\n")
    assert "<|editable_region_start|>\ndef f():\n    return 2\n<|editable_region_end|>" in changed
    assert "<|editable_region_start|>" not in turn(None)


def test_refine_prompts_short_and_full():
    """The short prompt is the turn alone; the full one carries the conversation before it."""
    short, full = (seal(d) for d in refine_drafts(_record(), "shorter", None))
    assert short.history == () and full.history == _record().history and short.input == full.input
    assert "shorter" in short.input
