"""The connections of one tier, made when first needed: lanes, a pool, HTTP.

`Transports` builds each of a tier's transports from its settings the first time it
is asked for it (a missing key raises `MissingApiKey` then, not at start-up): the
`LaneSocket` (one connection, many lanes), the `SocketPool` (one response per
socket) and the `HTTPStreamer`, with the warm-up each WebSocket connection gets
(`generate: false`: the instructions cached, and, on a lane, a first sign of whether
the server runs lanes). Which one serves a request is the session's choice.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

from sparkls.config import Settings, TierSettings
from sparkls.errors import BadCaFile
from sparkls.guard.wire import Wire
from sparkls.models.events import Where, warm_up_create
from sparkls.models.http import HTTPStreamer, tls_context
from sparkls.models.lanes import LaneConnection
from sparkls.models.lanesocket import LaneSocket
from sparkls.models.pool import SocketPool
from sparkls.models.websocket import ResponsesSocket, warmed


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


class Transports:
    def __init__(self, name: str, settings: Settings, where: Where, *, warm: Wire | None, cache_key: str | None) -> None:
        self.name = name
        self.tier: TierSettings = getattr(settings, name)
        self.where = where
        self._settings = settings
        self._warm_wire = warm
        self.cache_key = cache_key
        self.lanes_made: LaneSocket | None = None
        self.pool_made: SocketPool | None = None
        self._http: HTTPStreamer | None = None

    @property
    def ignores_lanes(self) -> bool:
        """The lane connection saw responses that name no lane (the server ignores them)."""
        return self.lanes_made is not None and self.lanes_made.ignores_lanes

    def _dial_options(self) -> dict[str, Any]:
        tier = self.tier
        return {
            "connect_timeout": tier.connect_timeout,
            "ssl_context": ssl_context_for(tier, self.name),
            "ping": (tier.keepalive_interval, tier.keepalive_timeout),
        }

    def lanes(self) -> LaneSocket:
        if self.lanes_made is None:
            key = self._settings.api_key_for(self.name)  # raises MissingApiKey
            self.lanes_made = LaneSocket(
                self.tier.websocket_url,
                key,
                self.where,
                dial_options=self._dial_options(),
                warm=self._warm_lane if self._warm_wire is not None else None,
                max_age=self.tier.max_connection_age,
                waste_limit=self.tier.lane_waste_limit,
                stall=self.tier.keepalive_timeout,
            )
        return self.lanes_made

    def pool(self) -> SocketPool:
        if self.pool_made is None:
            key = self._settings.api_key_for(self.name)  # raises MissingApiKey
            tier, options = self.tier, self._dial_options()

            def make_socket() -> ResponsesSocket:
                return ResponsesSocket(
                    tier.websocket_url,
                    key,
                    self.where,
                    connect_timeout=options["connect_timeout"],
                    ssl_context=options["ssl_context"],
                    ping_interval=options["ping"][0],
                    ping_timeout=options["ping"][1],
                    stall=tier.keepalive_timeout,
                )

            self.pool_made = SocketPool(
                make_socket,
                tier.pool_size,
                warm=self._warm_socket if self._warm_wire is not None else None,
                max_age=tier.max_connection_age,
                drain_budget=tier.drain_budget,
            )
        return self.pool_made

    async def _warm_lane(self, conn: LaneConnection) -> None:
        assert self._warm_wire is not None
        await warmed(conn.stream(warm_up_create(self.tier.model, self._warm_wire, cache_key=self.cache_key)), self.where)

    async def _warm_socket(self, sock: ResponsesSocket) -> None:
        assert self._warm_wire is not None
        await sock.warm(self.tier.model, self._warm_wire, cache_key=self.cache_key)

    async def http(self) -> HTTPStreamer:
        """The tier's HTTP client, made on first use; its TLS context (a CA bundle read)
        is made in a worker thread, so the loop does not wait for it."""
        if self._http is None:
            key = self._settings.api_key_for(self.name)  # raises MissingApiKey
            tier, name = self.tier, self.name
            verify = await asyncio.to_thread(lambda: tls_context(ssl_context_for(tier, name)))
            if self._http is None:  # another request may have made it meanwhile
                self._http = HTTPStreamer(
                    tier.base_url, key, self.where, api=tier.api, connect_timeout=tier.connect_timeout,
                    request_timeout=tier.request_timeout, verify=verify,
                )
        return self._http

    async def close(self) -> None:
        if self.lanes_made is not None:
            await self.lanes_made.close()
        if self.pool_made is not None:
            await self.pool_made.close()
        if self._http is not None:
            await self._http.aclose()
