"""Read the deep tier's plan for "plan, then delegate" (docs/deep-tier.md). Pure.

A plan is one step per file, each a precise instruction that a fast model can carry
out seeing only that file. The deep tier writes it as text::

    1. src/shapes.py: Rename `area` to `circle_area`, and its docstring.
    2. src/report.py: Call `circle_area` where `area` is called.
       Keep the argument names.
    3. src/units.py (new): A module with `to_cm(inches: float) -> float`.

or as JSON, bare or in a fenced block::

    {"steps": [{"path": "src/shapes.py", "instruction": "...", "new": false}]}

In the text form a step line starts, unindented, with a number (`1.` or `1)`) or a
bullet (`-`, `*`), then the path (backticks, bold and quotes allowed), an optional `(new)` marking
a file to create, a colon, and the instruction. Lines right below a step, or indented
below it, continue its instruction. Other lines (a preamble, a closing remark after a
blank line, fences) are ignored. Two steps for one file are merged in order.

Paths are as written; resolve them with paths.resolve_reply_path before use.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sparkls.deep.blocks import clean_path_line
from sparkls.errors import MalformedPlan

_STEP = re.compile(r"^(?:\d+[.)]|[-*])\s+(?P<rest>.*)$")
# The path, a colon (inside or outside closing bold or backticks), the instruction.
_HEAD = re.compile(r"^(?P<head>.+?):(?P<close>\*\*|`)?(?:\s+|$)(?P<instruction>.*)$")
_NEW = re.compile(r"\s*\(new(?: file)?\)\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})")
_JSON_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*json[ \t]*\n(.*?)\n[ \t]*\1[ \t]*$", re.S | re.M | re.I)


@dataclass(frozen=True, slots=True)
class PlanStep:
    number: int  # 1-based
    path: str
    instruction: str
    creates_file: bool = False


@dataclass(frozen=True, slots=True)
class Plan:
    steps: tuple[PlanStep, ...]

    @property
    def paths(self) -> list[str]:
        return [step.path for step in self.steps]


def _malformed(message: str, step: int | None = None) -> MalformedPlan:
    return MalformedPlan(f"The deep tier's plan could not be read: {message}; nothing was changed.", block=step)


def _split_step(rest: str, number: int) -> tuple[str, bool, str]:
    """(path, creates_file, instruction) of a step line's text after its bullet."""
    split = _HEAD.match(rest.strip())
    if split is None:
        raise _malformed(f"step {number} ({rest.strip()[:60]!r}) has no 'path: instruction' form", number)
    head = split.group("head") + (split.group("close") or "")
    instruction = split.group("instruction")
    creates = bool(_NEW.search(head))
    head = _NEW.sub("", head)
    path = clean_path_line(head)
    if path is None:
        raise _malformed(f"step {number} does not start with a file path ({head.strip()[:60]!r})", number)
    return path, creates, instruction.strip()


def _parse_text(reply: str) -> list[PlanStep]:
    steps: list[tuple[str, bool, list[str]]] = []
    open_step = False  # lines right below a step continue it, until a blank line
    for line in reply.replace("\r\n", "\n").split("\n"):
        if _FENCE.match(line):
            continue
        step = _STEP.match(line)
        if step:
            path, creates, instruction = _split_step(step.group("rest"), len(steps) + 1)
            steps.append((path, creates, [instruction] if instruction else []))
            open_step = True
        elif not line.strip():
            open_step = False
        elif steps and (open_step or line[:1].isspace()):
            steps[-1][2].append(line.strip())
            open_step = True
    return [PlanStep(i + 1, path, "\n".join(lines), creates) for i, (path, creates, lines) in enumerate(steps)]


def _parse_json(text: str) -> list[PlanStep]:
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _malformed(f"its JSON does not parse ({exc.msg} at line {exc.lineno})") from None
    items = data.get("steps") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise _malformed('its JSON has no "steps" list')
    steps = []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            raise _malformed(f'step {n} has no "path" string', n)
        path = clean_path_line(item["path"])
        instruction = item.get("instruction", "")
        if path is None:
            raise _malformed(f"step {n} has no usable path ({item['path'][:60]!r})", n)
        if not isinstance(instruction, str):
            raise _malformed(f'step {n} has no "instruction" string', n)
        steps.append(PlanStep(n, path, instruction.strip(), bool(item.get("new", False))))
    return steps


def _merge(steps: list[PlanStep]) -> tuple[PlanStep, ...]:
    merged: dict[str, PlanStep] = {}
    for step in steps:
        if not step.instruction:
            raise _malformed(f"step {step.number} ({step.path}) has no instruction", step.number)
        seen = merged.get(step.path)
        if seen is None:
            merged[step.path] = step
        else:
            merged[step.path] = PlanStep(
                seen.number, step.path, f"{seen.instruction}\n{step.instruction}", seen.creates_file or step.creates_file
            )
    return tuple(PlanStep(i + 1, s.path, s.instruction, s.creates_file) for i, s in enumerate(merged.values()))


def parse_plan(reply: str) -> Plan:
    """The plan in a deep-tier reply, text or JSON; raises MalformedPlan."""
    fenced = _JSON_FENCE.search(reply)
    stripped = reply.strip()
    if fenced:
        steps = _parse_json(fenced.group(2))
    elif stripped.startswith(("{", "[")):
        steps = _parse_json(stripped)
    else:
        steps = _parse_text(reply)
    if not steps:
        raise _malformed("it has no steps (expected lines like '1. path/to/file.py: what to change')")
    return Plan(_merge(steps))


def render_plan(plan: Plan) -> str:
    """The plan in the text form `parse_plan` reads (for scripted replies and logs)."""
    lines = []
    for step in plan.steps:
        first, *more = step.instruction.split("\n")
        lines.append(f"{step.number}. {step.path}{' (new)' if step.creates_file else ''}: {first}")
        lines.extend(f"   {line}" for line in more)
    return "\n".join(lines) + "\n"
