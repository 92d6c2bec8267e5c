"""The applied deep-tier result as one WorkspaceEdit: versioned, on disk, created."""

from pathlib import Path

import pytest
from lsprotocol import types

from sparkls.deep.apply import FileChange, apply_blocks
from sparkls.deep.blocks import format_block, parse_blocks
from sparkls.edits.workspace import FileCreate, FileSource, build_workspace_edit, text_changes
from sparkls.lsp.workspace_edit import client_edit_support, lsp_workspace_edit, unsupported_reason
from sparkls.deep.pipeline import FileState, edit_from_reply
from sparkls.documents.positions import LineIndex, Position
from sparkls.edits.diff import apply_replacements, Replacement
from sparkls.errors import PathRefused, SearchAmbiguous

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


def _workspace(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("def area(r):\n    return r * r\n")
    (root / "b.py").write_text("from a import area\nprint(area(2))\n")
    return root


def _read(open_docs):
    def read_file(path):
        if path.uri in open_docs:
            return FileState(*open_docs[path.uri])
        # Bytes decoded as is: text mode would turn CRLF into LF and shift positions.
        return FileState(Path(path.absolute).read_bytes().decode() if path.exists else None)

    return read_file


def test_reply_to_edit_across_open_disk_and_new_files(tmp_path):
    """A rename across two files plus a new file becomes one edit: versioned, on disk, created."""
    root = _workspace(tmp_path)
    open_docs = {(root / "a.py").as_uri(): ("def area(r):\n    return r * r\n", 4)}
    reply = (
        format_block("a.py", "def area(r):", "def square(r):")
        + format_block("`./b.py`", "from a import area\nprint(area(2))", "from a import square\nprint(square(2))")
        + format_block("c.py", "", "X = 1")
    )
    edit = edit_from_reply(reply, [str(root)], _read(open_docs))
    assert [f.path for f in edit.files] == ["a.py", "b.py", "c.py"]
    assert [getattr(op, "version", "create") for op in edit.operations] == [4, None, "create", None]


def test_refused_path_in_reply_produces_no_edit(tmp_path):
    """A reply naming ../outside.py raises before any edit exists, naming the block."""
    root = _workspace(tmp_path)
    reply = format_block("a.py", "def area(r):", "def square(r):") + format_block("../outside.py", "", "x")
    with pytest.raises(PathRefused, match="Block 2"):
        edit_from_reply(reply, [str(root)], _read({}))


def test_ambiguous_search_in_reply_produces_no_edit(tmp_path):
    """An ambiguous SEARCH in the second file stops the whole task."""
    root = _workspace(tmp_path)
    (root / "b.py").write_text("x = 1\nx = 1\n")
    reply = format_block("a.py", "def area(r):", "def square(r):") + format_block("b.py", "x = 1", "x = 2")
    with pytest.raises(SearchAmbiguous, match="block 2"):
        edit_from_reply(reply, [str(root)], _read({}))
