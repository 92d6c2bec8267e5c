"""The frame parser: LSP's base protocol cut into bodies, resynchronising after bad input."""

from __future__ import annotations

from sparkls.lsp.rpc import MAX_CONTENT_LENGTH, FrameParser, Noise, encode_frame

BODY = b'{"jsonrpc":"2.0","method":"initialized","params":{}}'
OTHER = b'{"jsonrpc":"2.0","id":1,"method":"shutdown"}'


def bodies(items):
    return [item for item in items if isinstance(item, bytes)]


def noises(items):
    return [item for item in items if isinstance(item, Noise)]


def feed_all(parser: FrameParser, *chunks: bytes) -> list:
    out = []
    for chunk in chunks:
        out.extend(parser.feed(chunk))
    return out


def test_a_whole_message_yields_its_body():
    """One frame in one chunk gives its body and nothing else."""
    assert FrameParser().feed(encode_frame(BODY)) == [BODY]


def test_a_message_split_byte_by_byte_yields_the_same_body():
    """Chunk boundaries anywhere (inside the header, the CRLF, the body) change nothing."""
    data = encode_frame(BODY)
    assert feed_all(FrameParser(), *(data[i : i + 1] for i in range(len(data)))) == [BODY]


def test_two_messages_in_one_chunk_come_out_in_order():
    """Back-to-back frames are both found, first first."""
    assert FrameParser().feed(encode_frame(BODY) + encode_frame(OTHER)) == [BODY, OTHER]


def test_content_type_and_header_case_are_accepted():
    """A Content-Type header, and header names in any case, as clients send them."""
    data = b"content-length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" % len(BODY) + BODY
    assert FrameParser().feed(data) == [BODY]


def test_an_empty_body_is_a_message():
    """Content-Length: 0 is well framed (the body then fails as JSON, not as framing)."""
    assert bodies(FrameParser().feed(b"Content-Length: 0\r\n\r\n" + encode_frame(BODY))) == [b"", BODY]


def test_garbage_lines_before_the_header_are_skipped_and_reported():
    """Stray output before a frame is logged as noise; the frame is still read."""
    out = FrameParser().feed(b"hello from a stray print\r\n" + encode_frame(BODY))
    assert bodies(out) == [BODY] and noises(out)


def test_garbage_glued_to_the_header_line_is_skipped():
    """Bytes before `Content-Length` on the same line (the end of a bad body) resync."""
    out = FrameParser().feed(b'"params":{}}' + encode_frame(BODY))
    assert bodies(out) == [BODY] and noises(out)


def test_a_header_block_without_content_length_is_skipped():
    """Headers that end without a Content-Length are noise; the next frame is read."""
    out = FrameParser().feed(b"Content-Type: text/plain\r\n\r\n" + encode_frame(BODY))
    assert bodies(out) == [BODY] and len(noises(out)) == 1


def test_a_non_numeric_content_length_is_skipped():
    """`Content-Length: abc` is reported and the reader moves on to the next frame."""
    out = FrameParser().feed(b"Content-Length: abc\r\n\r\n" + encode_frame(BODY))
    assert bodies(out) == [BODY] and "abc" in noises(out)[0].problem


def test_a_negative_content_length_is_skipped():
    """`Content-Length: -5` is not a length: skipped, the next frame read."""
    out = FrameParser().feed(b"Content-Length: -5\r\n\r\n" + encode_frame(BODY))
    assert bodies(out) == [BODY] and noises(out)


def test_a_later_content_length_in_the_same_block_wins():
    """A bad value followed by a good one (a resync inside one header block) reads the good one."""
    out = FrameParser().feed(b"Content-Length: x\r\n" + encode_frame(BODY))
    assert bodies(out) == [BODY]


def test_a_body_over_the_limit_is_skipped_and_the_next_message_read():
    """An oversized message is refused, its bytes passed over, and serving goes on."""
    parser = FrameParser(max_content_length=100)
    out = parser.feed(b"Content-Length: 150\r\n\r\n" + b"x" * 150 + encode_frame(BODY))
    assert bodies(out) == [BODY] and "over the limit" in noises(out)[0].problem


def test_a_refused_body_is_never_held():
    """While an oversized body streams in, chunk after chunk, nothing of it is kept but its
    last few bytes (where a header line may begin)."""
    parser = FrameParser(max_content_length=1000)
    parser.feed(b"Content-Length: 100000\r\n\r\n")
    held = []
    for _ in range(99):
        parser.feed(b"y" * 1000)
        held.append(parser.buffered)
    assert max(held) <= 64
    assert bodies(parser.feed(b"y" * 1000 + encode_frame(BODY))) == [BODY]


def test_a_content_length_of_thousands_of_digits_is_over_the_limit():
    """An absurd length neither raises (int() refuses 5,000 digits) nor is believed."""
    out = FrameParser().feed(b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n")
    assert noises(out) and not bodies(out)


def test_a_header_line_without_end_is_cut():
    """Endless bytes with no newline are dropped as they come: memory stays bounded."""
    parser = FrameParser(max_header_line=100)
    for _ in range(50):
        parser.feed(b"z" * 1000)
        assert parser.buffered <= 100
    assert bodies(parser.feed(b"\r\n" + encode_frame(BODY))) == [BODY]


def test_a_header_cut_mid_token_is_still_found():
    """When a long garbage line is cut, a `Content-Length` starting at the cut survives."""
    parser = FrameParser(max_header_line=100)
    data = b"z" * 500 + encode_frame(BODY)
    cut = 500 + 7  # inside "Content-Length"
    assert bodies(feed_all(parser, data[:cut], data[cut:])) == [BODY]


def test_the_default_limit_allows_a_big_file():
    """The limit leaves room for a 20 MB file in a didOpen, escaped (see rpc.py)."""
    assert MAX_CONTENT_LENGTH >= 3 * 20 * 10**6


def test_an_absurd_length_followed_by_a_message_does_not_swallow_it():
    """`Content-Length: 99999999999` with no such body: the next header is read, byte by byte too."""
    data = b"Content-Length: 99999999999\r\n\r\n" + encode_frame(BODY) + encode_frame(OTHER)
    whole = FrameParser().feed(data)
    assert bodies(whole) == [BODY, OTHER] and "over the limit" in noises(whole)[0].problem
    assert bodies(feed_all(FrameParser(), *(data[i : i + 1] for i in range(len(data))))) == [BODY, OTHER]


def test_a_header_inside_a_refused_body_across_two_reads_is_found():
    """A header line split between two reads of a refused body still ends the skipping."""
    data = b"Content-Length: 5000\r\n\r\n" + b"x" * 300 + encode_frame(BODY)
    cut = data.index(b"Length: %d" % len(BODY))
    assert bodies(feed_all(FrameParser(max_content_length=1000), data[:cut], data[cut:])) == [BODY]


def test_a_body_shorter_than_announced_is_skipped_at_the_next_header():
    """A length larger than the body: the broken message is skipped where the next header begins."""
    short = b'{"jsonrpc":"2.0","method":"initialized"}'
    data = b"Content-Length: 500\r\n\r\n" + short + encode_frame(BODY)
    out = FrameParser().feed(data)
    assert bodies(out) == [BODY] and "announced 500 bytes" in noises(out)[0].problem
    assert bodies(feed_all(FrameParser(), *(data[i : i + 7] for i in range(0, len(data), 7)))) == [BODY]


def test_a_length_too_large_by_less_than_the_next_message_is_still_resynchronised():
    """Announced length ending inside the next message: that message is read from its header."""
    data = b"Content-Length: 20\r\n\r\n{}" + encode_frame(BODY)
    assert bodies(FrameParser().feed(data)) == [BODY]


def test_content_length_text_inside_a_json_body_is_body():
    """JSON holds no raw line break in a string, so a body that mentions a header is not cut."""
    body = b'{"jsonrpc":"2.0","method":"x","params":{"text":"Content-Length: 5\\r\\n"}}\n'
    assert FrameParser().feed(encode_frame(body) + encode_frame(BODY)) == [body, BODY]
