"""Whether a value is worth hiding: the false-positive rules shared by the rules that
find a value by its context (a secret-ish name, a URL's password, an Authorization
header, the entropy net).

- `looks_secret(value, name)`: what a secret-ish name may hold. Kept (not secrets):
  values shorter than 6 characters; values with whitespace (labels, messages);
  placeholders (`changeme`, `password`, `example`, `xxxxxx`, `******`, `your-...`,
  `<...>`, `[...]`, `${VAR}`, `$VAR`, `%(x)s`, `{{ x }}`, a template of `{name}`
  placeholders, `...`, a dunder name);
  a path or module name (words between slashes); a value ending with its name
  (`TOKEN = "token"`, a constant naming itself: `KeyADCredentials = "pkgKeyADCredentials"`);
  environment variable names (`"OPENAI_API_KEY"`); file paths (`./`, `../`, `~/`, `/etc/...`,
  or a key-file extension such as `.pem`); regular expressions; a public key
  (`public_key`).
- `public_key(value)`: base64 of a SubjectPublicKeyInfo, which starts with the same
  bytes for every P-256, P-384, Ed25519 or RSA key of a size (`MFkwEwYHKoZIzj0CAQ...`).
- `code_like(value)`: an unquoted value that reads as code (`None`, `get_password()`,
  `self.token`, `str`, a word of letters only, brackets, commas, `*` or `|`, a number
  literal of up to 10 digits or 16 hex digits).
- `random_looking(value)`: what a weak name (`key`, `salt`, `auth`, `dsn`, `webhook`)
  must hold to count: 8+ characters, letters and digits (or 16+ of mixed case), not a
  UUID, not a dotted or slashed name, some entropy.
- `entropy(value)`: Shannon entropy in bits per character.

Pure; no I/O.
"""

from __future__ import annotations

import math
import re
from collections import Counter

MIN_SECRET_LENGTH = 6

_PLACEHOLDERS = frozenset(
    {
        "changeme", "password", "passwd", "secret", "example", "placeholder", "redacted", "dummy", "none", "null",
        "undefined", "todo", "fixme", "notasecret", "notsecret", "true", "false", "required", "optional", "string",
        "default", "empty", "unknown", "sample", "mysecret", "mypassword", "secretkey", "apikey", "yourkey",
    }
)  # fmt: skip
# Placeholders by their whole shape (`fullmatch`)...
_PLACEHOLDER_SHAPE = re.compile(
    r"""
      (?P<same>.)(?P=same)*                     # xxxxxx, ******
    | (?i:your|my)[\W_].*|(?i:your)[A-Z].*       # your-api-key, my_secret, yourToken
    | __\w+__                                    # __root__: a dunder name
    | [\^~<>=v]*\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?   # ^9.0.0, v1.2.3-rc1: a version
    | (?i:urn):.*                                # urn:uuid:...: a name
    | <.*>|\[.*\]|\{.*\}|\(.*\)                  # <token>, [REDACTED], {value}
    | [$%#@!].*                                  # ${VAR}, $VAR, %(x)s, %VAR%, #ff0000, @Value, !vault
    """,
    re.VERBOSE | re.DOTALL,
)
# ...and by a part of them: fillers (`sk-xxxx...`, `AKIA****`, `ghp_...`), words that
# say so (`a-fake-api-key`, `insert_key_here`), a regular expression's syntax (`\w+`,
# `[a-z]+`, `(?:`). Each is looked for as a literal first (one fast pass), where a
# pattern `.*part.*` would read the value once for each of its characters.
_FILLERS = ("xxxx", "XXXX", "****", "...", "…", "____")
_PLACEHOLDER_WORDS = ("fake", "dummy", "placeholder", "sample", "insert", "changeme", "redacted", "here")
_PLACEHOLDER_WORD = re.compile(
    r"(?:^|[\W_])(?:fake|dummy|placeholder|sample|insert|changeme|redacted)(?:[\W_]|$)|[\W_]here\Z", re.IGNORECASE
)
_REGEX_SYNTAX = re.compile(r"\\[wdsbWDS]|\][*+?]|\(\?[:=!<]")
_INTERPOLATION = re.compile(r"\$\{[\w.:?|/ -]{1,80}\}|\$\([^()]{0,80}\)|\{\{[^{}]{0,80}\}\}|%\(\w{1,40}\)[sdr]|\{[A-Za-z_]?[\w.\[\]()'\"]{0,40}(?:![rsa])?(?::[^{}]{0,20})?\}|%[sd]")
_LONG_WORD = re.compile(r"[A-Za-z0-9]{7}")
_ENV_VAR_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_PATH_LIKE = re.compile(
    r"(?:\./|\.\./|~/|/(?:etc|usr|var|tmp|home|opt|run|dev|proc)/).*"
    r"|.*\.(?i:pem|key|crt|cer|der|p12|pfx|pub|json|txt|ya?ml|toml|ini|cfg|conf|env|csv|log|html?|md|py|js|ts)"
)
_SEPARATORS = re.compile(r"[\W_]+")
_SPACE = re.compile(r"\s")
_DIGIT = re.compile(r"[0-9]")
_LOWER = re.compile(r"[a-z]")
_WORD = re.compile(r"[A-Z]?[a-z]{3,}")
_UPPER = re.compile(r"[A-Z]")
_ALNUM = re.compile(r"[^\W_]")
_CODE_LIKE = re.compile(
    r"^[A-Za-z_]+$|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|[()\[\]{}<>,;*|]|^(?:0[xX][0-9a-fA-F_]{1,16}|0[oO][0-7_]+|0[bB][01_]+|[0-9][0-9_]{0,9}(?:\.[0-9]+)?)$"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_SEGMENT = re.compile(r"[A-Za-z0-9+_=-]{16,}")
# The base64 of the DER header of a public key (SubjectPublicKeyInfo): P-256, P-384,
# Ed25519, RSA 2048, 3072 and 4096 bits. Every byte before the key's own is fixed by
# its kind and size, and the header ends on a whole base64 group.
_PUBLIC_KEY_DER = re.compile(
    r"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE|MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAE|MCowBQYDK2VwAyEA"
    r"|MII(?:BIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA|BojANBgkqhkiG9w0BAQEFAAOCAY8AMIIBigKCAYEA"
    r"|CIjANBgkqhkiG9w0BAQEFAAOCAg8AMIICCgKCAgEA)"
)


def looks_secret(value: str, name: str = "", *, min_length: int = MIN_SECRET_LENGTH) -> bool:
    """Whether a value given to a secret-ish `name` is worth hiding (module docstring)."""
    if len(value) < min_length or _SPACE.search(value) or not _ALNUM.search(value):
        return False
    normalized = _SEPARATORS.sub("", value).lower()
    own = _SEPARATORS.sub("", name).lower() if name else ""
    if normalized in _PLACEHOLDERS or (own and normalized.endswith(own)):
        return False  # a placeholder; the name itself (`TOKEN = "token"`, `KeyAD = "gokrb5KeyAD"`)
    if "/" in value and wordy(value):
        return False  # a path or a module name (`github.com/org/repo/sessionCredentials`)
    if _PLACEHOLDER_SHAPE.fullmatch(value) or _placeholder_part(value):
        return False
    if _ENV_VAR_NAME.fullmatch(value) or _PATH_LIKE.fullmatch(value) or public_key(value):
        return False
    return not _templated(value)


def public_key(value: str) -> bool:
    return _PUBLIC_KEY_DER.match(value) is not None


def _placeholder_part(value: str) -> bool:
    if any(filler in value for filler in _FILLERS):
        return True
    lowered = value.lower()
    if any(word in lowered for word in _PLACEHOLDER_WORDS) and _PLACEHOLDER_WORD.search(value):
        return True
    return ("\\" in value or "]" in value or "(?" in value) and _REGEX_SYNTAX.search(value) is not None


def _templated(value: str) -> bool:
    """A template (`${HOST}:${PORT}`, `{user}@{host}`, `{{ secrets.x }}`, `%(pw)s`): what
    is left once its placeholders are taken out holds no word of 7+ letters or digits."""
    if not _INTERPOLATION.search(value):
        return False
    return not _LONG_WORD.search(_INTERPOLATION.sub("", value))


def passphrase(value: str) -> bool:
    """Whether a value with spaces reads as a passphrase (`correct horse battery staple`:
    2 to 6 lower-case words of letters and digits), not a label or a message."""
    words = value.split(" ")
    return 2 <= len(words) <= 6 and all(w.isalnum() and w == w.lower() for w in words) and not value.isdigit()


def code_like(value: str) -> bool:
    return _CODE_LIKE.search(value) is not None


def random_looking(value: str) -> bool:
    """Whether `value` reads as generated rather than written (module docstring)."""
    if len(value) < 8 or _UUID.fullmatch(value):
        return False
    if any(c in value for c in "./:@"):
        segment = max(_SEGMENT.findall(value), key=len, default="")
        return bool(segment) and random_looking(segment)
    has_digit = _DIGIT.search(value) is not None
    has_lower = _LOWER.search(value) is not None
    has_upper = _UPPER.search(value) is not None
    mixed = has_digit and (has_lower or has_upper) or (len(value) >= 16 and has_lower and has_upper)
    return mixed and entropy(value) >= 3.0 and not wordy(value)


def wordy(value: str) -> bool:
    """Whether words make up 60% of `value` or more (`DefaultAsyncHttpx2Client`,
    `allow_module_level=True`): written, not generated (random text of 20 characters
    or more is that wordy less than 2% of the time)."""
    return sum(len(word) for word in _WORD.findall(value)) * 5 >= len(value) * 3


def entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())
