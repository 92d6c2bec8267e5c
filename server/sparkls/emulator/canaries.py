"""The canary net: strings that must never reach a model, looked for in every request.

Tests plant canaries (unique, key-shaped strings) where sparkls must never send from,
or must redact before sending, and hand them to the emulator (``POST
/_emulator/canaries {"canaries": [...]}``). The body of every request on the model
APIs (each WebSocket message, ``response.create`` warm-ups included, and every HTTP
request but the control endpoint's: ``POST /v1/responses``, ``/v1/chat/completions``,
refused ones too) is searched for each of them in every form a client could send it
in: as written, as JSON escapes it (``\\uXXXX`` or not, ``/`` as ``\\/`` too: the
secrets planted include paths and base64 with slashes) and percent-encoded (a
secret in a URL's path or query). The stats count the
requests checked (``canary_checked``) and list each canary found (``canary_hits``:
the canary, which request, its number since the last reset, and about 80 characters
of the request around it). A reset clears the hits and keeps the list.

Pure: no I/O.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    from sparkls.emulator.control import Stats

EXCERPT_CHARS = 40  # characters of the request quoted on each side of a canary found
MAX_HITS = 200  # hits kept until the next reset (a leak repeats; the first ones tell)
MIN_CANARY_CHARS = 8  # shorter strings would be found by chance


def checked_canaries(value: Any) -> tuple[str, ...]:
    """The ``canaries`` of a control request, validated; raises ValueError."""
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise ValueError(f"invalid value for canaries: {value!r} (expected a list of strings)")
    short = [c for c in value if len(c) < MIN_CANARY_CHARS]
    if short:
        raise ValueError(f"canaries must have at least {MIN_CANARY_CHARS} characters: {short!r}")
    return tuple(dict.fromkeys(value))


class CanaryNet:
    """The canaries in force and the check of one request body against them."""

    def __init__(self) -> None:
        self.canaries: tuple[str, ...] = ()
        # Each canary with the forms it takes inside a JSON string.
        self._forms: tuple[tuple[str, tuple[bytes, ...]], ...] = ()

    def set(self, canaries: tuple[str, ...]) -> None:
        self.canaries = canaries
        self._forms = tuple((canary, _forms(canary)) for canary in canaries)

    def check(self, body: bytes, request: str, stats: Stats) -> None:
        """Count one request body as checked; record each canary found in it."""
        stats.canary_checked += 1
        for canary, forms in self._forms:
            for form in forms:
                at = body.find(form)
                if at < 0:
                    continue
                if len(stats.canary_hits) < MAX_HITS:
                    stats.canary_hits.append({
                        "canary": canary,
                        "request": request,
                        "number": stats.canary_checked,
                        "excerpt": _excerpt(body, at, len(form)),
                    })
                break


def _forms(canary: str) -> tuple[bytes, ...]:
    escaped = [json.dumps(canary)[1:-1], json.dumps(canary, ensure_ascii=False)[1:-1]]
    forms = [canary, *escaped, *(form.replace("/", "\\/") for form in escaped), quote(canary, safe="")]
    return tuple(dict.fromkeys(form.encode("utf-8", "surrogatepass") for form in forms))


def _excerpt(body: bytes, at: int, length: int) -> str:
    start, end = max(0, at - EXCERPT_CHARS * 4), at + length + EXCERPT_CHARS * 4
    before = body[start:at].decode("utf-8", "replace")[-EXCERPT_CHARS:]
    found = body[at : at + length].decode("utf-8", "replace")
    after = body[at + length : end].decode("utf-8", "replace")[:EXCERPT_CHARS]
    return before + found + after
