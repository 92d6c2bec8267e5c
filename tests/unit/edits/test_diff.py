"""Minimal replacements between two texts, and their LSP positions."""

from hypothesis import given, settings
from hypothesis import strategies as st

from sparkls.documents.positions import LineIndex
from sparkls.edits.diff import Replacement, apply_replacements, diff_replacements


def test_identical_texts_give_no_replacement():
    """No change, no edit."""
    assert diff_replacements("a\nb\n", "a\nb\n") == []


def test_one_word_change_is_one_small_replacement():
    """Renaming one word replaces just that word, not the line or the region."""
    old = "def f(x):\n    return lenght(x)\n"
    new = "def f(x):\n    return length(x)\n"
    reps = diff_replacements(old, new)
    assert len(reps) == 1
    assert old[reps[0].start : reps[0].end] == "ht"
    assert reps[0].text == "th"
    assert apply_replacements(old, reps) == new


def test_inserted_line_is_a_pure_insertion():
    """A new docstring line is inserted without touching its neighbours."""
    old = "def f():\n    return 1\n"
    new = 'def f():\n    """One."""\n    return 1\n'
    reps = diff_replacements(old, new)
    assert [r.start == r.end for r in reps] == [True]
    assert apply_replacements(old, reps) == new


def test_separate_changes_stay_separate():
    """Two changes far apart give two replacements."""
    old = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"
    new = "a = 10\nb = 2\nc = 3\nd = 4\ne = 50\n"
    reps = diff_replacements(old, new)
    assert len(reps) == 2
    assert apply_replacements(old, reps) == new


def test_emoji_line_edit_positions_are_utf16():
    """An edit after an emoji is reported at the UTF-16 column an editor expects."""
    old = 'msg = "😀 hello"\n'
    new = 'msg = "😀 world"\n'
    (rep,) = diff_replacements(old, new)
    assert rep == Replacement(old.index("hello"), old.index("hello") + 5, "world")
    index = LineIndex(old)
    assert index.position(rep.start, "utf-16").character == 10  # 7 + 2 (emoji) + 1
    assert index.position(rep.start, "utf-32").character == 9
    assert index.position(rep.start, "utf-8").character == 12


def test_deleted_lines():
    """Removing lines yields a deletion."""
    old = "a\nb\nc\n"
    new = "a\nc\n"
    reps = diff_replacements(old, new)
    assert apply_replacements(old, reps) == new
    assert all(r.text == "" for r in reps)


# Property: the replacements of a region's rewrite, placed in a whole file, rebuild the
# new region exactly and touch nothing outside it (hypothesis).
_TEXT = st.text(alphabet=st.sampled_from(list("ab \t\n\r😀你é(){}:")), max_size=40)


@settings(max_examples=300, deadline=None)
@given(before=_TEXT, old=_TEXT, new=_TEXT, after=_TEXT)
def test_replacements_never_change_anything_outside_the_region(before, old, new, after):
    """Applied to the whole text, a region's diff yields before + new + after, whatever the characters."""
    base = len(before)
    placed = [Replacement(base + r.start, base + r.end, r.text) for r in diff_replacements(old, new)]
    assert all(base <= r.start <= r.end <= base + len(old) for r in placed)
    assert apply_replacements(before + old + after, placed) == before + new + after
