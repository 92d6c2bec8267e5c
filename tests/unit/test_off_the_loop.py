"""Off the event loop: a big draft is redacted in a worker thread, a huge line is refused
unread, and positions in a long line cost the column, not the line."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from sparkls.completion.service import CompletionService
from sparkls.context.builder import build_edit_context
from sparkls.context.region import MAX_REGION_CHARS, RegionTooLong
from sparkls.documents.positions import LineIndex, Position, column_to_index, index_to_column
from sparkls.documents.store import DocumentStore
from sparkls.guard import Draft, FromFile, FromUser, Guard, NotSendable, Section
from sparkls.guard import guard as guard_module
from sparkls.guard.exclusions import PathFilter

KEY = "gh" + "p_" + "Zq8wT2xV9kLm4NpR7sYb3CdF6gHj1KaE5uWo"
ROOT = Path("/w")


def _redacted_on(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads each redaction of the guard runs on, from now on."""
    threads: list[str] = []
    redact = guard_module.redact

    def recording(text: str) -> tuple[str, int]:
        threads.append(threading.current_thread().name)
        return redact(text)

    monkeypatch.setattr(guard_module, "redact", recording)
    return threads


def _file_draft(text: str, *, optional_excluded: bool = False) -> Draft:
    sections = [Section.of("File a.py:\n", FromFile(text, "a.py", "file:///w/a.py"))]
    if optional_excluded:
        sections.append(Section.of("Other:\n", FromFile("A=1\n", ".env"), optional=True))
    return Draft("Instructions.", (*sections, Section.of("Instruction: ", FromUser("go"))))


async def test_a_small_draft_is_sealed_on_the_loop_a_big_one_in_a_worker_thread(monkeypatch):
    """Up to INLINE_SEAL_CHARS the redaction runs where it is asked; past it, elsewhere; the wire is the same as `seal`'s."""
    threads = _redacted_on(monkeypatch)
    guard = Guard(ROOT, PathFilter())
    here = threading.current_thread().name
    small = _file_draft(f'token = "{KEY}"\n')
    big = _file_draft(f'token = "{KEY}"\n' + "x = 1\n" * (guard_module.INLINE_SEAL_CHARS // 6 + 1))
    assert (await guard.seal_async(small)).input == guard.seal(small).input
    assert set(threads) == {here}
    threads.clear()
    sealed = await guard.seal_async(big)
    assert threads and here not in threads
    assert KEY not in sealed.input and 'token = "[REDACTED]"' in sealed.input
    assert sealed.input == guard.seal(big).input


async def test_a_big_draft_sealed_off_the_loop_is_refused_and_trimmed_as_on_it():
    """Off the loop too: an excluded file's optional section is left out, a secret in the part to rewrite refuses."""
    guard = Guard(ROOT, PathFilter())
    bulk = "x = 1\n" * (guard_module.INLINE_SEAL_CHARS // 6 + 1)
    sealed = await guard.seal_async(_file_draft(bulk, optional_excluded=True))
    assert "A=1" not in sealed.input and "Other:" not in sealed.input
    rewrite = Draft("I.", (Section((FromFile(bulk + f'key = "{KEY}"\n', "a.py", "file:///w/a.py", (0, 9), rewrite=True),)),))
    with pytest.raises(NotSendable, match="Lines 1-10 of a.py hold what looks like a secret"):
        await guard.seal_async(rewrite)
    required = Draft("I.", (Section((FromFile(bulk, ".env"),)),))
    with pytest.raises(NotSendable, match=r"does not send \.env"):
        await guard.seal_async(required)


def _doc(text: str, language: str = "python"):
    return DocumentStore().open(f"file:///w/a.{'py' if language == 'python' else 'txt'}", text, 1, language)


def test_a_cursor_in_a_line_longer_than_a_region_may_be_is_refused_naming_the_line():
    """A cursor in a minified line: RegionTooLong names the line, its length and what to do."""
    line = "x=[" + "1," * MAX_REGION_CHARS + "]\n"
    doc = _doc("import os\n" + line + "def f():\n    return 1\n")
    with pytest.raises(RegionTooLong) as refused:
        build_edit_context(doc, 20, 20, path="a.py", max_region_lines=300)
    message = str(refused.value)
    assert f"Line 2 of a.py is {len(line):,} characters" in message
    assert "nothing was read or sent" in message and "shorter lines" in message
    ctx = build_edit_context(doc, len(doc.text) - 3, len(doc.text) - 3, path="a.py", max_region_lines=300)
    assert ctx.region_text == "def f():\n    return 1\n"  # the file's other lines are edited as ever


def test_a_short_line_among_long_ones_is_refused_by_its_region():
    """Without a grammar the region is the lines around the cursor: too heavy in all, refused, the lines named."""
    long = "y" * (MAX_REGION_CHARS // 2) + "\n"
    doc = _doc(long * 3 + "short\n" + long * 3, "plaintext")
    at = doc.lines.start(3) + 2
    with pytest.raises(RegionTooLong, match=r"Lines 1-8 of a.txt are [\d,]+ characters"):
        build_edit_context(doc, at, at, path="a.txt", max_region_lines=300)


def test_a_completion_in_a_long_line_is_refused_at_once_and_told_once():
    """`too_long` says why before anything is asked; the user is told the first time per document only."""
    service = CompletionService()
    doc = _doc("a = 1\n" + "b" * (MAX_REGION_CHARS + 1) + "\n")
    assert service.too_long(doc, 3, "a.py") is None
    said = service.too_long(doc, 10, "a.py")
    assert said is not None and said.startswith(f"Line 2 of a.py is {MAX_REGION_CHARS + 2:,} characters")
    assert service.first_refusal(doc.uri) and not service.first_refusal(doc.uri)
    service.forget(doc.uri)
    assert service.first_refusal(doc.uri)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_positions_in_a_long_line_are_those_of_the_whole_line(encoding):
    """Offset <-> position in a long line, before and after an emoji and a CJK character, past its end, with \\r\\n."""
    line = "a" * 5000 + "😀" + "b" * 3000 + "名" + "c" * 100
    text = "first\r\n" + line + "\r\nlast"
    index = LineIndex(text)
    start = index.start(1)
    for column in (0, 1, 4999, 5000, 5001, 5002, 8002, 8003, 8004, 8106, 9000, 10**9):
        expected = start + column_to_index(line, column, encoding)
        assert index.offset(Position(1, column), encoding) == expected, column
    for at in (0, 4999, 5000, 5001, 8001, 8002, len(line), len(line) + 1):  # + 1: between \r and \n
        offset = start + at
        assert index.position(offset, encoding) == Position(1, index_to_column(line, min(at, len(line)), encoding)), at
    inside_emoji = {"utf-16": (5001, 5000), "utf-8": (5003, 5000), "utf-32": (5001, 5001)}[encoding]
    assert index.offset(Position(1, inside_emoji[0]), encoding) == start + inside_emoji[1]  # moves to its start
    after_cjk = {"utf-16": 8003, "utf-8": 8007, "utf-32": 8002}[encoding]
    assert index.offset(Position(1, after_cjk), encoding) == start + 8002
    assert index.position(start + 8002, encoding) == Position(1, after_cjk)
    halves = LineIndex("a\ud83d\ude00b" * 3)  # lone surrogates (half emoji each): one unit each, never joined
    assert [halves.offset(Position(0, c), "utf-16") for c in (1, 2, 3, 4)] == [1, 2, 3, 4]
    ascii_index = LineIndex("x" * 10_000 + "\n" + "y" * 3)
    assert ascii_index.offset(Position(0, 10**9), encoding) == 10_000
    assert ascii_index.position(10_000, encoding) == Position(0, 10_000)
    assert ascii_index.byte_point(10_003) == (10_003, (1, 2))


async def test_no_next_edit_question_is_made_for_an_edit_in_a_minified_line():
    """A rename typed in a minified line asks nothing (its words are never compared), nor one whose use lies in a
    line too long to show; the same rename on short lines asks."""
    from sparkls.nextedit.ask import MAX_LINE_CHARS, prepare_question
    from tests.sealing import environment
    from tests.unit.nextedit_session import Session

    code = "def area(raduis):\n    return 3.14 * raduis ** 2{}\n"

    async def asked(tail: str, line: int) -> bool:
        session = Session(code.format(tail), "file:///w/a.py", "python")
        session.rename_on(line, "raduis", "radius")
        env = environment(session.store, None, root=ROOT)
        return await prepare_question(env, session.doc, session.history.edits) is not None

    assert await asked("", 0) and await asked("", 1)
    minified = "  # " + "z " * (MAX_LINE_CHARS // 2)
    assert await asked(minified, 0)  # its use, in a line of 4,000 characters, is shown
    assert not await asked(minified, 1)  # typed in that line: nothing asked
    assert not await asked("  # " + "z " * (MAX_REGION_CHARS // 2), 0)  # its use too long to show
