"""`Wire`: the text of one request as it may leave the machine, made only by the guard.

The model clients (models/) take nothing else: `TierSession.complete`, the event
builders and the warm-up refuse any other type, and a `Wire` cannot be made without
the guard's seal (`guard.Guard.seal`, `guard.fixed_wire`). That is how "every byte
sent to a model went through the guard" is a property of the types, not a habit; a
test holds that nothing outside guard/ touches the seal.
"""

from __future__ import annotations

from typing import Any

_SEAL = object()  # only guard/ passes it


class Wire:
    """Instructions, earlier turns ((role, text), oldest first) and the new input."""

    __slots__ = ("instructions", "input", "history")

    instructions: str
    input: str
    history: tuple[tuple[str, str], ...]

    def __init__(self, instructions: str, input: str, history: tuple[tuple[str, str], ...] = (), *, seal: Any = None) -> None:
        if seal is not _SEAL:
            raise TypeError("wire text is made by the guard only (sparkls.guard.Guard.seal)")
        object.__setattr__(self, "instructions", instructions)
        object.__setattr__(self, "input", input)
        object.__setattr__(self, "history", tuple(history))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Wire cannot be changed")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Wire) and (self.instructions, self.input, self.history) == (
            other.instructions, other.input, other.history,
        )

    def __hash__(self) -> int:
        return hash((self.instructions, self.input, self.history))

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
