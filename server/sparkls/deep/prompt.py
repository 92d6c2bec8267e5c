"""The deep-tier prompt, in the model protocol of docs/model-protocol.md and docs/deep-tier.md.

Stable parts come first so the provider's prompt cache hits: the instructions (one
constant text per mode), then the files in path order, each as its workspace-relative
path on a line of its own and the file in a fence longer than any backtick run inside
it; the task, which changes every time, comes last. Files are shown with "\\n" line
breaks whatever their own (the reply's lines carry no breaks; apply.py restores them).

Which files to show is the caller's decision; this module makes the `Draft` (each
file a file part, the task the user's words), and the guard decides what of it may
be sent and redacts it. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from sparkls.documents.languages import grammar_record, language_id_for
from sparkls.guard import Draft, FromFile, FromUser, Section

DEEP_EDIT_INSTRUCTIONS = """\
You are the deep tier of sparkls, a coding assistant inside a programmer's editor.
The user message shows files of the workspace, each as its workspace-relative path on \
a line of its own followed by the file in a fenced block, and then a task.
Carry out the task by answering with SEARCH/REPLACE blocks, one per change, each like this:

path/to/file.py
<<<<<<< SEARCH
the exact lines of the file to change
=======
the lines that replace them
>>>>>>> REPLACE

Rules:
- Before each block, write the file's path exactly as shown, alone on its line.
- SEARCH copies whole, consecutive lines of the current file exactly, indentation \
included, and must match one place only: add neighbouring lines until it is unique.
- Keep blocks small: only the lines that change and enough around them to be unique.
- Several blocks may edit one file; they apply in order, each to the result of the one before.
- To delete lines, leave REPLACE empty. To create a file, write its path and leave \
SEARCH empty; REPLACE is then the whole new file.
- Only use paths inside the workspace, relative to it.
- Do not explain; answer with the blocks only."""

DEEP_PLAN_INSTRUCTIONS = """\
You are the deep tier of sparkls, a coding assistant inside a programmer's editor.
The user message shows files of the workspace, each as its workspace-relative path on \
a line of its own followed by the file in a fenced block, and then a task.
Do not edit the files yourself. Plan the task for a fast model that will edit each \
file separately, seeing only that file and its step. Answer with the plan only, one \
step per file that must change, in this form:

1. path/to/file.py: a precise instruction for this file alone
2. path/to/new_module.py (new): what the new file must contain

Rules:
- One step per file; write its path exactly as shown, or a new relative path marked (new).
- Each instruction must stand on its own: name the functions, classes and exact new \
names and signatures, since the fast model sees no other file and no other step.
- Only use paths inside the workspace, relative to it."""

PromptMode = Literal["edit", "plan"]
_BACKTICK_RUN = re.compile(r"`{3,}")
_LINE_BREAK = re.compile(r"\r\n|\r")


@dataclass(frozen=True, slots=True)
class TaskFile:
    """One file shown to the deep tier."""

    path: str  # workspace-relative, as paths.display_path gives it
    text: str
    language: str | None = None  # the fence's tag; guessed from the extension when None
    uri: str | None = None  # where it was read (an editor's buffer or the file's own URI), for the guard


@dataclass(frozen=True, slots=True)
class Selection:
    """Where the user's selection was, if the task came with one (1-based lines)."""

    path: str
    start_line: int
    end_line: int


def fence_for(text: str) -> str:
    """A backtick fence longer than any run of backticks in `text` (at least three)."""
    longest = max((len(m.group(0)) for m in _BACKTICK_RUN.finditer(text)), default=2)
    return "`" * (longest + 1)


def _fence_tag(file: TaskFile) -> str:
    if file.language is not None:
        return file.language
    language_id = language_id_for(file.path)
    record = grammar_record(language_id)
    return record.name if record is not None else ""


def render_file(file: TaskFile) -> Section:
    """The path line, then the file in its fence: a file of the workspace (confined)."""
    body = _LINE_BREAK.sub("\n", file.text)
    if body and not body.endswith("\n"):
        body += "\n"
    fence = fence_for(body)
    return Section.of(
        f"{file.path}\n{fence}{_fence_tag(file)}\n", FromFile(body, file.path, file.uri, confined=True), fence
    )


def render_task_prompt(
    files: Sequence[TaskFile], task: str, *, mode: PromptMode = "edit", selection: Selection | None = None
) -> Draft:
    """The deep tier's instructions and input; `mode="plan"` asks for a plan instead."""
    instructions = DEEP_PLAN_INSTRUCTIONS if mode == "plan" else DEEP_EDIT_INSTRUCTIONS
    sections = [render_file(f) for f in sorted(files, key=lambda f: f.path)]
    if selection is not None:
        sections.append(Section.of(f"Selection: {selection.path} lines {selection.start_line}-{selection.end_line}"))
    sections.append(Section.of("Task: ", FromUser(task.strip())))
    return Draft(instructions, tuple(sections))
