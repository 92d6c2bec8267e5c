"""What a transport is: one way a tier's requests reach its model.

A `Transport` has three verbs: `start()` (open and warm its connections; over HTTP,
make the client, which reads the key), `stream(request)` (send one `Request` and yield
its events, `models/events.py`'s records, until the response completes) and `close()`
(idempotent). `collect()` reads what `stream` yields, whatever carried it. Each says
what it is to the policy above it (`models/session.py`): its `name` (what the status
and each reply call it), what `carries` it (the status's `transport`), whether it
keeps connections open (`persistent`: its failures are counted, fallen back from and
healed back to), whether input can be added while it streams (`steers`), and whether
its replies can be continued (`chains`). It answers a few questions of the policy:
whether the server refuses it for good (`refusal`), whether a failure counts
(`counts`), and it keeps what a follow-up needs (`hold`, `release`, `settled`).

Every transport of a tier is made from one `Link` (the tier's settings, where it
goes, the warm-up, the cache key) and reads the key only when first used, so that a
missing key is an error of the first request, not of start-up; `ssl_context_for` and
`dial_options` say how its connections are opened and verified.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from sparkls.config import Settings, TierSettings
from sparkls.errors import BadCaFile
from sparkls.guard.wire import Wire
from sparkls.models.events import Event, Sent, Where

if TYPE_CHECKING:
    from sparkls.models.chain import Chain, FollowUp
    from sparkls.models.steering import Steering


@dataclass(frozen=True, slots=True)
class Request:
    """One request as a transport sends it: the whole `prompt` (a follow-up's whole
    conversation), the `follow_up` whose short turn goes instead where its chain holds,
    and `steering`, given only to a transport that `steers`."""

    prompt: Wire
    follow_up: FollowUp | None = None
    steering: Steering | None = None


@dataclass(frozen=True, slots=True)
class Link:
    """What every transport of one tier is made from."""

    name: str  # the tier: "fast" or "deep"
    settings: Settings
    where: Where
    warm: Wire | None = None  # the instructions a new WebSocket connection is warmed with
    cache_key: str | None = None

    @property
    def tier(self) -> TierSettings:
        return getattr(self.settings, self.name)

    def api_key(self) -> str | None:
        """The key this tier sends (None: a local server, sent none); raises MissingApiKey."""
        return self.settings.api_key_for(self.name)

    def ssl_context(self) -> ssl.SSLContext | None:
        return ssl_context_for(self.tier, self.name)


class Transport:
    """One way a tier's requests reach its model (see the module doc). A subclass says
    which tiers it `fits`, and implements `start`, `stream` and `close`."""

    name: ClassVar[str]  # "lanes", "pool", "http": the status's `mode`, each reply's
    carries: ClassVar[str]  # "websocket" or "http": the status's `transport`, each reply's
    persistent: ClassVar[bool] = False  # keeps connections open: failures counted, fallen back from, healed back to
    steers: ClassVar[bool] = False  # takes input while a response streams (steering.py)
    chains: ClassVar[bool] = True  # its responses can be continued (`previous_response_id`)

    def __init__(self, link: Link) -> None:
        self.link = link

    @classmethod
    def fits(cls, tier: TierSettings) -> bool:
        """Whether it can carry this tier's requests (its `api` and `transport` settings)."""
        raise NotImplementedError

    @classmethod
    def switched_off(cls, tier: TierSettings) -> str | None:
        """Why a setting of the tier leaves it out, though it fits (None: it does not)."""
        return None

    async def start(self) -> None:
        raise NotImplementedError

    def stream(self, request: Request) -> AsyncIterator[Event]:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    # -- what the policy asks -------------------------------------------------------

    def refusal(self, exc: BaseException | None) -> str | None:
        """Why this server will never take this transport, as `exc` (None: a reply that
        came) shows it; the tier then does without it. None: no such sign."""
        return None

    def counts(self, exc: BaseException) -> bool:
        """Whether `exc` is a failure of its own to count (one lost connection under
        several requests is one failure)."""
        return True

    def hold(self, chain: Chain | None) -> None:
        """Keep what a follow-up of `chain` needs (a socket) until `release`."""

    def release(self, chain: Chain | None) -> None:
        """Undo one `hold`."""

    async def settled(self) -> None:
        """Wait until no cancelled response holds a connection of its own."""

    @property
    def wasted_tokens(self) -> int:
        """Output tokens of cancelled responses that streamed on and were dropped."""
        return 0


def marked(event: Event, previous: str | None) -> Event:
    """`event`, a `Sent` marked with whether it continued a response (`chained`)."""
    return replace(event, chained=previous is not None) if isinstance(event, Sent) else event


def ssl_context_for(tier: TierSettings, name: str) -> ssl.SSLContext | None:
    """The TLS context that trusts `tier.ca_file` besides the system's CAs (None: the
    system's alone); `BadCaFile` naming the file when it does not load."""
    if not tier.ca_file:
        return None
    try:
        return ssl.create_default_context(cafile=tier.ca_file)
    except (OSError, ValueError) as exc:  # OSError includes ssl.SSLError: a file that is no CA bundle
        raise BadCaFile(
            f"cannot load the CA bundle {tier.ca_file} (`{name}.ca_file`): {_why(exc)}. Set `{name}.ca_file` to a PEM "
            f"file of CA certificates, or remove it to trust the system's; nothing was sent to the {name} tier."
        ) from exc


def _why(exc: Exception) -> str:
    if isinstance(exc, ssl.SSLError):
        return f"no CA certificate could be read from it ({exc.reason or exc})"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "it is a folder"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


def dial_options(link: Link) -> dict[str, Any]:
    """How a WebSocket of the tier is opened: its timeouts, its TLS, its keepalive."""
    tier = link.tier
    return {
        "connect_timeout": tier.connect_timeout,
        "ssl_context": link.ssl_context(),
        "ping": (tier.keepalive_interval, tier.keepalive_timeout),
    }
