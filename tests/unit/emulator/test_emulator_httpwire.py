"""The emulator's HTTP/1.1 request parser and response encoders (pure, no sockets)."""

import pytest

from sparkls.emulator import httpwire
from sparkls.emulator.httpwire import HttpError, RequestParser


def post(body: bytes, extra: str = "") -> bytes:
    head = (
        "POST /v1/responses?x=1 HTTP/1.1\r\nHost: h\r\n"
        f"Content-Length: {len(body)}\r\n{extra}\r\n"
    )
    return head.encode() + body


def test_request_split_across_feeds():
    """A request arriving byte by byte is returned once, when complete."""
    parser = RequestParser()
    data = post(b'{"a": 1}')
    for byte in data[:-1]:
        parser.feed(bytes([byte]))
        assert parser.next_request() is None
    parser.feed(data[-1:])
    request = parser.next_request()
    assert request.method == "POST" and request.path == "/v1/responses"
    assert request.json() == {"a": 1}
    assert request.size == len(data)


def test_pipelined_requests_come_out_in_order():
    """Two requests in one read are returned one after the other."""
    parser = RequestParser()
    parser.feed(post(b"1") + post(b"22"))
    assert parser.next_request().body == b"1"
    assert parser.next_request().body == b"22"
    assert parser.next_request() is None


def test_keep_alive_rules():
    """HTTP/1.1 stays open unless 'Connection: close'; HTTP/1.0 only with keep-alive."""
    parser = RequestParser()
    parser.feed(post(b"") + post(b"", "Connection: close\r\n"))
    parser.feed(b"GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
    assert [parser.next_request().keep_alive for _ in range(4)] == [True, False, False, True]


def test_websocket_upgrade_detected_and_rest_kept():
    """An upgrade request is recognised and bytes after it stay available."""
    parser = RequestParser()
    parser.feed(
        b"GET /v1/responses HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade\r\n"
        b"Upgrade: websocket\r\n\r\n\x81\x00"
    )
    request = parser.next_request()
    assert request.is_websocket_upgrade
    assert parser.take_buffer() == b"\x81\x00"


@pytest.mark.parametrize(
    "data, status",
    [
        (b"NONSENSE\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: nope\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
        (b"POST / HTTP/1.1\r\nContent-Length: 999999999999\r\n\r\n", 413),
    ],
)
def test_malformed_requests_raise(data, status):
    """Malformed or unsupported requests raise HttpError with the status to answer."""
    parser = RequestParser()
    parser.feed(data)
    with pytest.raises(HttpError) as caught:
        parser.next_request()
    assert caught.value.status == status


def test_chunk_encoding():
    """Chunks carry their hex length; an empty chunk is never produced by chunk()."""
    assert httpwire.chunk(b"x" * 26) == b"1a\r\n" + b"x" * 26 + b"\r\n"
    assert httpwire.chunk(b"") == b""
    assert httpwire.LAST_CHUNK == b"0\r\n\r\n"


def test_sse_formats():
    """Responses SSE names the event; Chat SSE sends data lines only."""
    assert httpwire.sse_event("response.created", "{}") == "event: response.created\ndata: {}\n\n"
    assert httpwire.SSE_DONE == "data: [DONE]\n\n"


def test_json_response_has_length_and_connection():
    """A JSON response states its length and whether the connection stays open."""
    data = httpwire.json_response(404, {"error": {}}, keep_alive=False)
    head, body = data.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 404 Not Found\r\n")
    assert b"Content-Length: 12" in head and b"Connection: close" in head
    assert body == b'{"error":{}}'
