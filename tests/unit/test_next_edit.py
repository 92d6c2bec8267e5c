"""Next-edit suggestions, the pure parts: history, candidates, protocol, lifecycle, emulator."""

from __future__ import annotations

import asyncio

import pytest

from sparkls.config import load_settings
from sparkls.documents.positions import Position
from sparkls.documents.store import Document, DocumentStore, TextChange
from sparkls.emulator import model as emulator_model
from sparkls.emulator import nextedit as emulator_nextedit
from sparkls.edits.tail import EditOutcome, PositionedEdit
from sparkls.edits.diff import Replacement
from sparkls.errors import NoUsableReply
from sparkls.guard import Guard
from sparkls.nextedit.ask import Suggestion, _shown
from tests.sealing import seal
from sparkls.nextedit.candidates import WINDOW_LINES, find_candidates
from sparkls.nextedit.history import EditHistory, added_names, renames
from sparkls.nextedit.prompt import NO_EDIT, RECENT_EDITS, read_answer, render_next_edit_prompt
from sparkls.nextedit.service import NextEditService

SAMPLE = '''import math


def area(raduis):
    """Area of a circle."""
    return "😀 名前" + str(math.pi * raduis ** 2)


def both(raduis):
    return area(raduis) + area(2)
'''


class Session:
    """A document and its history, fed the way didChange feeds them."""

    def __init__(self, text: str = SAMPLE, history: EditHistory | None = None) -> None:
        self.store = DocumentStore()
        self.doc = self.store.open("file:///w/shapes.py", text, 1, "python")
        self.history = history or EditHistory()

    def change(self, line: int, start: int, end: int, text: str) -> None:
        before, version = self.doc.text, self.doc.version
        self.store.change(self.doc.uri, [TextChange(text, (Position(line, start), Position(line, end)))], version + 1)
        for r in self.doc.changes_since(version):
            self.history.record(r.start, r.end, before[r.start : r.end], r.text, self.doc.version)

    def retype(self, line: int, start: int, end: int, word: str) -> None:
        """Select text[start:end] of `line`, delete it, type `word` key by key."""
        self.change(line, start, end, "")
        for i, ch in enumerate(word):
            self.change(line, start + i, start + i, ch)


# -- history ------------------------------------------------------------------------


def test_keystrokes_coalesce_into_one_edit():
    """Deleting a word and typing another, key by key, is one edit: old word -> new word."""
    s = Session()
    s.retype(3, 9, 15, "radius")
    (edit,) = s.history.edits
    assert (edit.old, edit.new) == ("raduis", "radius")
    assert s.doc.text[edit.start : edit.end] == "radius"


def test_an_edit_typed_then_undone_disappears():
    """Typing a character and deleting it again leaves no edit."""
    s = Session()
    s.change(3, 9, 9, "x")
    s.change(3, 9, 10, "")
    assert s.history.edits == []


def test_an_edit_elsewhere_starts_a_new_one_and_shifts_the_older():
    """A change away from the last edit is a new edit; an edit after it moves with the text."""
    s = Session()
    column = s.doc.lines.line_text(5).index("raduis") + 1  # UTF-16: the emoji counts two
    s.retype(5, column, column + 6, "radius")  # the use, on the emoji line
    s.change(0, 0, 0, "# shapes\n")  # above it
    old, new = s.history.edits
    assert (old.old, old.new) == ("raduis", "radius")
    assert s.doc.text[old.start : old.end] == "radius"
    assert (new.old, new.new) == ("", "# shapes\n")


def test_history_keeps_the_last_few_edits():
    s = Session(history=EditHistory(limit=2))
    for line in (8, 5, 3):
        s.change(line, 0, 0, "#")
    assert len(s.history.edits) == 2
    assert [s.doc.lines.line_of(e.start) for e in s.history.edits] == [5, 3]


def test_diff_hunk_shows_whole_lines():
    s = Session()
    s.retype(3, 9, 15, "radius")
    assert s.history.edits[0].diff(s.doc.text, 3) == "@@ -4,1 +4,1 @@\n-def area(raduis):\n+def area(radius):"


def test_renames_and_added_names():
    s = Session()
    s.retype(3, 9, 15, "radius")
    assert renames(s.history.edits[0], s.doc.text) == [("raduis", "radius")]
    s.change(0, 10, 10, "\nBLUE = 3")
    assert added_names(s.history.edits[-1], s.doc.text) == ["BLUE"]


# -- candidates -----------------------------------------------------------------------


def test_a_renamed_parameter_finds_its_uses_not_the_calls():
    """Uses of the old name in its own function; not the edit's own line. `both`'s own
    `raduis` is another variable: neither its parameter nor its uses are a candidate,
    and its calls of `area` pass the argument by position, which a rename leaves as it
    is (test_nextedit_candidates.py: a call passing it by name is offered)."""
    s = Session()
    s.retype(3, 9, 15, "radius")
    found = find_candidates(s.doc, s.history.edits, s.history.edits[-1].end)
    assert [(c.first, c.last, c.reason) for c in found] == [(5, 5, "use of raduis (now radius)")]


def test_a_renamed_module_name_is_looked_for_everywhere_in_the_window():
    """A rename outside any function's parameters (a module constant) finds its uses in
    every function."""
    s = Session("LIMTI = 3\n\n\ndef f():\n    return LIMTI\n\n\ndef g(x):\n    return x + LIMTI\n")
    s.retype(0, 0, 5, "LIMIT")
    found = find_candidates(s.doc, s.history.edits, s.history.edits[-1].end)
    assert [(c.first, c.last) for c in found] == [(4, 4), (8, 8)]


def test_candidates_after_the_cursor_come_first_and_limit_holds():
    s = Session()
    s.retype(9, 16, 22, "radius")  # `area(raduis)` on the last line: the uses are above
    found = find_candidates(s.doc, s.history.edits, s.history.edits[-1].end, limit=1)
    assert [(c.first, c.last) for c in found] == [(8, 8)]


def test_a_new_enum_member_finds_the_match_on_its_siblings():
    text = (
        "from enum import Enum\n\n\nclass Color(Enum):\n    RED = 1\n    GREEN = 2\n\n\n"
        "def name(c):\n    match c:\n        case Color.RED:\n            return 'red'\n"
        "        case Color.GREEN:\n            return 'green'\n"
    )
    s = Session(text)
    s.change(5, 13, 13, "\n    BLUE = 3")
    (found,) = find_candidates(s.doc, s.history.edits, s.history.edits[-1].end)
    assert (found.first, found.last, found.reason) == (10, 14, "branch on Color")
    s.change(14, 27, 27, "\n        case Color.BLUE:\n            return 'blue'")  # the arm is there now
    assert find_candidates(s.doc, s.history.edits, s.history.edits[-1].end) == []


def test_the_search_is_bounded_to_a_window():
    """A use further than WINDOW_LINES from the edit is not looked at."""
    far = "\n" * (WINDOW_LINES + 5)
    s = Session(SAMPLE + far + "print(raduis)\n")
    s.retype(3, 9, 15, "radius")
    found = find_candidates(s.doc, s.history.edits, s.history.edits[-1].end, limit=8)
    assert all(c.last < 20 for c in found)


def test_plain_typing_has_no_candidates():
    """New code that renames nothing and adds no member: nothing to ask."""
    s = Session()
    s.change(9, 0, 0, "    total = 0\n")
    assert find_candidates(s.doc, s.history.edits, s.history.edits[-1].end) == []


# -- protocol -------------------------------------------------------------------------


def test_read_answer():
    assert read_answer(NO_EDIT, 2) is None
    assert read_answer("Region 2\n```python\nx\n```", 2) == (1, "\n```python\nx\n```")
    assert read_answer("```python\nx\n```", 1) == (0, "```python\nx\n```")
    with pytest.raises(NoUsableReply, match="region 3"):
        read_answer("Region 3\n```\nx\n```", 2)
    with pytest.raises(NoUsableReply, match="which region"):
        read_answer("```\nx\n```", 2)


def prompt_for(s: Session):
    edits = s.history.edits
    guard = Guard(None)
    shown = [_shown(guard, s.doc, c.first, c.last, c.reason)[0] for c in find_candidates(s.doc, edits, edits[-1].end)]
    diffs = [e.diff(s.doc.text, s.doc.lines.line_of(e.start)) for e in edits]
    return seal(render_next_edit_prompt("shapes.py", s.doc.uri, "python", diffs, 3, shown))


def test_the_emulator_applies_the_rename_the_diffs_show():
    """Through the emulator's own entry point: Region 1, the use renamed."""
    s = Session()
    s.retype(3, 9, 15, "radius")
    prompt = prompt_for(s)
    assert RECENT_EDITS == emulator_nextedit.RECENT_EDITS  # the emulator reads what sparkls writes
    answer = emulator_model.answer(prompt.instructions + "\n" + prompt.input)
    index, body = read_answer(answer, 2)
    assert index == 0 and 'str(math.pi * radius ** 2)' in body


def test_the_emulator_obeys_next_edit_none_and_replace():
    s = Session(SAMPLE.replace("Area of a circle.", "NEXT_EDIT NONE"))
    s.retype(3, 9, 15, "radius")
    prompt = prompt_for(s)
    assert emulator_model.answer(prompt.input) == NO_EDIT
    s = Session()
    s.retype(3, 9, 15, "radius")
    forced = prompt_for(s).input + "\nREPLACE math.pi WITH 3.14"
    assert "3.14 * raduis" in emulator_model.answer(forced)


# -- settings ---------------------------------------------------------------------


def test_auto_is_on_for_a_local_fast_tier_only():
    assert load_settings({})[0].next_edit_on is False  # api.openai.com: metered
    assert load_settings({"fast": {"base_url": "http://127.0.0.1:8765/v1"}})[0].next_edit_on is True
    assert load_settings({"nextEdit": {"enabled": True}})[0].next_edit_on is True
    assert load_settings({"local_base_url": "http://127.0.0.1:8765/v1", "next_edit": {"enabled": False}})[0].next_edit_on is False


# -- lifecycle ------------------------------------------------------------------------


def suggestion_for(doc: Document, line: int, old: str, new: str) -> Suggestion:
    """A rewrite of `line` replacing `old` with `new`, valid at the document's version."""
    start, end = doc.lines.starts[line], doc.lines.starts[line + 1]
    at = doc.text.index(old, start)
    region_new = doc.text[start:at] + new + doc.text[at + len(old) : end]
    outcome = EditOutcome(
        doc.uri, doc.version, [PositionedEdit(doc.position(at), doc.position(at + len(old)), new)], "fast", "m", "websocket",
        1, (line, line), {}, (start, end), [Replacement(at, at + len(old), new)], len(doc.text),
    )
    return Suggestion(outcome, region_new, "test")


class Recorder:
    def __init__(self, session: Session, service: NextEditService) -> None:
        self.s, self.service = session, service
        self.offers: list[Suggestion | None] = []
        service.on_offer = lambda uri, suggestion: self.offers.append(suggestion)

    def change(self, line: int, start: int, end: int, text: str) -> bool:
        doc = self.s.doc
        before, version = doc.text, doc.version
        self.s.store.change(doc.uri, [TextChange(text, (Position(line, start), Position(line, end)))], version + 1)
        return self.service.record(doc, before, version)


async def offer(service: NextEditService, doc: Document, suggestion: Suggestion, ttl: float = 30) -> None:
    async def ask(_doc, _edits, _asking=None, _previous=None):
        return suggestion

    await service.schedule(doc, ask, delay=0, ttl=ttl)
    await asyncio.sleep(0)  # the done-callback that offers it


async def renamed_and_offered(ttl: float = 30) -> tuple[Session, NextEditService, Recorder, Suggestion]:
    """The parameter renamed, and its use (line 5, after an emoji) offered as the next edit."""
    s = Session()
    service = NextEditService()
    r = Recorder(s, service)
    r.change(3, 9, 15, "radius")
    suggestion = suggestion_for(s.doc, 5, "raduis", "radius")
    await offer(service, s.doc, suggestion, ttl=ttl)
    return s, service, r, suggestion


async def test_applying_the_suggestion_accepts_it():
    s, service, r, suggestion = await renamed_and_offered()
    assert service.current(s.doc) is suggestion and r.offers == [suggestion]
    column = s.doc.lines.line_text(5).index("raduis")  # code points: the emoji is one
    assert r.change(5, column + 1, column + 7, "radius") is True  # UTF-16: the emoji counts two
    assert service.counts.accepted == 1 and service.current(s.doc) is None and r.offers[-1] is None


async def test_typing_elsewhere_drops_the_suggestion():
    s, service, r, _ = await renamed_and_offered()
    assert r.change(9, 0, 0, "#") is False
    assert service.counts.dropped == 1 and service.current(s.doc) is None


async def test_typing_over_the_suggestion_with_other_text_drops_it():
    s, service, r, _ = await renamed_and_offered()
    column = s.doc.lines.line_text(5).index("raduis") + 1
    assert r.change(5, column, column + 6, "r") is False
    assert service.counts.dropped == 1


async def test_a_suggestion_expires():
    s, service, r, _ = await renamed_and_offered(ttl=0.01)
    await asyncio.sleep(0.05)
    assert service.current(s.doc) is None and service.counts.dropped == 1 and r.offers[-1] is None


async def test_a_newer_change_supersedes_the_question():
    """Only the newest question runs to the end; the older is cancelled in its wait."""
    s = Session()
    service = NextEditService()
    r = Recorder(s, service)
    asked: list[int] = []

    async def ask(doc, edits, _asking=None, _previous=None):
        asked.append(doc.version)
        return None

    r.change(3, 9, 15, "r")
    first = service.schedule(s.doc, ask, delay=0.05, ttl=30)
    r.change(3, 10, 10, "a")
    second = service.schedule(s.doc, ask, delay=0.0, ttl=30)
    await asyncio.wait([first, second])
    assert first.cancelled() and asked == [s.doc.version] and service.counts.superseded == 1


async def test_no_question_without_history():
    s = Session()
    service = NextEditService()
    called = []

    async def ask(doc, edits, _asking=None, _previous=None):
        called.append(1)

    assert await service.schedule(s.doc, ask, delay=0, ttl=30) is None
    assert called == []


def test_the_emulator_renames_as_a_model_would_not_inside_text():
    """A diff's rename: whole words in code, in f-string and template interpolations, never
    in a string literal or a comment (`"Circle area:"` stays); `#` starts a comment in
    Python, not in JavaScript (`this.#area`)."""
    from sparkls.emulator.code import rename_in_code as apply_renames

    renames = [("area", "circle_area")]
    assert apply_renames('print("Circle area:", area(2))  # area here', renames, "python") == (
        'print("Circle area:", circle_area(2))  # area here')
    assert apply_renames("x = circle_area + area", renames, "python") == "x = circle_area + circle_area"
    assert apply_renames("return f'{area(r):.2f} area {{area}}'", renames, "python") == (
        "return f'{circle_area(r):.2f} area {{area}}'")
    assert apply_renames("s = `${area} area`; f('area') // area", renames, "javascript") == (
        "s = `${circle_area} area`; f('area') // area")
    assert apply_renames("this.#cache = area(2)", renames, "javascript") == "this.#cache = circle_area(2)"
    # a docstring over several lines is a string; a block comment is a comment
    doc = 'def f(area):\n    """The\n    area of it."""\n    return area\n'
    assert apply_renames(doc, renames, "python") == doc.replace("(area)", "(circle_area)").replace("return area", "return circle_area")
    assert apply_renames("/* area\n area */ area()", renames, "typescript") == "/* area\n area */ circle_area()"
