"""Whether an edit of a parameter list changes how the function is called (nextedit/contract.py)."""

import pytest

from sparkls.nextedit.contract import same_calls


@pytest.mark.parametrize(("old", "new", "language"), [
    ("(radius, scale=1.0)", "(radius: float, scale: float = 1.0)", "python"),
    ("(self, items)", "(self, items: list[dict[str, int]])", "python"),
    ("(*args, **kwargs)", "(*args: int, **kwargs: str)", "python"),
    ("(a, b)", "(a: number, b: number)", "typescript"),
    ("(x?: number)", "(x?: string)", "typescript"),
    ("(a, b int)", "(a, b int64)", "go"),
    ("(&self, n: u32)", "(&self, n: usize)", "rust"),
])
def test_types_alone_change_no_call(old, new, language):
    assert same_calls(old, new, language)


@pytest.mark.parametrize(("old", "new", "language"), [
    ("(radius)", "(radius, scale)", "python"),
    ("(radius, scale)", "(scale, radius)", "python"),
    ("(radius)", "(r)", "python"),
    ("(scale=1)", "(scale=2)", "python"),
    ("(scale)", "(scale=1)", "python"),
    ("(args)", "(*args)", "python"),
    ("(x: number)", "(x?: number)", "typescript"),
    ("(a int)", "(a, b int)", "go"),
])
def test_what_callers_depend_on_changes_the_calls(old, new, language):
    assert not same_calls(old, new, language)
