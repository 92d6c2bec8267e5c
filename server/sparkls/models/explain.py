"""Messages that name the fix for a tier that cannot be reached. Pure.

A transport meets a failure (connection refused, a host name that does not resolve, a
404 on the API path itself) and asks here for the sentence the user reads: what
failed, where, and what to change. `connect_failure` words a connection that never
opened, by where the endpoint is: the emulator's default address ("is `sparkls
emulate` running?"), another server on this machine ("is your local server
running?"), or a host elsewhere (its name, and the network). `missing_v1` tells a
404 that comes from a base URL without its `/v1`: the URL is never rewritten, the
message says which one to set.
"""

from __future__ import annotations

import socket
import ssl
from urllib.parse import urlsplit, urlunsplit

from sparkls.config import DEFAULT_LOCAL_BASE_URL, Settings
from sparkls.endpoints import is_loopback_host
from sparkls.errors import AuthError, ConnectError, EndpointNotFound, HandshakeRefused, ModelError

EMULATOR_PORT = urlsplit(DEFAULT_LOCAL_BASE_URL).port  # where `sparkls emulate` listens by default
# Default ports of local servers people run, to name the one that is not answering.
KNOWN_LOCAL_PORTS = {11434: "Ollama", 1234: "LM Studio"}


def api_root(url: str) -> str:
    """The tier's API root (its `base_url`) from a URL a transport used: `wss` ->
    `https`, `ws` -> `http`, and the endpoint path (`/responses`, ...) dropped."""
    parts = urlsplit(url)
    scheme = {"wss": "https", "ws": "http"}.get(parts.scheme, parts.scheme)
    path = parts.path
    for endpoint in ("/responses", "/chat/completions"):
        path = path.removesuffix(endpoint)
    return urlunsplit((scheme, parts.netloc, path, "", ""))


def root_cause(exc: BaseException) -> BaseException:
    """The most telling exception in `exc`'s chain: the last OSError (a refused
    connection under httpx's "All connection attempts failed"), else `exc`."""
    found, seen = exc, set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError):
            found = current
        current = current.__cause__ or current.__context__
    return found


def _reason(cause: BaseException) -> str:
    if isinstance(cause, ConnectionRefusedError):
        return "connection refused"
    if isinstance(cause, socket.gaierror):
        return "the host name does not resolve"
    if isinstance(cause, ssl.SSLCertVerificationError):
        return "its TLS certificate is not trusted"
    if isinstance(cause, TimeoutError):
        return "timed out"
    text = str(cause).strip()
    return text or type(cause).__name__


def connect_failure(tier: str, url: str, exc: BaseException) -> str:
    """The message for a connection to `url` (the tier's endpoint) that never opened."""
    root = api_root(url)
    parts = urlsplit(root)
    host, port = parts.hostname or parts.netloc, parts.port
    cause = root_cause(exc)
    reason = _reason(cause)
    head = f"{tier.capitalize()} tier: cannot connect to {root} ({reason})"
    if isinstance(cause, ssl.SSLCertVerificationError):
        return f"{head}: if a proxy or a local server uses its own certificate, set `{tier}.ca_file` to its CA bundle."
    if is_loopback_host(host):
        if port == EMULATOR_PORT:
            return f"{head}: is `sparkls emulate` running? Start it, or set `{tier}.base_url` to the server you run."
        server = KNOWN_LOCAL_PORTS.get(port or 0, "your local server (llama.cpp, Ollama, `sparkls emulate`…)")
        return f"{head}: is {server} running at {parts.netloc}? Start it, or correct `{tier}.base_url`."
    if isinstance(cause, socket.gaierror):
        return f"{head}: check the host name {host} in `{tier}.base_url`, and your network connection."
    return f"{head}: check your network connection to {host} (a proxy or firewall may block it)."


def missing_v1(url: str) -> str | None:
    """The base URL to set when a 404 for `url` (an API endpoint) comes from a base URL
    without `/v1`, or None when its path has a `/v1` (the 404 means something else)."""
    root = api_root(url)
    parts = urlsplit(root)
    if "v1" in parts.path.split("/"):
        return None
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/v1", "", ""))


def not_found_message(tier: str, url: str, detail: str, code: str | None = None) -> str | None:
    """The message for a 404 on `url` that a base URL without `/v1` explains, else None
    (a 404 that names the model is about the model)."""
    fixed = missing_v1(url)
    if fixed is None or code == "model_not_found":
        return None
    return (
        f"{tier.capitalize()} tier: {api_root(url)} answered 404 ({detail.strip() or 'not found'}): "
        f"the base URL probably needs /v1: set `{tier}.base_url` to {fixed}"
    )


def naming_local_base_url(message: str, tier: str) -> str:
    """`message` with the tier's `base_url` setting named as `local_base_url`: what the
    user set when that setting put the tier where it is."""
    return message.replace(f"`{tier}.base_url`", "`local_base_url`")


# Errors whose message may name the tier's `base_url` setting.
NAMES_BASE_URL = (ConnectError, HandshakeRefused, EndpointNotFound)


def for_the_user(exc: ModelError, settings: Settings, tier: str) -> ModelError:
    """`exc` as the user is to read it: a base URL set through `local_base_url` named as
    that setting; a local server that refused a request that carried no key, with how
    to give it one."""
    tier_settings = getattr(settings, tier)
    if type(exc) in NAMES_BASE_URL and settings.local_base_url == tier_settings.base_url:
        return type(exc)(naming_local_base_url(str(exc), tier))
    if not isinstance(exc, AuthError) or not tier_settings.is_local:
        return exc
    try:
        sent_none = settings.api_key_for(tier) is None
    except ModelError:
        return exc
    if not sent_none:
        return exc
    return AuthError(
        f"{exc} (No key was sent: a server on this machine gets only a key given to its tier, "
        f"`{tier}.api_key` or `{tier}.api_key_env`; {settings.api_key_env} never goes to it.)"
    )
