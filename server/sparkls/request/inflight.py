"""Edits still being written, per document: what a refine steers instead of waiting.

A fast edit registers itself here while its model request is in flight (`begin`),
with the request's `Steering` (models/steering.py: it knows the prompt sent). A refine
asked for meanwhile ("…and use f-strings" while the edit streams) adds its words to
that response (`response.steer`) rather than wait for it and pay a second request;
when steering is not possible, it waits for the edit to land (`wait`) and refines it
as usual. A per-document store (`forget`, `held`), shared by the two capabilities that
meet here (fastedit registers, refine steers). No I/O, no LSP.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from sparkls.models.steering import Steering


@dataclass(eq=False, slots=True)
class InFlight:
    uri: str
    steering: Steering
    done: asyncio.Event = field(default_factory=asyncio.Event)


class InFlightEdits:
    def __init__(self) -> None:
        self._edits: dict[str, InFlight] = {}

    def begin(self, uri: str) -> InFlight:
        """A fast edit of `uri` starts; the newest one is the one a refine meets."""
        edit = InFlight(uri, Steering())
        self._edits[uri] = edit
        return edit

    def end(self, edit: InFlight) -> None:
        edit.done.set()
        edit.steering.close()
        if self._edits.get(edit.uri) is edit:
            del self._edits[edit.uri]

    def get(self, uri: str) -> InFlight | None:
        return self._edits.get(uri)

    def forget(self, uri: str) -> None:
        edit = self._edits.pop(uri, None)
        if edit is not None:
            edit.steering.close()
            edit.done.set()

    def held(self) -> int:
        return len(self._edits)
