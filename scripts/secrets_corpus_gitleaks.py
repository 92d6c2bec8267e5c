"""Read gitleaks' rule files (Go) for the secrets corpus: each rule's id, regex and
keywords, and the true and false positives its `Validate` call checks.

Used by `scripts/secrets_corpus.py` only. gitleaks builds its test cases with a few
helpers (`utils.GenerateSampleSecrets`, `secrets.NewSecret(regex)`, `fmt.Sprintf`,
string concatenation, `append`); this module evaluates exactly those expressions,
reading the helpers' data (sample templates, character-class patterns, regex pieces)
from gitleaks' own files at the same commit, and draws `NewSecret` strings from the
regex with a seeded generator, so a run is reproducible. An expression it cannot
evaluate is skipped and counted (`Rules.skipped`), never guessed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from secrets_corpus_regex import Unknown, draw, python_regex

__all__ = ["Rule", "Rules", "python_regex", "read_rules"]

RULES_DIR = "cmd/generate/config/rules"
UTILS_DIR = "cmd/generate/config/utils"


# -- Go tokens ---------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
      (?P<nl>\n)
    | (?P<space>[ \t\r]+)
    | (?P<comment>//[^\n]*|/\*.*?\*/)
    | (?P<raw>`[^`]*`)
    | (?P<str>"(?:\\.|[^"\\\n])*")
    | (?P<rune>'(?:\\.|[^'\\\n])+')
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
    | (?P<num>[0-9][0-9a-fA-FxX_.]*)
    | (?P<op>\.\.\.|:=|==|!=|&&|\|\||<-|\+\+|--|[-+*/%&|^<>=!(){}\[\],;:.])
    """,
    re.VERBOSE | re.DOTALL,
)
_ENDS_STATEMENT = {"name", "raw", "str", "rune", "num"}


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str


def tokens(source: str) -> list[Tok]:
    """Go tokens with semicolons inserted at line ends as Go inserts them."""
    out: list[Tok] = []
    position = 0
    while position < len(source):
        match = _TOKEN.match(source, position)
        if match is None:
            raise Unknown(f"cannot read Go at {source[position:position + 40]!r}")
        position = match.end()
        kind = match.lastgroup or ""
        if kind in ("space", "comment"):
            if kind == "comment" and "\n" in match.group():
                kind = "nl"
            else:
                continue
        if kind == "nl":
            last = out[-1] if out else None
            if last and (last.kind in _ENDS_STATEMENT or last.text in (")", "]", "}", "++", "--")):
                out.append(Tok("op", ";"))
            continue
        out.append(Tok(kind, match.group()))
    return out


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def go_string(token: Tok) -> str:
    if token.kind == "raw":
        return token.text[1:-1].replace("\r", "")
    body, out, i = token.text[1:-1], [], 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "x":
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
        elif nxt == "u":
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        elif nxt == "U":
            out.append(chr(int(body[i + 2 : i + 10], 16)))
            i += 10
        elif nxt.isdigit():
            out.append(chr(int(body[i + 1 : i + 4], 8)))
            i += 4
        else:
            raise Unknown(f"escape \\{nxt}")
    return "".join(out)


# -- gitleaks' helpers, read from its own files ---------------------------------------------


@dataclass
class Helpers:
    """What gitleaks' generator helpers hold, read from `utils/*.go`."""

    constants: dict[str, str]  # generate.go's regex pieces
    patterns: dict[str, str]  # patterns.go: function name -> `fmt.Sprintf` format
    samples: list[str]  # GenerateSampleSecrets' templates ({i}, {I}, {s})
    sample: str  # GenerateSampleSecret's format

    @classmethod
    def read(cls, read: Callable[[str], str]) -> Helpers:
        generate = read(f"{UTILS_DIR}/generate.go")
        constants = {
            name: go_string(Tok("raw" if value.startswith("`") else "str", value))
            for name, value in re.findall(r'^\s*(\w+)\s*=\s*(`[^`]*`|"(?:\\.|[^"\\])*")\s*$', generate, re.M)
        }
        patterns = {}
        for name, body in re.findall(r"func (\w+)\((?:size string)?\) string \{\s*return ([^\n]+)", read(f"{UTILS_DIR}/patterns.go")):
            literal = re.search(r"`[^`]*`", body)
            if literal:
                patterns[name] = literal.group()[1:-1]
        block = generate[generate.index("func GenerateSampleSecrets") :]
        block = block[: block.index("replacer")]
        samples = []
        for line in block.splitlines():
            stripped = line.strip()
            if stripped.startswith("//"):
                continue
            found = re.match(r'"[^"]*"\s*:\s*(`[^`]*`|"(?:\\.|[^"\\])*")\s*,', stripped)
            if found:
                value = found.group(1)
                samples.append(go_string(Tok("raw" if value.startswith("`") else "str", value)))
        single = re.search(r'func GenerateSampleSecret\(.*?\n\s*return fmt\.Sprintf\(("(?:\\.|[^"\\])*")', generate, re.S)
        if not samples or single is None or not patterns:
            raise Unknown("gitleaks' generator helpers changed shape")
        return cls(constants, patterns, samples, go_string(Tok("str", single.group(1))))

    def sample_secrets(self, identifier: str, secret: str) -> list[str]:
        return [
            t.replace("{i}", identifier).replace("{I}", identifier.upper()).replace("{s}", secret) for t in self.samples
        ]

    def unique_token_regex(self, secret: str, insensitive: bool) -> str:
        c = self.constants
        return ("(?i)" if insensitive else "") + c["secretPrefixUnique"] + secret + c["secretSuffix"]

    def semi_generic_regex(self, identifiers: list[str], secret: str, insensitive: bool) -> str:
        c = self.constants
        names = c["identifierPrefix"] + "|".join(identifiers) + c["identifierSuffix"]
        head = "(?i)" + names if insensitive else c["identifierCaseInsensitivePrefix"] + names + c["identifierCaseInsensitiveSuffix"]
        return head + c["operator"] + c["secretPrefix"] + secret + c["secretSuffix"]


# -- evaluation ------------------------------------------------------------------------------


@dataclass
class Rule:
    file: str
    id: str
    regex: str | None
    keywords: list[str]
    secret_group: int = 0  # the capture group holding the secret; 0: the first that matched
    tps: list[tuple[str, str | None]] = field(default_factory=list)  # (text, the secret when known)
    fps: list[str] = field(default_factory=list)


class Evaluator:
    """Evaluates the expressions of one rule file (see the module docstring)."""

    def __init__(self, helpers: Helpers, rng: random.Random, globals_: dict[str, Any]) -> None:
        self.helpers, self.rng = helpers, rng
        self.env: dict[str, Any] = dict(globals_)
        self.secrets: dict[str, str] = {}  # sample text -> the secret it was built around
        self.skipped = 0

    def expression(self, toks: list[Tok]) -> Any:
        value, rest = self._binary(toks)
        if rest:
            raise Unknown(f"trailing {rest[0].text!r}")
        return value

    def _binary(self, toks: list[Tok]) -> tuple[Any, list[Tok]]:
        value, rest = self._unary(toks)
        while rest and rest[0].text == "+":
            right, rest = self._unary(rest[1:])
            value = value + right
        return value, rest

    def _unary(self, toks: list[Tok]) -> tuple[Any, list[Tok]]:
        if not toks:
            raise Unknown("empty expression")
        head = toks[0]
        if head.kind in ("raw", "str"):
            return go_string(head), toks[1:]
        if head.kind == "num":
            return int(head.text), toks[1:]
        if head.text in ("true", "false"):
            return head.text == "true", toks[1:]
        if head.text == "[" and len(toks) > 3 and toks[1].text == "]":  # []string{...}
            if toks[2].text != "string" or toks[3].text != "{":
                raise Unknown("a slice of something else than strings")
            items, rest = self._list(toks[4:], "}")
            return [self._one(item) for item in items], rest
        if head.text == "map" and toks[1].text == "[":  # map[string]string{k: v, ...}
            close = next(i for i, t in enumerate(toks) if t.text == "{")
            items, rest = self._list(toks[close + 1 :], "}")
            return {self._one(i[: self._colon(i)]): self._one(i[self._colon(i) + 1 :]) for i in items}, rest
        if head.kind == "name" and len(toks) > 1 and toks[1].text == "(":
            args, rest = self._list(toks[2:], ")")
            return self._call(head.text, args), rest
        if head.kind == "name":
            if head.text not in self.env:
                raise Unknown(f"name {head.text}")
            return self.env[head.text], toks[1:]
        if head.text == "(":
            inner, rest = self._list(toks[1:], ")")
            return self._one(inner[0]), rest
        raise Unknown(f"token {head.text!r}")

    @staticmethod
    def _colon(item: list[Tok]) -> int:
        return next(i for i, t in enumerate(item) if t.text == ":")

    def _one(self, toks: list[Tok]) -> Any:
        value, rest = self._binary(toks)
        if rest:
            raise Unknown(f"trailing {rest[0].text!r}")
        return value

    @staticmethod
    def _list(toks: list[Tok], close: str) -> tuple[list[list[Tok]], list[Tok]]:
        """The comma-separated items up to the matching `close`, and what follows it."""
        depth, items, current = 0, [], []
        for i, tok in enumerate(toks):
            if tok.text in "([{" and tok.kind == "op":
                depth += 1
            elif tok.text in ")]}" and tok.kind == "op":
                if depth == 0:
                    if tok.text != close:
                        raise Unknown("unbalanced")
                    if current:
                        items.append(current)
                    return items, toks[i + 1 :]
                depth -= 1
            if depth == 0 and tok.text in (",", ";") and tok.kind == "op":
                if current:
                    items.append(current)
                current = []
                continue
            current.append(tok)
        raise Unknown("unclosed")

    def _spread(self, args: list[list[Tok]]) -> list[Any]:
        out: list[Any] = []
        for arg in args:
            if arg and arg[-1].text == "...":
                out.extend(self._one(arg[:-1]))
            else:
                out.append(self._one(arg))
        return out

    def _call(self, name: str, args: list[list[Tok]]) -> Any:
        h = self.helpers
        if name == "append":
            values = self._spread(args)
            return list(values[0]) + values[1:]
        if name == "utils.GenerateSampleSecrets":
            identifier, secret = self._spread(args)
            samples = h.sample_secrets(identifier, secret)
            for sample in samples:
                self.secrets[sample] = secret
            return samples
        if name == "utils.GenerateSampleSecret":
            identifier, secret = self._spread(args)
            sample = h.sample.replace("%s", identifier, 1).replace("%s", secret, 1)
            self.secrets[sample] = secret
            return sample
        if name in ("secrets.NewSecret", "newPlausibleSecret"):
            (regex,) = self._spread(args)
            return draw(regex, self.rng)
        if name.startswith("utils.") and name[6:] in h.patterns:
            size = self._spread(args)
            return h.patterns[name[6:]].replace("%s", size[0] if size else "")
        if name == "fmt.Sprintf":
            values = self._spread(args)
            return _sprintf(values[0], values[1:])
        if name == "strings.Repeat":
            text, count = self._spread(args)
            return text * count
        if name in ("strings.ToUpper", "strings.ToLower"):
            (text,) = self._spread(args)
            return text.upper() if name.endswith("Upper") else text.lower()
        if name == "regexp.MustCompile":
            return self._spread(args)[0]
        if name == "utils.GenerateUniqueTokenRegex":
            return h.unique_token_regex(*self._spread(args))
        if name == "utils.GenerateSemiGenericRegex":
            return h.semi_generic_regex(*self._spread(args))
        if name == "utils.MergeRegexps":
            return "|".join(self._spread(args))
        raise Unknown(f"call {name}")


def _sprintf(fmt: str, values: list[Any]) -> str:
    parts = iter(values)
    return re.sub(r"%[sdq]", lambda m: (f'"{next(parts)}"' if m.group() == "%q" else str(next(parts))), fmt.replace("%%", "\0")).replace("\0", "%")


# -- files -------------------------------------------------------------------------------------


def _statements(toks: list[Tok]) -> Iterator[list[Tok]]:
    depth, current = 0, []
    for tok in toks:
        if tok.kind == "op" and tok.text in "([{":
            depth += 1
        elif tok.kind == "op" and tok.text in ")]}":
            depth -= 1
        if depth == 0 and tok.text == ";" and tok.kind == "op":
            if current:
                yield current
            current = []
            continue
        current.append(tok)
    if current:
        yield current


def _functions(toks: list[Tok]) -> Iterator[tuple[str, list[Tok]]]:
    """(name, body tokens) of each top-level function; other top-level statements as ("", stmt)."""
    i = 0
    while i < len(toks):
        if toks[i].text == "func":
            start = next(j for j in range(i, len(toks)) if toks[j].text == "{")
            depth, j = 0, start
            while True:
                if toks[j].text == "{":
                    depth += 1
                elif toks[j].text == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            yield toks[i + 1].text, toks[start + 1 : j]
            i = j + 1
            continue
        end = i
        depth = 0
        while end < len(toks) and not (depth == 0 and toks[end].text == ";"):
            depth += toks[end].text in "([{" and toks[end].kind == "op"
            depth -= toks[end].text in ")]}" and toks[end].kind == "op"
            end += 1
        yield "", toks[i:end]
        i = end + 1


@dataclass
class Rules:
    rules: list[Rule]
    skipped: int  # test-case expressions this evaluator could not evaluate


def read_rules(read: Callable[[str], str], files: list[str], seed: int = 34) -> Rules:
    """Every rule of gitleaks' rule files `files` (paths under RULES_DIR), through `read(path)`."""
    helpers = Helpers.read(read)
    rng = random.Random(seed)
    rules: list[Rule] = []
    skipped = 0
    for path in files:
        toks = tokens(read(f"{RULES_DIR}/{path}"))
        globals_: dict[str, Any] = {}
        pieces = list(_functions(toks))
        for name, stmt in pieces:  # package-level `var x = ...` first
            if name == "" and stmt and stmt[0].text == "var" and len(stmt) > 2 and stmt[2].text == "=":
                try:
                    globals_[stmt[1].text] = Evaluator(helpers, rng, globals_).expression(stmt[3:])
                except (Unknown, StopIteration, ValueError, IndexError, TypeError):
                    skipped += 1
        for name, body in pieces:
            if not name:
                continue
            found, lost = _rule_of(path, body, helpers, rng, globals_)
            rules += found
            skipped += lost
    return Rules(rules, skipped)


def _rule_of(path: str, body: list[Tok], helpers: Helpers, rng: random.Random, globals_: dict[str, Any]) -> tuple[list[Rule], int]:
    evaluator = Evaluator(helpers, rng, globals_)
    rule: Rule | None = None
    skipped = 0
    rules = []
    for stmt in _statements(body):
        texts = [t.text for t in stmt]
        if len(stmt) > 3 and texts[1] in (":=", "=") and texts[2] == "config.Rule" and texts[3] == "{":
            fields, _ = Evaluator._list(stmt[4:], "}")
            values: dict[str, Any] = {}
            for item in fields:
                key = item[0].text
                if key in ("RuleID", "Regex", "Keywords", "SecretGroup"):
                    try:
                        values[key] = evaluator._one(item[2:])
                    except (Unknown, StopIteration, ValueError, IndexError, TypeError):
                        values[key] = None
            rule = Rule(path, values.get("RuleID") or "", values.get("Regex"), values.get("Keywords") or [], values.get("SecretGroup") or 0)
            continue
        if len(stmt) > 2 and stmt[0].kind == "name" and texts[1] in (":=", "="):
            try:
                evaluator.env[texts[0]] = evaluator.expression(stmt[2:])
            except (Unknown, StopIteration, ValueError, IndexError, TypeError, KeyError):
                skipped += 1
                evaluator.env.pop(texts[0], None) if texts[1] == ":=" else None
            continue
        if texts and texts[0] == "return" and len(texts) > 2 and texts[1] in ("utils.Validate", "utils.ValidateWithPaths"):
            args, _ = Evaluator._list(stmt[3:], ")")
            if rule is None:
                continue
            names = [a[0].text if len(a) == 1 else None for a in args[1:3]]
            tps = evaluator.env.get(names[0] or "", []) if names else []
            fps = evaluator.env.get(names[1] or "", []) if len(names) > 1 else []
            tps = list(tps.values()) if isinstance(tps, dict) else list(tps or [])
            fps = list(fps.values()) if isinstance(fps, dict) else list(fps or [])
            rule.tps = [(tp, evaluator.secrets.get(tp)) for tp in tps]
            rule.fps = fps
            rules.append(rule)
            rule = None
    return rules, skipped
