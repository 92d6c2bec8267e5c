"""Chat Completions objects and chunks, as each OpenAI-compatible server sends them.

This module owns the JSON of one chat completion in one of four flavours (the
``chat_flavour`` fault), each as that server really streams it:

- ``openai``: a role chunk, ``delta.content`` pieces (``delta.refusal`` for a
  refusal), every chunk padded with ``obfuscation``, ``service_tier`` and
  ``system_fingerprint``; with ``stream_options.include_usage`` every chunk has
  ``usage: null`` and a last chunk with ``choices: []`` carries the usage;
- ``llama.cpp``: thinking as ``delta.reasoning_content`` before the content, no
  ``logprobs`` key, and ``timings`` on the last chunk (the usage chunk, with
  ``choices: []``, when usage was asked for);
- ``ollama``: ``role`` in every delta, thinking as ``delta.reasoning``,
  ``system_fingerprint: fp_ollama``, usage in a last chunk with ``choices: []``;
- ``vllm``: thinking as ``delta.reasoning_content``, ``stop_reason`` beside
  ``finish_reason``, usage in a last chunk with ``choices: []``.

A refusal is ``delta.refusal`` with OpenAI and plain content elsewhere. Content
chunks are the hot path: prebuilt templates with only the piece filled in. Pure.
"""

from __future__ import annotations

import dataclasses
import secrets
import string
from typing import Any, Sequence

from sparkls.emulator.events import HOLE, OBFUSCATION_POOL, dumps, encode_string, json_template

CHAT_FLAVOURS = ("openai", "llama.cpp", "ollama", "vllm")
_ALNUM = string.ascii_letters + string.digits


@dataclasses.dataclass(frozen=True, slots=True)
class Flavour:
    """What sets one server's chunks apart."""

    name: str
    fingerprint: str | None  # system_fingerprint (None: no such key)
    logprobs: bool = True  # choices carry "logprobs": null
    reasoning_key: str | None = None  # where visible thinking goes (None: hidden)
    role_every_delta: bool = False
    refusal_field: bool = False  # refusals in delta.refusal (else as content)
    padded: bool = False  # obfuscation, service_tier, usage: null
    timings: bool = False
    stop_reason: bool = False

    def new_id(self) -> str:
        if self.name == "ollama":
            return f"chatcmpl-{secrets.randbelow(1000)}"
        if self.name == "vllm":
            return "chatcmpl-" + secrets.token_hex(16)
        length = 32 if self.name == "llama.cpp" else 29
        return "chatcmpl-" + "".join(secrets.choice(_ALNUM) for _ in range(length))


FLAVOURS = {
    "openai": Flavour("openai", "fp_" + secrets.token_hex(5), refusal_field=True, padded=True),
    "llama.cpp": Flavour("llama.cpp", "b6240-" + secrets.token_hex(4)[:7], logprobs=False,
                         reasoning_key="reasoning_content", timings=True),
    "ollama": Flavour("ollama", "fp_ollama", logprobs=False, reasoning_key="reasoning", role_every_delta=True),
    "vllm": Flavour("vllm", None, reasoning_key="reasoning_content", stop_reason=True),
}


def chat_usage(
    flavour: str, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0, reasoning_tokens: int = 0
) -> dict[str, Any]:
    """A ``usage`` object as *flavour* writes it (*completion_tokens* includes reasoning)."""
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if flavour == "openai":
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens, "audio_tokens": 0}
        usage["completion_tokens_details"] = {
            "reasoning_tokens": reasoning_tokens, "audio_tokens": 0,
            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
        }
    elif flavour == "vllm":
        usage["prompt_tokens_details"] = None
    return usage


def timings(prompt_tokens: int, predicted_tokens: int, cached_tokens: int = 0) -> dict[str, Any]:
    """llama.cpp's ``timings``, at a nominal 2,000 prompt and 50 generated tokens/s."""
    prompt_ms, predicted_ms = prompt_tokens * 0.5, predicted_tokens * 20.0
    return {
        "cache_n": cached_tokens,
        "prompt_n": prompt_tokens,
        "prompt_ms": prompt_ms,
        "prompt_per_token_ms": 0.5,
        "prompt_per_second": 2000.0,
        "predicted_n": predicted_tokens,
        "predicted_ms": predicted_ms,
        "predicted_per_token_ms": 20.0,
        "predicted_per_second": 50.0,
    }


class ChatChunks:
    """Builds the chunks of one streamed chat completion, or the whole completion.

    Stream order: :meth:`opening`, :meth:`reasonings`, :meth:`contents` (or
    :meth:`refusals`), then :meth:`closing` — or :meth:`error` to break off. Every
    builder returns JSON text, or a list of them.
    """

    def __init__(
        self,
        *,
        model: str,
        created: int,
        flavour: str = "openai",
        include_usage: bool = False,
        obfuscate: bool = True,
        completion_id: str | None = None,
    ) -> None:
        self.flavour = FLAVOURS[flavour]
        self.completion_id = completion_id or self.flavour.new_id()
        self.model = model
        self.created = created
        self.include_usage = include_usage
        self._padded = obfuscate and self.flavour.padded
        self._sent = 0  # chunks so far: picks each chunk's obfuscation string
        self._templates = {kind: self._template(kind) for kind in ("content", "reasoning", "refusal")}

    # -- pieces ------------------------------------------------------------------

    def _head(self, object_name: str) -> dict[str, Any]:
        head: dict[str, Any] = {"id": self.completion_id, "object": object_name,
                                "created": self.created, "model": self.model}
        if self.flavour.padded:
            head["service_tier"] = "default"
        if self.flavour.fingerprint is not None:
            head["system_fingerprint"] = self.flavour.fingerprint
        return head

    def _chunk(self, choices: list[dict[str, Any]], *, padding: Any = None) -> dict[str, Any]:
        chunk = self._head("chat.completion.chunk")
        chunk["choices"] = choices
        if self.flavour.padded and self.include_usage:
            chunk["usage"] = None
        if self._padded:
            chunk["obfuscation"] = padding if padding is not None else HOLE
        return chunk

    def _choice(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice: dict[str, Any] = {"index": 0, "delta": delta}
        if self.flavour.logprobs:
            choice["logprobs"] = None
        choice["finish_reason"] = finish_reason
        if self.flavour.stop_reason and finish_reason is not None:
            choice["stop_reason"] = None
        return choice

    def _delta(self, **fields: Any) -> dict[str, Any]:
        if self.flavour.role_every_delta:
            return {"role": "assistant", "content": "", **fields}
        return fields

    def _template(self, kind: str) -> str:
        key = {"content": "content", "refusal": "refusal", "reasoning": self.flavour.reasoning_key or "content"}[kind]
        return json_template(self._chunk([self._choice(self._delta(**{key: HOLE}))]))

    def _fill(self, kind: str, pieces: Sequence[str]) -> list[str]:
        template, encode = self._templates[kind], encode_string
        if not self._padded:
            return [template % encode(p) for p in pieces]
        start = self._sent
        self._sent = start + len(pieces)
        pool, size = OBFUSCATION_POOL, len(OBFUSCATION_POOL)
        return [template % (encode(p), pool[(start + i) % size]) for i, p in enumerate(pieces)]

    def _dumps(self, chunk: dict[str, Any]) -> str:
        if self._padded:
            self._sent += 1
            return dumps(chunk).replace(dumps(HOLE), OBFUSCATION_POOL[self._sent % len(OBFUSCATION_POOL)])
        return dumps(chunk)

    # -- stream --------------------------------------------------------------------

    def opening(self, *, refusal: bool = False) -> list[str]:
        """The role chunk (Ollama sends none: its role rides on every delta)."""
        name = self.flavour.name
        if name == "ollama":
            return []
        if name == "openai":
            delta = {"role": "assistant", "content": None if refusal else "", "refusal": "" if refusal else None}
        else:
            delta = {"role": "assistant", "content": None if name == "llama.cpp" else ""}
        return [self._dumps(self._chunk([self._choice(delta)]))]

    def contents(self, pieces: Sequence[str]) -> list[str]:
        """Content chunks, one per piece (the hot path)."""
        return self._fill("content", pieces)

    def reasonings(self, pieces: Sequence[str]) -> list[str]:
        """Chunks of visible thinking (flavours that show it)."""
        return self._fill("reasoning", pieces)

    def refusals(self, pieces: Sequence[str]) -> list[str]:
        """Chunks of a refusal: ``delta.refusal`` (OpenAI), else content."""
        return self._fill("refusal" if self.flavour.refusal_field else "content", pieces)

    def content(self, piece: str) -> str:
        """One content chunk."""
        return self.contents((piece,))[0]

    def closing(self, finish_reason: str, usage: dict[str, Any], timing: dict[str, Any] | None = None) -> list[str]:
        """The finish chunk, then the usage chunk when the request asked for usage."""
        last_delta = {"vllm": {"content": ""}, "ollama": self._delta()}.get(self.flavour.name, {})
        chunks = [self._chunk([self._choice(last_delta, finish_reason)])]
        if self.include_usage:
            usage_chunk = self._chunk([])
            usage_chunk["usage"] = usage
            chunks.append(usage_chunk)
        if self.flavour.timings:
            chunks[-1]["timings"] = timing
        return [self._dumps(chunk) for chunk in chunks]

    def error(self, message: str) -> str:
        """An error that breaks the stream off (``data: {"error": ...}``), as each server writes it."""
        name = self.flavour.name
        if name == "llama.cpp":
            error: dict[str, Any] = {"code": 500, "message": message, "type": "server_error"}
        elif name == "ollama":
            error = {"message": message, "type": "api_error", "param": None, "code": None}
        elif name == "vllm":
            error = {"message": message, "type": "InternalServerError", "param": None, "code": 500}
        else:
            error = {"message": message, "type": "server_error", "param": None, "code": "server_error"}
        return dumps({"error": error})

    # -- whole -----------------------------------------------------------------------

    def completion(
        self,
        *,
        content: str | None,
        reasoning: str,
        refusal: str | None,
        finish_reason: str,
        usage: dict[str, Any],
        timing: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The complete ``chat.completion`` object, for a request without streaming."""
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if self.flavour.name == "openai":
            message.update(refusal=refusal, annotations=[])
        if self.flavour.reasoning_key and reasoning:
            message[self.flavour.reasoning_key] = reasoning
        if self.flavour.name == "vllm":
            message["tool_calls"] = []
        choice = {"index": 0, "message": message}
        if self.flavour.logprobs:
            choice["logprobs"] = None
        choice["finish_reason"] = finish_reason
        if self.flavour.stop_reason:
            choice["stop_reason"] = None
        completion = self._head("chat.completion")
        completion["choices"] = [choice]
        completion["usage"] = usage
        if self.flavour.timings:
            completion["timings"] = timing
        return completion
