"""Redact secrets from text before it is sent to a model: recognised by what they are.

`redact(text)` returns the text with each secret replaced by `[REDACTED]` (`MARKER`),
and how many secrets it replaced; the guard refuses a part to be rewritten when the
count is not zero. Line structure is kept: every line stays a line, so positions
computed on the original text still name the same lines. `secret_shaped(word)` says
whether one word has a known token's shape (the workspace index drops such words).

What is recognised, in any language and in YAML, JSON, TOML, INI, `.env`,
`.properties`, XML and notebooks (cells as JSON strings, `\\"` escapes and all), in
code, comments and docstrings alike:

- **private key blocks** (`pem.py`): the body of every `-----BEGIN ... PRIVATE
  KEY-----` block, also cut by an excerpt, also on one line with `\\n` escapes;
- **tokens with a known shape** (`shapes.py`), under any name: the formats of the
  rules of gitleaks and the plugins of detect-secrets (AWS, GitHub, GitLab, OpenAI,
  Anthropic, Slack, Stripe, SendGrid, Hugging Face, npm, PyPI, JWTs, ...: the table
  says where each comes from), and webhook URLs whose path is the secret (Slack,
  Discord, Microsoft Teams);
- **by the syntax around them** (`headers.py`): a URL's password (and a token used
  as its user name), `Authorization:` credentials (`Bearer`, `Basic` when it decodes
  to `user:password`, `Token`, ...), signed URLs' signatures, `curl -u`, an AWS
  secret key next to its key id;
- **values given to names that mean a secret** (`assignments.py`): `password`,
  `passwd`, `pwd`, `passphrase`, `pass`, `secret`, `token`, `credential(s)`, `creds`,
  `api_key` and the other keys, and, with a value that reads as generated, `key`,
  `key_id`, `salt`, `auth`, `dsn`, `webhook`, `login`; in every assignment syntax of those
  languages and formats (`=`, `:`, `:=`, `=>`, `.=`, `?=`, types, comparisons, call
  arguments, XML elements, name/value pairs, `KEY=value` lines, `--flag=value`,
  connection and query strings);
- **high-entropy strings** (`entropy.py`), the last net: a quoted string of 20+
  characters that reads as random base64.

What is kept, because it is ordinary code rather than a secret (the false-positive
rules, `values.py`): placeholders (`changeme`, `xxxx`, `<token>`, `${VAR}`, `{name}`,
`your-...`), environment variable names, file paths, values equal to their name,
quoted values with spaces (labels, messages), unquoted values that read as code,
raw strings (regexes), `public` keys, hashes (hex strings, and strings on a line
about a hash), UUIDs, alphabets.

How it stays fast on any input: the text is read in windows of at most `WINDOW`
characters (cut after a line break where there is one), each also reading `OVERLAP`
characters on either side, so that a secret across a window's edge is seen whole by
the window it starts in, which alone reports it. No rule reads further than the
overlap from where a secret starts, and every pattern is linear in what it reads
(each module says how), so one window costs a bounded time, no single regex call
holds the interpreter for more than one window, and the whole is linear in the text.
What a window's rules weigh one by one in Python is bounded as well (`edits.Budget`:
candidates, the bytes of their values, keywords tried): a text made to be slow
(`password=` a million times, `key ` repeated, 2 KB credentials one after another)
runs out of it, and the window is hidden from there on, line breaks kept; the rules
still to run read only as far as a secret starting before the cut could reach.
On a window's UTF-8 bytes patterns are ASCII and lower-casing is cheap; edits are
applied to the text itself.

Pure: no I/O, and the text is never logged. Regexes are compiled once, at import.
"""

from __future__ import annotations

from sparkls.guard.secrets.edits import MARKER, apply, to_characters
from sparkls.guard.secrets.scan import REACH, scan
from sparkls.guard.secrets.shapes import has_shape

__all__ = ["MARKER", "OVERLAP", "WINDOW", "redact", "secret_shaped"]

WINDOW = 256 * 1024  # characters a window holds (besides its overlaps)
OVERLAP = REACH  # characters read on either side: as many as any rule reads bytes from a secret's start


def redact(text: str) -> tuple[str, int]:
    """The text with secrets replaced by `[REDACTED]`, and how many were replaced."""
    edits = []
    for owned_start, owned_end in _windows(text):
        start, end = max(0, owned_start - OVERLAP), min(len(text), owned_end + OVERLAP)
        data = text[start:end].encode("utf-8", "surrogatepass")
        found, cut = scan(data)
        edits += (
            (start + a, start + b, replacement, counted)
            for a, b, replacement, counted in to_characters(data, found)
            if owned_start <= start + a < owned_end
        )
        if cut is not None:  # too many candidates (edits.Budget): hide the rest of the window
            cut_at = start + len(data[:cut].decode("utf-8", "surrogatepass"))
            if cut_at < owned_end:
                edits.append(_hidden(text, max(cut_at, owned_start), owned_end))
    if not edits:
        return text, 0
    return apply(text, edits)


def secret_shaped(word: str) -> bool:
    """Whether one word (an identifier-like token, as the workspace index keeps them) has
    the shape of a known secret token (`ghp_...`, `AKIA...`): never stored, never sent."""
    return has_shape(word.encode("utf-8", "surrogatepass"))


def _hidden(text: str, start: int, end: int) -> tuple[int, int, str, bool]:
    """An edit hiding `text[start:end]` whole, its line breaks kept (one marker)."""
    piece = text[start:end]
    return start, end, MARKER + "\n" * piece.count("\n"), True


def _windows(text: str) -> list[tuple[int, int]]:
    """The (start, end) character ranges of the windows: at most WINDOW characters
    each, cut after the last line break of a window's second half where it has one."""
    windows = []
    start = 0
    while len(text) - start > WINDOW:
        cut = text.rfind("\n", start + WINDOW // 2, start + WINDOW) + 1 or start + WINDOW
        windows.append((start, cut))
        start = cut
    windows.append((start, len(text)))
    return windows
