"""`sparkls doctor`: what a user runs when something is wrong.

It owns the checks and their report: the settings (loaded as the server loads them),
where each tier goes (local, on this machine, or remote, and a warning when one is
local and the other not), each tier's API key (present or not, never shown), a
WebSocket handshake and warm-up, the WebSocket mode (lanes on one connection, or a pool and why), and one
tiny streamed HTTP request, with timings. Each check is a `Check` record made
by a small async function; a failed check skips those that depend on it; rendering
(text or JSON) is separate and pure. It talks to the model only through `models/`,
and prints to stdout because it is a command, not the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
import sys
import time
from collections.abc import Awaitable, Sequence
from contextlib import aclosing
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from sparkls.config import DEFAULT_LOCAL_BASE_URL, PROJECT_FILE, Settings, TierSettings, load_settings, read_project_file
from sparkls.endpoints import split_warning
from sparkls.guard import fixed_wire
from sparkls.errors import BadCaFile, MissingApiKey, SparkError
from sparkls.models.events import TextDelta, Where, chat_body, responses_body, warm_up_create
from sparkls.models.explain import naming_local_base_url
from sparkls.models.http import HTTPStreamer
from sparkls.models.lanesocket import LaneSocket, lanes_refused
from sparkls.models.transports import ssl_context_for
from sparkls.models.websocket import ResponsesSocket, warmed

PROBE = fixed_wire("Reply with the word OK.", "OK?")
TIERS = ("fast", "deep")


@dataclass(frozen=True, slots=True)
class Check:
    """One check's outcome; `ok` is None when it was skipped because another failed."""

    name: str
    ok: bool | None
    message: str = ""
    ms: float | None = None
    tier: str | None = None
    details: list[str] = field(default_factory=list)


# -- pure helpers ----------------------------------------------------------------


def load(root: Path, settings_json: str | None) -> tuple[Settings, Check]:
    """The settings the server would use for `root` plus `--settings`, and their check."""
    project, problems = read_project_file(root)
    overrides: Any = None
    if settings_json is not None:
        try:
            overrides = json.loads(settings_json)
        except ValueError as exc:
            problems.append(f"--settings is not valid JSON ({exc}); ignored")
    settings, invalid = load_settings(project, overrides)
    problems += invalid
    sources = [f"{PROJECT_FILE} in {root}" if project is not None else f"defaults (no {PROJECT_FILE} in {root})"]
    if overrides is not None:
        sources.append("--settings")
    if problems:
        noun = "problem" if len(problems) == 1 else "problems"
        return settings, Check("configuration", False, f"{len(problems)} {noun} (defaults kept)", details=problems)
    return settings, Check("configuration", True, " + ".join(sources))


def tier_summary(tier: TierSettings) -> dict[str, str]:
    where = f"local (this machine): {tier.host}" if tier.is_local else f"remote: {tier.host}"
    summary = {"where": where, "model": tier.model, "base_url": tier.base_url, "api": tier.api, "transport": tier.transport}
    if tier.transport == "websocket":
        summary["websocket_url"] = tier.websocket_url
    return summary


def key_source(settings: Settings, tier_name: str) -> str:
    """Where the key comes from, never the key: mirrors `Settings.api_key_for` (called
    first: a key that does not resolve has raised already)."""
    tier: TierSettings = getattr(settings, tier_name)
    if tier.api_key is not None and tier.api_key.get_secret_value():
        return "set (in settings)"
    if tier.is_local and not tier.api_key_env:
        return f"none sent (a local endpoint: {settings.api_key_env} and the global api_key are never sent here)"
    if not tier.is_local and settings.api_key is not None and settings.api_key.get_secret_value():
        return "set (in settings)"
    return f"set (from {tier.api_key_env or settings.api_key_env})"


def warnings(settings: Settings) -> list[str]:
    """What is not wrong but should be said: one tier local and the other remote."""
    split = split_warning(settings)
    return [split[0].upper() + split[1:]] if split else []


def redact(text: str, secret: str | None) -> str:
    return text.replace(secret, "[redacted]") if secret else text


# -- the checks (async I/O) ------------------------------------------------------


async def _timed(tier: str, name: str, work: Awaitable[str | None], timeout: float, secret: str | None) -> Check:
    """Run one check within `timeout` seconds; a SparkError is its failure."""
    started = time.perf_counter()
    try:
        async with asyncio.timeout(timeout):
            detail = await work
    except TimeoutError:
        return Check(name, False, f"no answer within {timeout:g} s (--timeout)", tier=tier)
    except SparkError as exc:
        return Check(name, False, redact(str(exc), secret), tier=tier)
    return Check(name, True, detail or "", (time.perf_counter() - started) * 1000, tier)


async def _websocket_checks(
    name: str, tier: TierSettings, key: str | None, tls: ssl.SSLContext | None, timeout: float
) -> list[Check]:
    where = Where(name, tier.host, tier.model)
    sock = ResponsesSocket(tier.websocket_url, key, where, connect_timeout=timeout, ssl_context=tls)

    async def warm() -> str:
        await sock.warm(tier.model, PROBE)
        return "generate: false"

    try:
        opened = await _timed(name, "websocket handshake", sock.connect(), timeout, key)
        if not opened.ok:
            return [opened, Check("websocket warm-up", None, "skipped: no connection", tier=name)]
        return [opened, await _timed(name, "websocket warm-up", warm(), timeout, key)]
    finally:
        await sock.close()


async def _lanes_check(
    name: str, tier: TierSettings, key: str | None, tls: ssl.SSLContext | None, timeout: float
) -> Check:
    """Which WebSocket mode the tier will run in: two warm-ups at once, each on its own
    lane of one connection; a server that refuses or ignores `stream_id` gets a pool."""
    pool = f"a pool of {tier.pool_size} sockets, one response at a time on each"
    if not tier.lanes:
        return Check("websocket mode", True, f"{pool} (setting `lanes` is off)", tier=name)
    where = Where(name, tier.host, tier.model)
    lanes = LaneSocket(
        tier.websocket_url, key, where, dial_options={"connect_timeout": timeout, "ssl_context": tls, "ping": (None, None)}
    )

    async def probe() -> str:
        conn = await lanes.connection()
        message = warm_up_create(tier.model, PROBE)
        try:
            await asyncio.gather(*(warmed(conn.stream(message), where) for _ in range(2)))
        except SparkError as exc:
            if not lanes_refused(exc):
                raise
            return f"{pool}: {tier.host} does not run lanes ({exc})"
        if conn.ignores_lanes:
            return f"{pool}: {tier.host} ignores lanes (its answers name none)"
        return "lanes: concurrent requests share one connection (2 warm-ups on 2 lanes at once)"

    try:
        return await _timed(name, "websocket mode", probe(), timeout, key)
    finally:
        await lanes.close()


async def _http_check(name: str, tier: TierSettings, key: str | None, tls: ssl.SSLContext | None, timeout: float) -> Check:
    where = Where(name, tier.host, tier.model)
    body = responses_body(tier.model, PROBE) if tier.api == "responses" else chat_body(tier.model, PROBE)
    streamer = HTTPStreamer(
        tier.base_url,
        key,
        where,
        api=tier.api,
        connect_timeout=timeout,
        request_timeout=timeout,
        verify=tls or True,
        keep_alive=False,
    )

    async def request() -> str:
        sent, first = time.perf_counter(), None
        async with aclosing(streamer.stream(body)) as events:
            async for event in events:
                if isinstance(event, TextDelta) and first is None:
                    first = time.perf_counter()
        ttfd = f"first delta {(first - sent) * 1000:.1f} ms" if first is not None else "no text"
        return f"a real model call (tiny); {ttfd}"

    try:
        return await _timed(name, f"http request ({tier.api})", request(), timeout, key)
    finally:
        await streamer.aclose()


async def tier_checks(name: str, settings: Settings, timeout: float) -> list[Check]:
    tier: TierSettings = getattr(settings, name)
    try:
        key = settings.api_key_for(name)
    except MissingApiKey as exc:
        try_it = f"sparkls emulate, then: sparkls doctor --settings '{{\"localBaseUrl\": \"{DEFAULT_LOCAL_BASE_URL}\"}}'"
        return [
            Check("api key", False, str(exc), tier=name, details=[f"to check the emulator instead: {try_it}"]),
            Check("network checks", None, "skipped: no API key", tier=name),
        ]
    checks = [Check("api key", True, key_source(settings, name), tier=name)]
    try:
        tls = ssl_context_for(tier, name)
    except BadCaFile as exc:
        checks.append(Check("ca_file", False, str(exc), tier=name))
        return [*checks, Check("network checks", None, "skipped: no usable ca_file", tier=name)]
    if tier.transport == "websocket":
        checks += await _websocket_checks(name, tier, key, tls, timeout)
        if checks[-1].ok:
            checks.append(await _lanes_check(name, tier, key, tls, timeout))
    checks.append(await _http_check(name, tier, key, tls, timeout))
    if settings.local_base_url == tier.base_url:  # the setting the user would change
        checks = [replace(c, message=naming_local_base_url(c.message, name)) for c in checks]
    return checks


async def run_checks(settings: Settings, tiers: list[str], timeout: float) -> list[Check]:
    checks: list[Check] = []
    for name in tiers:  # one after another: timings stay honest and the report in order
        checks += await tier_checks(name, settings, timeout)
    return checks


# -- rendering (pure) ------------------------------------------------------------


def _marks() -> tuple[str, str, str]:
    try:
        "✓✗–".encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return "ok", "FAIL", "skip"
    return "✓", "✗", "–"


def render_text(
    checks: list[Check], summaries: dict[str, dict[str, str]], marks: tuple[str, str, str], warned: Sequence[str] = ()
) -> str:
    lines = ["sparkls doctor"]
    shown: set[str | None] = {None}
    for check in checks:
        if check.tier not in shown:
            shown.add(check.tier)
            lines.append(f"{check.tier} tier")
            lines += [f"    {key:<14}{value}" for key, value in summaries.get(check.tier or "", {}).items()]
        mark = marks[2] if check.ok is None else marks[0] if check.ok else marks[1]
        timing = f"{check.ms:8.1f} ms" if check.ms is not None else ""
        if check.ok:
            lines.append(f"  {mark} {check.name:<24}{timing}  {check.message}".rstrip())
        else:
            lines.append(f"  {mark} {check.name}: {check.message}")
        lines += [f"      - {detail}" for detail in check.details]
    lines += [f"  ! warning: {warning}" for warning in warned]
    failed = sum(1 for c in checks if c.ok is False)
    lines.append("All checks passed." if not failed else f"{failed} check{'s' if failed > 1 else ''} failed.")
    return "\n".join(lines)


def render_json(checks: list[Check], summaries: dict[str, dict[str, str]], warned: Sequence[str] = ()) -> str:
    items = [{**asdict(c), "ms": None if c.ms is None else round(c.ms, 2)} for c in checks]
    return json.dumps({"ok": passed(checks), "tiers": summaries, "checks": items, "warnings": list(warned)}, indent=2)


def passed(checks: list[Check]) -> bool:
    return all(c.ok is not False for c in checks)


# -- the command -----------------------------------------------------------------


def _seconds(text: str) -> float:
    """An argparse type: a time limit, more than 0 seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is out of range (more than 0)")
    return value


def _folder(text: str) -> Path:
    """An argparse type: a folder that exists."""
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {'not a directory' if path.exists() else 'no such directory'}")
    return path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", type=_folder, default=None, help=f"where {PROJECT_FILE} is (default: here)")
    parser.add_argument("--settings", metavar="JSON", help="settings merged on top, as in initializationOptions")
    parser.add_argument("--tier", choices=["fast", "deep", "all"], default="all", help="which tier to check")
    parser.add_argument("--timeout", type=_seconds, default=15.0, metavar="SECONDS", help="per check (default 15)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")


def run(args: argparse.Namespace) -> int:
    """Run every check, print the report; 0 when all passed, else 1."""
    root = (args.root or Path.cwd()).resolve()
    settings, config_check = load(root, args.settings)
    tiers = list(TIERS) if args.tier == "all" else [args.tier]
    checks = [config_check, *asyncio.run(run_checks(settings, tiers, args.timeout))]
    summaries = {name: tier_summary(getattr(settings, name)) for name in tiers}
    warned = warnings(settings)
    output = render_json(checks, summaries, warned) if args.json else render_text(checks, summaries, _marks(), warned)
    print(output, flush=True)
    return 0 if passed(checks) else 1
