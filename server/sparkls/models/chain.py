"""Continuing a response: where it can be continued from, and what to send.

A `Chain` names a response that a follow-up may continue with `previous_response_id`:
its id, the transport that served it, whether it was stored (`store: true`), and,
over WebSocket, the connection it was served on. The Responses API keeps a response
that was not stored only in the connection's memory: on a connection that runs lanes
(`LaneConnection`), each lane's latest response, which a request on any other lane of
the same connection may continue (a fork); on a pool socket (`ResponsesSocket`), only
the most recent response, while no other went over it. Either connection says
whether it can (`can_continue`); a replaced connection cannot. A stored response can
be continued on any socket, or over HTTP.

A `FollowUp` carries both requests a continuation may become: `short` (the new turn
only, sent with `previous_response_id`) and `full` (the whole conversation, sent when
the chain is gone). No I/O; `TierSession` decides which one goes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sparkls.guard.wire import Wire

if TYPE_CHECKING:
    from sparkls.models.lanes import LaneConnection
    from sparkls.models.websocket import ResponsesSocket

    Connection = ResponsesSocket | LaneConnection

PREVIOUS_RESPONSE_NOT_FOUND = "previous_response_not_found"


@dataclass(frozen=True, slots=True)
class Chain:
    response_id: str
    transport: str  # "websocket" | "http"
    stored: bool  # sent with `store: true`: the service keeps it
    socket: Connection | None = None  # the WebSocket connection that served it

    def continues_on(self, sock: Connection | None) -> bool:
        """Whether a request sent on `sock` (None: over HTTP) can name this response."""
        if self.stored:
            return True
        return sock is not None and sock is self.socket and sock.can_continue(self.response_id)


@dataclass(frozen=True, slots=True)
class FollowUp:
    chain: Chain | None
    short: Wire  # the new turn alone
    full: Wire  # the conversation so far and the new turn


def turn_for(follow_up: FollowUp | None, prompt: Wire, sock: Connection | None) -> tuple[Wire, str | None]:
    """What to send on `sock` (None: HTTP): the short turn and the id it continues
    when the chain holds there, else `prompt` (the whole conversation) and no id."""
    chain = follow_up.chain if follow_up is not None else None
    if follow_up is not None and chain is not None and chain.continues_on(sock):
        return follow_up.short, chain.response_id
    return prompt, None


@dataclass(frozen=True, slots=True)
class Turn:
    """One exchange with the model, kept so that it can be continued: the prompt
    sent (its `history` and `input`: the whole conversation), the reply's text, and
    where the response can be continued from."""

    prompt: Wire
    reply: str
    chain: Chain | None = None
    chained: bool = False  # this turn itself continued an earlier response
    call: str | None = None  # the reply's `apply_patch_call` id: a continuation answers it first
