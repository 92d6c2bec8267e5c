"""``python -m sparkls.emulator``: the same as ``sparkls emulate``."""

import argparse
import sys

from sparkls.emulator import cli


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sparkls.emulator", description=cli.DESCRIPTION
    )
    cli.add_arguments(parser)
    return cli.run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
