"""The emulator's knobs and gauges: faults, counters and request checks.

This module owns three small pieces of pure state and logic, shared by every
transport and by the control endpoint (``/_emulator/...``):

- :class:`Faults`, a value object (pacing, delay, drop, injected error, reply shape,
  behaviour, chat flavour, and per-model changes to them), and :class:`FaultState`, which holds the startup
  defaults plus an optional override that lasts ``count`` responses;
- :class:`Stats`, the counters served by ``GET /_emulator/stats`` (the canary net's
  findings too, ``canaries.py``);
- :func:`check_request`, the checks every model request passes
  (model named and known, ``previous_response_id`` resolvable), with the exact
  error codes the emulator answers.

It does no I/O.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from sparkls.emulator.behaviours import BEHAVIOURS, emulate_directives, rate_limit_error
from sparkls.emulator.chat import CHAT_FLAVOURS
from sparkls.emulator.events import ApiError
from sparkls.emulator.model import REPLY_STYLES

# What the emulator does with a response.steer (the ``steer`` fault, lanes.py).
STEER_MODES = ("accept", "unsupported", "pending", "successor_fails")

# Error codes the emulator answers with (besides injected ones). Public: tests match them.
INVALID_API_KEY = "invalid_api_key"
MODEL_NOT_FOUND = "model_not_found"
MISSING_PARAMETER = "missing_required_parameter"
PREVIOUS_RESPONSE_NOT_FOUND = "previous_response_not_found"
RESPONSE_IN_PROGRESS = "response_already_in_progress"
CONNECTION_LIMIT_REACHED = "websocket_connection_limit_reached"
INVALID_JSON = "invalid_json"
INVALID_REQUEST = "invalid_request"
UNKNOWN_EVENT_TYPE = "unknown_event_type"
UNKNOWN_PARAMETER = "unknown_parameter"  # stream_id sent to an emulator without lanes
INVALID_VALUE = "invalid_value"
UNKNOWN_URL = "unknown_url"
INVALID_FAULTS = "invalid_faults"


@dataclasses.dataclass(frozen=True, slots=True)
class Faults:
    """How the emulator misbehaves. The defaults describe a perfect, instant model.

    - ``tokens_per_second``: pace deltas at this rate (None: as fast as possible);
    - ``delay_ms``: no first token for this long: the opening events go out, then
      nothing (SSE keep-alive comments) until the first output;
    - ``drop_after_deltas``: cut the TCP connection after this many deltas, with no
      completed event (only when the reply has more deltas than that);
    - ``error_status`` / ``error_code``: answer model requests with this error instead;
    - ``reply``: the answer's shape: ``fenced`` (the protocol), ``bare`` (no fence),
      ``empty`` (no text), ``broken`` (the answer plus a line that does not parse), or
      one of the shapes real fast models produce (``shapes.py``);
    - ``behaviour``: what the model does (``behaviours.py``): ``final_answer`` (the
      default), ``commentary``, ``refusal``, ``max_output_tokens``, ``rate_limited``…;
    - ``chat_flavour``: whose Chat Completions chunks to send: ``openai``,
      ``llama.cpp``, ``ollama`` or ``vllm`` (``chat.py``);
    - ``retry_after``: the wait, in seconds, that ``rate_limited`` asks for;
    - ``steer``: what a ``response.steer`` on a response gets (``lanes.py``):
      ``accept`` (the default: accepted, the response stops at its next safe
      boundary and a successor answers), ``unsupported`` (failed,
      ``steering_not_supported``), ``pending`` (accepted, the response runs to its
      end, then ``response.steer.pending``; the input waits for an explicit
      ``response.create``) or ``successor_fails`` (accepted, the response is cut,
      then failed ``successor_creation_failed``);
    - ``count``: in an override, how many model requests it lasts (None: until reset);
    - ``models``: per-model changes to the fields above (not ``count``), e.g.
      ``{"gpt-5.3-codex": {"tokens_per_second": 70}}``, so two tiers can be paced
      differently at the same time; a request for another model gets the faults as
      they are.
    """

    tokens_per_second: float | None = None
    delay_ms: int = 0
    drop_after_deltas: int | None = None
    error_status: int | None = None
    error_code: str | None = None
    reply: str = "fenced"
    behaviour: str = "final_answer"
    chat_flavour: str = "openai"
    retry_after: float = 1.3
    steer: str = "accept"
    count: int | None = None
    models: dict[str, dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def for_model(self, model: str | None) -> Faults:
        """The faults a request for *model* gets: these, with that model's changes."""
        changes = (self.models or {}).get(model or "")
        if not changes:
            return self
        return dataclasses.replace(self._validated(changes), models=None)

    def for_request(self, request_text: str) -> Faults:
        """These faults with the ``EMULATE <name>`` directives of *request_text* applied."""
        changes = emulate_directives(request_text)
        return dataclasses.replace(self, **changes) if changes else self

    def merged(self, changes: dict[str, Any]) -> Faults:
        """Return a copy with *changes* (JSON field values) applied, after validation.

        Raises ValueError naming the first bad field.
        """
        return self._validated(changes)

    def _validated(self, changes: dict[str, Any], *, per_model: bool = False) -> Faults:
        fields = {f.name for f in dataclasses.fields(self)} - ({"count", "models"} if per_model else set())
        unknown = sorted(set(changes) - fields)
        if unknown:
            raise ValueError(f"unknown fault field(s): {', '.join(unknown)}")
        values = dict(changes)
        if values.get("models") is not None:
            values["models"] = _checked_models(values["models"])
        for name, value in values.items():
            _check_field(name, value)
        if values.get("tokens_per_second") is not None:
            values["tokens_per_second"] = float(values["tokens_per_second"])
        if values.get("delay_ms") is None and "delay_ms" in values:
            values["delay_ms"] = 0
        for name in ("reply", "behaviour", "chat_flavour", "retry_after", "steer"):
            if name in values and values[name] is None:
                values[name] = _DEFAULTS[name]
        if values.get("retry_after") is not None:
            values["retry_after"] = float(values["retry_after"])
        return dataclasses.replace(self, **values)


_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Faults)}


def _checked_models(models: Any) -> dict[str, dict[str, Any]]:
    """A ``models`` map, each model's changes checked as fault fields (no count)."""
    if not isinstance(models, dict):
        raise ValueError(f"invalid value for models: {models!r} (expected an object of model names)")
    out = {}
    for name, changes in models.items():
        if not isinstance(changes, dict):
            raise ValueError(f"invalid value for models[{name!r}]: {changes!r} (expected an object)")
        Faults()._validated(changes, per_model=True)  # raises on a bad field
        out[str(name)] = dict(changes)
    return out


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_field(name: str, value: Any) -> None:
    if value is None:
        return
    if name == "tokens_per_second":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    elif name in ("delay_ms", "drop_after_deltas"):
        ok = _is_int(value) and value >= 0
    elif name == "error_status":
        ok = _is_int(value) and 400 <= value <= 599
    elif name == "error_code":
        ok = isinstance(value, str) and bool(value)
    elif name == "reply":
        ok = value in REPLY_STYLES
    elif name == "behaviour":
        ok = value in BEHAVIOURS
    elif name == "chat_flavour":
        ok = value in CHAT_FLAVOURS
    elif name == "steer":
        ok = value in STEER_MODES
    elif name == "retry_after":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
    elif name == "count":
        ok = _is_int(value) and value >= 1
    elif name == "models":
        ok = True  # checked by _checked_models
    else:  # pragma: no cover - fields are checked against the dataclass first
        ok = False
    if not ok:
        raise ValueError(f"invalid value for {name}: {value!r}")


class FaultState:
    """The startup defaults, and an override that may expire after ``count`` responses."""

    def __init__(self, defaults: Faults) -> None:
        self.defaults = dataclasses.replace(defaults, count=None)
        self._override: Faults | None = None
        self._remaining: int | None = None

    @property
    def current(self) -> Faults:
        return self._override or self.defaults

    def override(self, changes: dict[str, Any]) -> Faults:
        """Replace any previous override by the defaults plus *changes*.

        Raises ValueError when *changes* is invalid; the state is then unchanged.
        """
        faults = self.defaults.merged(changes)
        self._override = faults
        self._remaining = faults.count
        return faults

    def set(self, faults: Faults) -> None:
        """Install *faults* as the override (count included)."""
        self._override = faults
        self._remaining = faults.count

    def reset(self) -> None:
        self._override = None
        self._remaining = None

    def take(self, model: str | None = None) -> Faults:
        """Return the faults for one model request (for *model*: with its per-model
        changes), counting it against the override."""
        faults = self.current.for_model(model)
        if self._override is not None and self._remaining is not None:
            self._remaining -= 1
            if self._remaining <= 0:
                self.reset()
        return faults


@dataclasses.dataclass(slots=True)
class Stats:
    """Counters since start or the last reset. ``ws_open`` and ``streaming`` are
    gauges, never reset.

    Requests to ``/_emulator/...`` are not counted (not even their bytes), so reading
    the stats does not change them.
    """

    ws_connections: int = 0  # WebSocket handshakes accepted
    ws_open: int = 0  # WebSocket connections open now
    tcp_connections: int = 0  # TCP connections accepted (HTTP keep-alive reuse shows here)
    http_requests: int = 0  # plain HTTP requests (not upgrades, not /_emulator/)
    responses: int = 0  # model requests served: response.create and POSTs that generate
    warmups: int = 0  # requests with "generate": false
    errors: int = 0  # error events and HTTP error statuses sent
    bytes_in: int = 0
    bytes_out: int = 0
    deltas: int = 0  # text deltas sent (Responses and Chat)
    abandoned: int = 0  # WebSocket responses the client closed the connection on mid-stream
    streaming: int = 0  # Responses replies being streamed now (WebSocket and HTTP)
    max_streaming: int = 0  # the most streamed at once since the last reset
    chained: int = 0  # model requests that continued a response by `previous_response_id`
    lanes: int = 0  # responses served on a named WebSocket lane (`stream_id`)
    max_lanes: int = 0  # the most named lanes streaming at once on one connection
    steers_accepted: int = 0  # response.steer.accepted sent
    steers_failed: int = 0  # response.steer.failed sent
    steered: int = 0  # responses ended as incomplete with reason "steered"
    successors: int = 0  # responses started automatically after a steered (or steered-then-completed) one
    patch_calls: int = 0  # responses answered with an apply_patch_call (the apply_patch tool)
    patch_outputs: int = 0  # apply_patch_call_output items received (a continuation answering a call)
    tool_offers: int = 0  # model requests that offered the apply_patch tool
    # Model requests served, by model and transport ("websocket", "http" for Responses
    # over HTTP, "chat" for Chat Completions): {"gpt-5.3-codex": {"http": 1}}.
    by_model: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    # The canary net (canaries.py): request bodies checked, and each canary found.
    canary_checked: int = 0
    canary_hits: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def count_response(self, model: str, transport: str) -> None:
        """One model request served (``transport``: "websocket", "http" or "chat")."""
        self.responses += 1
        per_model = self.by_model.setdefault(model, {})
        per_model[transport] = per_model.get(transport, 0) + 1

    def reset(self) -> None:
        ws_open, streaming = self.ws_open, self.streaming
        for field in dataclasses.fields(self):
            setattr(self, field.name, 0)
        self.ws_open, self.streaming = ws_open, streaming
        self.max_streaming = streaming
        self.by_model = {}
        self.canary_hits = []


def check_request(
    body: Any,
    *,
    models: frozenset[str] | None,
    previous_known: Callable[[str], bool],
) -> None:
    """Raise :class:`ApiError` when a model request must be refused.

    *previous_known* tells whether a ``previous_response_id`` can be resolved (on a
    WebSocket: only the connection's most recent response).
    """
    if not isinstance(body, dict):
        raise ApiError(400, INVALID_REQUEST, "The request body must be a JSON object.")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise ApiError(400, MISSING_PARAMETER, "Missing required parameter: 'model'.", "model")
    if models is not None and model not in models:
        raise ApiError(
            404,
            MODEL_NOT_FOUND,
            f"The model `{model}` does not exist or you do not have access to it.",
            "model",
        )
    previous = body.get("previous_response_id")
    if previous is not None and not (isinstance(previous, str) and previous_known(previous)):
        raise ApiError(
            400,
            PREVIOUS_RESPONSE_NOT_FOUND,
            f"Previous response with id '{previous}' not found.",
            "previous_response_id",
        )


def injected_error(faults: Faults) -> ApiError | None:
    """The error a fault asks for, if any (``error_status``)."""
    if faults.error_status is None:
        return None
    return ApiError(
        faults.error_status,
        faults.error_code,
        f"Injected by the sparkls emulator (status {faults.error_status}).",
    )


def refusal(faults: Faults, model: str) -> ApiError | None:
    """The error a model request gets instead of a reply, if any: an injected
    ``error_status``, or the ``rate_limited`` behaviour's 429."""
    error = injected_error(faults)
    if error is None and faults.behaviour == "rate_limited":
        error = rate_limit_error(model, faults.retry_after)
    return error
