"""The real sparkls server over stdio, whose first big seal is held until the test says so.

    python tests/e2e/held_seal.py --stdio        (SPARKLS_HELD_SEAL=<folder>)

The folder holds two FIFOs the test made: when the guard starts redacting the first
draft of more than `guard.INLINE_SEAL_CHARS` characters (a task's files), a line is
written to `held`; the redaction then waits until the test opens `release` for
writing. A test can so send another request while a task's redaction is under way, for
as long as it likes, and see whether it is answered: it is when the redaction runs off
the event loop. Nothing else of the server is changed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def hold_first_big_seal(folder: Path) -> None:
    from sparkls.guard import guard

    sealed = guard._sealed
    held: list[bool] = []

    def holding(draft):  # type: ignore[no-untyped-def]
        if not held and guard.weight(draft) > guard.INLINE_SEAL_CHARS:
            held.append(True)
            with open(folder / "held", "w") as fifo:
                fifo.write("held\n")
            with open(folder / "release", "rb") as fifo:
                fifo.read()
        return sealed(draft)

    guard._sealed = holding


if __name__ == "__main__":
    hold_first_big_seal(Path(os.environ["SPARKLS_HELD_SEAL"]))
    from sparkls.cli import main

    sys.exit(main(sys.argv[1:]))
