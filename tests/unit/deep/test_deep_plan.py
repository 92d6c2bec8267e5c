"""The deep tier's plan (plan, then delegate) and the deep-tier prompt."""

import pytest

from sparkls.deep.plan import Plan, PlanStep, parse_plan, render_plan
from sparkls.deep.prompt import (
    DEEP_EDIT_INSTRUCTIONS,
    DEEP_PLAN_INSTRUCTIONS,
    Selection,
    TaskFile,
    fence_for,
    render_task_prompt,
)
from sparkls.errors import MalformedPlan

TEXT_PLAN = """\
Here is the plan:

1. src/shapes.py: Rename `area` to `circle_area`.
2. `src/report.py`: Call `circle_area` where `area` is called.
   Keep the argument names.
3. src/units.py (new): A module with `to_cm(inches: float) -> float`.

That is all.
"""
from bench.kit.sealing import seal


def test_text_plan_gives_one_step_per_file():
    """Numbered 'path: instruction' lines become steps in order."""
    plan = parse_plan(TEXT_PLAN)
    assert plan.paths == ["src/shapes.py", "src/report.py", "src/units.py"]
    assert plan.steps[0] == PlanStep(1, "src/shapes.py", "Rename `area` to `circle_area`.")


def test_indented_lines_continue_a_step():
    """An indented line under a step is part of its instruction."""
    assert parse_plan(TEXT_PLAN).steps[1].instruction == (
        "Call `circle_area` where `area` is called.\nKeep the argument names."
    )


def test_new_marker_marks_a_file_to_create():
    """'(new)' after the path marks the step as creating its file."""
    steps = parse_plan(TEXT_PLAN).steps
    assert [s.creates_file for s in steps] == [False, False, True]


def test_preamble_and_closing_remark_are_ignored():
    """Prose before the first step, and after a blank line, is not part of any step."""
    assert "That is all" not in parse_plan(TEXT_PLAN).steps[-1].instruction


def test_bullets_bold_paths_and_fences_are_read():
    """'- **path:** instruction' inside a fence reads as a step."""
    plan = parse_plan("```\n- **src/a.py:** Add a docstring.\n* src/b.py: Sort imports.\n```\n")
    assert plan.paths == ["src/a.py", "src/b.py"]
    assert plan.steps[0].instruction == "Add a docstring."


def test_colon_inside_the_instruction_is_kept():
    """Only the first colon separates the path from the instruction."""
    assert parse_plan("1. a.py: Change `x: int` to `x: float`.").steps[0].instruction == "Change `x: int` to `x: float`."


def test_two_steps_for_one_file_are_merged():
    """A file named twice gets one step, its instructions in order."""
    plan = parse_plan("1. a.py: First.\n2. b.py: Other.\n3. a.py: Second.\n")
    assert [(s.number, s.path, s.instruction) for s in plan.steps] == [(1, "a.py", "First.\nSecond."), (2, "b.py", "Other.")]


def test_json_plan_in_a_fence():
    """A ```json fenced {"steps": [...]} object reads as a plan."""
    reply = 'Plan:\n```json\n{"steps": [{"path": "a.py", "instruction": "Do it.", "new": true}]}\n```\n'
    assert parse_plan(reply) == Plan((PlanStep(1, "a.py", "Do it.", True),))


def test_bare_json_list_plan():
    """A bare JSON list of steps reads as a plan."""
    assert parse_plan('[{"path": "a.py", "instruction": "x"}]').paths == ["a.py"]


def test_invalid_json_plan_is_reported():
    """JSON that does not parse is a MalformedPlan saying so."""
    with pytest.raises(MalformedPlan, match="JSON does not parse"):
        parse_plan('{"steps": [')


def test_step_without_path_is_reported_with_its_number():
    """A step line that starts with prose, not a path, names the step."""
    with pytest.raises(MalformedPlan, match="step 2 does not start with a file path") as info:
        parse_plan("1. a.py: Fine.\n2. First we need to: think.\n")
    assert info.value.block == 2


def test_step_without_instruction_is_reported():
    """A step with a path but no instruction is refused."""
    with pytest.raises(MalformedPlan, match="has no instruction"):
        parse_plan("1. a.py:\n")


def test_reply_without_steps_is_reported():
    """Prose with no step lines is not a plan."""
    with pytest.raises(MalformedPlan, match="no steps"):
        parse_plan("I would rename the function everywhere.")


def test_render_plan_round_trips():
    """render_plan writes the text form parse_plan reads back."""
    plan = parse_plan(TEXT_PLAN)
    assert parse_plan(render_plan(plan)) == plan


def test_fence_is_longer_than_any_backtick_run_in_the_file():
    """A file holding ```` gets a five-backtick fence; plain text gets three."""
    assert fence_for("plain") == "```"
    assert fence_for("doc\n````python\nx\n````\n") == "`````"


def test_prompt_shows_path_line_then_fenced_file_then_task():
    """Each file is its path on its own line, then the fenced file; the task comes last."""
    prompt = seal(render_task_prompt([TaskFile("src/a.py", "x = 1\n")], "  Rename x.  "))
    assert prompt.instructions == DEEP_EDIT_INSTRUCTIONS
    assert prompt.input == "src/a.py\n```python\nx = 1\n```\n\nTask: Rename x."


def test_prompt_files_are_in_path_order_for_the_cache():
    """Files are sorted by path so the same files give the same prefix."""
    files = [TaskFile("b.txt", "b"), TaskFile("a.txt", "a")]
    assert seal(render_task_prompt(files, "t")).input == seal(render_task_prompt(files[::-1], "t")).input
    assert seal(render_task_prompt(files, "t")).input.startswith("a.txt\n")


def test_prompt_normalizes_crlf_and_closes_a_file_without_final_newline():
    """CRLF files are shown with LF, and a missing final newline does not glue the fence."""
    prompt = seal(render_task_prompt([TaskFile("a.md", "x\r\ny", language="")], "t"))
    assert prompt.input.startswith("a.md\n```\nx\ny\n```\n")


def test_prompt_keeps_emoji_and_cjk():
    """Non-ASCII file text is shown verbatim."""
    assert "名前 = '👋'" in seal(render_task_prompt([TaskFile("a.py", "名前 = '👋'\n")], "t")).input


def test_plan_mode_uses_the_plan_instructions():
    """mode='plan' asks for a plan in the documented format."""
    prompt = seal(render_task_prompt([TaskFile("a.py", "")], "t", mode="plan"))
    assert prompt.instructions == DEEP_PLAN_INSTRUCTIONS
    assert "1. path/to/file.py:" in prompt.instructions


def test_selection_comes_before_the_task():
    """A selection is named just before the task."""
    prompt = seal(render_task_prompt([TaskFile("a.py", "")], "t", selection=Selection("a.py", 3, 9)))
    assert prompt.input.endswith("Selection: a.py lines 3-9\n\nTask: t")
