"""One decision per request: a patch where it is expected to be shorter than the region."""

from __future__ import annotations

from sparkls.edits.shape import ENVELOPE_CHARS, PATCH_LINES, choose_reply_shape
from sparkls.emulator.patches import v4a_text


def function(lines: int, width: int = 30) -> str:
    body = "".join(f"    value_{i:03d} = compute({i})".ljust(width) + "\n" for i in range(lines - 2))
    return "def f():\n" + body + "    return value_000\n"


def test_a_long_region_is_asked_for_as_a_patch():
    """A 60-line function: a patch of a small change is a fraction of it."""
    region = function(60)
    choice = choose_reply_shape(region, "src/app.py")
    assert choice.patch
    assert choice.patch_chars < choice.region_chars == len(region)
    assert "shorter than the region" in choice.why


def test_a_short_region_is_asked_for_whole():
    """A 4-line function is shorter than the smallest patch of it (envelope and quoted lines)."""
    region = function(4)
    choice = choose_reply_shape(region, "src/app.py")
    assert not choice.patch
    smallest = v4a_text("src/app.py", region, region.replace("compute(0)", "compute(1)"))
    assert smallest is not None and len(smallest) > len(region)  # the rule's premise, on this region


def test_the_threshold_is_the_smallest_patch_in_the_region_own_lines():
    """The break-even moves with the lines' width: wide lines need more of them."""
    narrow = next(n for n in range(3, 80) if choose_reply_shape(function(n, 20), "a.py").patch)
    wide = next(n for n in range(3, 80) if choose_reply_shape(function(n, 80), "a.py").patch)
    assert PATCH_LINES < narrow and PATCH_LINES < wide
    assert wide < narrow  # the envelope weighs fewer wide lines


def test_a_long_path_makes_the_patch_dearer():
    """The path is written in every patch: a region just over the threshold with a short
    path is asked whole with a very long one."""
    region = function(14)
    assert choose_reply_shape(region, "a.py").patch
    assert not choose_reply_shape(region, "a/" * 200 + "a.py").patch


def test_a_blank_or_empty_region_is_always_asked_for_whole():
    """A patch could not say where its change goes in a region with no code."""
    for region in ("", "\n", "\n" * 200, "   \n\t\n" * 100):
        assert not choose_reply_shape(region, "a.py").patch


def test_the_estimate_is_envelope_plus_patch_lines():
    """The expected patch: the envelope, the path and PATCH_LINES lines of the region's mean width plus an op."""
    region = "x" * 39 + "\n"  # one line, 40 characters with its break
    choice = choose_reply_shape(region * 50, "p.py")
    assert choice.patch_chars == ENVELOPE_CHARS + len("p.py") + PATCH_LINES * 41
