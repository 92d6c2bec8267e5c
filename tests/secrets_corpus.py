"""The secrets corpus (tests/fixtures/secrets/): positives that redaction must hide,
negatives it should leave alone. Stored encoded (zlib + base64 JSON) so that no secret
scanner takes it for leaked credentials; `scripts/secrets_corpus.py` regenerates it and
tests/fixtures/secrets/README.md says where each part comes from.

Each positive: `text` (a line or a few, as a file holds it), `secret` (what must not
survive redaction), `source` (gitleaks, detect-secrets, or sparkls: the shapes of
issue 34 in each format), `rule` (the rule or test it comes from), `file`/`format`.
Each negative: `text`, `source`, `rule`, `file`.
"""

from __future__ import annotations

import base64
import functools
import json
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FILE = Path(__file__).resolve().parent / "fixtures" / "secrets" / "corpus.b64"


@dataclass(frozen=True)
class Corpus:
    positives: tuple[dict[str, Any], ...]
    negatives: tuple[dict[str, Any], ...]
    sources: dict[str, Any]


@functools.cache
def load() -> Corpus:
    data = json.loads(zlib.decompress(base64.b64decode(FILE.read_text())))
    return Corpus(tuple(data["positives"]), tuple(data["negatives"]), data["sources"])


def survives(redacted: str, secret: str) -> bool:
    """Whether `secret` (or, for a secret written with JSON escapes, its escaped form)
    is still readable in `redacted`."""
    return secret in redacted or json.dumps(secret)[1:-1] in redacted
