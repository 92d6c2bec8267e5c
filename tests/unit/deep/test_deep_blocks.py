"""SEARCH/REPLACE blocks read out of deep-tier replies, as real models write them."""

import pytest

from sparkls.deep.blocks import BlockStream, clean_path_line, format_block, no_blocks, parse_blocks
from sparkls.errors import MalformedBlocks

PLAIN = """\
src/app.py
<<<<<<< SEARCH
def main():
    return 1
=======
def main():
    return 2
>>>>>>> REPLACE
"""


def test_plain_block_gives_path_search_and_replace():
    """The documented form (docs/model-protocol.md) reads as one block with its lines."""
    [block] = parse_blocks(PLAIN)
    assert block.path == "src/app.py"
    assert block.search == ("def main():", "    return 1")
    assert block.replace == ("def main():", "    return 2")
    assert (block.number, block.line) == (1, 2)


def test_crlf_reply_reads_like_lf():
    """A reply with CRLF line breaks gives the same block, lines without '\\r'."""
    assert parse_blocks(PLAIN.replace("\n", "\r\n")) == parse_blocks(PLAIN)


def test_blocks_inside_fences_with_path_before_fence():
    """The path line before a ```python fence names the block inside it."""
    reply = "Here is the change.\n\nsrc/app.py\n```python\n" + PLAIN.split("\n", 1)[1] + "```\n\nDone."
    [block] = parse_blocks(reply)
    assert block.path == "src/app.py"
    assert block.replace[-1] == "    return 2"


def test_path_inside_the_fence():
    """A path written as the fence's first line is read too."""
    [block] = parse_blocks("```\n" + PLAIN + "```\n")
    assert block.path == "src/app.py"


@pytest.mark.parametrize(
    "line",
    ["`src/app.py`", "File: src/app.py", "### src/app.py", "**src/app.py**", "src/app.py:", "# File: `src/app.py`"],
)
def test_decorated_path_lines(line):
    """Backticks, 'File:', headings, bold and a trailing colon are peeled off the path."""
    [block] = parse_blocks(PLAIN.replace("src/app.py", line, 1))
    assert block.path == "src/app.py"


def test_quoted_path_may_hold_a_space():
    """A path with a space is accepted when quoted."""
    assert clean_path_line("`docs/my notes.md`") == "docs/my notes.md"


def test_prose_before_block_is_refused():
    """A sentence where the path should be is an error naming the block."""
    with pytest.raises(MalformedBlocks, match="Block 1.*not preceded by a file path"):
        parse_blocks("Here is the fix for the bug\n" + PLAIN.split("\n", 1)[1])


def test_several_blocks_for_one_file_each_repeating_the_path():
    """Two blocks for one file come out in order, numbered."""
    blocks = parse_blocks(PLAIN + "\n" + PLAIN.replace("return 1", "x").replace("return 2", "y"))
    assert [b.number for b in blocks] == [1, 2]
    assert [b.path for b in blocks] == ["src/app.py", "src/app.py"]
    assert blocks[1].search[1] == "    x"


def test_block_right_after_another_reuses_its_path():
    """A block that follows another (fences between) without a path edits the same file."""
    second = PLAIN.split("\n", 1)[1].replace("return 1", "a")
    blocks = parse_blocks("```python\n" + PLAIN + "```\n\n```python\n" + second + "```\n")
    assert [b.path for b in blocks] == ["src/app.py", "src/app.py"]


def test_blocks_for_several_files():
    """Each block carries the path written before it."""
    reply = PLAIN + "\n" + PLAIN.replace("src/app.py", "src/other.py")
    assert [b.path for b in parse_blocks(reply)] == ["src/app.py", "src/other.py"]


def test_empty_search_creates_a_file():
    """A block with nothing between SEARCH and the divider creates its file."""
    [block] = parse_blocks("new/mod.py\n<<<<<<< SEARCH\n=======\nX = 1\n>>>>>>> REPLACE\n")
    assert block.creates_file
    assert block.replace == ("X = 1",)


def test_blank_only_search_counts_as_empty():
    """A SEARCH part of blank lines has nothing to find, so it also creates."""
    [block] = parse_blocks("new.py\n<<<<<<< SEARCH\n\n   \n=======\nX = 1\n>>>>>>> REPLACE\n")
    assert block.creates_file


def test_empty_replace_deletes():
    """An empty REPLACE part gives a block with no replacement lines."""
    [block] = parse_blocks("a.py\n<<<<<<< SEARCH\nx = 1\n=======\n>>>>>>> REPLACE\n")
    assert block.replace == ()


def test_marker_lengths_may_vary():
    """Five to nine marker characters are accepted, as models miscount them."""
    reply = "a.py\n<<<<< SEARCH\nx\n=========\ny\n>>>>>>>>> REPLACE\n"
    assert parse_blocks(reply)[0].replace == ("y",)


def test_missing_divider_names_the_block():
    """A block that never reaches '=======' is an error naming the block and file."""
    with pytest.raises(MalformedBlocks, match=r"Block 2 .*b\.py.*=======") as info:
        parse_blocks(PLAIN + "b.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n")
    assert info.value.block == 2


def test_truncated_reply_names_the_missing_replace_marker():
    """A reply that stops inside REPLACE says the block's end is missing."""
    with pytest.raises(MalformedBlocks, match="REPLACE"):
        parse_blocks(PLAIN.removesuffix(">>>>>>> REPLACE\n"))


def test_replace_marker_without_search_is_refused():
    """A stray '>>>>>>> REPLACE' is an error, not ignored."""
    with pytest.raises(MalformedBlocks, match="no `<<<<<<< SEARCH`"):
        parse_blocks("a.py\nx\n=======\ny\n>>>>>>> REPLACE\n")


def test_first_block_without_any_path_is_refused():
    """A reply opening on a SEARCH marker has no file to edit."""
    with pytest.raises(MalformedBlocks, match="no file path"):
        parse_blocks(PLAIN.split("\n", 1)[1])


def test_reply_without_blocks_is_an_error():
    """An answer in words is reported as such, quoting it whole; anything else quoting its start."""
    with pytest.raises(MalformedBlocks, match='The answer was words, not edits, so nothing was changed: "I cannot do that."'):
        parse_blocks("I cannot do that.")
    with pytest.raises(MalformedBlocks, match="held no SEARCH/REPLACE blocks.*def f"):
        parse_blocks("def f():\n    pass\n")


def test_content_lines_that_look_like_fences_are_kept():
    """Backtick lines inside SEARCH or REPLACE are file content (a Markdown file)."""
    reply = "README.md\n<<<<<<< SEARCH\n```sh\nmake\n```\n=======\n```sh\nmake test\n```\n>>>>>>> REPLACE\n"
    [block] = parse_blocks(reply)
    assert block.search == ("```sh", "make", "```")


def test_emoji_and_cjk_content_is_kept_verbatim():
    """Non-ASCII lines pass through unchanged."""
    [block] = parse_blocks("i18n/消息.py\n<<<<<<< SEARCH\nGREETING = '你好'\n=======\nGREETING = '你好 👋'\n>>>>>>> REPLACE\n")
    assert block.path == "i18n/消息.py"
    assert block.replace == ("GREETING = '你好 👋'",)


def test_stream_hands_out_each_block_once_closed():
    """Fed in small pieces, a reply yields each block when its REPLACE marker arrives."""
    reply = PLAIN + "\n" + PLAIN.replace("src/app.py", "src/b.py")
    stream = BlockStream()
    seen = []
    for i in range(0, len(reply), 7):
        seen.extend(b.path for b in stream.feed(reply[i : i + 7]))
    assert seen == ["src/app.py", "src/b.py"]
    assert stream.finish() == parse_blocks(reply)


def test_stream_does_not_close_a_block_on_a_partial_marker_line():
    """A REPLACE marker cut mid-line does not close the block yet."""
    stream = BlockStream()
    assert stream.feed(PLAIN.removesuffix("REPLACE\n")) == []
    assert [b.path for b in stream.feed("REPLACE\n")] == ["src/app.py"]


def test_stream_finish_reports_an_unfinished_block():
    """A stream that ends inside a block raises like parse_blocks."""
    stream = BlockStream()
    stream.feed(PLAIN[:60])
    with pytest.raises(MalformedBlocks):
        stream.finish()


def test_format_block_round_trips():
    """format_block writes what parse_blocks reads back."""
    [block] = parse_blocks(format_block("a.py", "x = 1\n", "x = 2\ny = 3\n"))
    assert (block.path, block.search, block.replace) == ("a.py", ("x = 1",), ("x = 2", "y = 3"))


def test_new_file_note_after_the_path_is_dropped():
    """'path (new file)' names the path; the note is not part of it."""
    assert clean_path_line("`src/units.py` (new file):") == "src/units.py"


def test_the_emulators_words_read_as_what_they_are():
    """A task the emulator cannot follow: its words shown whole, not framed as a failed model."""
    said = 'The sparkls emulator does not understand "Tidy it up."; it follows: `rename a to b` (docs/emulator.md).'
    message = str(no_blocks(said))
    assert said in message
    assert "deep tier" not in message and "model" not in message.lower() and "SEARCH/REPLACE" not in message
