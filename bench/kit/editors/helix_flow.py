"""Helix, replayed (helix_client.py), through helix.md's set-up, against real sparkls: the
flow tests/editors/test_helix.py asserts on and bench/editors_helix.py times.

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

from bench.kit.editors.docs import block
from bench.kit.editors.driver import editor_env
from bench.kit.editors.helix_client import HelixClient
from bench.kit.editors.helix_values import ENCODINGS

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
