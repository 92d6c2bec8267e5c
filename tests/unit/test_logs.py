"""logs.ClientLog: which records reach the editor's log, at which trace level."""

from __future__ import annotations

import logging

import pytest

from sparkls.logs import SHOWN_TO_CLIENT, ClientLog


def record(name: str, level: int, message: str, **extra) -> logging.LogRecord:
    made = logging.LogRecord(name, level, __file__, 1, message, None, None)
    made.__dict__.update(extra)
    return made


def through(handler: ClientLog, *records: logging.LogRecord) -> None:
    """Hand `records` to `handler` as a logger does (the handler's level applies), through
    a logger of their own that is not in logging's tree."""
    logger = logging.Logger("test")
    logger.addHandler(handler)
    for one in records:
        logger.handle(one)


def sent(trace: str, *records: logging.LogRecord) -> list[tuple[int, str]]:
    """What a ClientLog at `trace` sends for `records`."""
    lines: list[tuple[int, str]] = []
    handler = ClientLog(lambda level, text: lines.append((level, text)))
    handler.set_trace(trace)
    through(handler, *records)
    return lines


@pytest.mark.parametrize(
    "trace, expected",
    [("off", []), ("messages", ["sparkls.x: info", "sparkls.x: warning"]), ("verbose", ["sparkls.x: debug", "sparkls.x: info", "sparkls.x: warning"])],
)
def test_trace_level_decides_what_is_sent(trace, expected):
    """off sends nothing, messages INFO and up, verbose DEBUG too."""
    records = [record("sparkls.x", level, name) for level, name in ((logging.DEBUG, "debug"), (logging.INFO, "info"), (logging.WARNING, "warning"))]
    assert [text for _, text in sent(trace, *records)] == expected


def test_set_trace_follows_the_client():
    """set_trace("messages") then set_trace("off"): INFO is sent, then no longer."""
    lines: list[tuple[int, str]] = []
    handler = ClientLog(lambda level, text: lines.append((level, text)))
    handler.set_trace("messages")
    through(handler, record("sparkls.x", logging.INFO, "first"))
    handler.set_trace("off")
    through(handler, record("sparkls.x", logging.INFO, "second"))
    assert lines == [(logging.INFO, "sparkls.x: first")]


def test_other_libraries_info_is_not_sent():
    """pygls's and httpx's INFO lines stay out of the editor's log; their warnings go in."""
    lines = sent("verbose", record("pygls.protocol", logging.INFO, "Sending data"), record("httpx", logging.WARNING, "odd"))
    assert lines == [(logging.WARNING, "httpx: odd")]


def test_a_line_already_shown_is_not_sent_twice():
    """A record SparkServer.log already sent to the editor is not forwarded again."""
    assert sent("verbose", record("sparkls.lsp.server", logging.INFO, "index", **{SHOWN_TO_CLIENT: True})) == []


def test_an_api_key_is_redacted():
    """A key in a record reaches the editor as [redacted]."""
    (line,) = sent("messages", record("sparkls.x", logging.INFO, 'options {"apiKey": "sk-abcdefghijkl"}'))
    assert "sk-abcdefghijkl" not in line[1] and "[redacted]" in line[1]


def test_a_record_logged_while_sending_is_dropped():
    """Sending that itself logs (a failed write) does not loop."""
    lines: list[str] = []
    handler = ClientLog(lambda level, text: (lines.append(text), through(handler, record("sparkls.lsp.stdio", logging.INFO, "again"))))
    handler.set_trace("messages")
    through(handler, record("sparkls.x", logging.INFO, "first"))
    assert lines == ["sparkls.x: first"]
