"""Helix, replayed (tests/editors/helix_client.py), through helix.md's set-up, against real sparkls.

One session runs the page's flow: `space a` quick fix on pylsp's diagnostic, next edit
after a typed rename, a slow rewrite resolved while Helix blocks, `spark:` comment
instructions touching many places and two places apart, refine by comment, a
completion item, "Show Spark context", `:lsp-workspace-command sparkls.edit` with
no arguments, and a function other files use renamed: the open one's own next edit, then
"Spark: update ..." across the open one and one not open (which Helix loads, modified).
The emulator follows the REPLACE / COMPLETE directives written into the texts.
"""

from __future__ import annotations

import asyncio
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.editors.docs import block
from tests.editors.driver import editor_env
from tests.editors.helix_client import HelixClient
from tests.editors.helix_values import ENCODINGS

DOCUMENTED_URL = "http://127.0.0.1:8765/v1"

SHAPES = '''import math


def area(radius):
    """Area of a circle."""
    return math.pi * raduis ** 2


def label(name):
    return "😀 名前: " + name
'''
# What pylsp (pyflakes) publishes on `raduis`, in UTF-16; the directive stands in for the model.
PYFLAKES = {
    "range": {"start": {"line": 5, "character": 21}, "end": {"line": 5, "character": 27}},
    "severity": 1, "source": "pyflakes", "message": "undefined name 'raduis'; REPLACE raduis WITH radius",
}
FIXED = SHAPES.replace("raduis", "radius")
RENAMED = FIXED.replace("label(name)", "label(who)").replace("+ name", "+ who")

REWRITE = '''def double(x):
    # REPLACE "x + x" WITH "2 * x"
    return x + x
'''
TWO_PLACES = '''def convert(celsius):
    # spark: REPLACE "/ 5 " WITH "/ 5.0 "
    offset = 32
    scale = 9
    return celsius * scale / 5 + offset
'''
TWO_PLACES_DONE = '''def convert(celsius):
    offset = 32
    scale = 9
    return celsius * scale / 5.0 + offset
'''
# Typed on the line the instruction changed, right after it.
REFINE = "REPLACE offset WITH shift"
REFINED = TWO_PLACES_DONE.replace("offset", "shift")
MANY_PLACES = '''def report(rows):
    # spark: REPLACE total WITH amount
    count = 0
    total = 0
    for row in rows:
        count += 1
        total += row
    print("rows", count)
    return total
'''
MANY_PLACES_DONE = MANY_PLACES.replace("    # spark: REPLACE total WITH amount\n", "").replace("total", "amount")
COMPLETE = '''def add(a, b):
    # COMPLETE "a + b"
    return 
'''
# A function two other files use: shop.py open in Helix, invoice.py on disk only.
LIB = '''def price(amount):
    return round(amount * 1.2, 2)
'''
SHOP = '''import lib

print(lib.price(10))
'''
INVOICE = '''import lib


def total(amounts):
    return sum(lib.price(amount) for amount in amounts)
'''


def documented_server(url: str) -> dict[str, Any]:
    """helix.md's `[language-server.sparkls]`, its emulator `config` line uncommented, at `url`."""
    text = block("helix.md", "toml", "`languages.toml`")
    text, uncommented = re.subn(r"^# (config = .*)$", r"\1", text, flags=re.M)
    assert uncommented == 1, "helix.md should have one commented `config = ...` line"
    server = tomllib.loads(text.replace(DOCUMENTED_URL, url))["language-server"]["sparkls"]
    assert server["config"] == {"localBaseUrl": url}
    return server


def _at(text: str, needle: str, line: int | None = None) -> int:
    """Char offset of `needle` (on `line`, 0-based, when given)."""
    start = 0 if line is None else sum(len(s) + 1 for s in text.split("\n")[:line])
    return text.index(needle, start)


async def _menu(helix: HelixClient, doc, anchor: int, head: int | None = None) -> dict[str, dict]:
    return {a["title"]: a for a in await helix.code_actions(doc, anchor, head)}


async def _pick(helix: HelixClient, menu: dict[str, dict], title: str) -> bool:
    """Pick `title` from the menu if it is there (False if not)."""
    if title not in menu:
        return False
    await helix.pick(menu[title])
    return True


async def _flow(root: Path, emulator) -> dict[str, Any]:
    out: dict[str, Any] = {"steps": {}}
    steps = out["steps"]
    for name, text in [("shapes.py", SHAPES), ("rewrite.py", REWRITE), ("two.py", TWO_PLACES),
                       ("many.py", MANY_PLACES), ("complete.py", COMPLETE), ("lib.py", LIB),
                       ("shop.py", SHOP), ("invoice.py", INVOICE)]:
        (root / name).write_text(text, encoding="utf-8")
    server = documented_server(emulator.url)
    helix = HelixClient(root, server["command"], server["config"], editor_env(root.parent / "home"))
    out["client"] = helix
    out["initialize"] = await helix.start()
    shapes = helix.open(root / "shapes.py")

    # Quick fix: cursor on pylsp's diagnostic, `space a`, "Fix with Spark: ...".
    helix.add_diagnostic(shapes, PYFLAKES)
    menu = await _menu(helix, shapes, _at(SHAPES, "raduis"))
    out["quick_fix_menu"] = list(menu)
    title = next((title for title in menu if title.startswith("Fix with Spark")), "Fix with Spark")
    steps["quick fix"] = await _pick(helix, menu, title) and shapes.text == FIXED

    # Next edit: `ciw` on the parameter `name`, then `who` typed key by key.
    start = _at(shapes.text, "name", 8)
    helix.transact(shapes, [(start, start + len("name"), "")])
    helix.type(shapes, start, "who")
    title = "Spark: next edit at line 10"
    for _ in range(200):  # `space a` again, on line 1, until Spark has it (Helix gets no notification)
        menu = await _menu(helix, shapes, 0)
        if title in menu:
            break
        await asyncio.sleep(0.05)
    out["next_edit_menu"] = list(menu)
    steps["next edit"] = await _pick(helix, menu, title) and shapes.text == RENAMED

    # Rewrite on a selection (`x` `x` `x`), resolved slowly while Helix blocks.
    rewrite = helix.open(root / "rewrite.py")
    menu = await _menu(helix, rewrite, 0, len(REWRITE))
    out["rewrite_menu"] = list(menu)
    calls_before = len(helix.calls)
    emulator.set_faults(delay_ms=700)
    picked = await _pick(helix, menu, "Spark: Simplify")
    emulator.set_faults(delay_ms=0)
    out["rewrite_resolve_ms"] = helix.timings["resolves_ms"][-1]
    out["calls_during_rewrite"] = helix.calls[calls_before:]
    steps["slow rewrite on a selection"] = picked and rewrite.text == REWRITE.replace("return x + x", "return 2 * x")

    # `spark:` comment instructions: one change two places apart, one touching many.
    for name, done in [("many.py", MANY_PLACES_DONE), ("two.py", TWO_PLACES_DONE)]:
        doc = helix.open(root / name)
        menu = await _menu(helix, doc, _at(doc.text, "# spark"))
        steps[f"spark: comment ({name})"] = await _pick(helix, menu, "Spark: apply instruction") and doc.text == done

    # Refine by comment, right after that edit, on a line it changed.
    helix.type(doc, _at(doc.text, "    return"), f"    # spark: {REFINE}\n")
    menu = await _menu(helix, doc, _at(doc.text, "# spark"))
    out["refine_menu"] = list(menu)
    steps["refine by comment"] = await _pick(helix, menu, f"Spark: refine last edit: {REFINE}") and doc.text == REFINED

    # Completion: `ctrl-x` after "return ", asked again (incomplete) until the Spark item is there.
    complete = helix.open(root / "complete.py")
    cursor = len(COMPLETE) - 1
    answer, kind = None, 1
    for _ in range(200):
        answer = await helix.completion(complete, cursor, kind)
        if answer and answer.get("items"):
            break
        kind = 3
        await asyncio.sleep(0.05)
    out["completion"] = answer
    item = answer["items"][0] if answer and answer.get("items") else {}
    if item:
        edit = item["textEdit"]
        helix.transact(complete, [(helix.offset(complete, edit["range"]["start"]),
                                   helix.offset(complete, edit["range"]["end"]), edit["newText"])])
    steps["completion item"] = complete.text == COMPLETE.replace("return \n", "return a + b\n")

    # Show Spark context: a command action, resolved then run; the file comes by showDocument.
    menu = await _menu(helix, shapes, _at(shapes.text, "who", 9))
    if await _pick(helix, menu, "Show Spark context"):
        await helix._spawned[-1]
    out["shown"] = list(helix.shown)
    steps["show context"] = len(helix.shown) == 1 and helix.shown[0]["path"].name == "context.md"

    # `:lsp-workspace-command sparkls.edit`: no arguments.
    before = len(helix.messages)
    out["bare_edit"] = await helix.workspace_command("sparkls.edit")
    out["bare_edit_messages"] = helix.messages[before:]
    steps["bare sparkls.edit"] = isinstance(out["bare_edit"], dict) and out["bare_edit"].get("applied") is False

    await _follow_ups(helix, root, out)

    helix.save(shapes)
    out["spinning_at_quit"] = sorted(helix.progress)
    out["exit_code"] = await helix.stop()
    out["context_left"] = [shown["path"].exists() for shown in helix.shown]
    return out


async def _until_offered(helix: HelixClient, doc, prefix: str) -> tuple[str | None, dict[str, dict]]:
    """`space a` on line 1 of `doc` until an entry starting with `prefix` is there (Helix
    gets no notification); that entry's title (None if it never came) and the menu."""
    for _ in range(400):
        menu = await _menu(helix, doc, 0)
        if title := next((title for title in menu if title.startswith(prefix)), None):
            return title, menu
        await asyncio.sleep(0.05)
    return None, menu


async def _follow_ups(helix: HelixClient, root: Path, out: dict[str, Any]) -> None:
    """Rename `price` in lib.py (`ciw`, then `gross_price` typed); shop.py, open, gets its
    own next edit; "Spark: update ..." in lib.py updates shop.py and invoice.py, which
    Helix loads into a buffer of its own and leaves modified."""
    await helix.log_message("workspace index:")  # the files that use `price` are found through it
    shop, lib = helix.open(root / "shop.py"), helix.open(root / "lib.py")
    start = _at(LIB, "price")
    helix.transact(lib, [(start, start + len("price"), "")])
    helix.type(lib, start, "gross_price")
    out["follower_next_edit"], _ = await _until_offered(helix, shop, "Spark: next edit at line")
    title, menu = await _until_offered(helix, lib, "Spark: update ")
    out["follow_ups_title"], out["follow_ups_kind"] = title, (menu.get(title) or {}).get("kind")
    shop_version, calls = shop.version, len(helix.calls)
    out["follow_ups_result"] = await helix._spawned[-1] if title and await _pick(helix, menu, title) else None
    out["follow_ups_edits"] = [{Path(c["textDocument"]["uri"]).name: c["textDocument"]["version"]
                                for c in call["params"]["edit"]["documentChanges"]}
                               for call in helix.calls[calls:] if call["method"] == "workspace/applyEdit"]
    out["follow_ups_shop_version"] = shop_version
    invoice = helix.docs.get((root / "invoice.py").as_uri())
    out["follow_ups"] = {"shop.py": shop.text, "invoice.py": invoice and invoice.text,
                         "invoice.py on disk": (root / "invoice.py").read_text(encoding="utf-8"),
                         "invoice.py in a view": invoice and invoice.in_view,
                         "invoice.py modified": invoice and invoice.modified}
    out["steps"]["follow-ups in other files"] = out["follow_ups"]["shop.py"] == SHOP.replace("lib.price", "lib.gross_price") \
        and out["follow_ups"]["invoice.py"] == INVOICE.replace("lib.price", "lib.gross_price")


@pytest.fixture(scope="module")
def flow(keyless_emulator_process, tmp_path_factory) -> dict[str, Any]:
    """One Helix session through the whole page."""
    keyless_emulator_process.reset()
    root = tmp_path_factory.mktemp("helix") / "project"
    root.mkdir()
    return asyncio.run(asyncio.wait_for(_flow(root, keyless_emulator_process), 120))


def test_every_step_of_the_page_passes(flow):
    """Each documented step gives the text the page says."""
    assert flow["steps"] == {step: True for step in flow["steps"]}, flow["client"].messages
    assert len(flow["steps"]) == 10


def test_initialize_is_helixs(flow):
    """Helix's initialize (utf-8 first, its name, the page's config) gets utf-8 positions."""
    assert ENCODINGS[0] == "utf-8"
    caps = flow["initialize"]["capabilities"]
    assert caps["positionEncoding"] == "utf-8"
    assert caps["codeActionProvider"]["resolveProvider"] is True
    assert "completionProvider" in caps  # registered for a client without inline completion
    assert "sparkls.edit" in caps["executeCommandProvider"]["commands"]


def test_quick_fix_is_offered_for_the_other_servers_diagnostic(flow):
    """`space a` on pylsp's diagnostic lists "Fix with Spark" first (a quick fix fixing it)."""
    assert flow["quick_fix_menu"][0] == "Fix with Spark: " + PYFLAKES["message"]


def test_next_edit_is_offered_after_typed_keys(flow):
    """After `ciw` + `who`, `space a` anywhere (here on line 1) offers the next edit at the use of the old name."""
    assert "Spark: next edit at line 10" in flow["next_edit_menu"]


def test_a_slow_resolve_gets_its_progress_token_late_and_quietly(flow):
    """A resolve over 300 ms asks for a progress token while Helix blocks; Helix grants it
    after the resolve's answer, and the server says nothing on stderr about it."""
    created = [c for c in flow["calls_during_rewrite"] if c["method"] == "window/workDoneProgress/create"]
    assert created and all(c["while_blocked"] and c["answered"] and c["answers_before_answer"] >= 1 for c in created)
    assert flow["rewrite_resolve_ms"] > 300
    assert flow["client"].stderr == []


def test_the_spinner_stops_after_a_slow_resolve(flow):
    """Helix starts the server's spinner when it grants a token; the server ends every
    token it was granted, even late, so nothing spins once the work is done."""
    assert flow["spinning_at_quit"] == []


def test_rewrites_are_offered_on_a_selection(flow):
    """A selection gets the three rewrite presets."""
    assert {"Spark: Add a docstring", "Spark: Add type hints", "Spark: Simplify"} <= set(flow["rewrite_menu"])


def test_completion_is_a_menu_item_marked_spark(flow):
    """The suggestion comes as a `textDocument/completion` item, detail "Spark"."""
    (item,) = flow["completion"]["items"]
    assert item["detail"] == "Spark" and item["textEdit"]["newText"] == "a + b"


def test_context_is_a_private_file_opened_in_helix(flow):
    """"Show Spark context" opens a context.md in a 0700 folder of the server's own
    (not a fixed shared path), removed when the server exits."""
    (shown,) = flow["shown"]
    assert shown["folder_mode"] == 0o700
    assert shown["path"].parent.name.startswith("sparkls-") and shown["path"].parent.name != "sparkls-"
    assert shown["path"] != Path("/tmp/sparkls-context.md")
    assert "def label(who)" in shown["text"]
    assert flow["context_left"] == [False]


def test_workspace_command_without_arguments_says_what_is_missing(flow):
    """`:lsp-workspace-command sparkls.edit` sends `arguments: []`: a message, no edit, no crash."""
    result = flow["bare_edit"]
    assert result["applied"] is False and result["error"]["message"]
    assert [message for _, message in flow["bare_edit_messages"]] != []
    assert flow["exit_code"] == 0


def test_a_healthy_session_logs_no_error_in_helix(flow):
    """Nothing on the server's stderr, no ERROR line in Helix's log, and no custom
    notification (Helix has no handler for them and the page asks for none)."""
    helix = flow["client"]
    assert helix.stderr == [] and helix.errors() == []
    assert [method for method, _ in helix.notifications if method.startswith("sparkls/")] == []


def test_timings(flow):
    """Spawn to initialize result, and to the first code-action answer, are recorded."""
    timings = flow["client"].timings
    assert 0 < timings["initialize_ms"] < timings["first_code_action_ms"]


def test_follow_ups_update_the_open_follower_and_load_the_other(flow):
    """After `price` is renamed in lib.py, shop.py (open) is offered its own next edit; then
    `space a` in lib.py offers "Spark: update 2 uses of price in 2 files" (refactor.rewrite),
    and picking it updates shop.py's buffer and loads invoice.py into a buffer of its own,
    with no view, edited and modified: the file on disk is unchanged until `:write-all`."""
    assert flow["follower_next_edit"] == "Spark: next edit at line 3"
    assert flow["follow_ups_title"] == "Spark: update 2 uses of price in 2 files"
    assert flow["follow_ups_kind"] == "refactor.rewrite"
    assert flow["follow_ups_result"]["applied"] is True, flow["follow_ups_result"]
    # One workspace/applyEdit: shop.py at the version Helix has, invoice.py (not open) at null.
    assert flow["follow_ups_edits"] == [{"shop.py": flow["follow_ups_shop_version"], "invoice.py": None}]
    assert flow["follow_ups"] == {
        "shop.py": SHOP.replace("lib.price", "lib.gross_price"),
        "invoice.py": INVOICE.replace("lib.price", "lib.gross_price"),
        "invoice.py on disk": INVOICE, "invoice.py in a view": False, "invoice.py modified": True,
    }
