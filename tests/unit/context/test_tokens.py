"""Token estimates: monotone, and in the right range for code."""

from sparkls.context.tokens import estimate_tokens

CODE = '''def area(radius: float) -> float:
    """Area of a circle."""
    return math.pi * radius ** 2
'''


def test_empty_text_costs_nothing():
    """No text, no tokens."""
    assert estimate_tokens("") == 0


def test_a_short_function_costs_tens_of_tokens():
    """Three lines of code cost a few tens of tokens, not one per character."""
    assert 15 <= estimate_tokens(CODE) <= 45


def test_more_text_never_costs_less():
    """Appending text never lowers the estimate."""
    assert estimate_tokens(CODE + CODE) >= estimate_tokens(CODE) * 2 - 1


def test_non_ascii_counts():
    """Emoji and CJK characters are counted, not skipped."""
    assert estimate_tokens("名前 😀") >= 3
