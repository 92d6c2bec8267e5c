"""Server-sent events, parsed from text chunks. Pure: no I/O.

`SSEDecoder.feed(text)` takes whatever arrived (any split, even mid-line) and returns
the complete events in it. Field rules follow the HTML specification: `event:`,
`data:` (joined with newlines), comments (`:`) ignored, an empty line dispatches.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SSEEvent:
    event: str  # "message" when the stream named none
    data: str


class SSEDecoder:
    __slots__ = ("_buffer", "_event", "_data")

    def __init__(self) -> None:
        self._buffer = ""
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: str) -> list[SSEEvent]:
        lines = (self._buffer + chunk).split("\n")
        self._buffer = lines.pop()  # an unfinished line waits for the next chunk
        events: list[SSEEvent] = []
        for raw in lines:
            line = raw.removesuffix("\r")
            if not line:
                if self._data:
                    events.append(SSEEvent(self._event or "message", "\n".join(self._data)))
                self._event, self._data = "", []
            elif line.startswith(":"):
                continue
            else:
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "data":
                    self._data.append(value)
                elif name == "event":
                    self._event = value
        return events
