"""The one guard: what a draft becomes on the wire, and that nothing else gets there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sparkls.config import Settings
from sparkls.guard import (
    Draft, Fixed, FromEditor, FromFile, FromModel, FromUser, Guard, NotSendable, Section, Wire, fixed_wire,
)
from sparkls.guard.exclusions import PathFilter
from sparkls.models.events import chat_body, response_create, responses_body
from sparkls.models.session import TierSession
from sparkls.nextedit.prompt import ShownRegion, render_next_edit_prompt

KEY = "sk-" + "proj-" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4"


def _draft(*parts, optional: bool = False) -> Draft:
    return Draft("Fixed instructions.", (Section.of("Head"), Section(tuple(parts), optional)))


def test_a_wire_is_made_by_the_guard_only():
    """Constructing a Wire without the guard's seal is a TypeError."""
    with pytest.raises(TypeError, match="guard"):
        Wire("instructions", "input")


async def test_the_transport_sends_only_the_guards_output():
    """A tier session and the wire builders refuse anything but a Wire."""
    session = TierSession("fast", Settings())
    for send in (
        lambda: response_create("m", "text"),  # type: ignore[arg-type]
        lambda: responses_body("m", "text"),  # type: ignore[arg-type]
        lambda: chat_body("m", "text"),  # type: ignore[arg-type]
    ):
        with pytest.raises(TypeError, match="guard"):
            send()
    with pytest.raises(TypeError, match="guard"):
        await session.complete("raw text")  # type: ignore[arg-type]


def test_every_part_that_is_not_sparklss_own_is_redacted():
    """File, user, editor and model parts lose their secrets; sparkls's own words are sent as they are."""
    line = f'token = "{KEY}"'
    parts = [FromFile(line, "a.py", "file:///w/a.py"), FromUser(line), FromEditor(line), FromModel(line), Fixed(KEY)]
    wire = Guard(Path("/w")).seal(_draft(*parts))
    assert wire.input.count(KEY) == 1  # the Fixed one: a test's own words
    assert wire.input.count('token = "[REDACTED]"') == 4


def test_a_secret_in_the_part_to_rewrite_refuses_the_request():
    """The marker would be written into the user's code: nothing is sent, and the lines are named."""
    part = FromFile(f'key = "{KEY}"\n', "a.py", "file:///w/a.py", (4, 6), rewrite=True)
    with pytest.raises(NotSendable, match="Lines 5-7 of a.py hold what looks like a secret"):
        Guard(Path("/w")).seal(_draft(part))


def test_the_cursor_marker_does_not_split_a_secret_out_of_sight():
    """A secret the cursor sits in is still seen whole (the marker goes in after the check)."""
    text = f'password = "{KEY}"'
    part = FromFile(text, "a.py", "file:///w/a.py", (0, 0), rewrite=True, marks=((len(text) - 5, "<|cursor|>"),))
    with pytest.raises(NotSendable, match="secret"):
        Guard(Path("/w")).seal(_draft(part))
    clean = FromFile("x = 1", "a.py", "file:///w/a.py", (0, 0), rewrite=True, marks=((1, "<|cursor|>"),))
    assert "x<|cursor|> = 1" in Guard(Path("/w")).seal(_draft(clean)).input


def test_an_excluded_file_refuses_a_required_section_and_drops_an_optional_one(tmp_path):
    """`.env` is never sent: as the region's file the request is refused, as a definition's file it is left out."""
    (tmp_path / ".env").write_text("A=1\n")
    guard = Guard(tmp_path, PathFilter.from_root(tmp_path))
    with pytest.raises(NotSendable, match=r"does not send \.env"):
        guard.seal(_draft(FromFile("A=1", ".env")))
    wire = guard.seal(_draft(Fixed(".env (lines 1):\n"), FromFile("A=1", ".env"), optional=True))
    assert wire.input == "Head"


def test_a_file_read_from_disk_must_be_inside_the_workspace(tmp_path):
    """A link out is refused by its real path; an editor's buffer outside the workspace is not confined."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.py").write_text("x = 1\n")
    root = tmp_path / "ws"
    root.mkdir()
    os.symlink(outside / "notes.py", root / "notes.py")
    guard = Guard(root, PathFilter(), [str(root)])
    with pytest.raises(NotSendable, match="outside the workspace"):
        guard.seal(_draft(FromFile("x = 1\n", "notes.py")))
    buffer = FromFile("x = 1\n", "notes.py", (outside / "notes.py").as_uri())
    assert "x = 1" in guard.seal(_draft(buffer)).input


def test_the_lines_around_a_next_edit_candidate_are_redacted():
    """The next-edit question's context lines go through the guard like the candidate (the leak of issue 22)."""
    region = ShownRegion(3, "    return (user, key, host, token)\n", f'    token = "{KEY}"', "", "use of key (now k)")
    draft = render_next_edit_prompt("a.py", "file:///w/a.py", "python", [f'-    token = "{KEY}"'], 1, [region])
    wire = Guard(Path("/w")).seal(draft)
    assert KEY not in wire.input and wire.input.count("[REDACTED]") == 2


def test_a_fixed_wire_is_sparklss_own_words():
    """The warm-up's request carries the instructions and nothing else."""
    wire = fixed_wire("Rewrite the region.")
    assert (wire.instructions, wire.input, wire.history) == ("Rewrite the region.", "", ())


def test_nothing_reaches_the_wire_unread_not_even_through_the_instructions():
    """A draft whose instructions carry a secret (a feature's mistake) is redacted there too."""
    wire = Guard(None).seal(Draft(f'token = "{KEY}"', ()))
    assert KEY not in wire.instructions and "[REDACTED]" in wire.instructions
