"""The pure parts of inline completions: what changed at the cursor, typing through."""

from __future__ import annotations

from sparkls.completion.cache import TypingCache
from sparkls.completion.extract import Completion, completion_at_cursor
from sparkls.documents.positions import LineIndex

OLD = "def add(a, b):\n    return \n"
CURSOR = OLD.index("return ") + len("return ")


def test_insertion_at_the_cursor():
    """A model that inserts at the cursor gives that text, replacing nothing."""
    new = "def add(a, b):\n    return a + b\n"
    assert completion_at_cursor(OLD, new, CURSOR) == Completion(CURSOR, "a + b", 0)


def test_multi_line_insertion():
    """A completion may run over several lines."""
    new = "def add(a, b):\n    return (\n        a + b\n    )\n"
    found = completion_at_cursor(OLD, new, CURSOR)
    assert found == Completion(CURSOR, "(\n        a + b\n    )", 0)


def test_replacing_the_rest_of_the_line():
    """Text after the cursor that the model rewrote is replaced, on the cursor's line."""
    old = "x = compute(nme)\n"
    cursor = old.index("nme")
    found = completion_at_cursor(old, "x = compute(name, 2)\n", cursor)
    assert found == Completion(cursor, "name, 2", 3)


def test_no_completion_when_text_before_the_cursor_changed():
    """An edit before the cursor is not a completion."""
    assert completion_at_cursor(OLD, OLD.replace("add", "plus") + "x", CURSOR) is None


def test_no_completion_for_no_change_or_a_deletion():
    """An unchanged region, or one that only lost text, completes nothing."""
    assert completion_at_cursor(OLD, OLD, CURSOR) is None
    old = "x = 1  # note\n"
    assert completion_at_cursor(old, "x = 1\n", old.index("  #")) is None


def test_no_completion_when_the_replaced_text_spans_lines():
    """Rewriting the lines below the cursor is an edit, not a completion."""
    old = "a = 1\nb = 2\nc = 3\n"
    assert completion_at_cursor(old, "a = 10\nc = 3\n", old.index("\n")) is None


def test_crlf_region():
    """CRLF line endings stay CRLF, and the line ending after the cursor is kept."""
    old = OLD.replace("\n", "\r\n")
    cursor = old.index("return ") + len("return ")
    found = completion_at_cursor(old, "def add(a, b):\r\n    return (a +\r\n        b)\r\n", cursor)
    assert found == Completion(cursor, "(a +\r\n        b)", 0)


def test_emoji_and_cjk_before_the_cursor():
    """Offsets are code points; positions in UTF-16 count the emoji twice."""
    old = 'label = "😀 名前" + \n'
    cursor = old.index("+ ") + 2
    found = completion_at_cursor(old, 'label = "😀 名前" + name\n', cursor)
    assert found == Completion(cursor, "name", 0)
    assert LineIndex(old).position(found.offset, "utf-16").character == cursor + 1


def _cache_with(text: str, at: int, suggestion: str, replace: int = 0) -> TypingCache:
    cache = TypingCache()
    cache.remember("u", text, Completion(at, suggestion, replace))
    return cache


def test_typing_through_serves_the_rest():
    """Each typed character that matches the suggestion leaves the rest of it."""
    cache = _cache_with(OLD, CURSOR, "a + b")
    typed = OLD[:CURSOR] + "a +" + OLD[CURSOR:]
    assert cache.lookup("u", typed, CURSOR + 3) == Completion(CURSOR + 3, " b", 0)


def test_a_diverging_keystroke_misses():
    """A character that is not the suggestion's next one asks the model again."""
    cache = _cache_with(OLD, CURSOR, "a + b")
    typed = OLD[:CURSOR] + "x" + OLD[CURSOR:]
    assert cache.lookup("u", typed, CURSOR + 1) is None


def test_typed_to_the_end_misses():
    """A suggestion typed out in full offers nothing more."""
    cache = _cache_with(OLD, CURSOR, "ab")
    assert cache.lookup("u", OLD[:CURSOR] + "ab" + OLD[CURSOR:], CURSOR + 2) is None


def test_change_after_the_cursor_misses():
    """Text changed after the cursor (elsewhere in the file) invalidates the suggestion."""
    cache = _cache_with(OLD, CURSOR, "a + b")
    assert cache.lookup("u", OLD[:CURSOR] + "a" + OLD[CURSOR:] + "x", CURSOR + 1) is None


def test_backspace_over_the_line_serves_the_suggestion_again():
    """Deleting back before the suggestion's start, on its line, brings the deleted text back."""
    cache = _cache_with(OLD, CURSOR, "a + b")
    deleted = OLD[: CURSOR - 1] + OLD[CURSOR:]
    assert cache.lookup("u", deleted, CURSOR - 1) == Completion(CURSOR - 1, " a + b", 0)


def test_a_replacing_suggestion_keeps_its_replaced_length():
    """The text the suggestion replaces is still after the cursor while typing through."""
    old = "x = compute(nme)\n"
    at = old.index("nme")
    cache = _cache_with(old, at, "name", 3)
    typed = old[:at] + "na" + old[at:]
    assert cache.lookup("u", typed, at + 2) == Completion(at + 2, "me", 3)


def test_other_document_misses():
    """Suggestions are per document."""
    cache = _cache_with(OLD, CURSOR, "a + b")
    assert cache.lookup("other", OLD, CURSOR) is None
