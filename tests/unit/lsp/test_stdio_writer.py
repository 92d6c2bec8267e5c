"""Late messages after exit, or after the editor went away, are dropped: never a loop."""

import io

from sparkls.lsp import build_server
from sparkls.lsp.stdio import _StdoutWriter


class _BrokenPipe(io.BytesIO):
    def write(self, data):
        raise BrokenPipeError("the editor went away")


def test_a_write_after_close_is_dropped():
    """pygls closes the writer on exit; a status flushed afterwards goes nowhere, quietly."""
    out = io.BytesIO()
    writer = _StdoutWriter(out)
    writer.write(b"first")
    writer.close()
    writer.write(b"late")  # no ValueError from the closed file
    assert writer.closed


def test_a_broken_pipe_closes_the_writer_without_raising():
    """The first failed write marks the end; later writes are not tried."""
    writer = _StdoutWriter(_BrokenPipe())
    writer.write(b"message")
    assert writer.closed
    writer.write(b"another")


def test_an_error_about_writing_is_logged_not_sent():
    """report_server_error does not answer a failed write by writing a message (that loops)."""
    server = build_server()
    sent = []
    server.window_show_message = sent.append
    server.report_server_error(ValueError("write to closed file"), Exception)
    assert sent == []
    server.report_server_error(RuntimeError("a handler broke"), Exception)
    assert len(sent) == 1
