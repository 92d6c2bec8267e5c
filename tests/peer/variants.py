"""Realistic stream variants, and one function that runs a variant through sparkls's
real tier session (`TierSession.complete`) against the replaying peer.

Shared by tests/unit/test_stream_variants.py (which asserts the outcome) and
bench/stream_variants.py (which prints what the user sees and what it cost).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from sparkls.config import Settings, TierSettings
from tests.sealing import wire
from sparkls.errors import SparkError
from sparkls.models import progress as progress_module
from sparkls.models.session import TierSession, TierStatus
from tests.peer.server import Peer
from tests.peer.streams import ResponseStream, chat_stream, ws_error

ANSWER = "```python\ndef area(radius):\n    return math.pi * radius ** 2\n```"
COMMENTARY = "I'll fix the misspelt name `raduis` and keep the signature as it is."
REFUSAL = "I'm sorry, but I can't help with that request."
KEY = "sk-peer"
PROMPT = wire("Edit the region.", "<|editable_region_start|>\ndef area(radius): ...\n<|editable_region_end|>")
RATE_LIMIT = (
    "Rate limit reached for gpt-5.3-codex-spark in organization org-x on tokens per min (TPM): Limit 30000, "
    "Used 29500, Requested 1200. Please try again in {wait}. Visit https://platform.openai.com/account/rate-limits "
    "to learn more."
)


def answer(**kw: Any) -> list[dict[str, Any]]:
    return ResponseStream(**kw).start().reasoning().message(ANSWER, phase="final_answer").completed()


def paused(events: list[dict[str, Any]], after: int, seconds: float) -> list[Any]:
    """One response's events with a pause after the first `after` of them."""
    return [*events[:after], ("sleep", seconds), *events[after:]]


@dataclass(frozen=True)
class Variant:
    name: str
    transport: str  # "websocket", "http" (Responses SSE) or "chat" (Chat Completions SSE)
    scripts: list[list[Any]]
    expect: str  # the answer text, or the error code the user gets
    requests: int  # model requests it should take
    tier: dict[str, Any] = field(default_factory=dict)  # extra tier settings
    retire_after: float | None = None
    idle_before: float = 0.0  # seconds the warm pool sits idle before the request


def _ws_variants() -> list[Variant]:
    ok = answer()
    return [
        Variant("one message, no phase", "websocket",
                [ResponseStream().start().message(ANSWER).completed()], ANSWER, 1),
        Variant("reasoning item, then the final answer", "websocket",
                [ResponseStream().start().reasoning("Checking area().").message(ANSWER, phase="final_answer")
                 .completed()], ANSWER, 1),
        Variant("commentary, then the final answer (phase)", "websocket",
                [ResponseStream().start().reasoning().message(COMMENTARY, phase="commentary")
                 .message(ANSWER, phase="final_answer").completed()], ANSWER, 1),
        Variant("two messages without phase", "websocket",
                [ResponseStream().start().message(COMMENTARY).message(ANSWER).completed()], ANSWER, 1),
        Variant("response.queued first", "websocket",
                [ResponseStream().start(queued=True).message(ANSWER, phase="final_answer").completed()], ANSWER, 1),
        Variant("obfuscation on every delta", "websocket", [answer(obfuscation=True)], ANSWER, 1),
        Variant("an annotation event", "websocket",
                [ResponseStream().start().message(ANSWER, phase="final_answer", annotate=True).completed()],
                ANSWER, 1),
        Variant("one character per delta", "websocket",
                [ResponseStream().start().message(ANSWER, phase="final_answer", size=1).completed()], ANSWER, 1),
        Variant("output in response.completed only, no deltas", "websocket",
                [[e for e in answer() if e["type"] != "response.output_text.delta"]], ANSWER, 1),
        Variant("refusal", "websocket", [ResponseStream().start().refusal(REFUSAL).completed()], "model_refused", 1),
        Variant("incomplete: max_output_tokens", "websocket",
                [ResponseStream().start().message(ANSWER, phase="final_answer", stop_after=5)
                 .incomplete("max_output_tokens")], "reply_cut_off", 1),
        Variant("incomplete: content_filter", "websocket",
                [ResponseStream().start().message(ANSWER, phase="final_answer", stop_after=3)
                 .incomplete("content_filter")], "reply_cut_off", 1),
        Variant("response.failed (server_error), then an answer", "websocket",
                [ResponseStream().start().message(ANSWER, stop_after=2).failed(), ok], ANSWER, 2),
        Variant("in-band 429 with retry-after, then an answer", "websocket",
                [[ws_error(429, "rate_limit_exceeded", RATE_LIMIT.format(wait="200ms"), kind="tokens",
                           headers={"retry-after": "0.2"})], ok], ANSWER, 2),
        Variant("in-band 429, 'try again in 150ms' only", "websocket",
                [[ws_error(429, "rate_limit_exceeded", RATE_LIMIT.format(wait="150ms"), kind="tokens")], ok],
                ANSWER, 2),
        Variant("in-band server_error mid-stream, then an answer", "websocket",
                [[*ResponseStream().start().message(ANSWER, stop_after=2).events,
                  ws_error(500, "server_error", "The server had an error.", kind="server_error")], ok], ANSWER, 2),
        Variant("stream cut mid-way, then an answer", "websocket",
                [[*ResponseStream().start().message(ANSWER, stop_after=2).events, ("cut",)], ok], ANSWER, 2),
        Variant("connection limit on a socket that stays open", "websocket", [ok], ANSWER, 1,
                retire_after=0.3, idle_before=0.4),
        Variant("no first token for a while, then an answer", "websocket",
                [paused(answer(), 2, 0.4)], ANSWER, 1, tier={"first_token_timeout": 0.1}),
    ]


def _http_variants() -> list[Variant]:
    ok = answer()
    sse = ResponseStream().start().reasoning().message(COMMENTARY, phase="commentary")
    sse = sse.message(ANSWER, phase="final_answer").completed()
    wait = {"error": {"message": RATE_LIMIT.format(wait="200ms"), "type": "tokens", "code": "rate_limit_exceeded",
                      "param": None}}
    return [
        Variant("SSE: commentary + final answer, keep-alive comments", "http",
                [[("keepalive",), *sse[:3], ("keepalive",), *sse[3:]]], ANSWER, 1),
        Variant("SSE: error event (server_error), then an answer", "http",
                [ResponseStream().start().message(ANSWER, stop_after=2).sse_error("server_error", "Server error."),
                 ok], ANSWER, 2),
        Variant("SSE: HTTP 429 with retry-after, then an answer", "http",
                [[("status", 429, {"retry-after": "0.2"}, wait)], ok], ANSWER, 2),
        Variant("SSE: incomplete (max_output_tokens)", "http",
                [ResponseStream().start().message(ANSWER, stop_after=4).incomplete("max_output_tokens")],
                "reply_cut_off", 1),
    ]


def _chat_variants() -> list[Variant]:
    wait = {"error": {"message": "Rate limit reached. Please try again in 200ms.", "type": "requests",
                      "code": "rate_limit_exceeded", "param": None}}
    return [
        Variant("chat: OpenAI, usage chunk without choices", "chat", [chat_stream(ANSWER)], ANSWER, 1),
        Variant("chat: llama.cpp (reasoning_content, timings)", "chat",
                [chat_stream(ANSWER, flavour="llama.cpp")], ANSWER, 1),
        Variant("chat: vLLM (reasoning_content)", "chat", [chat_stream(ANSWER, flavour="vllm")], ANSWER, 1),
        Variant("chat: Ollama (reasoning, usage on the last chunk)", "chat",
                [chat_stream(ANSWER, flavour="ollama")], ANSWER, 1),
        Variant("chat: finish_reason length", "chat", [chat_stream(ANSWER[:30], finish="length")],
                "reply_cut_off", 1),
        Variant("chat: finish_reason content_filter", "chat", [chat_stream(ANSWER[:20], finish="content_filter")],
                "reply_cut_off", 1),
        Variant("chat: refusal", "chat", [chat_stream("", refusal=REFUSAL)], "model_refused", 1),
        Variant("chat: HTTP 429 with retry-after, then an answer", "chat",
                [[("status", 429, {"retry-after": "0.2"}, wait)], chat_stream(ANSWER)], ANSWER, 2),
    ]


VARIANTS = _ws_variants() + _http_variants() + _chat_variants()


@dataclass
class Outcome:
    text: str | None  # the answer, when there was one
    error: SparkError | None
    requests: int
    seconds: float
    stalls: list[str]  # what the user was told about a late first token
    statuses: list[TierStatus]

    @property
    def result(self) -> str:
        return self.text if self.error is None else self.error.code  # type: ignore[return-value]


def settings_for(peer: Peer, variant: Variant) -> Settings:
    api = "chat" if variant.transport == "chat" else "responses"
    base_url = peer.ws_base_url() if variant.transport == "websocket" else peer.http_base_url()
    fast = {"model": "gpt-5.3-codex-spark", "base_url": base_url, "api": api, "api_key": KEY,
            "transport": "websocket" if variant.transport == "websocket" else "http", "pool_size": 1,
            # (keys this version of sparkls does not know are left out: bench before/after)
            **{k: v for k, v in variant.tier.items() if k in TierSettings.model_fields}}
    return Settings.model_validate({"fast": fast})


async def run_variant(variant: Variant) -> Outcome:
    """The variant through a real `TierSession`: the answer or the error, and its cost."""
    statuses: list[TierStatus] = []
    stalls: list[str] = []
    async with Peer(variant.scripts, chat=variant.transport == "chat", retire_after=variant.retire_after) as peer:
        session = TierSession("fast", settings_for(peer, variant), warm=wire("Edit the region."),
                              on_status=lambda s: statuses.append(TierStatus(**s.to_json())))
        await session.warm()
        if variant.idle_before:
            await asyncio.sleep(variant.idle_before)
        stalled = getattr(progress_module, "STREAM_STALLED", None)  # None before it existed (bench: before/after)
        token = stalled.set(stalls.append) if stalled is not None else None
        started = time.perf_counter()
        text, error = None, None
        try:
            text = (await session.complete(PROMPT)).text
        except SparkError as exc:
            error = exc
        finally:
            if token is not None:
                stalled.reset(token)
            await session.close()
        return Outcome(text, error, peer.requests, time.perf_counter() - started, stalls, statuses)
