"""Secrets found by the syntax around them rather than by a name: a URL's userinfo,
Authorization headers, signed URLs' signatures, `curl -u user:password`, and an AWS
secret access key written next to its key id.

- `scheme://user:password@host`: the password (a placeholder such as `password` is
  kept); `scheme://<token>@host` (a DSN's key, a token as the user name): the user
  part when it reads as generated.
- `Authorization: <scheme> <credentials>` in any quoting (a header line, a dict, a
  `curl -H`): the credentials; `Basic` ones only when they decode to `user:password`.
  `Bearer <token>` anywhere: the token (20+ characters with a digit).
- `?sig=`, `&signature=`, `X-Amz-Signature=`: the signature of a signed URL.
- `curl -u user:password` / `--user`: the password.
- `AKIA...` followed within a few words by a 40-character base64 string (the pair an
  AWS credentials line holds): that string.

Every pattern starts with a literal (`://`, `authorization`, `bearer`...) searched
on the lower-cased text, and every repetition is bounded.
"""

from __future__ import annotations

import base64
import binascii
import re

from sparkls.guard.secrets.edits import MARKER_BYTES, Budget, Edit, span_size
from sparkls.guard.secrets.values import looks_secret, random_looking

_URL_USERINFO = re.compile(
    rb"""://(?P<user>[^\s:/@"'<>()\[\]{}\\]{1,256}+)(?::(?P<password>[^\s:/@"'<>,\\]{1,256}+))?@(?=[A-Za-z0-9\[])"""
)
_AUTHORIZATION = re.compile(
    rb"""authorization(?:\\?["'])?[ \t]*+(?:[:=]|(?P<comma>,))[ \t]*+(?:\\?["'`])?[ \t]*+"""
    rb"""(?:(?P<scheme>[a-z][a-z0-9_-]{0,20})[ \t]++)?(?P<cred>[a-z0-9._~+/:=-]{8,2048}+)"""
)
_UUID = re.compile(rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_BEARER = re.compile(rb"bearer[ \t]++(?P<cred>[a-z0-9._~+/-]{20,2048}+=*)")
_SIGNATURES = tuple(
    re.compile(literal + rb"(?P<cred>[a-z0-9%._~+/-]{16,2048}+)")
    for literal in (rb"sig=(?<=[?&]sig=)", rb"signature=(?<=[?&-]signature=)", rb"security-token=(?<=[?&]x-amz-security-token=)")
)
# `-u` after a space, and `--user`: two patterns, each starting with its literal (one
# starting with `-` alone would stop at every `-` of the text).
_CURL_USERS = tuple(
    re.compile(option + rb"""(?:[ \t]++|=)["']?(?P<user>[^\s:"']{0,256}+)["']?:["']?(?P<password>[^\s"']{0,256}+)""")
    for option in (rb"-u(?<=\s-u)", rb"--user")
)
# One pattern a prefix, each found by its literal (one starting with `A` alone would stop
# at every `A` of the text).
_AWS_KEY_IDS = tuple(
    re.compile(prefix + rb"(?<![A-Za-z0-9]" + prefix + rb")[A-Z0-9]{%d}(?![A-Za-z0-9])" % (20 - len(prefix)))
    for prefix in (rb"A3T", rb"AKIA", rb"ASIA", rb"ABIA", rb"ACCA")
)
_AWS_SECRET = re.compile(rb"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_MIXED = re.compile(rb"(?=.*[A-Z])(?=.*[a-z])(?=.*[0-9])")  # an AWS secret key: both cases and digits
AWS_PAIR_REACH = 200  # bytes after a key id where its secret key is looked for


def header_edits(data: bytes, lowered: bytes, budget: Budget) -> list[Edit]:
    edits = _userinfo(data, budget) + _authorization(data, lowered, budget)
    edits += [
        _marker(m.span("cred"))
        for m in budget.matches(_BEARER.finditer(lowered), size=span_size)
        if _bearer_token(data[m.start("cred") : m.end("cred")])
    ]
    edits += [
        _marker(m.span("cred")) for pattern in _SIGNATURES for m in budget.matches(pattern.finditer(lowered), size=span_size)
    ]
    edits += _curl_users(data, budget)
    edits += _aws_pairs(data, budget)
    return edits


def _marker(span: tuple[int, int]) -> Edit:
    return Edit(*span, MARKER_BYTES, True)


def _curl_users(data: bytes, budget: Budget) -> list[Edit]:
    """`curl -u user:password`: the password; `-u secret:` (an API key as the user, as
    Stripe's and Mailgun's documentation write it): the user."""
    edits = []
    for match in (match for pattern in _CURL_USERS for match in budget.matches(pattern.finditer(data), size=span_size)):
        part = "password" if match["password"] else "user"
        if looks_secret(match[part].decode(errors="replace")):
            edits.append(_marker(match.span(part)))
    return edits


def _userinfo(data: bytes, budget: Budget) -> list[Edit]:
    edits = []
    for match in budget.matches(_URL_USERINFO.finditer(data), size=span_size):
        password = match["password"]
        if password is not None:
            if looks_secret(password.decode(errors="replace")):
                edits.append(_marker(match.span("password")))
        elif random_looking(match["user"].decode(errors="replace")) and len(match["user"]) >= 16:
            edits.append(_marker(match.span("user")))
    return edits


def _authorization(data: bytes, lowered: bytes, budget: Budget) -> list[Edit]:
    edits = []
    for match in budget.matches(_AUTHORIZATION.finditer(lowered), size=span_size):
        start, end = match.span("cred")
        cred = data[start:end].decode(errors="replace")
        scheme = match["scheme"]
        if match["comma"] and scheme is None:
            continue  # `("authorization", "x-amz-date")`: a list of header names
        if scheme == b"basic":
            if _basic_credentials(cred):
                edits.append(_marker((start, end)))
        elif looks_secret(cred) and (random_looking(cred) or _UUID.fullmatch(data, start, end)):
            edits.append(_marker((start, end)))
    return edits


def _basic_credentials(cred: str) -> bool:
    """Whether `cred` is base64 of `user:password` (not the word `authentication`)."""
    try:
        decoded = base64.b64decode(cred + "=" * (-len(cred) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    printable = sum(32 <= c < 127 for c in decoded)
    return b":" in decoded and len(decoded) >= 4 and printable >= 0.9 * len(decoded)


def _bearer_token(token: bytes) -> bool:
    return any(48 <= c <= 57 for c in token) and looks_secret(token.decode(errors="replace"))


def _aws_pairs(data: bytes, budget: Budget) -> list[Edit]:
    edits = []
    for key_id in (match for pattern in _AWS_KEY_IDS for match in budget.matches(pattern.finditer(data))):
        secret = _AWS_SECRET.search(data, key_id.end(), min(len(data), key_id.end() + AWS_PAIR_REACH))
        if secret is not None and _MIXED.search(secret.group()) is not None:
            edits.append(_marker(secret.span()))
    return edits
