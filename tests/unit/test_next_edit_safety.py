"""A next-edit suggestion never damages code: the history keeps track of the text
through undo and redo (however an editor splits them), an undo or a redo asks for
nothing, and a suggestion that would reverse the user's last change or write a name
found nowhere is refused (nextedit/history.py, nextedit/safety.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sparkls.nextedit.history import EditHistory
from sparkls.nextedit.safety import consistent, damage
from tests.unit.nextedit_session import Session

TEXT = "def price(items):\n    subtotal = sum(items)\n    total = subtotal + 1\n    return total\n"


def _apply(history: EditHistory, text: str, start: int, end: int, inserted: str, version: int) -> str:
    history.record(start, end, text[start:end], inserted, version)
    return text[:start] + inserted + text[end:]


changes = st.lists(
    st.tuples(st.integers(0, 60), st.integers(0, 3), st.sampled_from(["", "s", "ub", "tot", "x", "\n"])),
    min_size=1, max_size=10,
)


@given(changes)
@settings(max_examples=300, deadline=None)
def test_the_history_keeps_track_through_any_changes_and_their_undo(steps):
    """Edits anywhere, then each undone one character at a time, last first (as lsp-mode
    sends an undo): at every step each edit's new text stands where the history says;
    at the end nothing is left to follow, and the last change is known as an undo."""
    history, text, version = EditHistory(limit=50), TEXT, 1
    done = []
    for start, length, inserted in steps:
        start = min(start, len(text))
        end = min(len(text), start + length)
        done.append((start, text[start:end], inserted))
        version += 1
        text = _apply(history, text, start, end, inserted, version)
        assert consistent(history.edits, text)
    for start, removed, inserted in reversed(done):  # the undo: each change reverted, key by key
        for k in range(len(inserted)):  # delete what it inserted, one character at a time
            version += 1
            text = _apply(history, text, start, start + 1, "", version)
            assert consistent(history.edits, text)
        for k, ch in enumerate(removed):  # type back what it removed, one character at a time
            version += 1
            text = _apply(history, text, start + k, start + k, ch, version)
            assert consistent(history.edits, text)
    assert text == TEXT
    assert history.edits == []


def test_an_undo_sent_as_one_character_changes_is_no_new_change():
    """A rename typed, then undone in single characters: nothing left, and `reverting` says so."""
    s = Session(TEXT, "file:///w/price.py", "python")
    s.rename_on(1, "subtotal", "net")
    assert s.history.edits and not s.history.reverting
    for i in range(len("net")):  # lsp-mode's undo: the typed characters go, the old ones come back
        s.change(1, 4, 5, "")
    for i, ch in enumerate("subtotal"):
        s.change(1, 4 + i, 4 + i, ch)
    assert s.doc.text == TEXT and s.history.edits == [] and s.history.reverting


def test_a_redo_is_no_new_change_either():
    """The same rename made again right after its undo (a redo): still `reverting`."""
    s = Session(TEXT, "file:///w/price.py", "python")
    s.change(1, 4, 12, "net")  # a rename applied in one change (an edit sparkls applied)
    s.change(1, 4, 7, "subtotal")  # undone in one change
    assert s.history.reverting and s.history.edits == []
    s.change(1, 4, 12, "net")  # redone
    assert s.history.reverting and s.doc.text == TEXT.replace("subtotal = sum", "net = sum")
    s.change(2, 4, 9, "grand")  # then something new: a change the user made
    assert not s.history.reverting


def test_a_suggestion_that_reverses_the_last_rename_is_refused():
    """The user renamed `total` to `grand` at its definition; a suggestion that writes
    `total` back in a use would undo it."""
    s = Session(TEXT, "file:///w/price.py", "python")
    s.rename_on(2, "total", "grand")
    text = s.doc.text
    region = "    return total\n"
    start = text.index(region)
    outside = text[:start] + text[start + len(region) :]
    assert damage(region, "    return grand\n", outside, s.history.edits, text) is None
    why = damage("    return grand\n", "    return total\n", outside, s.history.edits, text)
    assert why == "it would undo the rename of total to grand"


def test_a_suggestion_that_writes_a_name_found_nowhere_is_refused():
    """`totsubal`, a name no line of the file holds (nor a string's or a comment's words
    count), is refused; a name the file defines is not."""
    s = Session(TEXT, "file:///w/price.py", "python")
    s.rename_on(1, "subtotal", "net")
    text = s.doc.text
    region = "    total = subtotal + 1\n"
    start = text.index(region)
    outside = text[:start] + "# totsubal\n" + text[start + len(region) :]
    assert damage(region, "    total = net + 1\n", outside, s.history.edits, text) is None
    why = damage(region, "    total = totsubal + 1\n", outside, s.history.edits, text)
    assert why == "it writes totsubal, which the file holds nowhere else"
    assert damage(region, '    total = net + len("blue")\n', outside, s.history.edits, text) is None  # string words


# -- the service: asked for nothing after an undo, offers nothing that damages -----------


async def test_no_question_is_asked_after_an_undo():
    """lsp-mode's undo of a rename, one character at a time: no question asked for it."""
    from tests.unit.test_next_edit import Recorder, Session as ServiceSession
    from sparkls.nextedit.service import NextEditService

    s = ServiceSession()
    service = NextEditService()
    r = Recorder(s, service)
    r.change(3, 9, 15, "radius")
    called = []

    async def ask(doc, edits, _asking=None, _previous=None):
        called.append(doc.version)

    for k in range(len("radius")):
        r.change(3, 9, 10, "")
    for k, ch in enumerate("raduis"):
        r.change(3, 9 + k, 9 + k, ch)
    assert await service.schedule(s.doc, ask, delay=0, ttl=30) is None
    assert called == [] and service.counts.reverts == 1


async def test_a_damaging_suggestion_is_never_offered():
    """Answers that would reverse the user's rename, or write a name found nowhere, are
    refused; the one that follows the rename is offered."""
    from tests.unit.test_next_edit import Recorder, Session as ServiceSession, offer, suggestion_for
    from sparkls.nextedit.service import NextEditService

    s = ServiceSession()
    service = NextEditService()
    r = Recorder(s, service)
    r.change(3, 9, 15, "radius")  # `def area(radius):`; its uses still read `raduis`
    await offer(service, s.doc, suggestion_for(s.doc, 5, "raduis", "raduisx"))  # a name found nowhere
    await offer(service, s.doc, suggestion_for(s.doc, 3, "radius", "raduis"))  # the rename undone
    assert r.offers == [] and service.counts.refused == 2
    good = suggestion_for(s.doc, 5, "raduis", "radius")
    await offer(service, s.doc, good)
    assert r.offers == [good]
