"""Values given to names that mean a secret, in every assignment syntax.

A name counts by its last word (snake, kebab, dotted, camel or upper case), allowing
a few trailing words that change nothing (`_value`, `_prod`, `_2`): strong words
(`password`, `passwd`, `pwd`, `passphrase`, `pass`, `secret`, `token`, `credential(s)`,
`creds`, and `key` after `api`, `access`, `secret`, `private`, `signing`, `client`...)
take any value the false-positive rules let through (values.py); weak ones (`key`,
`key_id`, `salt`, `auth`, `dsn`, `webhook`, `login`) only a value that reads as generated.
`pass`, `pwd`, `key`, `salt`, `auth` and `dsn` must start a word (`apiKey` yes,
`monkey` no); `public`/`publishable` keys are not secrets. Only the value goes:
`password = "[REDACTED]"`.

Forms (the operator after the name, then the value):

- quoted values (`"v"`, `'v'`, `` `v` ``, `\\"v\\"` inside a JSON string, as a
  notebook's cells hold code; `b"v"`, `@"v"`; never a raw `r"v"`, in practice a
  regex or a path) after `=`, `:`, `:=`, `::=`, `?=`, `.=`, `+=`, `=>`, `||`, `??`,
  `==`, `!=`, `===`, `!==`, a type (`password: str =`, `var token string =`), a
  quoted name and a comma (`setProperty("API_TOKEN", "v")`), a call
  (`setPassword("v")`), or a space (`password "v";`); and a comparison the other
  way round (`"v" == password`);
- unquoted values where a value cannot be code: when the name starts its line
  (`.env`, YAML, INI, `.properties`, TOML bare values, shell, `ENV`/`ARG`, behind a
  comment marker or a list dash), follows `;`, `&` or `?` (connection strings, query
  strings), is a flag (`--password=v`), or follows a `key=value` word (a libpq DSN,
  `host=db password=v`); the value ends at a space, a quote, `;`, `&` or the line's
  end, and must not read as code (values.py `code_like`);
- XML: `<password>v</password>` (the value on the next line too), and a name/value
  pair: `<add key="Password" value="v"/>`, `- name: DB_PASSWORD` then `value: v`,
  `{"name": "api_token", "value": "v"}`.

The comparison the other way round, `"v" == password`, is found from the name's end
(the same keywords) by reading backwards to the operator and the quote.

Speed: each keyword's last letters are searched as a literal on the lower-cased text
(`_SCANS`: where it ends a word), and each keyword found is counted against the
window's hits (`Budget.hits`) before the whole assignment pattern is tried at it. That
pattern's repetitions are bounded and possessive, so an attempt reads a bounded stretch
(it never reads past the next quote, space or operator but in a value), and a text
dense with keywords (`key ` a million times) costs at most HITS attempts a window:
past them the window is hidden from the next keyword on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from sparkls.guard.secrets.edits import MARKER_BYTES, Budget, Edit
from sparkls.guard.secrets.values import code_like, looks_secret, passphrase, random_looking

MAX_VALUE = 1024  # bytes of a value read at most (a longer one is cut there, and still hidden)
MAX_NAME = 80  # bytes of a name looked at before its keyword
LINE_REACH = 512  # bytes looked back for the start of a line

STRONG = frozenset({"password", "passwd", "pwd", "passphrase", "pass", "secret", "secrete", "token", "credential", "credentials", "creds"})
KEY_QUALIFIERS = frozenset(
    {
        "api", "access", "secret", "private", "signing", "sign", "encryption", "encrypt", "master", "auth", "account",
        "client", "app", "application", "license", "licence", "service", "subscription", "consumer", "hmac", "jwt",
        "session", "storage", "shared", "admin", "deploy", "ssh", "gpg", "pgp", "aes", "crypto", "sas",
        "webhook", "write", "read", "server", "bot", "user", "x", "openai", "anthropic", "stripe", "aws",
    }
)  # fmt: skip
# Words before the keyword that make it something else than a secret: a public key, a
# database's key (gitleaks' generic rule allows the same), a nonce, an anti-forgery token.
NOT_SECRET_QUALIFIERS = frozenset(
    {"public", "publishable", "pub", "primary", "foreign", "schema", "bucket", "hot", "idx", "natural", "sequence",
     "sort", "partition", "socket", "csrf", "xsrf", "authenticity"}
)  # fmt: skip
_PASSPHRASE_NAMES = frozenset({"password", "passwd", "pwd", "passphrase", "pass", "secret", "secrete"})
# Keywords that must start a word (`dbPass`, `db_pass`, `pass`; not `bypass`).
_GLUED_KEYS = (b"api", b"secret", b"private", b"access", b"auth", b"signing", b"master", b"account", b"client")
_WORD_START = frozenset({"pass", "pwd", "key", "salt", "auth", "dsn", "login"})

# (what is searched, the keywords it finds, longest first): each starts with a literal
# the engine finds fast (a keyword's last letters, behind a look-behind for the rest).
_KEYWORDS: tuple[tuple[bytes, tuple[str, ...]], ...] = (
    (rb"pass(?:word|wd|phrase)?", ("password", "passphrase", "passwd", "pass")),
    (rb"pwd", ("pwd",)),
    (rb"cret(?<=secret)e?", ("secrete", "secret")),  # `secrete`: detect-secrets' own spelling test
    (rb"oken(?<=token)", ("token",)),
    (rb"key", ("key",)),
    (rb"salt", ("salt",)),
    (rb"auth", ("auth",)),
    (rb"ntial(?<=credential)", ("credential",)),
    (rb"reds(?<=creds)", ("creds",)),
    (rb"dsn", ("dsn",)),
    (rb"hook(?<=webhook)", ("webhook",)),
    (rb"login", ("login",)),
)
# Words after the keyword that keep a name a secret's (`password_2`, `token_prod`).
# Any word goes after a strong keyword but these, which name something about the
# secret rather than the secret (`token_type`, `password_hash`, `secret_name`).
_SUFFIX_WORDS = frozenset(
    {"secure", "sec", "value", "val", "str", "string", "raw", "plain", "plaintext", "prod", "production", "dev", "test",
     "staging", "live", "local", "old", "new", "backup", "default", "b64", "base64", "encoded", "hex", "bytes"}
)  # fmt: skip
_NOT_SECRET_SUFFIXES = frozenset(
    {"type", "types", "hash", "hashed", "hasher", "digest", "length", "len", "name", "names", "id", "ids", "url", "uri",
     "urls", "file", "files", "path", "dir", "env", "var", "field", "fields", "help", "label", "prompt", "message", "msg",
     "error", "errors", "err", "min", "max", "count", "size", "policy", "regex", "re", "pattern", "format", "fmt",
     "expiry", "expires", "expiration", "expire", "ttl", "timeout", "header", "headers", "prefix", "suffix", "endpoint",
     "location", "provider", "manager", "store", "storage", "class", "cls", "fn", "func", "callback", "handler",
     "validator", "input", "form", "widget", "column", "col", "attr", "arn", "ref", "version", "limit", "budget",
     "usage", "index", "idx", "source", "kind", "scope", "scopes", "reset", "rotation", "mode", "method", "style",
     "enabled", "required", "placeholder", "hint", "title", "text", "key", "keys", "list", "map", "dict", "set",
     "cache", "param", "params", "option", "options", "config", "settings", "list", "ids", "position", "pos", "start",
     "end", "offset", "span", "count", "counts", "tokens", "secrets", "passwords", "encoder", "decoder", "parser",
     "generator", "factory", "service", "client", "auth", "authentication", "strategy", "backend", "check", "checker",
     "exists", "status", "state", "lock", "mutex", "event", "events", "stream", "reader", "writer", "bucket", "seconds",
     "secs", "minutes", "mins", "hours", "days", "ms", "rounds", "iterations", "iter", "attempts", "retries", "bits",
     "chars", "characters", "words", "width", "height", "timestamp", "time", "date", "at", "in", "until", "expires_at"}
)  # fmt: skip
# After the keyword (on the lower-cased text). Values: `(?P<qval>)` quoted, `(?P<uval>)`
# unquoted. Operators that compare or pass a value (`==`, `(`, `,`, `.=`, `||`) take a
# quoted value only; an unquoted value is never a word of letters alone (code).
_QUOTED_AHEAD = rb"""(?=[ \t]*+(?:[a-z_:]{1,20}\()?(?:[rbuf]{1,2}|@|l|u8)?\\?["'`])"""
_UNQUOTED_CHARS = rb"""[^\s"'`,;&)}\]<>\\=(:]"""
# A quick look before the whole pattern: no `,`, `;`, `)` or `}` in the next 9
# characters before a quote (a value is 6 at least: `{token:a,...}` fails at once)
# unless it is a quoted name's comma; then after the name (its suffix words, a closing quote or
# bracket, an operator) comes a quote, or 6 characters of an unquoted value that is
# not a word of letters alone; or the line ends soon (a name/value pair, an XML
# element whose value is on the next line). Most keywords in code fail here.
_ROOM = rb"""(?!--)(?=\\?["'`]?,|[^,;)}\n"'`]{0,8}["'`]|[^,;)}\n]{9}|[^,;)}\n]{0,8}(?:\n|\Z))(?=(?:[_.-][a-z0-9]{1,12}+){0,3}+\\?["'`]?\]?\??
    (?:[ \t=:!>(.?|+@\[\]<>&*-][a-z0-9_ \t=:!>(.?|+@\[\]<>&*-]{0,31}+\\?["'`]|,[ \t]*+\\?["'`]|\\?["'`]
    |(?:[ \t]*+[=:>?+]{1,4}|[ \t])[ \t]*+(?![a-z_]{1,64}+(?![=:]""" + _UNQUOTED_CHARS + rb"""|""" + _UNQUOTED_CHARS + rb"""))""" + _UNQUOTED_CHARS + rb"""(?<!-)[^\s"'`,;&)}\]<>\\(]{5}
    |[",'`\\ \t]{0,4}\r?\n[ \t]*+(?:-[ \t]++)?\\?["'`]?value|[ \t]*+>[ \t]*+\r?\n))"""
_TAIL = rb"""
    (?>(?P<extra>(?<=credential)s|(?<=key)[_-]?id|(?<=hook)[_-]?url)?(?![a-z0-9]))  # credentials, key_id, webhook_url;
                                                                    # ends a word (atomic: `key_id` is never read again as `key`)
    """ + _ROOM + rb"""                                                 # room for a value
    (?P<suffix>(?:[_.-][a-z0-9]{1,12}+){0,3}+)                        # password_2, token_prod (judged below)
    (?P<close>\\?["'`])?\]?\??                                       # "password": / x["password"] = / key?:
    (?:
        (?P<annot>(?::|[ \t]++)[a-z0-9_\[\]<>|&.,?* ]{1,40}+(?<=[ \t])(?==(?![=>])))?  # : str = / string =
        [ \t]*+
        (?P<op>(?:===|==|!==|!=|\?\?=|\|\|=|\.=|\?\?|\|\||\(|(?<=["'`]),)""" + _QUOTED_AHEAD + rb"""
              |=>|=|:::=|::=|:=|:|>|\?=|\+=)
        (?:(?<=>)[ \t]*+\r?\n)?[ \t]*+
      | (?P<pair>\\?["'`]?[ \t]*+(?:,|\r?\n)?[ \t]*+(?:-[ \t]++)?\\?["'`]?value\\?["'`]?[ \t]*+[:=][ \t]*+)
      | (?P<space>[ \t]++)
    )
    (?:
        (?P<wrap>(?:string::from|secretstr|secretstring|secret|sensitive|str|string)\()?
        (?P<prefix>[rbuf]{1,2}|@|l|u8)?(?P<quote>\\?["'`])(?P<qval>[^\n"'`\\]{6,1024}+)(?P=quote)
      | (?=[^\s"'`,;&)}\]<>\\(]{6})                # 6 characters at least, `=` and `:` included
        (?![a-z_]{1,64}+(?![=:]""" + _UNQUOTED_CHARS + rb"""|""" + _UNQUOTED_CHARS + rb"""))  # not a word of letters alone
        (?P<uval>""" + _UNQUOTED_CHARS + rb"""{1,1024}+(?:[=:]{1,3}""" + _UNQUOTED_CHARS + rb"""{1,1024}+){0,3}+={0,3})
        (?![,)}\]>(])
    )
"""
# A keyword where it ends a word (or goes on as the tail allows: `credentials`,
# `key_id`, `webhook_url`): what the whole pattern, and the comparison the other way
# round, are tried on (see `_candidates`).
_WORD_END = rb"(?:(?<=credential)s|(?<=key)[_-]?id|(?<=hook)[_-]?url)?(?![a-z0-9])"
_SCANS = tuple(
    (
        keywords,
        re.compile(searched + _WORD_END),
        re.compile(searched + b"(?=" + _TAIL + b")", re.VERBOSE),
    )
    for searched, keywords in _KEYWORDS
)  # fmt: skip
_COMPARISONS = (b"==", b"!=", b"===", b"!==")
# `"v" == password`: a comparison written the other way round, found from its name (a
# keyword that ends it): a quote, `==`, `!=`, `===` or `!==`, then the name.
_COMPARED = (b"password", b"passwd", b"pass", b"secret", b"token", b"key")
# Read backwards from the name's end: the name (61 characters at most, starting with a
# letter, `_` or `$`), spaces, the operator (`==`, `!=`, `===`, `!==` reversed), a quote.
_COMPARED_NAME_REVERSED = re.compile(rb"""[a-z0-9_$.]{1,61}+(?<=[a-z_$])[ \t]{0,16}+=(?:==?|=?!) ?["'`]""")
COMPARED_REACH = 96  # bytes looked back from a name's end for the comparison
_NAME_GOES_ON = frozenset(bytes([c]) for c in b"abcdefghijklmnopqrstuvwxyz0123456789_$.")  # the name is longer
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_.-]*")  # a name (`AsyncCredentials`, `x-api-key`), not a value
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_LOWER_WORDS = re.compile(r"[a-z]+(?:[_.-][a-z]+)*")  # `proxy_user`, `same-origin`: a name, not a key
_NAME_BACKWARDS = re.compile(rb"[A-Za-z0-9_.$@-]*")  # a name's characters, read backwards
_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_LOWER_OR_DIGIT = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# What may come before a name that starts a line and takes an unquoted value.
_LINE_PREFIX = re.compile(
    rb"""[ \t]*(?:(?:export|set|setx|env|arg|declare(?:[ \t]+-[a-z]+)?|readonly|local|typeset|%env|!export|\$env:)[ \t]+)?"""
    rb"""(?:(?:\#+|//+|/?\*+|--|;+|rem|<!--|%+)[ \t]*(?:[a-z]{1,12}[ \t]+){0,3})?(?:-[ \t]+)?\\?["'`]?"""
)


def assignment_edits(data: bytes, lowered: bytes, budget: Budget) -> list[Edit]:
    edits = []
    for keywords, words, scan in _SCANS:
        data, lowered = budget.reach(data), budget.reach(lowered)
        for candidate in budget.matches(_candidates(data, words, scan, lowered, budget), _position, _weight):
            spans = (
                _secret_value(data, candidate.match, keywords) if candidate.match else None,
                candidate.compared if candidate.compared and _compared_secret(data, *candidate.compared) else None,
            )
            edits += (Edit(*span, MARKER_BYTES, True) for span in spans if span is not None)
    return edits


class _Candidate(NamedTuple):
    start: int  # the keyword's
    match: re.Match[bytes] | None  # the whole pattern's: an assignment to weigh
    compared: tuple[int, int] | None  # a quoted value compared with the name the keyword ends: `"v" == password`


def _candidates(
    data: bytes, words: re.Pattern[bytes], scan: re.Pattern[bytes], lowered: bytes, budget: Budget
) -> Iterator[_Candidate]:
    """The keywords found, in order, with what to weigh at each. Each word `words` finds
    (a literal search) is counted against the window's hits (`Budget.hits`) before
    anything else is tried on it, so that a text dense with keywords costs a bounded
    time."""
    for word in budget.hits(words.finditer(lowered)):
        start, end = word.span()
        match = scan.match(lowered, start)
        compared = None
        if lowered.endswith(_COMPARED, 0, end) and lowered[end : end + 1] not in _NAME_GOES_ON:
            comparison = _COMPARED_NAME_REVERSED.match(lowered[max(0, end - COMPARED_REACH) : end][::-1])
            compared = _quoted_before(data, end - comparison.end()) if comparison is not None else None
        if match is not None or compared is not None:
            yield _Candidate(start, match, compared)


def _position(candidate: _Candidate) -> int:
    return candidate.start


def _weight(candidate: _Candidate) -> int:
    """The bytes of the values a candidate holds (`Budget`)."""
    match, compared = candidate.match, candidate.compared
    value = max(match.end("qval"), match.end("uval")) - max(match.start("qval"), match.start("uval")) if match else 0
    return value + (compared[1] - compared[0] if compared else 0)


def _secret_value(data: bytes, match: re.Match[bytes], keywords: tuple[str, ...]) -> tuple[int, int] | None:
    """The span of the value to redact, or None to keep it (see the module docstring)."""
    lowered = match.string
    keyword_end = match.start("suffix") - len(match["extra"] or b"")
    keyword = next(k for k in keywords if lowered.startswith(k.encode(), keyword_end - len(k)))
    start = keyword_end - len(keyword)
    name_start, words = _name(data, start, match.end("suffix"))
    strong = bool(words) and _is_strong(keyword, words, match)
    if not words or not _secret_name(data, start, keyword, words, strong):
        return None
    name = data[name_start : match.end("suffix")].decode(errors="replace")
    op = match["op"]
    if match["qval"] is not None:
        value = data[match.start("qval") : match.end("qval")].decode(errors="replace")
        if b"r" in (match["prefix"] or b""):
            return None  # a raw string: in practice a regular expression or a path
        if b"f" in (match["prefix"] or b"") and "{" in value:
            return None  # an f-string: what it holds is computed
        if op == b"," and (match["close"] is None or _IDENTIFIER.fullmatch(value)):
            return None  # `f(password, "x")`: a second argument; `(".credentials", "Credentials")`: names
        if op in _COMPARISONS and _IDENTIFIER.fullmatch(value):
            return None  # `if token == "integer":` compares a kind, not a secret
        if op == b"(" and (not strong or match["suffix"] or not (words[0] == "set" or len(words) == 1)):
            return None  # `setPassword("v")`, `.password("v")`; not `NewWithPassword("user")`, `secret.startswith("x")`
        if op == b">" and not _xml_element(data, name_start):
            return None
        if match["space"] is not None and not random_looking(value):
            return None  # `token "v"` in prose
        if any(c.isspace() for c in value):  # a passphrase, only where a password goes
            return match.span("qval") if keyword in _PASSPHRASE_NAMES and passphrase(value) else None
        if not looks_secret(value, name) or (not strong and not _weak_value(value, keyword, bool(match["extra"]))):
            return None
        if match["suffix"] and value.isalpha() and value.islower():
            return None  # `TOKEN_COMMENT: "comment"`: a kind's name, not a secret
        if _LOWER_WORDS.fullmatch(value) and (keyword == "key" or match["extra"] == b"s"):
            return None  # `UserKey = "proxy_user"`: a map's or a context's key; `credentials: 'same-origin'`: Fetch's mode
        return match.span("qval")
    value = data[match.start("uval") : match.end("uval")].decode(errors="replace")
    if op in (b",", b"(", b"==", b"!=", b"===", b"!==") or not looks_secret(value, name) or code_like(value):
        return None
    if match["space"] is not None:
        if not random_looking(value):
            return None  # `token limit.`, `pass preflight.`: prose
    elif op == b">":
        if not _xml_element(data, name_start):
            return None
    elif match["pair"] is None and not _takes_unquoted(data, name_start):
        return None
    if not strong and not _weak_value(value, keyword, bool(match["extra"])):
        return None
    return match.span("uval")


def _weak_value(value: str, keyword: str, value_is_id: bool = False) -> bool:
    """What a weak name must hold: a value that reads as generated; for a key, a UUID
    too (Heroku's, Snyk's and HubSpot's keys are UUIDs)."""
    return random_looking(value) or (keyword == "key" and _UUID.fullmatch(value) is not None and not value_is_id)


def _name(data: bytes, keyword_start: int, name_end: int) -> tuple[int, list[str]]:
    """Where the name holding the keyword starts, and its words, lower-cased."""
    before = data[max(0, keyword_start - MAX_NAME) : keyword_start][::-1]
    start = keyword_start - _NAME_BACKWARDS.match(before).end()
    name = data[start:name_end].decode(errors="replace").lstrip("-$@.")
    return start, [w.lower() for w in _WORDS.findall(name)]


def _secret_name(data: bytes, start: int, keyword: str, words: list[str], strong: bool) -> bool:
    """Whether the keyword starts a word where it must (`apiKey`, not `monkey`), the
    name is not a public key's, and the words after the keyword keep it a secret's."""
    if keyword in _WORD_START and start > 0 and data[start - 1] in _ALNUM:
        # Inside a word, only a camelCase boundary counts, or a key glued to what it is
        # (`apikey`, `SECRETKEY`).
        camel = data[start - 1] in _LOWER_OR_DIGIT and 65 <= data[start] <= 90
        glued = keyword == "key" and data[max(0, start - 7) : start].lower().endswith(_GLUED_KEYS)
        if not (camel or glued):
            return False
    keyword_at = _keyword_index(words, keyword)
    if keyword_at is None or (keyword_at > 0 and words[keyword_at - 1] in NOT_SECRET_QUALIFIERS):
        return False
    suffixes = words[keyword_at + 1 :]
    if keyword == "key" and suffixes[:1] == ["id"]:
        suffixes = suffixes[1:]  # `private_key_id`: the id is the key's
    if strong and keyword != "pass":
        return not any(w in _NOT_SECRET_SUFFIXES for w in suffixes)
    return all(w in _SUFFIX_WORDS or w.isdigit() for w in suffixes)


def _keyword_index(words: list[str], keyword: str) -> int | None:
    """The index of the word holding the keyword (the last such word)."""
    for index in range(len(words) - 1, -1, -1):
        if words[index].endswith(keyword) or (keyword == "credential" and words[index].endswith("credentials")):
            return index
    return None


def _is_strong(keyword: str, words: list[str], match: re.Match[bytes]) -> bool:
    if keyword in STRONG:
        return True
    if keyword == "key":
        at = _keyword_index(words, keyword)
        before = words[at - 1] if at else ""
        word = words[at] if at is not None else ""
        id_suffix = (match["extra"] or b"").endswith(b"id")
        qualified = before in KEY_QUALIFIERS or word.endswith(tuple(q.decode() + "key" for q in _GLUED_KEYS))
        return qualified and (not id_suffix or before == "private")
    return False


def _takes_unquoted(data: bytes, name_start: int) -> bool:
    """Whether a name here takes an unquoted value that cannot be code: it starts its
    line, follows `;`, `&` or `?`, is a flag, or follows a `key=value` word."""
    floor = max(0, name_start - LINE_REACH)
    newline = data.rfind(b"\n", floor, name_start)
    line_start = newline + 1 if newline >= 0 else (0 if floor == 0 else -1)
    if line_start >= 0 and _LINE_PREFIX.fullmatch(data[line_start:name_start].lower()):
        return True
    before = data[max(floor, name_start - 1) : name_start]
    if data[max(floor, name_start - 2) : name_start] == b"/:":
        return True  # `.npmrc`: `//registry.npmjs.org/:_authToken=v`
    if before in (b";", b"&", b"?", b'"', b"'", b"`") or data[name_start : name_start + 1] == b"-":
        return True  # a connection or query string, a string's start (`["TOKEN=v"]`), a flag
    if data[max(floor, name_start - 2) : name_start] in (b"\\n", b"\\t"):
        return True  # a line of a file held in a string (`"...\nTOKEN=v\n..."`)
    if before in (b" ", b"\t"):
        # (from `floor` at most: without a space there, not from the window's start)
        word_start = max(data.rfind(b" ", floor, name_start - 1), data.rfind(b"\t", floor, name_start - 1), floor - 1) + 1
        previous = data[word_start : name_start - 1]
        # `host=db password=v` (a DSN), `--set db.password=v` (a flag's value)
        return (b"=" in previous and b"(" not in previous and not previous.endswith(b"=")) or previous.startswith(b"-")
    return False


def _xml_element(data: bytes, name_start: int) -> bool:
    return name_start > 0 and data[name_start - 1 : name_start] == b"<"


def _quoted_before(data: bytes, quote_at: int) -> tuple[int, int] | None:
    """The span of the quoted value whose closing quote is at `quote_at`, if it opens
    within MAX_VALUE bytes."""
    start = data.rfind(data[quote_at : quote_at + 1], max(0, quote_at - MAX_VALUE - 1), quote_at) + 1
    return (start, quote_at) if start else None


def _compared_secret(data: bytes, start: int, end: int) -> bool:
    return looks_secret(data[start:end].decode(errors="replace"))
