"""The emulator's scripted deep tier, and per-model pacing, read through sparkls's own parsers."""

from __future__ import annotations

import pytest

from sparkls.deep.apply import apply_blocks
from sparkls.deep.blocks import parse_blocks
from sparkls.deep.plan import parse_plan
from sparkls.deep.prompt import TaskFile, render_task_prompt
from sparkls.emulator import deep, model
from sparkls.emulator.control import Faults, FaultState, Stats
from sparkls.errors import SearchAmbiguous

SHAPES = "def area(r):\n    return 3.14 * r * r\n"
REPORT = "from shapes import area\n\nprint(area(1))\nx = 1\nprint(area(1))\n"
FILES = [TaskFile("shapes.py", SHAPES), TaskFile("report.py", REPORT)]
from bench.kit.sealing import seal


def _ask(task: str, mode: str = "edit") -> str:
    prompt = seal(render_task_prompt(FILES, task, mode=mode))  # type: ignore[arg-type]
    return model.answer(prompt.instructions + "\n" + prompt.input)


def _apply(reply: str) -> dict[str, str]:
    changes = apply_blocks(parse_blocks(reply), {"shapes.py": SHAPES, "report.py": REPORT, "units.py": None})
    return {c.path: c.new_text for c in changes}


def test_replace_becomes_unique_blocks_that_apply():
    """REPLACE gives blocks widened until unique; applied, they rename everywhere."""
    new = _apply(_ask("REPLACE area WITH circle_area"))
    assert new["shapes.py"] == SHAPES.replace("area", "circle_area")
    assert new["report.py"] == REPORT.replace("area", "circle_area")


def test_create_is_an_empty_search_block():
    """CREATE names a new file with its content."""
    reply = _ask('CREATE units.py WITH "def to_cm(x):\\n    return x * 2.54\\n"')
    [block] = parse_blocks(reply)
    assert block.path == "units.py" and block.creates_file
    assert _apply(reply)["units.py"] == "def to_cm(x):\n    return x * 2.54\n"


def test_create_writes_the_path_as_given():
    """A path outside the workspace is written as is: refusing it is sparkls's job."""
    [block] = parse_blocks(_ask("CREATE ../outside.py WITH x"))
    assert block.path == "../outside.py"


def test_ambiguous_keeps_the_search_to_the_changed_line():
    """AMBIGUOUS never widens, so a line found twice makes an ambiguous block."""
    with pytest.raises(SearchAmbiguous):
        _apply(_ask('AMBIGUOUS "print(area(1))" WITH "print(area(2))"'))


def test_plan_has_one_step_per_changed_file_and_one_per_creation():
    """The plan parses; each step carries the directives the fast tier will apply."""
    plan = parse_plan(_ask('REPLACE area WITH circle_area and CREATE units.py WITH "A = 1\\n"', mode="plan"))
    assert [(s.path, s.creates_file) for s in plan.steps] == [
        ("report.py", False),
        ("shapes.py", False),
        ("units.py", True),
    ]
    assert plan.steps[0].instruction == "REPLACE `area` WITH `circle_area`"
    assert model.parse_directives(plan.steps[2].instruction).completes == ("A = 1\n",)


def test_fast_requests_are_not_deep():
    """A fast-tier prompt (an editable region) is still answered with the region."""
    text = "<|editable_region_start|>\nx = 1\n<|editable_region_end|>\nREPLACE x WITH y"
    assert not deep.is_deep_request(text)
    assert model.answer(text) == "```\ny = 1\n```"


def test_per_model_faults_apply_to_that_model_only():
    """`models` paces one model without touching the other; count still counts every request."""
    state = FaultState(Faults())
    state.override({"tokens_per_second": 1000, "models": {"deep": {"tokens_per_second": 70}}, "count": 2})
    assert state.take("deep").tokens_per_second == 70
    assert state.take("fast").tokens_per_second == 1000
    assert state.take("deep").tokens_per_second is None  # the override ran out


def test_per_model_faults_are_checked():
    """A bad field inside `models` is refused like a top-level one."""
    with pytest.raises(ValueError, match="tokens_per_second"):
        Faults().merged({"models": {"m": {"tokens_per_second": -1}}})
    with pytest.raises(ValueError, match="unknown"):
        Faults().merged({"models": {"m": {"count": 1}}})


def test_stats_count_requests_by_model_and_transport():
    """by_model says which model was asked how often, over which transport; reset clears it."""
    stats = Stats()
    stats.count_response("deep", "http")
    stats.count_response("fast", "websocket")
    stats.count_response("fast", "websocket")
    assert stats.to_json()["by_model"] == {"deep": {"http": 1}, "fast": {"websocket": 2}}
    assert stats.responses == 3
    stats.reset()
    assert stats.to_json()["by_model"] == {} and stats.responses == 0
