"""Applying SEARCH/REPLACE blocks to file texts: exact, tolerant, never guessed."""

import pytest

from sparkls.deep.apply import apply_block, apply_blocks, find_search
from sparkls.deep.blocks import SearchReplaceBlock
from sparkls.errors import FileAlreadyExists, SearchAmbiguous, SearchNotFound


def block(search: str, replace: str, path: str = "a.py", number: int = 1) -> SearchReplaceBlock:
    return SearchReplaceBlock(path, tuple(search.splitlines()), tuple(replace.splitlines()), number, 1)


SOURCE = "def f(x):\n    return x + 1\n\n\ndef g(y):\n    return y * 2\n"


def test_exact_match_replaces_those_lines():
    """An exact SEARCH is replaced by its REPLACE, the rest untouched."""
    new = apply_block(SOURCE, block("    return x + 1", "    return x + 2"))
    assert new == SOURCE.replace("x + 1", "x + 2")


def test_missing_search_names_file_block_and_first_line():
    """A SEARCH found nowhere is reported with its file, block number and first line."""
    with pytest.raises(SearchNotFound, match=r"block 3 \(a\.py, SEARCH beginning 'return z'\)") as info:
        apply_block(SOURCE, block("    return z\n", "", number=3))
    assert (info.value.path, info.value.block) == ("a.py", 3)


def test_ambiguous_search_is_reported_with_its_lines():
    """A SEARCH found twice is refused, naming where it matched."""
    text = "x = 1\ny = 2\nx = 1\n"
    with pytest.raises(SearchAmbiguous, match=r"matches 2 places \(lines 1, 3\)"):
        apply_block(text, block("x = 1", "x = 3"))


def test_trailing_whitespace_is_tolerated():
    """SEARCH lines without the file's trailing spaces still match."""
    text = "a = 1   \nb = 2\t\n"
    assert apply_block(text, block("a = 1\nb = 2", "a = 10\nb = 2")) == "a = 10\nb = 2\n"
    assert find_search(text.splitlines(), ["a = 1", "b = 2"])[0].pass_name == "trailing whitespace"


def test_less_indented_search_matches_and_replace_is_reindented():
    """A SEARCH missing the file's indentation matches; REPLACE gains the same indent."""
    text = "class A:\n    def f(self):\n        return 1\n"
    new = apply_block(text, block("def f(self):\n    return 1", "def f(self):\n    return 2\n\ndef h(self):\n    pass"))
    assert new == "class A:\n    def f(self):\n        return 2\n\n    def h(self):\n        pass\n"


def test_more_indented_search_matches_and_replace_is_dedented():
    """A SEARCH indented more than the file matches; REPLACE loses that indent."""
    text = "def f():\n    return 1\n"
    new = apply_block(text, block("    def f():\n        return 1", "    def f():\n        return 2"))
    assert new == "def f():\n    return 2\n"


def test_non_uniform_indentation_difference_does_not_match():
    """Lines re-indented by different amounts are not the same code: no match."""
    text = "if a:\n    b()\n    c()\n"
    with pytest.raises(SearchNotFound):
        apply_block(text, block("if a:\n  b()\n    c()", "pass"))


def test_exact_match_wins_over_a_tolerant_one():
    """When an exact match exists, indentation-tolerant candidates are not counted."""
    text = "x = 1\nif a:\n    x = 1\n"
    assert apply_block(text, block("x = 1", "x = 2")) == "x = 2\nif a:\n    x = 1\n"


def test_ambiguity_under_tolerance_is_still_refused():
    """Two places matching only after dropping indentation are refused, not guessed."""
    text = "if a:\n    x = 1\nif b:\n        x = 1\n"
    with pytest.raises(SearchAmbiguous):
        apply_block(text, block("x = 1", "x = 2"))


def test_crlf_file_keeps_crlf():
    """Replaced and inserted lines take the file's CRLF breaks."""
    text = "a = 1\r\nb = 2\r\n"
    assert apply_block(text, block("a = 1", "a = 1\nz = 0")) == "a = 1\r\nz = 0\r\nb = 2\r\n"


def test_mixed_line_breaks_elsewhere_are_left_alone():
    """Lines the block does not touch keep their own break."""
    text = "a\r\nb\nc\r\n"
    assert apply_block(text, block("c", "C")) == "a\r\nb\nC\r\n"


def test_no_final_newline_is_preserved():
    """A file without a final line break still has none after its last line changes."""
    assert apply_block("a = 1\nb = 2", block("b = 2", "b = 3\nc = 4")) == "a = 1\nb = 3\nc = 4"


def test_deleting_the_last_line_keeps_no_final_newline():
    """Deleting an unterminated last line leaves the new last line unterminated."""
    assert apply_block("a = 1\nb = 2", block("b = 2", "")) == "a = 1"


def test_deleting_lines_in_the_middle():
    """An empty REPLACE removes the matched lines and their breaks."""
    assert apply_block("a\nb\nc\n", block("b", "")) == "a\nc\n"


def test_emoji_and_cjk_lines_match():
    """Non-ASCII SEARCH lines match exactly."""
    text = "msg = '你好 👋'\nother = 1\n"
    assert apply_block(text, block("msg = '你好 👋'", "msg = '再见 👋'")) == "msg = '再见 👋'\nother = 1\n"


def test_empty_search_creates_a_file_with_a_final_newline():
    """An empty SEARCH on a missing file gives the REPLACE lines as a new file."""
    [change] = apply_blocks([block("", "X = 1\nY = 2", path="new.py")], {"new.py": None})
    assert change.created and change.new_text == "X = 1\nY = 2\n"


def test_empty_search_fills_an_existing_empty_file():
    """An empty SEARCH on an empty file fills it (an edit, not a creation)."""
    [change] = apply_blocks([block("", "X = 1", path="pkg/__init__.py")], {"pkg/__init__.py": ""})
    assert not change.created and change.new_text == "X = 1\n"


def test_empty_search_on_a_file_with_content_is_refused():
    """Creating over an existing file is refused rather than overwriting or appending."""
    with pytest.raises(FileAlreadyExists, match="already exists"):
        apply_blocks([block("", "X = 1")], {"a.py": "old\n"})


def test_search_in_a_missing_file_is_reported():
    """A non-empty SEARCH on a file that does not exist says so."""
    with pytest.raises(SearchNotFound, match="does not exist"):
        apply_blocks([block("x", "y", path="gone.py")], {"gone.py": None})


def test_blocks_apply_in_order_to_the_evolving_text():
    """A later block may match text an earlier block wrote."""
    blocks = [block("x = 1", "x = 2", number=1), block("x = 2", "x = 3", number=2)]
    [change] = apply_blocks(blocks, {"a.py": "x = 1\n"})
    assert change.new_text == "x = 3\n"
    assert change.blocks == (1, 2)


def test_created_file_can_be_edited_by_a_later_block():
    """A block after the creating block edits the new file's text."""
    blocks = [block("", "A = 1\nB = 2", path="n.py", number=1), block("B = 2", "B = 3", path="n.py", number=2)]
    [change] = apply_blocks(blocks, {"n.py": None})
    assert change.new_text == "A = 1\nB = 3\n"


def test_one_failing_block_means_no_result_at_all():
    """If block 2 fails, block 1's file is not returned changed: all or nothing."""
    blocks = [block("x = 1", "x = 2", path="a.py", number=1), block("nope", "y", path="b.py", number=2)]
    with pytest.raises(SearchNotFound, match="block 2"):
        apply_blocks(blocks, {"a.py": "x = 1\n", "b.py": "y = 1\n"})


def test_files_come_back_in_order_of_first_mention():
    """Results follow the reply's order of files, one result per file."""
    blocks = [
        block("b", "B", path="b.py", number=1),
        block("a", "A", path="a.py", number=2),
        block("B", "BB", path="b.py", number=3),
    ]
    changes = apply_blocks(blocks, {"a.py": "a\n", "b.py": "b\n"})
    assert [(c.path, c.new_text) for c in changes] == [("b.py", "BB\n"), ("a.py", "A\n")]


def test_block_that_changes_nothing_gives_no_file():
    """A REPLACE equal to its SEARCH leaves the file out of the result."""
    assert apply_blocks([block("x", "x")], {"a.py": "x\n"}) == []


def test_unknown_path_is_a_programming_error():
    """A block whose file text was not given raises KeyError, not a user error."""
    with pytest.raises(KeyError):
        apply_blocks([block("x", "y", path="z.py")], {})
