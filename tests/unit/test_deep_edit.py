"""The applied deep-tier result as one WorkspaceEdit: versioned, on disk, created."""

from lsprotocol import types

from sparkls.deep.apply import FileChange, apply_blocks
from sparkls.deep.blocks import parse_blocks
from sparkls.deep.edit import FileCreate, FileSource, build_workspace_edit, text_changes
from sparkls.deep.lsp import client_edit_support, lsp_workspace_edit, unsupported_reason
from sparkls.documents.positions import LineIndex, Position
from sparkls.edits.diff import apply_replacements, Replacement

OPEN = FileSource("file:///ws/open.py", 7)
DISK = FileSource("file:///ws/disk.py", None)
NEW = FileSource("file:///ws/new.py", None)
SOURCES = {"open.py": OPEN, "disk.py": DISK, "new.py": NEW}


def apply_changes(old: str, changes) -> str:
    """Apply positioned changes (utf-16) to `old`, to check them."""
    index = LineIndex(old)
    reps = [Replacement(index.offset(c.start, "utf-16"), index.offset(c.end, "utf-16"), c.text) for c in changes]
    return apply_replacements(old, reps)


def test_open_document_gets_a_versioned_minimal_edit():
    """An open file's edit carries its version and only the changed characters."""
    edit = build_workspace_edit([FileChange("open.py", "x = 1\ny = 2\n", "x = 1\ny = 3\n", (1,))], SOURCES)
    [op] = edit.operations
    assert (op.uri, op.version) == (OPEN.uri, 7)
    assert [(c.start, c.end, c.text) for c in op.changes] == [(Position(1, 4), Position(1, 5), "3")]


def test_file_on_disk_gets_an_unversioned_edit():
    """A file that is not open is edited with version None."""
    edit = build_workspace_edit([FileChange("disk.py", "a\n", "b\n", (1,))], SOURCES)
    assert edit.operations[0].version is None


def test_new_file_is_created_then_filled():
    """A created file is a FileCreate followed by an insert of its whole content."""
    edit = build_workspace_edit([FileChange("new.py", None, "X = 1\n", (2,))], SOURCES)
    create, fill = edit.operations
    assert isinstance(create, FileCreate) and create.uri == NEW.uri
    assert (fill.uri, fill.version) == (NEW.uri, None)
    assert [(c.start, c.end, c.text) for c in fill.changes] == [(Position(0, 0), Position(0, 0), "X = 1\n")]
    assert edit.files[0].created


def test_empty_new_file_is_only_created():
    """A created empty file has no insert after its FileCreate."""
    edit = build_workspace_edit([FileChange("new.py", None, "", (1,))], SOURCES)
    assert [type(op).__name__ for op in edit.operations] == ["FileCreate"]


def test_one_annotation_per_file_shared_by_its_operations():
    """Each file has one annotation; its create and its edit both carry it."""
    changes = [FileChange("open.py", "a\n", "b\n", (1, 3)), FileChange("new.py", None, "n\n", (2,))]
    edit = build_workspace_edit(changes, SOURCES, needs_confirmation=True)
    assert [a.label for a in edit.annotations] == ["open.py", "new.py"]
    assert all(a.needs_confirmation for a in edit.annotations)
    ids = [op.annotation_id for op in edit.operations]
    assert ids == [edit.annotations[0].id, edit.annotations[1].id, edit.annotations[1].id]
    assert "blocks 1, 3" in edit.annotations[0].description


def test_positions_after_emoji_and_cjk_are_utf16():
    """A change after an emoji counts it as two UTF-16 units, CJK as one."""
    old = "s = '👋你'; n = 1\n"
    [change] = text_changes(old, old.replace("n = 1", "n = 2"))
    assert change.start == Position(0, 15)
    assert apply_changes(old, [change]) == old.replace("n = 1", "n = 2")


def test_positions_in_utf8_when_negotiated():
    """With utf-8 positions, the emoji counts four units and the CJK character three."""
    [change] = text_changes("'👋你'x", "'👋你'y", "utf-8")
    assert change.start == Position(0, 9)


def test_crlf_file_round_trips_through_the_edit():
    """Edits computed on a CRLF file reproduce the applied text exactly."""
    old = "a = 1\r\nb = 2\r\n"
    [change] = apply_blocks(parse_blocks("f.py\n<<<<<<< SEARCH\nb = 2\n=======\nb = 3\nc = 4\n>>>>>>> REPLACE\n"), {"f.py": old})
    edit = build_workspace_edit([change], {"f.py": DISK})
    assert apply_changes(old, edit.operations[0].changes) == "a = 1\r\nb = 3\r\nc = 4\r\n"


def test_summary_lists_each_file():
    """The summary names each file, whether it was created and how many edits it got."""
    edit = build_workspace_edit([FileChange("disk.py", "a\nb\n", "A\nb\nB\n", (1,))], SOURCES)
    assert edit.summary() == [{"path": "disk.py", "uri": DISK.uri, "created": False, "edits": 2, "blocks": [1]}]


def test_lsp_edit_has_document_changes_and_annotations():
    """The lsprotocol edit holds CreateFile, TextDocumentEdit and changeAnnotations."""
    changes = [FileChange("open.py", "a\n", "b\n", (1,)), FileChange("new.py", None, "n\n", (2,))]
    lsp = lsp_workspace_edit(build_workspace_edit(changes, SOURCES, needs_confirmation=True))
    first, create, fill = lsp.document_changes
    assert first.text_document.version == 7
    assert isinstance(first.edits[0], types.AnnotatedTextEdit)
    assert isinstance(create, types.CreateFile) and create.options.overwrite is False
    assert fill.text_document.version is None
    assert lsp.change_annotations[create.annotation_id].needs_confirmation is True


def test_lsp_edit_without_annotations_uses_plain_text_edits():
    """For a client without change annotations, no annotation ids are sent."""
    lsp = lsp_workspace_edit(build_workspace_edit([FileChange("disk.py", "a\n", "b\n", (1,))], SOURCES), annotations=False)
    assert lsp.change_annotations is None
    assert type(lsp.document_changes[0].edits[0]) is types.TextEdit


def test_client_without_create_support_is_told_why():
    """A client that cannot create files gets a reason naming the new file."""
    caps = types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)
        )
    )
    support = client_edit_support(caps)
    edit = build_workspace_edit([FileChange("new.py", None, "n\n", (1,))], SOURCES)
    assert "new.py" in unsupported_reason(edit, support)


def test_full_client_support_is_read_from_capabilities():
    """documentChanges, create, annotations and transactional failure handling are read."""
    caps = types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[types.ResourceOperationKind.Create],
                change_annotation_support=types.ChangeAnnotationsSupportOptions(groups_on_label=True),
                failure_handling=types.FailureHandlingKind.Transactional,
            )
        )
    )
    support = client_edit_support(caps)
    assert (support.document_changes, support.create_files, support.change_annotations, support.transactional) == (
        True,
        True,
        True,
        True,
    )
    assert unsupported_reason(build_workspace_edit([FileChange("new.py", None, "n\n", (1,))], SOURCES), support) is None
