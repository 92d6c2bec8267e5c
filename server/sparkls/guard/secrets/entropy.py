"""The last net: a quoted string that reads as random is taken for a secret, whatever
name it has (detect-secrets' high-entropy strings plugins do the same).

A candidate is a quoted string (`"..."`, `'...'`, `` `...` ``, or `\\"...\\"` inside a
JSON string), or an unquoted value ending a line that starts with its name (`blob:
v`, `BLOB=v`, `# blob: v`: YAML, `.env`, INI, a comment), of 20 to 200 characters of
base64, base64url or hex. It counts when:

- base64 (letters of both cases and digits, maybe `+/=_-`): its Shannon entropy is at
  least 4.5 bits a character (`THRESHOLD`, detect-secrets' own for base64): what
  random text of about 30 characters or more reaches, and words, identifiers and
  sentences do not; and words make up less than 60% of it (values.py `wordy`);
- hex: never alone (a hash: lockfiles, test vectors, commit ids, checksums hold
  thousands); a hex key is found by its name (assignments.py) or its shape.

Kept, as real scanners keep them: UUIDs; strings on a line that speaks of a hash
(`sha256`, `integrity`, `checksum`, `digest`, `commit`, `etag`...); base64 alphabets
and other runs of consecutive characters (`ABCDEF...`, `0123456789`); strings with a
path or a dotted name in them; HTTP entity tags; public keys (values.py `public_key`).

Linear: the pattern starts with a quote, and its one repetition is bounded.
"""

from __future__ import annotations

import re

from sparkls.guard.secrets.edits import MARKER_BYTES, Budget, Edit, span_size
from sparkls.guard.secrets.values import entropy, public_key, wordy

MIN_LENGTH = 20
THRESHOLD = 4.5  # bits a character, as detect-secrets' base64 plugin: random text of 30+ characters
MAX_LENGTH = 200
_LENGTHS = b"{%d,%d}" % (MIN_LENGTH, MAX_LENGTH)
HASH_CONTEXT_REACH = 120  # bytes before a string where a word about hashes keeps it

# One pattern per quote and per operator: each starts with its one character, which
# the engine finds fast.
# In the pattern already: letters of both cases and a digit (else no Python runs); not
# a lockfile's `sha512-...` integrity.
def _mixed(chars: bytes) -> bytes:
    return b"".join(b"(?=[" + chars + b"]{0,200}?[" + wanted + b"])" for wanted in (b"A-Z", b"a-z", b"0-9"))


# Each pattern first asks for 20 characters of the value's alphabet after its first
# character, in one plain repetition: a text made of that character (`"` or `=` a
# million times) costs a few instructions a character.
_MIXED = _mixed(rb"A-Za-z0-9+/=_.~-")
_QUOTED = tuple(
    re.compile(
        quote + rb"(?=[A-Za-z0-9+/=_.~-]{20})(?P<value>(?!sha\d{1,3}-)" + _MIXED + rb"[A-Za-z0-9+/=_.~-]" + _LENGTHS + rb"""+)\\?""" + quote
    )
    for quote in (rb'"', rb"'", rb"`")
)
# A value ending a line after `=`, `: ` or an XML tag (one pattern per operator, each
# found fast by its first character; `h1:abc` and `a:b` are not operators here). The
# line must start with the name alone (`_NAME_LINE`, checked for the few found).
_UNQUOTED = tuple(
    re.compile(operator + rb"""(?=[A-Za-z0-9+/_ \t-]{20})[ \t]*+"""
               rb"""(?P<value>""" + _mixed(rb"A-Za-z0-9+/_-") + rb"[A-Za-z0-9+/_-]" + _LENGTHS + rb"""+={0,2})"""
               rb"""[ \t]*+(?:\*/|-->|</[A-Za-z0-9_.:-]{1,80}>)?[ \t]*+(?=\r?\n|\Z)""")
    for operator in (rb"=", rb": ", rb">")
)
_NAME_LINE = re.compile(
    rb"""[ \t]*(?:(?i:export|set|env|arg)[ \t]+)?(?:(?:\#+|//+|/?\*+|--|;+)[ \t]*)?(?:-[ \t]+)?"""
    rb"""(?:<[A-Za-z0-9_.:-]{1,80}|["']?[A-Za-z0-9_$@-]{1,80}(?:\.[A-Za-z0-9_$@-]{1,80}){0,8}["']?[ \t]*[?:+.]?)"""
)
LINE_REACH = 256  # bytes looked back for the start of a line
_HASH_WORDS = re.compile(
    rb"sha\d|md5|hash|digest|checksum|integrity|commit|revision|\brev\b|etag|fingerprint|signature|nonce|uuid|guid|sri\b|crc"
    rb"|public|pub_?key|publishable|websocket"
)
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_DIGIT = re.compile(r"[0-9]")
# An id with its kind in front (`call_...`, `resp_...`, `cus_...`, `file-...`): not a
# credential (a credential with a known prefix is found by its shape first).
_PREFIXED_ID = re.compile(r"[a-z]{2,12}[_-][A-Za-z0-9]{12,}")
# An HTTP entity tag as Node's `etag` writes it: the length in hex, `-`, 27 characters of
# a base64 hash (`"8-O2uVAFaQ1rZvlKLT14RnuvjPIdg"`, also after `W/`).
_ENTITY_TAG = re.compile(r"[0-9a-f]{1,8}-[A-Za-z0-9+/]{27}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")


def entropy_edits(data: bytes, lowered: bytes, budget: Budget) -> list[Edit]:
    edits = []
    # One `budget.matches` a pattern: each hands its matches in order of position, so
    # that what is not weighed lies past the cut.
    for match in (match for pattern in _QUOTED for match in budget.matches(pattern.finditer(data), size=span_size)):
        escaped_close = data[match.end("value")] == 0x5C  # `\"`: the opening quote must be escaped too
        if escaped_close != (match.start() > 0 and data[match.start() - 1] == 0x5C):
            continue
        value = match["value"].decode()
        if _random(value) and not _hash_context(lowered, match.start()):
            edits.append(Edit(*match.span("value"), MARKER_BYTES, True))
    for match in (match for pattern in _UNQUOTED for match in budget.matches(pattern.finditer(data), size=span_size)):
        value = match["value"].decode()
        if _random(value) and _starts_its_line(data, match.start()) and not _hash_context(lowered, match.start()):
            edits.append(Edit(*match.span("value"), MARKER_BYTES, True))
    return edits


def _starts_its_line(data: bytes, operator: int) -> bool:
    """Whether the name before the operator at `operator` starts its line."""
    floor = max(0, operator - LINE_REACH)
    newline = data.rfind(b"\n", floor, operator)
    if newline < 0 and floor > 0:
        return False
    return _NAME_LINE.fullmatch(data, newline + 1, operator) is not None


def _random(value: str) -> bool:
    # Cheapest first: one case only (identifiers, constants, hex), no digit, few
    # distinct characters, then the rest.
    if value.islower() or value.isupper() or not _DIGIT.search(value) or len(set(value)) < min(len(value), 64) // 2:
        return False
    if (_HEX.fullmatch(value) and (value.islower() or value.isupper())) or _UUID.fullmatch(value) or not _BASE64.fullmatch(value):
        return False
    if _runs_of_consecutive(value) or wordy(value) or _PREFIXED_ID.fullmatch(value) or _ENTITY_TAG.fullmatch(value):
        return False
    if public_key(value):
        return False
    return entropy(value) >= THRESHOLD


def _runs_of_consecutive(value: str, run: int = 5) -> bool:
    """Whether `value` holds `run` consecutive characters (`abcde`, `56789`): an alphabet."""
    streak = 1
    for previous, current in zip(value, value[1:]):
        streak = streak + 1 if ord(current) == ord(previous) + 1 else 1
        if streak >= run:
            return True
    return False


def _hash_context(lowered: bytes, position: int) -> bool:
    line_start = lowered.rfind(b"\n", max(0, position - HASH_CONTEXT_REACH), position) + 1
    return _HASH_WORDS.search(lowered, max(line_start, position - HASH_CONTEXT_REACH), position) is not None
