"""`python -m tests.e2e.netaudit_server [sparkls arguments]`: the real `sparkls`, with
the network audit (`tests/e2e/netaudit.py`) installed before any of sparkls loads.
The record file is named by `$SPARKLS_NETAUDIT`. The product is not changed: this is
`sparkls.cli.main`, as `python -m sparkls` runs it, in a process that can reach this
machine only.
"""

from __future__ import annotations

import os
import sys

from tests.e2e.netaudit import ENV, install


def main() -> int:
    install(os.environ[ENV])
    from sparkls.cli import main as sparkls_main

    sys.argv[0] = "sparkls"
    return sparkls_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
