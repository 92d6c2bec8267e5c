"""Regenerate the secrets corpus, tests/fixtures/secrets/corpus.b64, from its sources.

    python scripts/secrets_corpus.py --gitleaks PATH --detect-secrets PATH [--check]

PATH is a clone (or bare mirror) of https://github.com/gitleaks/gitleaks and of
https://github.com/Yelp/detect-secrets; files are read at the pinned commits below
with `git show`, so the clones may be at any commit. `--check` rebuilds the corpus
and says whether the stored one holds the same cases (the random parts of gitleaks'
generated secrets are drawn with a fixed seed, so a rebuild is identical).

What goes in (tests/fixtures/secrets/README.md says it for readers):

- positives: every true positive of every gitleaks rule (`cmd/generate/config/rules/
  *.go`, the strings its `utils.Validate` checks, gitleaks' sample templates applied,
  `secrets.NewSecret` drawn; kept when the rule's own regex, read by Python, matches
  it, as gitleaks' generator requires), with the secret the rule captures; every row
  of detect-secrets' plugin tests (`tests/plugins/*_test.py`) that its plugin must
  flag, with its expected secret where the test names one; and the shapes of issue 34
  in each language and file format (`SHAPES` x `FORMATS` below);
- negatives: gitleaks' false positives (those no specific rule of gitleaks matches:
  some rules list another rule's true positives as their own false positives) and the
  rows detect-secrets' tests must not flag.

The file is zlib-compressed JSON in base64, so that no secret scanner or push
protection takes the corpus for leaked credentials; `tests/secrets_corpus.py` reads it.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import re
import string
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import secrets_corpus_detect_secrets as ds  # noqa: E402
import secrets_corpus_gitleaks as gl  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "secrets" / "corpus.b64"
GITLEAKS = ("https://github.com/gitleaks/gitleaks", "b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b")
DETECT_SECRETS = ("https://github.com/Yelp/detect-secrets", "5e141933554a0b74e7341841f318be21e895339c")
SEED = 34

# Rules whose matches are not secrets to redact: a file marker, a path-only rule.
NOT_SECRETS = {"gcp-service-account": "matches the text `\"type\": \"service_account\"`, not a secret", "pkcs12-file": "a path rule"}
# detect-secrets tests that are not about flagging a line, or flag what is not a credential.
DS_SKIPPED_TESTS = {"test_get_secret_access_key", "test_find_account", "test_find_access_key_id", "test_find_username",
                    "test_verify_ibm_cos_hmac_credentials", "test_potential_secret_constructed_correctly",
                    "test_entropy_limit", "test_multiple_strings_same_line"}  # fmt: skip
DS_SKIPPED_FILES = {"ip_public_test.py": "a public IP address is not a credential", "base_test.py": "plugin plumbing"}


def git_reader(repo: str, commit: str):
    def read(path: str) -> str:
        return subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], capture_output=True, text=True, check=True).stdout

    def listing(folder: str) -> list[str]:
        out = subprocess.run(["git", "-C", repo, "ls-tree", "--name-only", commit, folder + "/"], capture_output=True, text=True, check=True).stdout
        return [line.rsplit("/", 1)[-1] for line in out.split()]

    return read, listing


# -- gitleaks --------------------------------------------------------------------------------


def _captured(regex: re.Pattern[str], text: str, group: int = 0) -> str | None:
    """The secret a rule captures in `text`, as gitleaks takes it (`detect/detect.go`:
    the rule's SecretGroup, else the first capture group that matched)."""
    match = regex.search(text)
    if match is None:
        return None
    if group:
        return match.group(group)
    groups = [g for g in match.groups() if g]
    return groups[0] if groups else match.group()


def from_gitleaks(repo: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, int]]:
    read, listing = git_reader(repo, GITLEAKS[1])
    files = sorted(f for f in listing(gl.RULES_DIR) if f.endswith(".go"))
    found = gl.read_rules(read, files, seed=SEED)
    positives, fps, stats = [], [], {"rules": 0, "unevaluated": found.skipped, "unmatched": 0}
    compiled: dict[str, re.Pattern[str]] = {}
    for rule in found.rules:
        if rule.regex is None or rule.id in NOT_SECRETS:
            continue
        try:
            compiled[rule.id] = re.compile(gl.python_regex(rule.regex))
        except re.error:
            continue
    for rule in found.rules:
        regex = compiled.get(rule.id)
        if regex is None:
            continue
        stats["rules"] += 1
        for text, secret in rule.tps:
            captured = _captured(regex, text, rule.secret_group)
            if captured is None:
                stats["unmatched"] += 1
                continue
            secret = secret if secret and secret in text else captured
            positives.append({"source": "gitleaks", "file": f"{gl.RULES_DIR}/{rule.file}", "rule": rule.id, "text": text, "secret": secret})
        fps += [{"source": "gitleaks", "file": f"{gl.RULES_DIR}/{rule.file}", "rule": rule.id, "text": text} for text in rule.fps]
    specific = [r for i, r in compiled.items() if i != "generic-api-key"]
    negatives = [fp for fp in fps if not any(r.search(fp["text"]) for r in specific)]
    stats["false positives matched by another rule"] = len(fps) - len(negatives)
    return positives, negatives, stats


# -- detect-secrets ------------------------------------------------------------------------------

_URL_PASSWORD = re.compile(r"://[^:/@\s]+:([^@\s/]+)@")
_LONGEST = re.compile(r"[A-Za-z0-9_\-+/.~\\]{8,}")


def _ds_secret(plugin: str, text: str) -> str | None:
    if plugin in ("basic_auth_test.py", "cloudant_test.py"):
        match = _URL_PASSWORD.search(text)
        return match.group(1) if match else None
    if plugin == "private_key_test.py":
        return text.split("\n")[-1] if "END" not in text else text.split("\n")[1]
    runs = sorted(_LONGEST.findall(text), key=len)
    return runs[-1].rstrip("\\") if runs else None


def from_detect_secrets(repo: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, int]]:
    read, listing = git_reader(repo, DETECT_SECRETS[1])
    positives, negatives, stats = [], [], {"unevaluated": 0}
    for name in sorted(listing(ds.TESTS_DIR)):
        if not name.endswith("_test.py") or name in DS_SKIPPED_FILES:
            continue
        path = f"{ds.TESTS_DIR}/{name}"
        tables, skipped = ds.tables(path, read(path))
        stats["unevaluated"] += skipped
        where = {"source": "detect-secrets", "file": path}
        if name == "high_entropy_strings_test.py":
            positives += _entropy_cases(read(path), where, negatives)
            continue
        for table, case in ds.cases(tables):
            if table.name in DS_SKIPPED_TESTS:
                continue
            text = case.get("line", case.get("payload", case.get("file_content")))
            if not isinstance(text, str):
                continue
            expected = case.get("expected_secret", case.get("should_flag", True))
            row = {**where, "rule": table.name, "text": text}
            if expected:
                secret = expected if isinstance(expected, str) else _ds_secret(name, text)
                if secret:
                    positives.append({**row, "secret": secret})
            else:
                negatives.append(row)
    return positives, negatives, stats


def _entropy_cases(source: str, where: dict[str, str], negatives: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """high_entropy_strings_test.py's (plugin, non_secret, secret) rows, quoted as its
    `test_basic` quotes them (a bare string is not flagged there: not a case)."""
    import ast

    rows = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == "TestHighEntropyString":
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and len(decorator.args) > 1:
                    for row in decorator.args[1].elts:
                        rows.append([ds.evaluate(e, {}) for e in row.elts[1:]])
    positives = []
    for non_secret, secret in rows:
        for quote in "\"'":
            positives.append({**where, "rule": "TestHighEntropyString", "text": f"{quote}{secret}{quote}", "secret": secret})
            negatives.append({**where, "rule": "TestHighEntropyString", "text": f"{quote}{non_secret}{quote}"})
    return positives


# -- the shapes of issue 34, in each language and file format ---------------------------------------


def _shapes(rng: random.Random) -> list[tuple[str, str, str]]:
    """(shape, name it is given, value): the value holds the secret `_secret_of` names."""
    def pick(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    upper, alnum, hexd = string.ascii_uppercase + string.digits, string.ascii_letters + string.digits, "0123456789abcdef"
    b64 = alnum + "+/"
    return [
        ("slack webhook", "webhook_url", "https://hooks.slack.com/services/T" + pick(upper, 8) + "/B" + pick(upper, 10) + "/" + pick(alnum, 24)),
        ("discord webhook", "notify_url", "https://discord.com/api/webhooks/" + pick(string.digits, 18) + "/" + pick(alnum + "_-", 68)),
        ("teams webhook", "teams_url", "https://contoso.webhook.office.com/webhookb2/" + _uuid(rng) + "@" + _uuid(rng) + "/IncomingWebhook/" + pick(hexd, 32) + "/" + _uuid(rng)),
        ("dsn password", "dsn", "host=db.internal port=5432 user=app password=" + pick(alnum + "!#%", 18) + " dbname=app"),
        ("url userinfo", "database_url", "postgresql://app:" + pick(alnum, 20) + "@db.internal:5432/app"),
        ("aws secret key", "aws_secret_access_key", pick(b64, 40)),
        ("sendgrid", "mail_client", "SG." + pick(alnum + "_-", 22) + "." + pick(alnum + "_-", 43)),
        ("hugging face", "hub", "hf_" + pick(string.ascii_letters, 34)),
        ("npm", "registry_auth", "npm_" + pick(alnum, 36)),
        ("stripe restricted", "billing", "rk_live_" + pick(alnum, 24)),
        ("basic authorization", "headers", "Basic " + base64.b64encode(f"deploy:{pick(alnum, 16)}".encode()).decode()),
        ("bearer authorization", "headers", "Bearer " + pick(alnum + "-._~", 40)),
        ("token authorization", "headers", "Token " + pick(hexd, 40)),
        ("query token", "endpoint", "https://api.example.com/v2/items?limit=10&access_token=" + pick(alnum, 32)),
        ("signing salt", "signing_salt", pick(alnum, 12)),
        ("password", "password", pick(alnum, 6) + rng.choice("!@#%^*") + pick(alnum, 7)),
        ("private key id", "private_key_id", pick(hexd, 40)),
        ("client secret", "client_secret", pick(alnum + "_-", 34)),
        ("github token", "gh", "gh" + "p_" + pick(alnum, 36)),
        ("openai key", "model_key", "sk-" + "proj-" + pick(alnum + "_-", 48)),
        ("high entropy", "blob", pick(b64, 44)),
    ]


def _uuid(rng: random.Random) -> str:
    h = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _secret_of(shape: str, value: str) -> str:
    """The part of `value` that must not survive (the rest may: a host, a scheme)."""
    if shape in ("slack webhook", "discord webhook"):
        return value.rsplit("/", 1)[1]
    if shape == "teams webhook":
        return value.split("/IncomingWebhook/")[1].split("/")[0]
    if shape == "dsn password":
        return value.split("password=")[1].split(" ")[0]
    if shape == "url userinfo":
        return value.split(":")[2].split("@")[0]
    if shape.endswith("authorization"):
        return value.split(" ", 1)[1]
    if shape == "query token":
        return value.rsplit("=", 1)[1]
    return value


# Where a value goes: {n} its name, {v} the value. A shape without a secret-ish name
# (a token, a webhook) must be found under any name; the others carry theirs.
FORMATS: dict[str, list[str]] = {
    "python": ['{n} = "{v}"\n', "client = Client({n}='{v}')\n", '# {n}: {v}\n', 'CONFIG = {{"{n}": "{v}"}}\n',
               'def setup():\n    """Connect with {n} {v} for now."""\n'],
    "javascript": ['const {n} = "{v}";\n', "module.exports = {{ {n}: '{v}' }};\n", "// {n}={v}\n", "/* {n}: {v} */\n"],
    "typescript": ["export const {n}: string = `{v}`;\n", "const cfg = {{ {n}: \"{v}\" }} as const;\n"],
    "go": ['{n} := "{v}"\n', 'var cfg = Config{{{n}: "{v}"}}\n', "// {n} = {v}\n"],
    "java": ['private static final String {n} = "{v}";\n', 'props.setProperty("{n}", "{v}");\n'],
    "ruby": ["{n} = '{v}'\n", 'config["{n}"] = "{v}"\n'],
    "php": ["${n} = '{v}';\n", "'{n}' => '{v}',\n"],
    "rust": ['const {n}: &str = "{v}";\n', 'let {n} = String::from("{v}");\n'],
    "csharp": ['var {n} = @"{v}";\n'],
    "shell": ["export {n}={v}\n", '{n}="{v}"\n'],
    "yaml": ["{n}: {v}\n", 'config:\n  {n}: "{v}"\n', "env:\n  - name: {N}\n    value: '{v}'\n"],
    "json": ['{{"{n}": "{v}"}}\n', '{{\n  "settings": {{\n    "{n}": "{v}"\n  }}\n}}\n'],
    "toml": ['[service]\n{n} = "{v}"\n'],
    "ini": ["[service]\n{n} = {v}\n"],
    "env": ["{N}={v}\n", '{N}="{v}"\n'],
    "properties": ["app.{n}={v}\n", "app.{n}: {v}\n"],
    "xml": ["<{n}>{v}</{n}>\n", '<add key="{n}" value="{v}" />\n'],
    "dockerfile": ["ENV {N}={v}\n", "ARG {N}={v}\n"],
    "makefile": ["{N} ?= {v}\n"],
    "terraform": ['{n} = "{v}"\n'],
    "notebook": ["NOTEBOOK"],
}
# A random word in prose under an innocent name: nothing says it is a secret (the
# entropy net reads quoted strings and configuration values, not prose).
PROSE_UNSEEN = {"high entropy"}
# Shapes whose value has spaces: only where a value may hold spaces (a quoted string).
SPACED = {"dsn password", "basic authorization", "bearer authorization", "token authorization"}
UNQUOTED = ("{n}: {v}\n", "{n} = {v}\n", "{n}={v}\n", "{N}={v}\n", "export {n}={v}\n", "app.{n}={v}\n", "app.{n}: {v}\n",
            "ENV {N}={v}\n", "ARG {N}={v}\n", "{N} ?= {v}\n", "# {n}: {v}\n", "// {n}={v}\n", "// {n} = {v}\n",
            "/* {n}: {v} */\n", "[service]\n{n} = {v}\n", "<{n}>{v}</{n}>\n")  # fmt: skip
HEADER_TEMPLATES = {
    "python": 'requests.get(url, headers={{"Authorization": "{v}"}})\n',
    "javascript": "fetch(url, {{ headers: {{ Authorization: '{v}' }} }});\n",
    "shell": 'curl -H "Authorization: {v}" https://api.example.com/v1/me\n',
    "yaml": "headers:\n  Authorization: {v}\n",
    "json": '{{"headers": {{"Authorization": "{v}"}}}}\n',
    "go": 'req.Header.Set("Authorization", "{v}")\n',
}


def _notebook(name: str, value: str) -> str:
    cell = [f'{name} = "{value}"\n', "client = connect()\n"]
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": cell, "outputs": []}], "nbformat": 4}, indent=1) + "\n"


def from_shapes() -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    positives = []
    for shape, name, value in _shapes(rng):
        secret = _secret_of(shape, value)
        if shape.endswith("authorization"):
            for fmt, template in HEADER_TEMPLATES.items():
                positives.append({"source": "sparkls", "rule": shape, "format": fmt, "text": template.format(v=value), "secret": secret})
            continue
        for fmt, templates in FORMATS.items():
            for template in templates:
                if template.startswith("def setup") and shape in PROSE_UNSEEN:
                    continue
                if template == "NOTEBOOK":
                    text = _notebook(name, value)
                elif shape in SPACED and template in UNQUOTED and fmt not in ("yaml", "ini", "properties", "env"):
                    continue
                else:
                    text = template.format(n=name, N=name.upper(), v=value)
                positives.append({"source": "sparkls", "rule": shape, "format": fmt, "text": text, "secret": secret})
    # The AWS secret key beside its id, under no secret-ish name.
    pick = lambda alphabet, n: "".join(rng.choice(alphabet) for _ in range(n))  # noqa: E731
    for template in ('s3 = boto3.client("s3", "{i}", "{k}")\n', "Credentials({i}, {k})\n", '"{i}","{k}"\n', "{i} {k}\n"):
        key = pick(string.ascii_letters + string.digits + "+/", 40)
        text = template.format(i="AKIA" + pick(string.ascii_uppercase + "234567", 16), k=key)
        positives.append({"source": "sparkls", "rule": "aws secret key beside its id", "format": "any", "text": text, "secret": key})
    return positives


# -- the file ------------------------------------------------------------------------------------


def encode(corpus: dict[str, Any]) -> str:
    raw = zlib.compress(json.dumps(corpus, sort_keys=True, ensure_ascii=True).encode(), 9)
    text = base64.b64encode(raw).decode()
    return "\n".join(text[i : i + 76] for i in range(0, len(text), 76)) + "\n"


def build(gitleaks_repo: str, detect_secrets_repo: str) -> tuple[dict[str, Any], dict[str, Any]]:
    g_pos, g_neg, g_stats = from_gitleaks(gitleaks_repo)
    d_pos, d_neg, d_stats = from_detect_secrets(detect_secrets_repo)
    s_pos = from_shapes()
    secrets = {p["secret"] for p in g_pos + d_pos + s_pos}
    negatives = [n for n in g_neg + d_neg if not any(s in n["text"] for s in secrets if len(s) >= 8)]
    corpus = {
        "version": 1,
        "sources": {"gitleaks": {"repository": GITLEAKS[0], "commit": GITLEAKS[1]},
                    "detect-secrets": {"repository": DETECT_SECRETS[0], "commit": DETECT_SECRETS[1]},
                    "sparkls": {"script": "scripts/secrets_corpus.py", "seed": SEED}},
        "positives": g_pos + d_pos + s_pos,
        "negatives": negatives,
    }  # fmt: skip
    stats = {"gitleaks": g_stats, "detect-secrets": d_stats, "positives": {"gitleaks": len(g_pos), "detect-secrets": len(d_pos), "sparkls": len(s_pos)},
             "negatives": len(negatives)}  # fmt: skip
    return corpus, stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gitleaks", required=True, help="a clone of gitleaks (any commit; the pinned one is read)")
    parser.add_argument("--detect-secrets", required=True, help="a clone of detect-secrets")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="compare with the stored corpus instead of writing it")
    args = parser.parse_args()
    corpus, stats = build(args.gitleaks, args.detect_secrets)
    print(json.dumps(stats, indent=1), file=sys.stderr)
    text = encode(corpus)
    if args.check:
        same = args.out.read_text() == text
        print("the stored corpus is up to date" if same else "the stored corpus differs: regenerate it", file=sys.stderr)
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out} ({len(corpus['positives'])} positives, {len(corpus['negatives'])} negatives)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
