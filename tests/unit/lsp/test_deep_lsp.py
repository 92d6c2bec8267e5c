"""lsp/workspace_edit.py: the task's edit as `changes` for clients without documentChanges, and
the check that every file it touches is still what the edit was computed from."""

from lsprotocol import types

from sparkls.deep.apply import FileChange
from sparkls.edits.workspace import FileSource, build_workspace_edit
from sparkls.lsp.workspace_edit import client_edit_support, lsp_workspace_edit, moved_file, unsupported_reason

OPEN = FileSource("file:///ws/open.py", 7)
DISK = FileSource("file:///ws/disk.py", None)
NEW = FileSource("file:///ws/new.py", None)
SOURCES = {"open.py": OPEN, "disk.py": DISK, "new.py": NEW}
OPEN_TEXT, DISK_TEXT = "a = 1\n", "b = 2\n"
TWO_FILES = [FileChange("open.py", OPEN_TEXT, "a = 10\n", (1,)), FileChange("disk.py", DISK_TEXT, "b = 20\n", (2,))]


def _neovim_07() -> types.ClientCapabilities:
    """Neovim 0.7's workspaceEdit: resource operations, but no documentChanges."""
    edit = types.WorkspaceEditClientCapabilities(resource_operations=[types.ResourceOperationKind.Create])
    return types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(workspace_edit=edit))


def test_a_client_without_document_changes_gets_plain_changes():
    """Two files become `changes` keyed by URI: text edits only, no versions, no annotations."""
    edit = build_workspace_edit(TWO_FILES, SOURCES, needs_confirmation=True)
    support = client_edit_support(_neovim_07())
    assert unsupported_reason(edit, support) is None
    lsp = lsp_workspace_edit(edit, annotations=support.change_annotations, document_changes=support.document_changes)
    assert lsp.document_changes is None and lsp.change_annotations is None
    assert {uri: [type(e) for e in edits] for uri, edits in lsp.changes.items()} == {
        OPEN.uri: [types.TextEdit], DISK.uri: [types.TextEdit],
    }
    assert [e.new_text for e in lsp.changes[DISK.uri]] == ["0"]


def test_creating_a_file_still_needs_document_changes():
    """resourceOperations without documentChanges cannot carry a CreateFile: refused, naming the file."""
    edit = build_workspace_edit([*TWO_FILES, FileChange("new.py", None, "n\n", (3,))], SOURCES)
    assert "new.py" in unsupported_reason(edit, client_edit_support(_neovim_07()))


def _now(open_docs: dict, disk: dict):
    return (lambda uri: open_docs.get(uri)), (lambda uri: disk.get(uri))


def test_nothing_moved_when_versions_and_texts_are_as_computed():
    """The open document at its version, the disk file with the same text: nothing moved."""
    edit = build_workspace_edit(TWO_FILES, SOURCES)
    assert moved_file(edit, *_now({OPEN.uri: (7, OPEN_TEXT)}, {DISK.uri: DISK_TEXT})) is None


def test_an_open_document_at_another_version_moved():
    """A keystroke in the open document since the edit was computed: its path is named."""
    edit = build_workspace_edit(TWO_FILES, SOURCES)
    assert moved_file(edit, *_now({OPEN.uri: (8, "a = 1\n#\n")}, {DISK.uri: DISK_TEXT})) == "open.py"


def test_a_file_on_disk_with_other_text_moved():
    """A file changed on disk (same length even) is found by its content."""
    edit = build_workspace_edit(TWO_FILES, SOURCES)
    assert moved_file(edit, *_now({OPEN.uri: (7, OPEN_TEXT)}, {DISK.uri: "b = 3\n"})) == "disk.py"


def test_a_file_opened_and_typed_in_since_moved():
    """A file read from disk, now open in the editor with other text: moved."""
    edit = build_workspace_edit(TWO_FILES, SOURCES)
    now = _now({OPEN.uri: (7, OPEN_TEXT), DISK.uri: (1, "b = 2  # typed\n")}, {DISK.uri: DISK_TEXT})
    assert moved_file(edit, *now) == "disk.py"


def test_a_file_deleted_since_moved():
    """A file that can no longer be read is not the text the edit was computed from."""
    edit = build_workspace_edit(TWO_FILES, SOURCES)
    assert moved_file(edit, *_now({OPEN.uri: (7, OPEN_TEXT)}, {})) == "disk.py"
