"""Chat Completions over HTTP, for OpenAI-compatible servers (llama.cpp, Ollama, vLLM,
LM Studio): `POST /chat/completions` and its server-sent events.

The same client as Responses over HTTP (`HTTPStreamer`, `api = "chat"`); the whole
conversation goes every time: nothing can be continued.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sparkls.models.events import chat_body
from sparkls.models.http import Api
from sparkls.models.transports.base import Request
from sparkls.models.transports.responses import ResponsesSSE


class ChatCompletions(ResponsesSSE):
    chains = False
    api: ClassVar[Api] = "chat"

    def body(self, request: Request) -> tuple[dict[str, Any], str | None]:
        return chat_body(self.link.tier.model, request.prompt), None
