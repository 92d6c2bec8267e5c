"""A member added to an enum-like type: which branches need an arm for it (same file,
`find_candidates`; other files, `find_sites`): a branch whose test names a member,
never one that uses a member in its body; an `else if` chain from its first `if`."""

from __future__ import annotations

from sparkls.documents.store import DocumentStore
from sparkls.nextedit.elsewhere import Link, find_sites, outward_changes
from sparkls.nextedit.members import NewMembers
from tests.unit.nextedit.nextedit_session import Session

PY = '''from enum import Enum


class Color(Enum):
    RED = 1
    GREEN = 2


def name(c):
    match c:
        case Color.RED:
            return "red"
        case Color.GREEN:
            return "green"


def paint(c, data):
    if data is None:
        c = Color.RED
    return c
'''


def _candidates(session: Session) -> list[tuple[int, int, str]]:
    return [c for c in session.candidates() if c[2].startswith("branch on")]


def _type(session: Session, line: int, column: int, text: str) -> None:
    """Type `text` at `line`:`column`, one key at a time (a newline moves to the next line)."""
    for ch in text:
        session.change(line, column, column, ch)
        line, column = (line + 1, 0) if ch == "\n" else (line, column + 1)


def test_a_python_enum_member_needs_an_arm_where_a_match_tests_a_member_not_where_a_body_uses_one():
    session = Session(PY, "file:///w/colors.py", "python")
    _type(session, 6, 0, "    BLUE = 3\n")
    assert _candidates(session) == [(10, 14, "branch on Color")]  # the match; not paint's `if`


GO = '''package cobra

type ShellCompDirective int

const (
	ShellCompDirectiveError ShellCompDirective = 1 << iota
	ShellCompDirectiveNoSpace
)

func describe(d ShellCompDirective) string {
	if d&ShellCompDirectiveError != 0 {
		return "error"
	} else if d&ShellCompDirectiveNoSpace != 0 {
		return "nospace"
	}
	switch d {
	case ShellCompDirectiveError:
		return "e"
	}
	x := ShellCompDirectiveError
	return fmt.Sprint(x)
}
'''


def test_a_go_const_block_member_needs_an_arm_in_each_branch_over_its_siblings():
    session = Session(GO, "file:///w/cobra/completions.go", "go")
    _type(session, 7, 0, "\tShellCompDirectiveKeepOrder\n")
    # the `if`/`else if` chain from its first `if`, and the `switch` (touching: one region);
    # not the assignment `x := ...`
    assert _candidates(session) == [(11, 19, "branch on ShellCompDirective")]


TS = '''export enum State {
  Started,
  Completed,
}
type Kind = "int8" | "uint8"

function f(s: State, k: Kind) {
  if (s === State.Started) {}

  if (k === "int8" || k === "uint8") {}
  const label = "int8"  // not a branch
}
'''


def test_a_typescript_enum_member_and_a_union_literal():
    enum = Session(TS, "file:///w/a.ts", "typescript")
    _type(enum, 3, 0, "  Stopped,\n")
    assert _candidates(enum) == [(8, 8, "branch on State")]
    union = Session(TS, "file:///w/a.ts", "typescript")
    _type(union, 4, len('type Kind = "int8" | "uint8"'), ' | "int16"')
    assert _candidates(union) == [(9, 9, "branch on Kind")]


def test_a_branch_that_names_the_new_member_already_needs_nothing():
    done = PY.replace('        case Color.GREEN:\n            return "green"\n',
                      '        case Color.GREEN:\n            return "green"\n        case Color.BLUE:\n            return "blue"\n')
    session = Session(done, "file:///w/colors.py", "python")
    _type(session, 6, 0, "    BLUE = 3\n")
    assert _candidates(session) == []


def test_other_files_that_see_the_module_get_the_branches():
    session = Session(PY, "file:///w/colors.py", "python")
    _type(session, 6, 0, "    BLUE = 3\n")
    (change,) = outward_changes(session.doc, session.history.edits)
    assert change.added == NewMembers("Color", ("BLUE",)) and change.reason == "branch on Color"
    user = "from colors import Color\n\n\ndef show(c):\n    if c is Color.RED:\n        print(1)\n"
    doc = DocumentStore().open("file:///w/show.py", user, 1, "python")
    assert find_sites(doc, [change], Link(imports=True)) == [(4, 5, "branch on Color")]
    assert find_sites(doc, [change], Link(imports=False)) == []
