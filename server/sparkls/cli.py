"""The `sparkls` command.

`sparkls` or `sparkls --stdio` runs the language server over stdio (stdout is the
protocol: nothing else may write there; logs go to stderr or `--log-file`). It exits
0 after the editor's `shutdown` and `exit`, 1 when the session ends without `shutdown`.
Subcommands: `emulate` (the local Responses API emulator) and `demo` (the quick-start
demo: emulator, server and an LSP client, printing diffs and timings).
"""

from __future__ import annotations

import argparse
import sys

from sparkls import __version__
from sparkls.logs import setup_logging


COMMANDS = ("emulate", "demo", "context", "doctor")


def _parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. A subcommand's own arguments (and the modules that
    define them) are loaded only when that subcommand is asked for: the language
    server's start-up pays for none of them."""
    argv = sys.argv[1:] if argv is None else argv
    asked = next((a for a in argv if a in COMMANDS), None)
    parser = argparse.ArgumentParser(
        prog="sparkls",
        description="sparkls: fast AI edits for any LSP editor. With no subcommand, runs the language server on stdio.",
    )
    parser.add_argument("--version", action="version", version=f"sparkls {__version__}")
    parser.add_argument("--stdio", action="store_true", help="run the language server on stdio (the default)")
    parser.add_argument("--log-file", help="write logs to this file instead of stderr")
    parser.add_argument(
        "--log-level",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="default INFO for the server, WARNING for the subcommands",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="subcommands")

    emulate = commands.add_parser("emulate", help="run the local OpenAI Responses API emulator")
    if asked == "emulate":
        from sparkls.emulator.cli import add_arguments as add_emulator_arguments

        add_emulator_arguments(emulate)

    demo = commands.add_parser(
        "demo",
        help="edit a sample file through a real LSP session and show diffs and timings",
        description="Starts the emulator (or uses the real API when OPENAI_API_KEY is set), "
        "starts sparkls over stdio, and drives real LSP requests on a sample file.",
    )
    demo.add_argument("--emulator", action="store_true", help="use the emulator even when OPENAI_API_KEY is set")

    context = commands.add_parser(
        "context",
        help="print what the fast tier would get for an edit at FILE:LINE",
        description="Prints the region, the snippets and the prompt that an edit at this place "
        "would send (the same engine as the editor's edits). --json prints the report only.",
    )
    if asked == "context":
        from sparkls.context.cli import add_arguments as add_context_arguments

        add_context_arguments(context)

    doctor = commands.add_parser(
        "doctor",
        help="check settings, API keys, and each tier's WebSocket and HTTP endpoints",
        description="Checks the configuration, the presence of each tier's API key, a WebSocket "
        "handshake and warm-up, and one tiny HTTP request per tier, with timings.",
    )
    if asked == "doctor":
        from sparkls.doctor import add_arguments as add_doctor_arguments

        add_doctor_arguments(doctor)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser(argv).parse_args(argv)
    setup_logging(args.log_level or ("WARNING" if args.command else "INFO"), args.log_file)
    if args.command == "emulate":
        from sparkls.emulator.cli import run as run_emulator

        return run_emulator(args)
    if args.command == "context":
        from sparkls.context.cli import run as run_context

        return run_context(args)
    if args.command == "doctor":
        from sparkls.doctor import run as run_doctor

        return run_doctor(args)
    if args.command == "demo":
        from sparkls.demo import run_demo

        return run_demo(force_emulator=args.emulator)

    from sparkls.server import build_server
    from sparkls.stdio import serve

    # Worker threads (parsing, extracting symbols) hand the GIL back to the event loop
    # within 1 ms instead of Python's 5: a request never waits long behind them.
    sys.setswitchinterval(0.001)
    return serve(build_server())  # LSP's exit code: 0 after shutdown, else 1
