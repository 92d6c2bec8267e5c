"""The tier's policy over its transports, whatever they are: choice, refusal, fallback, chains.

`TierSession` picks among `transports.TRANSPORTS` by what each says of itself, never by
name; here that tuple holds scripted transports (one module's worth each, made below),
as a new transport would be added, and the session serves through them unchanged.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bench.kit.sealing import wire
from sparkls.config import Settings
from sparkls.errors import ApiError, ConnectError
from sparkls.models import transports
from sparkls.models.chain import FollowUp
from sparkls.models.events import Completed, Event, Sent, TextDelta
from sparkls.models.session import TierSession
from sparkls.models.steering import Steering
from sparkls.models.transports import Request, Transport

PROMPT = wire("Edit.", "x = 1")


class Scripted(Transport):
    """A transport that answers from its class's `script`: an exception to raise, or a text."""

    script: list[Any]
    started = 0
    down = False  # `start` fails: the endpoint cannot be reached

    def __init__(self, link: Any) -> None:
        super().__init__(link)
        self.asked: list[Request] = []

    @classmethod
    def fits(cls, tier: Any) -> bool:
        return True

    async def start(self) -> None:
        type(self).started += 1
        if self.down:
            raise ConnectError(f"{self.name} cannot be reached")

    async def stream(self, request: Request) -> AsyncIterator[Event]:
        self.asked.append(request)
        outcome = type(self).script.pop(0) if type(self).script else "ok"
        if isinstance(outcome, BaseException):
            raise outcome
        yield Sent(self, chained=request.follow_up is not None)
        yield TextDelta(f"{type(self).name}: {outcome}")
        yield Completed(f"resp_{type(self).name}_{len(self.asked)}")

    async def close(self) -> None:
        pass

    def refusal(self, exc: BaseException | None) -> str | None:
        refused = isinstance(exc, ApiError) and exc.api_code == "no_such_thing"
        return f"the server will not take {self.name}" if refused else None


def scripted(name: str, *script: Any, **traits: Any) -> type[Scripted]:
    return type(name.capitalize(), (Scripted,), {"name": name, "carries": f"{name}-wire", "script": list(script), **traits})


def _session(monkeypatch: pytest.MonkeyPatch, *kinds: type[Transport], **fast: Any) -> TierSession:
    monkeypatch.setattr(transports, "TRANSPORTS", kinds)
    fast = {"model": "m", "api_key": "sk-unit", "fallback_cooldown": 60, **fast}
    return TierSession("fast", Settings.model_validate({"fast": fast}))


async def test_the_most_preferred_transport_serves_and_the_status_names_it(monkeypatch):
    """The first transport that fits serves; the reply and the status say which, and what carried it."""
    session = _session(monkeypatch, scripted("alpha", persistent=True), scripted("omega"))
    reply = await session.complete(PROMPT)
    assert reply.text == "alpha: ok" and reply.mode == "alpha" and reply.transport == "alpha-wire"
    assert (session.status.mode, session.status.transport, session.status.state) == ("alpha", "alpha-wire", "ready")
    await session.close()


async def test_a_transport_the_server_refuses_is_left_out_and_the_request_goes_on(monkeypatch):
    """A refusal for good sends the same request to the next transport at once (not a retry), and for the session."""
    refused = ApiError("no such thing", api_code="no_such_thing")
    session = _session(monkeypatch, scripted("alpha", refused, persistent=True), scripted("beta", persistent=True))
    reply = await session.complete(PROMPT)
    assert reply.text == "beta: ok" and reply.attempts == 1
    assert session.status.mode == "beta" and session.status.lanes_off == "the server will not take alpha"
    assert (await session.complete(PROMPT)).mode == "beta"
    await session.close()


async def test_the_last_transport_is_never_left_out(monkeypatch):
    """A refusal by the only transport left is the request's failure, said as it came (no endless turn)."""
    refused = ApiError("no such thing", api_code="no_such_thing")
    session = _session(monkeypatch, scripted("alpha", refused, persistent=True))
    with pytest.raises(ApiError, match="no such thing"):
        await session.complete(PROMPT)
    assert session.status.mode == "alpha" and session.status.lanes_off is None
    await session.close()


async def test_a_setting_that_switches_a_transport_off_leaves_it_out(monkeypatch):
    """`switched_off` says why, and the status says it too."""
    off = scripted("alpha", persistent=True, switched_off=classmethod(lambda cls, tier: "alpha is switched off"))
    session = _session(monkeypatch, off, scripted("beta", persistent=True))
    assert (await session.complete(PROMPT)).mode == "beta" and session.status.lanes_off == "alpha is switched off"
    await session.close()


async def test_repeated_failures_of_connections_fall_back_to_a_transport_without_them(monkeypatch):
    """`fallback_after` failures of a persistent transport: degraded, the first non-persistent one serves."""
    lost = ConnectError("the connection closed")
    alpha = scripted("alpha", lost, lost, persistent=True, down=True)  # and it does not come back meanwhile
    session = _session(monkeypatch, alpha, scripted("omega"), fallback_after=2)
    reply = await session.complete(PROMPT)
    assert reply.text == "omega: ok" and reply.attempts == 3
    assert (session.status.state, session.status.mode, session.status.transport) == ("degraded", "omega", "omega-wire")
    await session.close()


async def test_without_a_transport_to_fall_back_to_the_tier_keeps_trying_its_own(monkeypatch):
    """Only persistent transports: no fallback; the retries go to the same one."""
    lost = ConnectError("the connection closed")
    session = _session(monkeypatch, scripted("alpha", lost, lost, persistent=True), fallback_after=1)
    assert (await session.complete(PROMPT)).text == "alpha: ok" and session.status.mode == "alpha"
    await session.close()


async def test_steering_goes_only_to_a_transport_that_steers(monkeypatch):
    """Input added while a response streams needs a transport that `steers`; another gets none."""
    for steers in (True, False):
        kind = scripted("alpha", steers=steers)
        session = _session(monkeypatch, kind)
        await session.complete(PROMPT, steering=Steering())
        (asked,) = session.transports[0].asked  # type: ignore[attr-defined]
        assert (asked.steering is not None) == steers
        await session.close()


async def test_a_reply_can_be_continued_only_through_a_transport_that_chains(monkeypatch):
    """`chains`: the reply carries where a follow-up continues it, and the follow-up says it was chained."""
    for chains in (True, False):
        session = _session(monkeypatch, scripted("alpha", chains=chains))
        first = await session.complete(PROMPT)
        assert (first.chain is not None) == chains
        follow = await session.follow(FollowUp(first.chain, wire("Edit.", "shorter"), PROMPT))
        assert follow.chained
        await session.close()


async def test_warming_starts_the_preferred_transport_and_one_without_connections_needs_none(monkeypatch):
    """`warm` opens the preferred persistent transport; a tier on a non-persistent one is ready at once."""
    alpha, omega = scripted("alpha", persistent=True), scripted("omega")
    session = _session(monkeypatch, alpha, omega)
    await session.warm()
    assert alpha.started == 1 and omega.started == 0 and session.status.state == "ready"
    await session.close()
    session = _session(monkeypatch, omega)
    await session.warm()
    assert omega.started == 1 and session.status.state == "ready"
    await session.close()


# -- adding a transport is one module and one line ---------------------------------------

MODELS = Path(transports.__file__).resolve().parents[1]


def _strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module, docstrings apart."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value) for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value) for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_the_session_names_no_transport():
    """models/session.py holds the policy only: no transport's name, nor what carries one, as a string."""
    names = {kind.name for kind in transports.TRANSPORTS} | {kind.carries for kind in transports.TRANSPORTS}
    found = [f"session.py:{line} {text!r}" for line, text in _strings(MODELS / "session.py") if text in names]
    assert found == []


def test_every_transport_is_listed_once_in_transports():
    """Each `Transport` a module of models/transports/ defines is in TRANSPORTS, once (its one line)."""
    defined = []
    for path in sorted((MODELS / "transports").glob("*.py")):
        module = importlib.import_module(f"sparkls.models.transports.{path.stem}") if path.stem != "__init__" else transports
        defined += [
            value for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, Transport) and value is not Transport
            and value.__module__ == module.__name__
        ]
    assert sorted(k.__name__ for k in defined) == sorted(k.__name__ for k in transports.TRANSPORTS)
    assert len(set(transports.TRANSPORTS)) == len(transports.TRANSPORTS)


def test_only_the_registry_imports_a_transport():
    """Outside models/transports/, what uses a transport imports the package (its registry), never one of them."""
    package = MODELS.parent
    offenders = []
    for path in sorted(package.rglob("*.py")):
        if path.parent == MODELS / "transports":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sparkls.models.transports."):
                offenders.append(f"{path.relative_to(package)}:{node.lineno} imports {node.module}")
    assert offenders == []
