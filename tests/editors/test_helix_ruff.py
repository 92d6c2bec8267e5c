"""Helix, replayed with two servers as it runs them (tests/editors/helix_client.py): the
real `ruff server` (PyPI, pinned) and sparkls for Python, both from helix.md's
`languages.toml` as written (sparkls's emulator `config` line uncommented), on
tests/editors/neighbours.py's file and steps."""

from __future__ import annotations

import asyncio
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.editors import neighbours
from tests.editors.docs import block
from tests.editors.driver import editor_env
from tests.editors.helix_client import HelixClient
from tests.editors.test_helix import DOCUMENTED_URL


def documented_servers(url: str) -> list[dict[str, Any]]:
    """helix.md's Python servers, in its order, each as `[language-server.NAME]` gives it."""
    text = block("helix.md", "toml", "`languages.toml`")
    text = re.sub(r"^# (config = .*)$", r"\1", text, flags=re.M).replace(DOCUMENTED_URL, url)
    config = tomllib.loads(text)
    (python,) = [entry for entry in config["language"] if entry["name"] == "python"]
    return [{"name": name, **config["language-server"][name]} for name in python["language-servers"]]


def _ruff(doc) -> list[list[Any]]:
    """ruff's diagnostics of `doc`, [line, first line of the message], sorted."""
    return sorted([doc.text.count("\n", 0, d["_from"]), neighbours.first_line(d["message"])]
                  for d in doc.diagnostics if d["_server"] == "ruff")


async def _flow(root: Path, url: str) -> dict[str, Any]:
    path = root / neighbours.FILE
    path.write_text(neighbours.TEXT, encoding="utf-8")
    env = editor_env(root.parent / "home")
    clients = [HelixClient(root, s["command"], s.get("config"), env, name=s["name"], args=tuple(s.get("args", ())))
               for s in documented_servers(url)]
    for client in clients:
        await client.start()
    first = clients[0]
    first.beside(*clients[1:])
    out: dict[str, Any] = {"servers": [c.name for c in clients], "clients": clients}
    try:
        doc = first.open(path)
        await first.pull_diagnostics(doc)
        record = {"diagnostics": {"start": _ruff(doc)}, "texts": {}, "offered": {}}
        for name in ("fix", "shift", "ruff"):
            step = neighbours.STEPS[name]
            lines = doc.text.split("\n")
            line_start = sum(len(line) + 1 for line in lines[: step["line"]])
            if "to_line" in step:  # `x` on the first line, extended to the last: a selection
                last_end = sum(len(line) + 1 for line in lines[: step["to_line"] + 1])
                menu = await first.code_actions(doc, line_start, last_end)
            else:  # the cursor on the diagnostic
                at = min(d["_from"] for d in doc.diagnostics if doc.text.count("\n", 0, d["_from"]) == step["line"])
                menu = await first.code_actions(doc, at)
            record["offered"][name] = [a["title"] for a in menu]
            (picked,) = [a for a in menu if a["title"] == step["title"]]
            await first.pick(picked)
            record["texts"][name] = doc.text
            await first.pull_diagnostics(doc)
            record["diagnostics"][name] = _ruff(doc)
        out["neighbours"] = record
    finally:
        out["exit"] = [await c.stop() for c in clients]
    return out


@pytest.fixture(scope="module")
def flow(keyless_emulator_process, tmp_path_factory) -> dict[str, Any]:
    """One Helix session with both servers, through the steps beside ruff."""
    keyless_emulator_process.reset()
    root = tmp_path_factory.mktemp("helix-ruff") / "project"
    root.mkdir()
    return asyncio.run(asyncio.wait_for(_flow(root, keyless_emulator_process.url), 120))


def test_ruff_and_sparkls_run_as_the_page_lists_them(flow):
    assert flow["servers"] == ["ruff", "sparkls"] and flow["exit"] == [0, 0]


def test_beside_ruff_fixes_land_and_diagnostics_follow_the_text(flow):
    """"Fix with Spark" on ruff's diagnostic lands (resolved by sparkls); a Spark edit that
    adds a line moves ruff's diagnostic with the text (Helix tells ruff of every change);
    ruff's own fix, resolved by ruff, still works."""
    neighbours.check(flow["neighbours"])


def test_neither_server_says_anything_wrong(flow):
    """No ERROR in Helix's log (ruff's stderr at warn, sparkls's empty), no message shown."""
    clients = flow["clients"]
    assert clients[0].errors() == []
    assert [m for c in clients for m in c.messages] == []
