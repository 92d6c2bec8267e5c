"""`Wire`: the text of one request as it may leave the machine, made only by the guard.

The model clients (models/) take nothing else: `TierSession.complete`, the event
builders and the warm-up refuse any other type, and a `Wire` cannot be made without
the guard's seal (`guard.Guard.seal`, `guard.fixed_wire`). That is how "every byte
sent to a model went through the guard" is a property of the types, not a habit; a
test holds that nothing outside guard/ touches the seal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

_SEAL = object()  # only guard/ passes it

PATCH_TOOL = "apply_patch"  # the one tool a request may offer (edits/ask.py)


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """The answer to a tool call of an earlier response (an `apply_patch_call`'s
    outcome), sent before a turn that continues that response: the service refuses
    a continuation with an unanswered call. `output` is sparkls's own words."""

    call_id: str
    status: Literal["completed", "failed"]
    output: str


class Wire:
    """Instructions, earlier turns ((role, text), oldest first) and the new input; the
    tools the request offers (`PATCH_TOOL` or none) and the answers to an earlier
    response's tool calls that go before the input (`outputs`)."""

    __slots__ = ("instructions", "input", "history", "tools", "outputs")

    instructions: str
    input: str
    history: tuple[tuple[str, str], ...]
    tools: tuple[str, ...]
    outputs: tuple[ToolOutput, ...]

    def __init__(
        self, instructions: str, input: str, history: tuple[tuple[str, str], ...] = (), *, seal: Any = None,
        tools: tuple[str, ...] = (), outputs: tuple[ToolOutput, ...] = (),
    ) -> None:
        if seal is not _SEAL:
            raise TypeError("wire text is made by the guard only (sparkls.guard.Guard.seal)")
        if any(tool != PATCH_TOOL for tool in tools):
            raise ValueError(f"a request offers only the {PATCH_TOOL} tool")
        object.__setattr__(self, "instructions", instructions)
        object.__setattr__(self, "input", input)
        object.__setattr__(self, "history", tuple(history))
        object.__setattr__(self, "tools", tuple(tools))
        object.__setattr__(self, "outputs", tuple(outputs))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Wire cannot be changed")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Wire) and (self.instructions, self.input, self.history, self.tools, self.outputs) == (
            other.instructions, other.input, other.history, other.tools, other.outputs,
        )

    def __hash__(self) -> int:
        return hash((self.instructions, self.input, self.history, self.tools, self.outputs))

    def __repr__(self) -> str:
        return f"Wire({len(self.instructions)} + {len(self.input)} characters, {len(self.history)} earlier turns)"

    @property
    def text(self) -> str:
        """Everything it sends, as one text (what `sparkls.showContext` shows)."""
        turns = "".join(f"{text}\n\n" for _, text in self.history)
        return f"{self.instructions}\n\n{turns}{self.input}"


def require_wire(value: object) -> Wire:
    """`value`, if the guard made it; a TypeError otherwise (the transport's check)."""
    if not isinstance(value, Wire):
        raise TypeError(f"the model clients send only the guard's output, not {type(value).__name__}")
    return value
