"""Rebasing an edit made against an old version onto the text the user has now."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sparkls.documents.positions import Position
from sparkls.documents.store import TextChange
from sparkls.edits.diff import Replacement, apply_replacements, diff_replacements
from sparkls.edits.rebase import WholeText, offset_changes, rebase
from sparkls.errors import DocumentChanged, EditError, StaleEdit

TEXT = "import os\n\ndef f(x):\n    return x\n\nprint(f(1))\n"
REGION = (TEXT.index("def"), TEXT.index("\nprint") - 1)  # the function, up to its last "\n"
EDIT = [Replacement(TEXT.index("x\n"), TEXT.index("x\n") + 1, "x + 1")]


def apply_changes(text, changes):
    for c in changes:
        text = c.text if isinstance(c, WholeText) else text[: c.start] + c.text + text[c.end :]
    return text


def rebased_text(text, region, edit, changes):
    return apply_replacements(apply_changes(text, changes), rebase(text, *region, edit, changes))


def test_no_changes_return_the_edit_unchanged():
    """With no typing in between, the edit is applied as computed."""
    assert rebase(TEXT, *REGION, EDIT, []) == EDIT


def test_change_before_the_region_shifts_the_edit():
    """Typing above the function moves the edit by what was typed."""
    changes = [Replacement(0, 0, "import sys\n")]
    assert rebase(TEXT, *REGION, EDIT, changes) == [Replacement(EDIT[0].start + 11, EDIT[0].end + 11, "x + 1")]
    assert rebased_text(TEXT, REGION, EDIT, changes) == "import sys\n" + apply_replacements(TEXT, EDIT)


def test_deletion_before_the_region_shifts_the_edit_back():
    """Deleting a line above the function moves the edit up."""
    changes = [Replacement(0, 10, "")]
    assert rebased_text(TEXT, REGION, EDIT, changes) == apply_replacements(TEXT, EDIT)[10:]


def test_change_after_the_region_leaves_the_edit():
    """Typing below the function does not move the edit."""
    end = len(TEXT)
    changes = [Replacement(end, end, "print(f(2))\n")]
    assert rebase(TEXT, *REGION, EDIT, changes) == EDIT
    assert rebased_text(TEXT, REGION, EDIT, changes) == apply_replacements(TEXT, EDIT) + "print(f(2))\n"


def test_change_inside_the_region_refuses():
    """Typing inside the function the model rewrote drops the edit."""
    at = TEXT.index("return")
    with pytest.raises(StaleEdit):
        rebase(TEXT, *REGION, EDIT, [Replacement(at, at, "  ")])


def test_change_overlapping_the_region_start_refuses():
    """A deletion that eats the first characters of the region drops the edit."""
    with pytest.raises(StaleEdit):
        rebase(TEXT, *REGION, EDIT, [Replacement(REGION[0] - 2, REGION[0] + 1, "")])


def test_insertion_at_the_region_start_is_before_it():
    """A line typed right above the function being edited moves the edit down."""
    changes = [Replacement(REGION[0], REGION[0], "@cache\n")]
    assert rebased_text(TEXT, REGION, EDIT, changes) == apply_changes(apply_replacements(TEXT, EDIT), changes)


def test_insertion_at_the_region_end_is_after_it():
    """Text typed right at the region's end leaves the edit where it is."""
    changes = [Replacement(REGION[1], REGION[1], "\n\ndef g():\n    pass")]
    assert rebase(TEXT, *REGION, EDIT, changes) == EDIT


def test_deletion_ending_at_the_region_start_is_before_it():
    """Deleting the blank line right above the function moves the edit up."""
    changes = [Replacement(REGION[0] - 1, REGION[0], "")]
    assert rebased_text(TEXT, REGION, EDIT, changes) == apply_changes(apply_replacements(TEXT, EDIT), changes)


def test_insertion_into_an_empty_region_refuses():
    """An empty region's point is both its start and its end: typing there is ambiguous."""
    with pytest.raises(StaleEdit):
        rebase(TEXT, 5, 5, [Replacement(5, 5, "x")], [Replacement(5, 5, "y")])


def test_one_character_clear_of_the_region_is_rebased():
    """A change ending one character before the region is not touching it."""
    changes = [Replacement(REGION[0] - 2, REGION[0] - 1, "\n\n")]
    assert rebased_text(TEXT, REGION, EDIT, changes) == apply_changes(apply_replacements(TEXT, EDIT), changes)


def test_whole_text_replacement_refuses():
    """A change without a range replaces everything, so nothing can follow it."""
    with pytest.raises(StaleEdit):
        rebase(TEXT, *REGION, EDIT, [WholeText(TEXT)])


def test_later_change_is_read_against_the_text_after_earlier_ones():
    """A change that only reaches the region after an earlier insertion refuses."""
    # Against the original text [REGION[0]+3, +4) is inside; after 5 characters are
    # inserted above, [REGION[0]-2, REGION[0]-1) is clear of the moved region.
    clear = [Replacement(0, 0, "#abc\n"), Replacement(REGION[0] + 3, REGION[0] + 4, "")]
    assert rebased_text(TEXT, REGION, EDIT, clear) == apply_changes(apply_replacements(TEXT, EDIT), clear)
    touching = [Replacement(0, 0, "#abc\n"), Replacement(REGION[0] + 6, REGION[0] + 6, "x")]
    with pytest.raises(StaleEdit) as info:
        rebase(TEXT, *REGION, EDIT, touching)
    assert info.value.change_index == 1


def test_no_op_change_is_ignored():
    """An empty change inside the region changes nothing, so the edit stands."""
    at = TEXT.index("return")
    assert rebase(TEXT, *REGION, EDIT, [Replacement(at, at, "")]) == EDIT


def test_refusal_has_a_message_a_user_can_read():
    """The refusal says what happened and that the buffer was left alone."""
    with pytest.raises(StaleEdit) as info:
        rebase(TEXT, *REGION, EDIT, [WholeText("")])
    assert str(info.value) == "The code changed while Spark was writing; nothing was applied."
    assert isinstance(info.value, DocumentChanged) and isinstance(info.value, EditError)
    assert info.value.code == "stale_edit"


def test_edit_outside_its_region_is_a_caller_bug():
    """A replacement outside the stated region is a ValueError, not a stale edit."""
    with pytest.raises(ValueError):
        rebase(TEXT, *REGION, [Replacement(0, 1, "")], [])


def test_emoji_and_cjk_before_the_region_shift_by_code_points():
    """An emoji and CJK typed above shift the edit by code points, not UTF-16 units."""
    text = "名前 = '😀'\nx = 1\n"
    at = text.index("1")
    edit = [Replacement(at, at + 1, "2")]
    region = (text.index("x"), len(text) - 1)
    changes = offset_changes(text, [TextChange("🎉漢", (Position(0, 9), Position(0, 9)))], "utf-16")
    assert changes == [Replacement(8, 8, "🎉漢")]  # after the closing quote, past the emoji
    assert rebased_text(text, region, edit, changes) == "名前 = '😀'🎉漢\nx = 2\n"


def test_utf8_positions_become_the_same_offsets():
    """The same change given in UTF-8 bytes lands on the same code point."""
    text = "名前 = '😀'\nx = 1\n"
    utf8 = offset_changes(text, [TextChange("!", (Position(0, 15), Position(0, 15)))], "utf-8")
    utf16 = offset_changes(text, [TextChange("!", (Position(0, 9), Position(0, 9)))], "utf-16")
    assert utf8 == utf16 == [Replacement(8, 8, "!")]


def test_crlf_line_added_above_shifts_the_edit():
    """With CRLF line ends, a new line typed above moves the edit by its two-character break."""
    text = "a = 1\r\nb = 2\r\n"
    region = (7, 12)
    edit = [Replacement(11, 12, "3")]
    changes = offset_changes(text, [TextChange("z = 0\r\n", (Position(1, 0), Position(1, 0)))], "utf-16")
    assert rebased_text(text, region, edit, changes) == "a = 1\r\nz = 0\r\nb = 3\r\n"  # right above: before it
    changes = offset_changes(text, [TextChange("z = 0\r\n", (Position(0, 0), Position(0, 0)))], "utf-16")
    assert rebased_text(text, region, edit, changes) == "z = 0\r\na = 1\r\nb = 3\r\n"


def test_no_final_newline_change_at_the_end_is_after_the_region():
    """In a text without a final newline, typing at its very end leaves an earlier edit alone."""
    text = "a = 1\nb = 2"
    region = (0, 5)
    edit = [Replacement(4, 5, "9")]
    changes = offset_changes(text, [TextChange("3", (Position(1, 5), Position(1, 99)))], "utf-16")
    assert changes == [Replacement(11, 11, "3")]
    assert rebased_text(text, region, edit, changes) == "a = 9\nb = 23"


def test_no_final_newline_typing_at_the_end_follows_the_edit():
    """An edit whose region runs to the end of the text: a newline typed there comes after it."""
    text = "a = 1\nb = 2"
    region = (6, len(text))
    edit = [Replacement(10, 11, "5")]
    assert rebased_text(text, region, edit, [Replacement(len(text), len(text), "\n")]) == "a = 1\nb = 5\n"


def test_offset_changes_follow_a_whole_text_replacement():
    """Ranged changes after a full replacement are read against the new text."""
    changes = offset_changes("abc", [TextChange("x\ny"), TextChange("!", (Position(1, 1), Position(1, 1)))], "utf-16")
    assert changes == [WholeText("x\ny"), Replacement(3, 3, "!")]


# Property tests ---------------------------------------------------------------

ALPHABET = st.sampled_from(list("ab \n\r\t") + ["\r\n", "😀", "名", "é", "x"])
TEXTS = st.lists(ALPHABET, max_size=30).map("".join)
NONEMPTY_TEXTS = st.lists(ALPHABET, min_size=1, max_size=30).map("".join)


def moved_region(start, end, changes):
    """The region in the text after `changes`: only changes before it move it."""
    for c in changes:
        if c.end <= start:
            delta = len(c.text) - (c.end - c.start)
            start, end = start + delta, end + delta
    return start, end


def shifted(edit, by):
    return [Replacement(r.start + by, r.end + by, r.text) for r in edit]


@st.composite
def region_edits(draw):
    """A text, a region of it, and an edit inside that region (via the real diff)."""
    text = draw(TEXTS)
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, len(text)))
    new_region = draw(TEXTS)
    edit = [Replacement(r.start + start, r.end + start, r.text) for r in diff_replacements(text[start:end], new_region)]
    return text, start, end, edit


@st.composite
def changes_clear_of(draw, text, start, end):
    """Up to 5 user changes, each against the text left by the previous, none overlapping
    the region (meeting its edge is allowed: before its start, or after its end)."""
    changes = []
    for _ in range(draw(st.integers(1, 5))):
        if start == end:
            break  # an empty region's point is ambiguous; see test_insertion_into_an_empty_region_refuses
        if draw(st.booleans()):  # end of the change <= start
            c_end = draw(st.integers(0, start))
            c_start = draw(st.integers(0, c_end))
        else:  # start of the change >= end
            c_start = draw(st.integers(end, len(text)))
            c_end = draw(st.integers(c_start, len(text)))
        inserted = draw(TEXTS)
        if c_start == c_end and not inserted:
            continue
        change = Replacement(c_start, c_end, inserted)
        if c_end <= start:
            shift = len(inserted) - (c_end - c_start)
            start, end = start + shift, end + shift
        text = apply_changes(text, [change])
        changes.append(change)
    return changes


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_rebase_commutes_with_changes_outside_the_region(data):
    """Rebased edit on the current text == the user's changes on the edited text."""
    text, start, end, edit = data.draw(region_edits())
    changes = data.draw(changes_clear_of(text, start, end))
    current = apply_changes(text, changes)
    result = apply_replacements(current, rebase(text, start, end, edit, changes))

    # The other order: edit first, then the user's changes, those after the region
    # moved by what the edit added.
    growth = sum(len(r.text) - (r.end - r.start) for r in edit)
    edited = apply_replacements(text, edit)
    for c in changes:
        if c.end <= start:
            start += len(c.text) - (c.end - c.start)
            edited = apply_changes(edited, [c])
        else:
            edited = apply_changes(edited, [Replacement(c.start + growth, c.end + growth, c.text)])
    assert result == edited


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_rebase_changes_nothing_outside_the_region(data):
    """The rebased edit leaves the current text outside the moved region untouched."""
    text, start, end, edit = data.draw(region_edits())
    changes = data.draw(changes_clear_of(text, start, end))
    current = apply_changes(text, changes)
    result = apply_replacements(current, rebase(text, start, end, edit, changes))
    new_start, new_end = moved_region(start, end, changes)
    after = len(current) - new_end
    assert result[:new_start] == current[:new_start]
    assert result[len(result) - after :] == current[new_end:]
    assert current[new_start:new_end] == text[start:end]
    assert result[new_start : len(result) - after] == apply_replacements(text[start:end], shifted(edit, -start))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_change_overlapping_the_region_refuses(data):
    """However the changes before it went, a change that alters the region's text is refused."""
    text, start, end, edit = data.draw(region_edits())
    assume(end > start)
    clear = data.draw(changes_clear_of(text, start, end))
    current = apply_changes(text, clear)
    s, e = moved_region(start, end, clear)
    c_start = data.draw(st.integers(0, e - 1))
    c_end = data.draw(st.integers(max(c_start, s + 1), len(current)))
    if c_start == c_end:
        c_start = c_end = data.draw(st.integers(s + 1, e - 1)) if e - s > 1 else s + 1
        assume(s < c_start < e)
    inserted = data.draw(NONEMPTY_TEXTS) if c_start == c_end else data.draw(TEXTS)
    with pytest.raises(StaleEdit):
        rebase(text, start, end, edit, [*clear, Replacement(c_start, c_end, inserted)])
