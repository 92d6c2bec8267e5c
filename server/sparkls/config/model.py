"""The settings tree: one pydantic model per section, fully defaulted, and where code
and keys may go (a tier is *local* when its `base_url` host is loopback;
`local_base_url` puts both tiers on one local server; a local tier gets only a key
given to that tier: `Settings.api_key_for`). No I/O; nothing of LSP.
"""

from __future__ import annotations

import os
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from sparkls.endpoints import is_loopback_host
from sparkls.errors import MissingApiKey

PROJECT_FILE = ".sparkls.toml"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)


class TierSettings(_Model):
    """One model tier: where it lives and how we talk to it."""

    model: str
    base_url: str = "https://api.openai.com/v1"
    api: Literal["responses", "chat"] = "responses"
    transport: Literal["websocket", "http"] = "websocket"  # "http" when api is "chat"
    api_key_env: str | None = None
    api_key: SecretStr | None = None
    connect_timeout: float | None = Field(default=10.0, gt=0)
    request_timeout: float | None = Field(default=120.0, gt=0)
    # No text after this many seconds: the user is told, and offered to cancel (the
    # request goes on until `request_timeout`). None: never.
    first_token_timeout: float | None = Field(default=15.0, gt=0)
    ca_file: str | None = None  # extra CA bundle (a proxy's, or a local server's self-signed one)
    # Ask the service to keep responses (`store: true`): a refine can then continue
    # any earlier response by id, over HTTP too. Off: nothing is kept after the reply;
    # only the most recent response on a WebSocket can be continued.
    store: bool = False
    # Ask a fast rewrite for a patch where one is shorter than the region (the apply_patch
    # tool on the Responses API, V4A text on Chat Completions: edits/ask.py). Off: always
    # the region's whole new text (a server that refuses the tool, say).
    patches: bool = True
    # WebSocket mode runs concurrent requests on lanes of one connection (`stream_id`);
    # off, or with a server that does not run lanes, a pool of `pool_size` sockets does.
    lanes: bool = True
    # A cancelled request's response streams on (there is no cancel event): when only
    # such responses are left on the connection and they have cost this many output
    # tokens, the connection is closed and reopened instead.
    lane_waste_limit: int = Field(default=1000, ge=0)
    # The WebSocket pool (transport "websocket", without lanes).
    pool_size: int = Field(default=2, ge=1, le=8)
    keepalive_interval: float | None = Field(default=20.0, gt=0)
    keepalive_timeout: float | None = Field(default=20.0, gt=0)
    max_connection_age: float = Field(default=55 * 60, gt=0)  # the service closes at 60 min
    drain_budget: float = Field(default=0.25, ge=0)  # a cancelled stream: drain this long, else close
    # Falling back to HTTP, and healing.
    fallback_after: int = Field(default=2, ge=1)  # consecutive WebSocket transport failures
    fallback_cooldown: float = Field(default=30.0, gt=0)
    fallback_cooldown_max: float = Field(default=600.0, gt=0)

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"must be an http:// or https:// URL, got {value!r}")
        return value.rstrip("/")

    @model_validator(mode="before")
    @classmethod
    def _default_transport(cls, data: Any) -> Any:
        if isinstance(data, dict) and "transport" not in data and data.get("api") == "chat":
            return {**data, "transport": "http"}
        return data

    @field_validator("transport")
    @classmethod
    def _websocket_needs_responses(cls, value: str, info: ValidationInfo) -> str:
        if value == "websocket" and info.data.get("api") == "chat":
            raise ValueError('"websocket" works only with api "responses"; use "http"')
        return value

    @property
    def websocket_url(self) -> str:
        """`https` -> `wss`, `http` -> `ws`, plus `/responses` (docs/configuration.md)."""
        scheme, rest = self.base_url.split("://", 1)
        return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/responses"

    @property
    def host(self) -> str:
        return urlsplit(self.base_url).netloc

    @property
    def is_local(self) -> bool:
        """Whether `base_url` is on this machine (loopback): see `is_loopback_host`."""
        return is_loopback_host(urlsplit(self.base_url).hostname)

    @property
    def location(self) -> Literal["local", "remote"]:
        return "local" if self.is_local else "remote"


class DeepSettings(TierSettings):
    """The deep tier: a `TierSettings` plus what only multi-file tasks use.

    Kept on a subclass so the fast tier has no keys it would ignore.
    """

    # A stronger model thinks before it writes: a long silence is normal there.
    first_token_timeout: float | None = Field(default=60.0, gt=0)
    # Ask the editor to show each file's change for review before it lands
    # (`needsConfirmation` on the change annotations), where the editor supports it.
    confirm: bool = True
    # Plan, then delegate: the deep tier writes a short plan (one step per file) and
    # the fast tier carries out the steps in parallel.
    delegate: bool = False


class ContextSettings(_Model):
    max_region_lines: int = Field(default=300, ge=10)
    budget_tokens: int = Field(default=2000, ge=0)  # for the snippets around the region
    index: bool = True  # keep a workspace symbol index (definitions from other files)
    # An open file larger than this (UTF-8 bytes) gets no syntax tree: a line window
    # around the edit, and memory of its own text only (a tree weighs ~60x the text).
    # 0: no limit.
    max_file_bytes: int = Field(default=2_000_000, ge=0)
    # gitignore-style patterns never sent, on top of .gitignore and the built-in list
    # (.env*, *.pem, *.key, id_rsa*, *credentials*, *.secret*).
    exclude: list[str] = []


class CompletionSettings(_Model):
    """Inline completions (`textDocument/inlineCompletion`, and a `textDocument/completion`
    item for clients without ghost text)."""

    enabled: bool = True
    debounce_ms: int = Field(default=75, ge=0)  # quiet typing time before the model is asked
    # `textDocument/completion` waits at most this long for Spark's item, then answers
    # `isIncomplete` so the editor's menu is never held up.
    completion_item_wait_ms: int = Field(default=150, ge=0)


class SpeculationSettings(_Model):
    """Quick fixes computed as soon as code actions are listed, before one is chosen."""

    enabled: bool = True
    max_fixes: int = Field(default=3, ge=0, le=10)  # per code-action request
    ttl_seconds: float = Field(default=30.0, gt=0)  # a fix not chosen by then is cancelled and dropped


class NextEditSettings(_Model):
    """Next-edit suggestions: after an edit, the fast tier is asked for the edit that
    follows from it (a use of a renamed name, a call of a changed function).

    `enabled`: true, false, or "auto" (the default): on when the fast tier is on this
    machine (loopback `base_url`: the emulator, llama.cpp, Ollama...), off for a remote
    one, where every pause after an edit could cost a metered request."""

    enabled: bool | Literal["auto"] = "auto"
    debounce_ms: int = Field(default=300, ge=0)  # quiet time after a change before asking
    ttl_seconds: float = Field(default=30.0, gt=0)  # a suggestion not taken by then is dropped
    max_candidates: int = Field(default=3, ge=1, le=8)  # regions shown to the model per question
    # Follow-ups in other files (a renamed or re-signatured definition that they use):
    # "ask" offers them as one code action and asks the fast tier when it is picked,
    # "ahead" asks as soon as they are found (ready when picked), "off" never looks.
    other_files: Literal["ask", "ahead", "off"] = "ask"


class TrustSettings(_Model):
    """What sparkls asks before it writes (docs/security.md)."""

    # gitignore-style patterns of files written only after you say yes to each by name,
    # on top of the built-in list (guard/protected.py: .sparkls.toml, .vscode/, ...).
    protect: list[str] = []
    # How long to wait for that yes (window/showMessageRequest) before taking it as no.
    ask_timeout: float = Field(default=60.0, gt=0)


TIERS = ("fast", "deep")
DEFAULT_FAST_MODEL = "gpt-5.3-codex-spark"
DEFAULT_DEEP_MODEL = "gpt-5.3-codex"
# Where `sparkls emulate` listens by default; `local_base_url` falls back to it when
# its value is unusable, so that setting it never lets a request leave the machine.
DEFAULT_LOCAL_BASE_URL = "http://127.0.0.1:8765/v1"
# Required keys that a partial tier (`{"fast": {"base_url": ...}}`) inherits.
_DEFAULTS: dict[str, Any] = {
    "fast": {"model": DEFAULT_FAST_MODEL},
    "deep": {"model": DEFAULT_DEEP_MODEL, "transport": "http"},
}


class Settings(_Model):
    fast: TierSettings = TierSettings(model=DEFAULT_FAST_MODEL)
    deep: DeepSettings = DeepSettings(model=DEFAULT_DEEP_MODEL, transport="http")
    # One switch for both tiers: a server on this machine (the emulator, llama.cpp...).
    # A tier's own base_url still wins when it is local too; a remote one is replaced.
    local_base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    api_key: SecretStr | None = None
    context: ContextSettings = ContextSettings()
    completion: CompletionSettings = CompletionSettings()
    speculation: SpeculationSettings = SpeculationSettings()
    next_edit: NextEditSettings = NextEditSettings()
    trust: TrustSettings = TrustSettings()

    @property
    def next_edit_on(self) -> bool:
        """Whether next-edit suggestions are asked for ("auto": a local fast tier only)."""
        enabled = self.next_edit.enabled
        return self.fast.is_local if enabled == "auto" else bool(enabled)

    @field_validator("local_base_url")
    @classmethod
    def _loopback_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None  # "" is how an editor's settings UI clears it
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"must be an http:// URL on this machine, e.g. {DEFAULT_LOCAL_BASE_URL}, got {value!r}")
        if not is_loopback_host(parts.hostname):
            raise ValueError(
                f"must be on this machine (127.0.0.1, ::1 or localhost), got {value!r}; for a server "
                "elsewhere set fast.base_url and deep.base_url"
            )
        return value.strip().rstrip("/")

    @model_validator(mode="after")
    def _both_tiers_local(self) -> Settings:
        if self.local_base_url is not None:
            for name in TIERS:
                tier: TierSettings = getattr(self, name)
                if not tier.is_local:
                    setattr(self, name, tier.model_copy(update={"base_url": self.local_base_url}))
        return self

    def api_key_for(self, tier_name: str, environ: dict[str, str] | None = None) -> str | None:
        """The key to send to a tier, or None to send none; raises MissingApiKey.

        A remote tier: its own `api_key`, else the global `api_key`, else the variable
        its `api_key_env` (else the global one) names; none of them is an error. A local
        tier gets only a key given to that tier (its `api_key`, or the variable its own
        `api_key_env` names), never the global ones: those hold a real OpenAI key, and
        a port on this machine is not OpenAI.
        """
        tier: TierSettings = getattr(self, tier_name)
        env = os.environ if environ is None else environ
        if tier.api_key is not None and tier.api_key.get_secret_value():
            return tier.api_key.get_secret_value()
        if tier.is_local and not tier.api_key_env:
            return None
        if not tier.is_local and self.api_key is not None and self.api_key.get_secret_value():
            return self.api_key.get_secret_value()
        env_name = tier.api_key_env or self.api_key_env
        value = env.get(env_name, "")
        if not value:
            raise MissingApiKey(
                f"No API key for the {tier_name} tier: set the environment variable "
                f"{env_name} (or `api_key` in the sparkls settings) and try again." + self._local_hint(tier_name)
            )
        return value

    def _local_hint(self, tier_name: str) -> str:
        """How to go on without a key: the other tier's local server, or the emulator."""
        other = self.deep if tier_name == "fast" else self.fast
        if getattr(self, tier_name).is_local:
            return ""
        if not other.is_local:
            return (
                f" To try sparkls without a key, run `sparkls emulate` and set `local_base_url` "
                f"(`localBaseUrl` in an editor's settings) to {DEFAULT_LOCAL_BASE_URL}."
            )
        return (
            f" The other tier is local ({other.host}): to keep this one on this machine too, "
            f"set `local_base_url` (e.g. {other.base_url}) instead."
        )
