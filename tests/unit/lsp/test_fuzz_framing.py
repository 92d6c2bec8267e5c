"""Fuzzing the frame parser: any bytes, split anywhere, never raise, never hold more than
the limit, and yield exactly the well-framed messages.

Bounded for CI: a fixed number of examples from a fixed seed, no deadline (a loaded
machine must not fail a test by its timing), a small limit so oversized frames are
cheap to build. `SPARKLS_FUZZ_EXAMPLES=100000` runs longer, from a random seed.
"""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given
from hypothesis import strategies as st

from tests.unit.fuzzing import fuzz_settings
from sparkls.lsp.rpc import FrameParser, Noise

LIMIT = 256  # the parser's max_content_length in these tests
LINE = 64  # its max_header_line
BOUND = LIMIT + LINE  # what it may hold between two feeds
FUZZ = fuzz_settings(500, HealthCheck.filter_too_much)

TOKEN = b"content-length:"


def no_token(data: bytes) -> bool:
    return TOKEN not in data.lower()


def good_frame(body: bytes, style: int) -> bytes:
    header = [b"Content-Length: %d" % len(body), b"content-length:%d" % len(body), b"CONTENT-LENGTH:   %d  " % len(body)][style % 3]
    extra = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" if style >= 3 else b""
    return header + b"\r\n" + extra + b"\r\n" + body


# Noise can hold anything a broken peer sends, except a Content-Length header: with one,
# it would be a frame of its own.
noise = st.binary(max_size=120).filter(no_token) | st.sampled_from(
    [b"\r\n", b"\n", b"\r", b"garbage", b"\r\n\r\n", b"Content-Type: x\r\n", b"Content-Len", b": 12\r\n\r\n"]
)
bad_block = st.sampled_from(
    [b"Content-Length: abc\r\n\r\n", b"Content-Length: -5\r\n\r\n", b"Content-Length: 1.5\r\n\r\n", b"Content-Type: x\r\n\r\n"]
)


@st.composite
def oversized(draw) -> bytes:
    body = draw(st.binary(min_size=LIMIT + 1, max_size=LIMIT + 200).filter(no_token))
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@st.composite
def stream(draw) -> tuple[bytes, list[bytes]]:
    """Good frames with noise, bad header blocks and oversized frames between them."""
    data, expected = [], []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["good", "good", "noise", "bad", "oversized"]))
        if kind == "good":
            body = draw(st.binary(max_size=LIMIT).filter(no_token))  # a JSON body holds no header line
            data.append(good_frame(body, draw(st.integers(0, 5))))
            expected.append(body)
        elif kind == "noise":
            data.append(draw(noise))
        elif kind == "bad":
            data.append(draw(bad_block) + draw(noise))
        else:
            data.append(draw(oversized()))
    joined = b"".join(data)
    # Two noises side by side may spell a header between them: that is not noise any more.
    assume(joined.lower().count(TOKEN) == sum(part.lower().count(TOKEN) for part in data))
    return joined, expected


def chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)])]


def run(parser: FrameParser, pieces: list[bytes]) -> list[bytes]:
    out: list[bytes] = []
    for piece in pieces:
        for item in parser.feed(piece):
            assert isinstance(item, (bytes, Noise))
            if isinstance(item, bytes):
                assert len(item) <= LIMIT
                out.append(item)
        assert parser.buffered <= BOUND
    return out


@FUZZ
@given(stream(), st.lists(st.integers(min_value=0, max_value=5000), max_size=30))
def test_exactly_the_well_framed_messages_come_out(case, cuts):
    """Whatever the noise between them and however the stream is split, every good frame
    and nothing else is yielded, in order."""
    data, expected = case
    assert run(FrameParser(max_content_length=LIMIT, max_header_line=LINE), chunks(data, cuts)) == expected


@FUZZ
@given(st.binary(max_size=2000), st.lists(st.integers(min_value=0, max_value=2000), max_size=30))
def test_arbitrary_bytes_never_raise_and_stay_bounded(data, cuts):
    """Random bytes split at random points: no exception, memory within the limit."""
    run(FrameParser(max_content_length=LIMIT, max_header_line=LINE), chunks(data, cuts))


header_soup = st.lists(
    st.sampled_from([b"Content-Length: ", b"content-length:", b"12", b"300", b"0", b"\r\n", b"\n", b"\r", b"x" * 70, b"{}", b" "])
    | st.binary(max_size=20),
    max_size=40,
).map(b"".join)


@FUZZ
@given(header_soup, st.lists(st.integers(min_value=0, max_value=3000), max_size=30))
def test_how_the_input_is_split_does_not_change_the_messages(data, cuts):
    """Header-like soup fed whole or in pieces gives the same messages."""
    whole = run(FrameParser(max_content_length=LIMIT, max_header_line=LINE), [data])
    assert run(FrameParser(max_content_length=LIMIT, max_header_line=LINE), chunks(data, cuts)) == whole
