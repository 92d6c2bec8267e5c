"""Redact secret-looking strings from text before it is sent to a model.

`redact(text)` returns the text with each secret replaced by `[REDACTED]`, and how
many secrets it replaced. Line structure is kept: every line stays a line, so
positions computed on the original text still name the same lines.

What is redacted:

- **Private key blocks** (`-----BEGIN ... PRIVATE KEY-----`, RSA, EC, DSA, OPENSSH,
  ENCRYPTED, PGP or plain): the BEGIN and END lines stay; the first body line becomes
  `[REDACTED]` and the other body lines become empty (their indentation and quotes
  stay). A body is a run of base64 lines (bare, quoted, or with `\\n` escapes)
  holding at least one run of 16+ base64 characters, so a parser's
  `BEGIN = "-----BEGIN RSA PRIVATE KEY-----"` constant is left alone. The body is
  looked for after a BEGIN line and before an END line, so an excerpt that cuts a
  key in half still hides the half it shows. A key on one line with `\\n` escapes
  (a JSON service-account file) has its body replaced by one `[REDACTED]`.
- **Tokens with a known shape**, wherever they appear: AWS access key ids
  (`AKIA`/`ASIA` + 16), GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`,
  `github_pat_`), OpenAI-style `sk-` keys (`sk-proj-`, ...; 20+ characters with a
  digit), Slack (`xox[baprs]-`), Google API keys (`AIza` + 35), JWTs (`eyJ...` in
  three dot-separated base64url parts), Stripe `sk_live_`, GitLab `glpat-`, the
  token after `Bearer ` (20+ characters with a digit) and the password in
  `scheme://user:password@host`.
- **Literals assigned to secret-ish names**: a name whose last word is `password`,
  `passwd`, `pwd`, `passphrase`, `secret` or `token`, or that ends in `api_key`,
  `access_key`, `secret_key`, `private_key`, `signing_key`, `encryption_key`,
  `master_key`, `auth_key` or `account_key` (snake, kebab, camel or upper case:
  `DB_PASSWORD`, `clientSecret`, `aws_secret_access_key`). Only the value goes:
  `password = "[REDACTED]"`. Forms: `name = "v"`, `name: T = "v"`, `name: "v"`,
  `"name": "v"`, `name => "v"`, `name := "v"`, `x["name"] = "v"`, comparisons; and
  unquoted `NAME=v` / `name: v` when the name starts the line (env files, YAML,
  INI, `export`, Dockerfile `ENV`), or `;name=v` / `?name=v` / `&name=v` inside
  connection strings and URLs.

What is kept, because it is ordinary code rather than a secret (the false-positive
rules): names whose last word is something else (`token_type`, `password_hash`,
`max_tokens`, `tokenizer`, `EMULATOR_KEY`); values shorter than 6 characters;
quoted values with whitespace (labels, messages); placeholders (`changeme`,
`password`, `example`, `xxxxxx`, `******`, `your-...`, `<...>`, `[...]`, `${VAR}`,
`$VAR`, `%(x)s`, anything with `{...}` interpolation or `...`); values equal to the
name (`TOKEN = "token"`); environment variable names (`"OPENAI_API_KEY"`); file
paths (`./`, `../`, `~/`, or a key-file extension such as `.pem`); and, for unquoted
values, anything that looks like code: `None`, `get_password()`, `self.token`,
`str` (a word of letters only, or a dotted name), or a value with brackets or
commas.

How it stays fast: the text is scanned as UTF-8 bytes (ASCII patterns, cheap
lower-casing) by patterns that each start with a literal whose first character is
rare in code, so the regex engine skips ahead instead of trying every position; the
full assignment pattern runs only where a keyword sits before an operator.

Pure: no I/O, and the text is never logged. Regexes are compiled once, at import.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

MARKER = "[REDACTED]"
MIN_SECRET_LENGTH = 6

_MARKER = MARKER.encode()


class _Edit(NamedTuple):
    start: int
    end: int
    replacement: bytes
    counted: bool  # False for the extra lines of one private key


class _Scan(NamedTuple):
    pattern: re.Pattern[bytes]
    back: int = 0  # the secret starts this many bytes before the match


# --- private key blocks ------------------------------------------------------------

_PEM_MARKER = re.compile(rb"-----(?P<kind>BEGIN|END) (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(rb"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
# One body line: indent and quote, the base64 run (or a PGP `=` checksum), then a `\n`
# escape, closing quote and continuation (`+`, `,`, `\`).
_PEM_BODY_LINE = re.compile(
    rb"""[ \t]*["']?(?P<b64>=?[A-Za-z0-9+/]+={0,2})(?:\\n)?["']?[ \t]*[+,\\]?[ \t]*\r?"""
)
_PEM_HEADERS = rb"Proc-Type|DEK-Info|Comment|Version|Hash|Charset"
_PEM_SKIPPED_LINE = re.compile(rb"""[ \t]*(?:["']?(?:""" + _PEM_HEADERS + rb"""):.*)?\r?""")
_B64_RUN = re.compile(rb"[A-Za-z0-9+/]{16,}")
# A whole key on one line with `\n` escapes: what may surround its body.
_INLINE_BODY = re.compile(rb"""(?:\\[nr]|[ \t])*(?P<body>.*?)(?:\\[nr]|[ \t"',;+)\\])*\r?""")

# --- tokens with a known shape ----------------------------------------------------
# Each pattern starts with a literal whose first character is rare in code (see the
# module docstring); boundaries are checked by look-behinds placed after it.

_TOKEN_SCANS = (
    _Scan(  # AWS access key ids, Google API keys
        re.compile(
            rb"A(?<![A-Za-z0-9_]A)(?:(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9_])"
            rb"|Iza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-]))"
        )
    ),
    _Scan(re.compile(rb"gh(?<![A-Za-z0-9_]gh)[pousr]_[A-Za-z0-9]{20,}")),  # GitHub
    _Scan(
        re.compile(rb"_pat_(?<=github_pat_)(?<![A-Za-z0-9_]github_pat_)[A-Za-z0-9_]{22,}"),
        back=6,
    ),
    _Scan(  # OpenAI-style sk-..., Stripe sk_live_...
        re.compile(
            rb"k(?:-(?<=sk-)(?<![A-Za-z0-9_-]sk-)(?:proj-|svcacct-|admin-)?"
            rb"(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}"
            rb"|_live_(?<=sk_live_)(?<![A-Za-z0-9_]sk_live_)[0-9A-Za-z]{16,})"
        ),
        back=1,
    ),
    _Scan(re.compile(rb"xox[baprs]-(?<![A-Za-z0-9_]xox[baprs]-)[A-Za-z0-9-]{10,}")),  # Slack
    _Scan(  # JWT
        re.compile(
            rb"yJ(?<=eyJ)(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{7,}\.[A-Za-z0-9_-]{10,}"
            rb"\.[A-Za-z0-9_-]*"
        ),
        back=1,
    ),
    _Scan(re.compile(rb"pat-(?<=glpat-)(?<![A-Za-z0-9_]glpat-)[0-9A-Za-z_-]{20,}"), back=2),
)
_BEARER = re.compile(
    rb"Bearer(?<![A-Za-z0-9_]Bearer)[ \t]+(?P<secret>(?=[A-Za-z0-9._~+/-]*[0-9])"
    rb"[A-Za-z0-9._~+/-]{20,}=*)"
)
_URL_PASSWORD = re.compile(rb"""://[^\s:/@"'<>]*:(?P<secret>[^\s:/@"'<>,]+)(?=@)""")

# --- literals assigned to secret-ish names -------------------------------------------

# A keyword followed by what may come before an operator. Run on the lower-cased text;
# each scan ends where its keyword ends.
_OPERATOR_AHEAD = rb"""(?=["'`]?\]?\??[ \t]*[:=!])"""
_KEYWORD_SCANS = tuple(
    re.compile(literal + _OPERATOR_AHEAD)
    for literal in (
        rb"w(?:ord(?<=password)|d(?:(?<=passwd)|(?<=pwd)))",
        rb"hrase(?<=passphrase)",
        rb"cret(?<=secret)",
        rb"ke(?:n(?<=token)|y)",
    )
)
_KEYWORDS = (
    rb"pass(?:word|wd|phrase)|pwd|secret|token"
    rb"|(?:api|access|secret|private|signing|encryption|master|auth|account)[_-]?key"
)
_KEYWORD_END = re.compile(rb"(?:" + _KEYWORDS + rb")\Z")
_ASSIGNMENT = re.compile(
    rb"""
    (?P<kw>(?i:""" + _KEYWORDS + rb"""))
    ["'`]?\]?\??                                    # "password": / x["password"] = / key?:
    [ \t]*
    (?::[ \t]*[\w\[\]<>|&.,? ]{1,60}?[ \t]*(?==[^=]))?  # a type annotation: `: str =`
    (?P<op>===|!==|==|!=|:=|=>|=|:)
    [ \t]*
    (?:
        (?P<prefix>[rRbBuUfF]{1,2}|@)?
        (?P<quote>["'`])
        (?P<qval>(?:\\.|(?!(?P=quote))[^\\\n])*)
        (?P=quote)
      | (?P<uval>[^\s"'`]+)
    )
    """,
    re.VERBOSE,
)
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-$@")
_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_LOWER_OR_DIGIT = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
# What may come before a name that starts a line and takes an unquoted value.
_LINE_PREFIX = re.compile(rb"""[ \t]*(?:(?:export|set|ENV|declare(?:[ \t]+-x)?|-)[ \t]+)?["']?""")
_LINE_REST = re.compile(rb"[ \t]*(?:#.*)?\r?")

_CODE_LIKE = re.compile(r"^[A-Za-z_]+$|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|[()\[\]{}<>,;]")
_PLACEHOLDERS = frozenset(
    {
        "changeme", "password", "passwd", "secret", "example", "placeholder", "redacted",
        "dummy", "none", "null", "undefined", "todo", "fixme", "notasecret", "notsecret",
    }
)
_PLACEHOLDER_SHAPE = re.compile(
    r"""
      (?P<same>.)(?P=same)*                     # xxxxxx, ******
    | (?i:your|my)[\W_].*|(?i:your)[A-Z].*       # your-api-key, my_secret, yourToken
    | <.*>|\[.*\]|\{.*\}                         # <token>, [REDACTED], {value}
    | [$%#].*                                    # ${VAR}, $VAR, %(x)s, %VAR%, #ff0000
    | .*(?:\\[wdsb]|\][*+?]).*                   # a regular expression: \w+, [a-z]+
    | .*(?:\{[^}]*\}|\.\.\.|…).*                 # f"{x}", "sk-..."
    """,
    re.VERBOSE | re.DOTALL,
)
_ENV_VAR_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_PATH_LIKE = re.compile(
    r"(?:\./|\.\./|~/).*|.*\.(?i:pem|key|crt|cer|der|p12|pfx|pub|json|txt|ya?ml)"
)
_SEPARATORS = re.compile(r"[\W_]+")


def redact(text: str) -> tuple[str, int]:
    """The text with secrets replaced by `[REDACTED]`, and how many were replaced."""
    data = text.encode("utf-8", "surrogatepass")
    edits = [
        *_private_key_edits(data),
        *_token_edits(data),
        *_url_password_edits(data),
        *_assignment_edits(data),
    ]
    if not edits:
        return text, 0
    redacted, count = _apply(data, edits)
    return redacted.decode("utf-8", "surrogatepass"), count


def secret_shaped(word: str) -> bool:
    """Whether one word (an identifier-like token, as the workspace index keeps them) has
    the shape of a known secret token (`ghp_...`, `AKIA...`): never stored, never sent."""
    data = word.encode("utf-8", "surrogatepass")
    return any(scan.pattern.search(data) for scan in _TOKEN_SCANS)


def _apply(data: bytes, edits: list[_Edit]) -> tuple[bytes, int]:
    """Apply edits in order; one overlapping another is merged into it, uncounted."""
    edits.sort(key=lambda edit: (edit.start, -edit.end))
    pieces: list[bytes] = []
    position = count = 0
    for start, end, replacement, counted in edits:
        if start < position:
            if end > position and pieces[-1] == _MARKER:
                position = end  # the earlier marker now covers this one too
            continue
        pieces += (data[position:start], replacement)
        position = end
        count += counted
    pieces.append(data[position:])
    return b"".join(pieces), count


# --- tokens -----------------------------------------------------------------------------


def _token_edits(data: bytes) -> list[_Edit]:
    edits = [
        _Edit(match.start() - scan.back, match.end(), _MARKER, True)
        for scan in _TOKEN_SCANS
        for match in scan.pattern.finditer(data)
    ]
    edits += (_Edit(*m.span("secret"), _MARKER, True) for m in _BEARER.finditer(data))
    return edits


def _url_password_edits(data: bytes) -> list[_Edit]:
    return [
        _Edit(*match.span("secret"), _MARKER, True)
        for match in _URL_PASSWORD.finditer(data)
        if _looks_secret(match["secret"].decode(errors="replace"))
    ]


# --- assignments ---------------------------------------------------------------------


def _assignment_edits(data: bytes) -> list[_Edit]:
    lowered = data.lower()
    edits = []
    for scan in _KEYWORD_SCANS:
        for hit in scan.finditer(lowered):
            keyword = _KEYWORD_END.search(lowered, max(0, hit.end() - 16), hit.end())
            if keyword is None:  # a bare `key`
                continue
            match = _ASSIGNMENT.match(data, keyword.start())
            span = _assigned_value(match) if match else None
            if span is not None:
                edits.append(_Edit(*span, _MARKER, True))
    return edits


def _assigned_value(match: re.Match[bytes]) -> tuple[int, int] | None:
    """The span of the value to redact in an assignment, or None to keep it."""
    data = match.string
    start = match.start("kw")
    # Inside a word, only a camelCase boundary (`apiKey`, `userPassword`) counts.
    inside_word = start > 0 and data[start - 1] in _ALNUM
    if inside_word and not (data[start - 1] in _LOWER_OR_DIGIT and chr(data[start]).isupper()):
        return None
    name_start = start
    while name_start and data[name_start - 1] in _NAME_BYTES:
        name_start -= 1
    name = data[name_start : match.end("kw")].decode()
    if match["qval"] is not None:
        if b"r" in (match["prefix"] or b"").lower():
            return None  # a raw string: in practice a regular expression or a path
        value = match["qval"].decode(errors="replace")
        return match.span("qval") if _looks_secret(value, name) else None
    if match["op"] not in (b"=", b":"):
        return None
    value_start, value_end = match.span("uval")
    line_start = data.rfind(b"\n", 0, name_start) + 1
    if _LINE_PREFIX.fullmatch(data, line_start, name_start):
        # `NAME=value` / `name: value` taking the rest of its line.
        line_end = data.find(b"\n", value_end)
        if not _LINE_REST.fullmatch(data, value_end, len(data) if line_end < 0 else line_end):
            return None
        value = match["uval"].decode(errors="replace")
        if _CODE_LIKE.search(value):
            return None
    elif data[line_start:name_start].rstrip()[-1:] in (b";", b"?", b"&") and match["op"] == b"=":
        # `;Password=value;` in a connection string, `?token=value&` in a URL.
        raw = re.split(rb"[;&]", match["uval"], maxsplit=1)[0]
        value, value_end = raw.decode(errors="replace"), value_start + len(raw)
    else:
        return None
    return (value_start, value_end) if _looks_secret(value, name) else None


def _looks_secret(value: str, name: str = "", *, min_length: int = MIN_SECRET_LENGTH) -> bool:
    """Whether a value given to a secret-ish `name` is worth hiding (module docstring)."""
    if len(value) < min_length or any(c.isspace() for c in value):
        return False
    normalized = _SEPARATORS.sub("", value).lower()
    if normalized in _PLACEHOLDERS or (name and normalized == _SEPARATORS.sub("", name).lower()):
        return False
    return not (
        _PLACEHOLDER_SHAPE.fullmatch(value)
        or _ENV_VAR_NAME.fullmatch(value)
        or _PATH_LIKE.fullmatch(value)
    )


# --- private keys --------------------------------------------------------------------


def _private_key_edits(data: bytes) -> list[_Edit]:
    if b"PRIVATE KEY" not in data:
        return []
    edits: list[_Edit] = []
    handled = 0  # bytes before this offset belong to a key already handled
    for marker in _PEM_MARKER.finditer(data):
        if marker.start() < handled:
            continue
        line_start = data.rfind(b"\n", 0, marker.start()) + 1
        line_end = _line_end(data, marker.end())
        if marker["kind"] == b"END":
            body = _body_lines(data, _lines_before(data, line_start, handled))
            edits += _body_edits(data, sorted(body), counted=True)
            continue
        end = _PEM_END.search(data, marker.end(), line_end)
        inline = _INLINE_BODY.fullmatch(data, marker.end(), end.start() if end else line_end)
        found = inline is not None and _B64_RUN.search(inline["body"]) is not None
        if found:
            assert inline is not None
            edits.append(_Edit(*inline.span("body"), _MARKER, True))
        if end is not None:
            handled = end.end()
            continue
        body = _body_lines(data, _lines_after(data, line_end + 1))
        edits += _body_edits(data, body, counted=not found)
        handled = body[-1][1] if body else line_end
    return edits


def _line_end(data: bytes, position: int) -> int:
    end = data.find(b"\n", position)
    return len(data) if end < 0 else end


def _lines_after(data: bytes, start: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each line from `start` on, end excluding the newline."""
    while start <= len(data):
        end = _line_end(data, start)
        yield start, end
        start = end + 1


def _lines_before(data: bytes, line_start: int, floor: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each line above the one at `line_start`, up to `floor`."""
    while line_start > 0:
        end = line_start - 1
        line_start = data.rfind(b"\n", 0, end) + 1
        if line_start < floor:
            return
        yield line_start, end


def _body_lines(data: bytes, lines: Iterator[tuple[int, int]]) -> list[tuple[int, int]]:
    """The key-body lines met along `lines`, up to the first line of anything else."""
    body: list[tuple[int, int]] = []
    for start, end in lines:
        if _PEM_BODY_LINE.fullmatch(data, start, end):
            body.append((start, end))
        elif not _PEM_SKIPPED_LINE.fullmatch(data, start, end):
            break
    return body


def _body_edits(data: bytes, body: list[tuple[int, int]], *, counted: bool) -> list[_Edit]:
    """First body line -> `[REDACTED]`, the others emptied (indent and quotes stay)."""
    if not any(_B64_RUN.search(data, start, end) for start, end in body):
        return []
    edits = []
    for position, (start, end) in enumerate(body):
        match = _PEM_BODY_LINE.fullmatch(data, start, end)
        assert match is not None
        first = position == 0
        edits.append(_Edit(*match.span("b64"), _MARKER if first else b"", counted and first))
    return edits
