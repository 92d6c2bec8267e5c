"""Server-sent events parsing, whatever the chunking."""

from sparkls.models.sse import SSEDecoder, SSEEvent

STREAM = 'event: response.created\ndata: {"a": 1}\n\n: a comment\ndata: line one\ndata: line two\n\nevent: x\r\ndata: y\r\n\r\n'
EXPECTED = [
    SSEEvent("response.created", '{"a": 1}'),
    SSEEvent("message", "line one\nline two"),
    SSEEvent("x", "y"),
]


def test_whole_stream():
    """Named events, multi-line data, comments and CRLF lines."""
    assert SSEDecoder().feed(STREAM) == EXPECTED


def test_any_split_gives_the_same_events():
    """Chunks split anywhere, even inside a line, give the same events."""
    for size in range(1, 12):
        decoder = SSEDecoder()
        events = []
        for i in range(0, len(STREAM), size):
            events += decoder.feed(STREAM[i : i + size])
        assert events == EXPECTED, size


def test_unfinished_event_waits():
    """An event without its blank line is not dispatched yet."""
    decoder = SSEDecoder()
    assert decoder.feed("data: [DONE]\n") == []
    assert decoder.feed("\n") == [SSEEvent("message", "[DONE]")]
