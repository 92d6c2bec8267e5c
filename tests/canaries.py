"""Canaries: key-shaped strings planted in every e2e workspace, that no request may hold.

`plant(root)` writes them where sparkls must never send from, or must redact before
sending (`guard/`):

- `function string`: a string returned by a function in a Python source file (sent
  only redacted, `guard/secrets/`);
- `module constant`: a module-level constant in that file (the same);
- `.env file`: a value in a `.env` file (never sent, `guard/exclusions.py`);
- `gitignored file`: a file a line appended to the root `.gitignore` ignores (never
  sent);
- `link out`: a file outside the workspace reached through a symlink inside it (never
  sent, `guard/confine.py`);
- the secrets corpus's shapes (`SHAPES`, tests/fixtures/secrets/), in files features
  do read and send, so that redaction, not exclusion, is what keeps them off the wire:
  token shapes (SendGrid, Hugging Face, npm, Stripe restricted), an AWS secret key
  beside its id, a Slack webhook's path, URL userinfo, `Basic` and `Bearer`
  Authorization headers, a DSN's password and a key in a comment (in the Python file),
  a YAML `password` and `signing_salt`, a service account's `private_key_id` and an API
  key in JSON, and a notebook cell's `password = "..."` (JSON-escaped).

The emulator is given them (`POST /_emulator/canaries`, see tests/conftest.py) and
records every request that holds one, as written or as JSON or a URL escapes it; the
`emulator` fixture then fails the test.

Everything planted sits in `zz_canaries/` (plus the `.gitignore` line), under names
no test uses, and defines names no code uses, so nothing refers to it: it changes no
answer, no index lookup and no file a task shows. The canaries are new for each test
session, made of a prefix that redaction knows and random characters, and written
here only in pieces, so no secret scanner flags this file. Planting is idempotent.
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import secrets
import shutil
import string
import tempfile
from pathlib import Path

FOLDER = "zz_canaries"
SOURCE = f"{FOLDER}/zz_canary_source.py"
ENV = f"{FOLDER}/.env"
IGNORED = f"{FOLDER}/zz_canary_ignored.py"
LINK = f"{FOLDER}/zz_canary_link.py"
SETTINGS = f"{FOLDER}/zz_canary_settings.yaml"
SERVICE = f"{FOLDER}/zz_canary_service.json"
NOTEBOOK = f"{FOLDER}/zz_canary_notebook.ipynb"
GITIGNORE_LINE = f"/{IGNORED}"

_UPPER_DIGITS = string.ascii_uppercase + string.digits
_ALNUM = string.ascii_letters + string.digits


def _random(alphabet: str, length: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def _canaries() -> dict[str, str]:
    """One canary of each kind, each with a shape `redact` knows (and a digit in it)."""
    return {
        "function string": "sk" + "-zzcanary" + "7" + _random(_ALNUM, 24),
        "module constant": "AK" + "IA" + "Z9" + _random(_UPPER_DIGITS, 14),
        ".env file": "gh" + "p_" + "zzcanary3" + _random(_ALNUM, 27),
        "gitignored file": "gl" + "pat-" + "zzcanary5" + _random(_ALNUM, 16),
        "link out": "xo" + "xb-" + _random(string.digits, 12) + "-" + _random(string.digits, 13) + "-zzcanary8" + _random(_ALNUM, 16),
        **SHAPES,
    }


def _shapes() -> dict[str, str]:
    """The corpus's shapes planted in files that are sent (their secret parts)."""
    hexdigits = "0123456789abcdef"
    return {
        "sendgrid token": "SG" + "." + "zzcanary" + _random(_ALNUM, 14) + "." + _random(_ALNUM, 43),
        "hugging face token": "hf" + "_" + "zzcanary" + _random(string.ascii_letters, 26),
        "npm token": "npm" + "_" + "zzcanary" + _random(_ALNUM, 28),
        "stripe restricted key": "rk" + "_live_" + "zzcanary" + _random(_ALNUM, 16),
        "aws secret key": "zzCanary" + _random(_ALNUM + "/", 31) + "7",
        "slack webhook path": "zzcanary" + _random(_ALNUM, 16),
        "url password": "zzCanaryPw" + _random(_ALNUM, 10) + "4",
        "basic credentials": base64.b64encode(("zzcanary:" + _random(_ALNUM, 15)).encode()).decode(),
        "bearer token": "zzcanary" + _random(_ALNUM, 24) + "9",
        "dsn password": "zzCanaryDsn" + _random(_ALNUM, 9) + "2",
        "comment key": "ZZ" + _random("0123456789ABCDEF", 38),  # a key (a weak name) must read as generated
        "yaml password": "zzCanaryYaml" + _random(_ALNUM, 10) + "6",
        "yaml signing salt": "ZZ" + _random(_UPPER_DIGITS, 18) + "1",  # a salt must read as generated: no words
        "json private key id": "zzcanary" + _random(hexdigits, 32),
        "json api key": "zzcanary" + _random(_ALNUM, 24) + "3",
        "notebook password": "zzCanaryNb" + _random(_ALNUM, 10) + "5",
    }


SHAPES: dict[str, str] = _shapes()  # kind -> canary, planted where redaction keeps them off the wire
CANARIES: dict[str, str] = _canaries()  # kind -> canary, for this session (SHAPES included)
KINDS: dict[str, str] = {canary: kind for kind, canary in CANARIES.items()}  # canary -> kind

_outside: Path | None = None


def outside_file() -> Path:
    """The file the link points to: in a folder of its own, outside every workspace."""
    global _outside
    if _outside is None:
        folder = Path(tempfile.mkdtemp(prefix="sparkls-canary-outside-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        target = folder / "zz_canary_outside.py"
        target.write_text(f'ZZ_CANARY_OUTSIDE = "{CANARIES["link out"]}"\n')
        _outside = target
    return _outside


def contents() -> dict[str, str]:
    """What each planted file holds, by its path in the workspace."""
    c = CANARIES
    aws_id = "AK" + "IA" + "ZZCANARY" + "2345ABCD"
    source = (
        f'ZZ_CANARY_CONSTANT = "{c["module constant"]}"\n'
        f'ZZ_CANARY_MAIL = "{c["sendgrid token"]}"\n'
        f'ZZ_CANARY_HUB = "{c["hugging face token"]}"\n'
        f'ZZ_CANARY_REGISTRY = "{c["npm token"]}"\n'
        f'ZZ_CANARY_BILLING = "{c["stripe restricted key"]}"\n'
        f'ZZ_CANARY_S3 = ("{aws_id}", "{c["aws secret key"]}")\n'
        f'ZZ_CANARY_HOOK = "https://hooks.slack.com/services/T0ZZCANARY/B0ZZCANARY/{c["slack webhook path"]}"\n'
        f'ZZ_CANARY_DB = "postgresql://zzcanary:{c["url password"]}@db.internal:5432/app"\n'
        f'ZZ_CANARY_DSN = "host=db.internal user=zzcanary password={c["dsn password"]} dbname=app"\n'
        f'ZZ_CANARY_HEADERS = {{"Authorization": "Basic {c["basic credentials"]}"}}\n'
        f'ZZ_CANARY_BEARER = {{"Authorization": "Bearer {c["bearer token"]}"}}\n'
        f"# zz canary key: {c['comment key']}\n\n\n"
        f'def zz_canary_function():\n    return "{c["function string"]}"\n'
    )
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                   "source": [f'zz_canary_password = "{c["notebook password"]}"\n', "zz_canary_client = None\n"]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }  # fmt: skip
    return {
        SOURCE: source,
        ENV: f"ZZ_CANARY_API_KEY={c['.env file']}\n",
        IGNORED: f'ZZ_CANARY_IGNORED = "{c["gitignored file"]}"\n',
        SETTINGS: (
            "zz_canary_service:\n"
            f"  password: {c['yaml password']}\n"
            f'  signing_salt: "{c["yaml signing salt"]}"\n'
        ),
        SERVICE: json.dumps(
            {"type": "service_account", "project_id": "zz-canary", "private_key_id": c["json private key id"],
             "zz_canary_api_key": c["json api key"]},
            indent=2,
        ) + "\n",  # fmt: skip
        NOTEBOOK: json.dumps(notebook, indent=1) + "\n",
    }


def plant(root: Path) -> None:
    """Plant every canary in the workspace `root` (an existing folder); idempotent."""
    folder = root / FOLDER
    folder.mkdir(exist_ok=True)
    for relative, text in contents().items():
        path = root / relative
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
    _ignore(root / ".gitignore")
    link = root / LINK
    target = outside_file()
    if not (link.is_symlink() and os.readlink(link) == str(target)):
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target)


def _ignore(gitignore: Path) -> None:
    """Append the ignored file's line to `.gitignore` (created if missing), once."""
    text = gitignore.read_text() if gitignore.is_file() else ""
    if GITIGNORE_LINE in text.splitlines():
        return
    with gitignore.open("a") as out:
        out.write(("\n" if text and not text.endswith("\n") else "") + GITIGNORE_LINE + "\n")
