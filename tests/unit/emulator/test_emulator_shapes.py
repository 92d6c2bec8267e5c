"""Reply shapes a fast model really produces (pure functions): one shape per test."""

from sparkls.emulator import shapes
from sparkls.emulator.model import answer

OLD = "    def area(self):\n        return self.w * self.h<|cursor|>"
NEW = "    def area(self):\n        return self.width * self.height"
REQUEST = (
    "File: src/shapes.py\nREPLACE self.w WITH self.width\nREPLACE self.h WITH self.height\n"
    "```python\nclass Box:\n    def __init__(self, w, h):\n        self.w, self.h = w, h\n\n"
    f"<|editable_region_start|>\n{OLD}\n<|editable_region_end|>\n\n    def name(self):\n"
    "        return 'box'\n```\n"
)


def render(style: str, request: str = REQUEST, old: str | None = OLD, new: str = NEW) -> str:
    return shapes.render(style, new, old, request)


def test_the_script_answers_in_the_shape_asked():
    """model.answer renders the edited region in the reply shape asked for."""
    assert answer(REQUEST) == f"```\n{NEW}\n```"
    assert answer(REQUEST, reply="tilde") == f"~~~\n{NEW}\n~~~"


def test_tagged_fence_names_the_language_of_the_file():
    """tagged: the fence carries the language of the file path in the request."""
    assert render("tagged") == f"```python\n{NEW}\n```"
    assert render("tagged", request=REQUEST.replace("shapes.py", "shapes.ts")).startswith("```typescript\n")


def test_tagged_without_a_known_path_is_plain():
    """tagged without a recognisable file path falls back to the plain fence."""
    assert render("tagged", request="no path here") == f"```\n{NEW}\n```"


def test_tilde_fence():
    """tilde: a ~~~ fence."""
    assert render("tilde") == f"~~~\n{NEW}\n~~~"


def test_four_backtick_fence():
    """four_backticks: a four-backtick fence."""
    assert render("four_backticks") == f"````\n{NEW}\n````"


def test_prose_around_the_block():
    """prose: one sentence before the block and one after."""
    before, block, after = render("prose").split("\n\n")
    assert before.endswith(":") and block == f"```\n{NEW}\n```" and after.endswith(".")


def test_markers_echoed_inside_the_block():
    """markers: the region markers inside the fence, around the new region."""
    assert render("markers") == f"```\n<|editable_region_start|>\n{NEW}\n<|editable_region_end|>\n```"


def test_context_echoes_the_excerpt_lines_around_the_region():
    """context: the excerpt lines just before and after the region, up to three, never the fence."""
    lines = render("context").split("\n")
    assert lines[1:4] == ["    def __init__(self, w, h):", "        self.w, self.h = w, h", ""]
    assert lines[-4:-1] == ["", "    def name(self):", "        return 'box'"]


def test_dedented_removes_the_common_indentation():
    """dedented: the region without its common indentation."""
    assert render("dedented") == "```\ndef area(self):\n    return self.width * self.height\n```"


def test_dedented_does_not_apply_to_an_unindented_region():
    """dedented on a region with no common indentation is the plain fence."""
    assert render("dedented", new="x = 1") == "```\nx = 1\n```"


def test_reindented_adds_four_spaces():
    """reindented: four more spaces on every non-blank line."""
    assert render("reindented", new="a\n\n  b") == "```\n    a\n\n      b\n```"


def test_tabs_replace_groups_of_four_spaces():
    """tabs: leading groups of four spaces become tabs."""
    assert render("tabs") == "```\n\tdef area(self):\n\t\treturn self.width * self.height\n```"


def test_tabs_become_spaces_when_the_region_used_tabs():
    """tabs on a region indented with tabs: the tabs become four spaces."""
    assert render("tabs", old="\tx", new="\tx\n\t\ty") == "```\n    x\n        y\n```"


def test_crlf_line_ends():
    """crlf: every line of the reply ends with CRLF."""
    reply = render("crlf")
    assert reply.count("\r\n") == reply.count("\n") == 3


def test_trailing_whitespace_on_some_lines():
    """trailing_whitespace: two spaces after every other non-blank line."""
    assert render("trailing_whitespace").split("\n")[1:3] == [
        "    def area(self):  ", "        return self.width * self.height"
    ]


def test_elision_replaces_the_middle_with_a_comment():
    """elision: the middle lines become one comment in the file's comment syntax."""
    new = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6"
    assert render("elision", new=new) == "```\na = 1\nb = 2\n# ... rest unchanged\ne = 5\nf = 6\n```"
    ts_request = REQUEST.replace("shapes.py", "shapes.ts")
    assert "// ... rest unchanged" in render("elision", request=ts_request, new=new)


def test_elision_needs_three_lines():
    """elision on a region under three lines is the plain fence."""
    assert render("elision", new="a\nb") == "```\na\nb\n```"


def test_two_blocks_show_before_and_after():
    """two_blocks: a Before: block with the old region (no cursor) and an After: block."""
    before = OLD.replace("<|cursor|>", "")
    assert render("two_blocks") == f"Before:\n```\n{before}\n```\n\nAfter:\n```\n{NEW}\n```"


def test_diff_of_old_to_new_region():
    """diff: a unified diff of the old region to the new, in a diff block, named by the file path."""
    lines = render("diff").split("\n")
    assert lines[:3] == ["```diff", "--- a/src/shapes.py", "+++ b/src/shapes.py"]
    assert "-        return self.w * self.h" in lines and "+        return self.width * self.height" in lines
    assert lines[-1] == "```"


def test_diff_of_an_unchanged_region_is_the_plain_fence():
    """diff when nothing changed is the plain fence (an empty diff says nothing)."""
    assert render("diff", new=OLD.replace("<|cursor|>", "")).startswith("```\n")


def test_region_shapes_do_not_apply_without_a_region():
    """Shapes that need a region answer a COMPLETE-only request with the plain fence."""
    for style in ("markers", "context", "two_blocks", "diff", "elision", "broken"):
        assert render(style, old=None, new="print(1)") == "```\nprint(1)\n```"
