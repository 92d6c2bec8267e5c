"""Canaries: key-shaped strings planted in every e2e workspace, that no request may hold.

`plant(root)` writes them where sparkls must never send from, or must redact before
sending (`guard/`):

- `function string`: a string returned by a function in a Python source file (sent
  only redacted, `guard/secrets.py`);
- `module constant`: a module-level constant in that file (the same);
- `.env file`: a value in a `.env` file (never sent, `guard/exclusions.py`);
- `gitignored file`: a file a line appended to the root `.gitignore` ignores (never
  sent);
- `link out`: a file outside the workspace reached through a symlink inside it (never
  sent, `guard/confine.py`).

The emulator is given them (`POST /_emulator/canaries`, see tests/conftest.py) and
records every request that holds one; the `emulator` fixture then fails the test.

Everything planted sits in `zz_canaries/` (plus the `.gitignore` line), under names
no test uses, and defines names no code uses, so nothing refers to it: it changes no
answer, no index lookup and no file a task shows. The canaries are new for each test
session, made of a prefix that redaction knows and random characters, and written
here only in pieces, so no secret scanner flags this file. Planting is idempotent.
"""

from __future__ import annotations

import atexit
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
        "link out": "xo" + "xb-" + "zzcanary8-" + _random(_ALNUM, 20),
    }


CANARIES: dict[str, str] = _canaries()  # kind -> canary, for this session
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
    return {
        SOURCE: (
            f'ZZ_CANARY_CONSTANT = "{CANARIES["module constant"]}"\n\n\n'
            f'def zz_canary_function():\n    return "{CANARIES["function string"]}"\n'
        ),
        ENV: f"ZZ_CANARY_API_KEY={CANARIES['.env file']}\n",
        IGNORED: f'ZZ_CANARY_IGNORED = "{CANARIES["gitignored file"]}"\n',
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
