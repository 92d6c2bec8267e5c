"""A local stand-in for the OpenAI Responses API (``sparkls emulate``).

It speaks the real wire protocol on one loopback port — WebSocket mode on
``GET /v1/responses``, SSE or JSON on ``POST /v1/responses``, Chat Completions on
``POST /v1/chat/completions`` — with a scripted model (``model.py``) that follows the
fast-tier model protocol and obeys ``REPLACE``/``COMPLETE`` directives, plus fault
injection and counters for tests, benchmarks and the demo. It is never presented as a
model.

Modules, from the bottom up: ``protocol`` (region markers), ``shapes`` (reply
shapes), ``deep`` and ``model`` (what it answers), ``events`` (ids, templates, error
shapes), ``responses`` and ``chat`` (the two APIs' wire objects), ``behaviours``
(what a model does: reasoning, commentary, refusals, cut-offs, rate limits),
``control`` (faults, stats, request checks), ``httpwire`` (HTTP/1.1 and SSE bytes),
``streaming`` (sinks, pacing), ``replies`` (a behaviour played as events or chunks),
``steering`` (the steering events and checks, pure), ``lanes`` (a connection's lanes,
forks and steering), ``websocket`` (one WebSocket connection), ``routes`` and ``control_routes`` (plain
HTTP routes and the ``/_emulator/`` control endpoint), ``app`` (the server and
shared state), ``cli`` (``sparkls emulate`` flags and process life).
"""

from sparkls.emulator.app import Emulator
from sparkls.emulator.control import Faults

__all__ = ["Emulator", "Faults"]
