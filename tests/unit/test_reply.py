"""Reading the region's new text out of a model reply."""

import pytest

from sparkls.edits.reply import extract_region
from sparkls.errors import NoUsableReply


def test_plain_fenced_block():
    """The body of the block is the new region."""
    assert extract_region("```python\nx = 1\ny = 2\n```") == "x = 1\ny = 2"


def test_text_around_the_block_is_ignored():
    """Prose before and after the block is not part of the edit."""
    assert extract_region("Here:\n```\nx = 1\n```\nDone.") == "x = 1"


def test_longer_fence_holds_inner_backticks():
    """A four-backtick fence may contain a three-backtick line."""
    reply = "````md\n```\ncode\n```\n````"
    assert extract_region(reply) == "```\ncode\n```"


def test_echoed_markers_are_stripped():
    """Region markers and the cursor marker the model echoed are removed."""
    reply = "```\n<|editable_region_start|>\nx = 1<|cursor|>\n<|editable_region_end|>\n```"
    assert extract_region(reply) == "x = 1"


def test_crlf_line_endings_are_restored():
    """The caller's line ending is used between lines."""
    assert extract_region("```\r\na\r\nb\r\n```", line_ending="\r\n") == "a\r\nb"


@pytest.mark.parametrize("reply", ["", "x = 1", "```python\nx = 1\n"])
def test_reply_without_complete_block_is_refused(reply):
    """No fence, or an unclosed one, is a clear error."""
    with pytest.raises(NoUsableReply, match="no complete code block"):
        extract_region(reply)
