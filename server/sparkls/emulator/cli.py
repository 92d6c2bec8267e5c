"""Command line of ``sparkls emulate`` (also ``python -m sparkls.emulator``).

This module owns the flags and the process's life: start the :class:`Emulator`,
print to stdout first the line ``sparkls emulator listening on URL`` (which tests and
the demo parse; ``https://`` with ``--tls-cert``/``--tls-key``), then the settings
that point both sparkls tiers at it from each editor (``editor_settings``), log to
stderr, and stop cleanly on SIGINT or SIGTERM. The ``sparkls`` entry point calls
:func:`add_arguments` on its ``emulate`` subparser and then :func:`run`.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import os
import signal
import ssl
import sys
from typing import Any

from sparkls.emulator.app import Emulator
from sparkls.emulator.behaviours import BEHAVIOURS
from sparkls.emulator.chat import CHAT_FLAVOURS
from sparkls.emulator.control import Faults
from sparkls.emulator.editor_settings import settings_help
from sparkls.emulator.shapes import REPLY_STYLES

DESCRIPTION = (
    "Run a local stand-in for the OpenAI Responses API (WebSocket mode, SSE, Chat "
    "Completions) with a scripted model, for tests, benchmarks and demos."
)
DEFAULT_PORT = 8765
API_KEY_ENV = "SPARKLS_EMULATOR_API_KEY"
READY_LINE = "sparkls emulator listening on {url}"

logger = logging.getLogger(__name__)


def _number(kind: type, name: str, check: Any, meaning: str) -> Any:
    """An argparse type: *kind* parsed from the text, refused unless *check* holds."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {name}") from None
        if not check(value):
            raise argparse.ArgumentTypeError(f"{text} is out of range ({meaning})")
        return value

    parse.__name__ = name  # what argparse calls the type in its own messages
    return parse


PORT = _number(int, "a port", lambda v: 0 <= v <= 65535, "0 to 65535; 0 picks a free port")
COUNT = _number(int, "a whole number", lambda v: v >= 0, "0 or more")
RATE = _number(float, "a number", lambda v: 0 < v < float("inf"), "more than 0")
SECONDS = _number(float, "a number of seconds", lambda v: 0 <= v < float("inf"), "0 or more")
POSITIVE_SECONDS = _number(float, "a number of seconds", lambda v: 0 < v < float("inf"), "more than 0")
STATUS = _number(int, "an HTTP status", lambda v: 400 <= v <= 599, "400 to 599")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the emulator's flags to *parser*; a bad value is a usage error naming its flag."""
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to bind")
    parser.add_argument(
        "--port", type=PORT, default=DEFAULT_PORT,
        help=f"port (0 picks a free one; default {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--api-key",
        default=None,
        help=f"require 'Authorization: Bearer KEY' (default: ${API_KEY_ENV}, else none)",
    )
    parser.add_argument(
        "--tokens-per-second", type=RATE, default=None, help="pace deltas (default: unpaced)"
    )
    parser.add_argument("--delay-ms", type=COUNT, default=0, help="delay before the first delta")
    parser.add_argument(
        "--drop-after", type=COUNT, default=None, metavar="N",
        help="cut the connection after N deltas",
    )
    parser.add_argument(
        "--error-status", type=STATUS, default=None, help="answer model requests with this status"
    )
    parser.add_argument("--error-code", default=None, help="error code for --error-status")
    parser.add_argument(
        "--behaviour", default=None, choices=BEHAVIOURS, metavar="NAME",
        help="what the model does: " + ", ".join(BEHAVIOURS) + " (default: final_answer)",
    )
    parser.add_argument(
        "--reply", default=None, choices=REPLY_STYLES, metavar="SHAPE",
        help="the answer's shape: " + ", ".join(REPLY_STYLES) + " (default: fenced)",
    )
    parser.add_argument(
        "--chat-flavour", default=None, choices=CHAT_FLAVOURS, metavar="NAME",
        help="Chat Completions chunks as " + ", ".join(CHAT_FLAVOURS) + " send them (default: openai)",
    )
    parser.add_argument(
        "--retry-after", type=SECONDS, default=None, metavar="SECONDS",
        help="the wait the rate_limited behaviour asks for (default: 1.3)",
    )
    parser.add_argument(
        "--models", default=None, help="comma-separated models to accept (default: any)"
    )
    parser.add_argument(
        "--max-connection-seconds", type=POSITIVE_SECONDS, default=None,
        help="refuse requests on WebSocket connections older than this (the socket stays open)",
    )
    parser.add_argument(
        "--close-on-connection-limit", action="store_true",
        help="also close a WebSocket that reached --max-connection-seconds",
    )
    parser.add_argument(
        "--no-lanes", action="store_true",
        help="refuse WebSocket lanes (stream_id) and response.steer, as a server without them would",
    )
    parser.add_argument(
        "--tls-cert", default=None, metavar="FILE",
        help="serve TLS (https/wss) with this PEM certificate chain; needs --tls-key",
    )
    parser.add_argument(
        "--tls-key", default=None, metavar="FILE", help="the PEM private key for --tls-cert"
    )


def tls_context(cert: str | None, key: str | None) -> ssl.SSLContext | None:
    """A server TLS context from PEM files; None when neither is given; ValueError when unusable."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise ValueError("--tls-cert and --tls-key go together")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(cert, key)
    except OSError as exc:  # a missing file, or ssl.SSLError: not PEM, key does not match
        raise ValueError(f"cannot load the TLS certificate {cert} and key {key}: {exc}") from exc
    return context


def build_emulator(args: argparse.Namespace) -> Emulator:
    """An :class:`Emulator` configured from parsed *args*; ValueError when invalid."""
    faults = Faults().merged(
        {
            "tokens_per_second": args.tokens_per_second,
            "delay_ms": args.delay_ms,
            "drop_after_deltas": args.drop_after,
            "error_status": args.error_status,
            "error_code": args.error_code,
            "behaviour": args.behaviour,
            "reply": args.reply,
            "chat_flavour": args.chat_flavour,
            "retry_after": args.retry_after,
        }
    )
    models = [m.strip() for m in args.models.split(",") if m.strip()] if args.models else None
    api_key = args.api_key if args.api_key is not None else os.environ.get(API_KEY_ENV)
    return Emulator(
        args.host,
        args.port,
        api_key=api_key or None,
        faults=faults,
        models=models,
        max_connection_seconds=args.max_connection_seconds,
        close_on_connection_limit=args.close_on_connection_limit,
        ssl_context=tls_context(args.tls_cert, args.tls_key),
        lanes=not args.no_lanes,
    )


def run(args: argparse.Namespace) -> int:
    """Run the emulator until SIGINT or SIGTERM; return the exit status."""
    if not logging.getLogger().handlers:
        logging.basicConfig(
            stream=sys.stderr, level=logging.WARNING,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
        logging.getLogger("sparkls.emulator").setLevel(logging.INFO)
    try:
        emulator = build_emulator(args)
    except ValueError as exc:
        print(f"sparkls emulate: {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_serve(emulator, args.tls_cert))
    except KeyboardInterrupt:  # a second Ctrl-C during shutdown
        return 130


async def _serve(emulator: Emulator, ca_file: str | None = None) -> int:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await emulator.start()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            reason = "the port is in use (--port 0 picks a free one)"
        else:
            reason = exc.strerror or str(exc)
        print(f"sparkls emulate: cannot listen on {emulator.host}:{emulator.port}: {reason}",
              file=sys.stderr)
        return 1
    print(READY_LINE.format(url=emulator.url), flush=True)
    print(f"\n{settings_help(emulator.url, key_required=emulator.api_key is not None, ca_file=ca_file)}\n", flush=True)
    try:
        await stop.wait()
    finally:
        logger.info("emulator stopping")
        await emulator.stop()
    return 0
