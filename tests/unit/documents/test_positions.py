"""Position conversion: UTF-16 by default, UTF-8 / UTF-32 when negotiated."""

import pytest

from sparkls.documents.positions import LineIndex, Position, code_units, column_to_index, index_to_column

EMOJI_LINE = 'x = "😀" + y'  # 😀 is one code point, two UTF-16 units, four UTF-8 bytes
CJK_LINE = "名前 = 1"  # each CJK character: one UTF-16 unit, three UTF-8 bytes


def test_code_units_per_encoding():
    """An emoji counts 2 in UTF-16, 4 in UTF-8, 1 in UTF-32."""
    assert code_units("😀", "utf-16") == 2
    assert code_units("😀", "utf-8") == 4
    assert code_units("😀", "utf-32") == 1
    assert code_units("名", "utf-16") == 1
    assert code_units("名", "utf-8") == 3


@pytest.mark.parametrize(
    ("encoding", "column_after_emoji"),
    [("utf-16", 7), ("utf-8", 9), ("utf-32", 6)],
)
def test_column_after_emoji(encoding, column_after_emoji):
    """The closing quote after the emoji is at a different column in each encoding."""
    quote_index = EMOJI_LINE.index('"', 5)
    assert index_to_column(EMOJI_LINE, quote_index, encoding) == column_after_emoji
    assert column_to_index(EMOJI_LINE, column_after_emoji, encoding) == quote_index


def test_column_inside_surrogate_pair_moves_to_character_start():
    """A UTF-16 column between the two halves of an emoji lands on the emoji."""
    emoji_index = EMOJI_LINE.index("😀")
    assert column_to_index(EMOJI_LINE, 6, "utf-16") == emoji_index


def test_cjk_columns():
    """CJK characters are one UTF-16 unit but three UTF-8 bytes."""
    assert column_to_index(CJK_LINE, 2, "utf-16") == 2
    assert column_to_index(CJK_LINE, 6, "utf-8") == 2


def test_line_index_round_trip_with_mixed_line_breaks():
    """Offsets and positions agree across \\n, \\r\\n and \\r line breaks."""
    text = "a\r\nb😀c\rd\n名e"
    index = LineIndex(text)
    assert index.line_count == 4
    for offset in range(len(text) + 1):
        if text[offset - 1 : offset + 1] == "\r\n":
            continue  # between \r and \n is not a position
        pos = index.position(offset, "utf-16")
        assert index.offset(pos, "utf-16") == offset


def test_positions_clamp_past_line_and_text_end():
    """Columns past a line's end clamp to it; lines past the end clamp to the text end."""
    index = LineIndex("ab\ncd")
    assert index.offset(Position(0, 99), "utf-16") == 2
    assert index.offset(Position(9, 0), "utf-16") == 5


def test_byte_point_counts_utf8_bytes():
    """tree-sitter points count bytes: the emoji is four of them."""
    text = "😀x\ny"
    index = LineIndex(text)
    assert index.byte_point(2) == (5, (0, 5))
    assert index.byte_point(3) == (6, (1, 0))


def test_spliced_index_matches_a_rebuild():
    """Updating the index for an edit gives the same starts as indexing the new text."""
    import random

    rng = random.Random(7)
    text = "".join(rng.choice(["ab", "\n", "😀", "名", " "]) for _ in range(400))
    index = LineIndex(text)
    for _ in range(200):
        start = rng.randrange(len(index.text) + 1)
        end = min(len(index.text), start + rng.randrange(12))
        inserted = "".join(rng.choice(["x", "\n", "😀"]) for _ in range(rng.randrange(5)))
        index = index.spliced(start, end, inserted)
        assert index.starts == LineIndex(index.text).starts


def test_spliced_index_with_carriage_returns():
    """Joining "\r" and "\n" across an edit is seen: one line break, not two."""
    index = LineIndex("a\rX\nb").spliced(2, 3, "")
    assert index.text == "a\r\nb" and index.starts == [0, 3]
