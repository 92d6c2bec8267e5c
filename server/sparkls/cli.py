"""The `sparkls` command (also `python -m sparkls`).

`sparkls` or `sparkls --stdio` runs the language server over stdio (stdout is the
protocol: nothing else may write there; logs go to stderr, `--log-file` and the
editor's log: logs.py). It exits 0 after the editor's `shutdown` and `exit`, 1 when
the session ends without `shutdown`. Started on a terminal, it says on stderr that it
waits for an LSP client, and serves all the same. Subcommands: `emulate` (the local
Responses API emulator), `demo` (the quick-start demo: emulator, server and an LSP
client, printing diffs and timings), `context` and `doctor`.

A mistake on the command line is one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from sparkls import __version__
from sparkls.logs import LEVELS, attach, setup_logging


COMMANDS = ("emulate", "demo", "context", "doctor")
TTY_HINT = (
    "sparkls: a language server, waiting for an LSP client on stdin (your editor starts it; "
    "see sparkls --help, or try sparkls demo). Ctrl-D quits."
)
USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse, with a mistake told in one line (not the usage block) and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _level(value: str) -> str:
    if value.upper() not in LEVELS:
        raise argparse.ArgumentTypeError(f"invalid level {value!r} (choose from {', '.join(LEVELS)})")
    return value.upper()


def _parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. A subcommand's own arguments (and the modules that
    define them) are loaded only when that subcommand is asked for: the language
    server's start-up pays for none of them."""
    argv = sys.argv[1:] if argv is None else argv
    asked = next((a for a in argv if a in COMMANDS), None)
    parser = _Parser(
        prog="sparkls",
        description="sparkls: fast AI edits for any LSP editor. With no subcommand, runs the language server on stdio.",
    )
    parser.add_argument("--version", action="version", version=f"sparkls {__version__}")
    parser.add_argument("--stdio", action="store_true", help="run the language server on stdio (the default)")
    parser.add_argument(
        "--log-file", metavar="FILE", help="append the log to FILE, at --log-level (stderr keeps WARNING and above)"
    )
    parser.add_argument(
        "--log-level",
        type=_level,
        metavar="LEVEL",
        help="DEBUG, INFO, WARNING or ERROR: the log file's level (default INFO), or stderr's "
        "without --log-file (default WARNING). The editor's log follows its trace setting.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="subcommands")

    emulate = commands.add_parser("emulate", help="run the local OpenAI Responses API emulator")
    if asked == "emulate":
        from sparkls.emulator.cli import DESCRIPTION as EMULATOR_DESCRIPTION
        from sparkls.emulator.cli import add_arguments as add_emulator_arguments

        emulate.description = EMULATOR_DESCRIPTION
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
        "would send (the same engine and workspace index as the editor's edits). --json prints "
        "what sparkls.showContext returns: the report and the prompt.",
    )
    if asked == "context":
        from sparkls.tools.context_cli import add_arguments as add_context_arguments

        add_context_arguments(context)

    doctor = commands.add_parser(
        "doctor",
        help="check settings, API keys, and each tier's WebSocket and HTTP endpoints",
        description="Checks the configuration, the presence of each tier's API key, a WebSocket "
        "handshake and warm-up, and one tiny HTTP request per tier, with timings.",
    )
    if asked == "doctor":
        from sparkls.tools.doctor import add_arguments as add_doctor_arguments

        add_doctor_arguments(doctor)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser(argv).parse_args(argv)
    try:
        setup_logging(args.log_level, args.log_file)
    except OSError as exc:
        print(f"sparkls: cannot write the log file {args.log_file}: {exc.strerror or exc}", file=sys.stderr)
        return USAGE_ERROR
    if args.command == "emulate":
        from sparkls.emulator.cli import run as run_emulator

        return run_emulator(args)
    if args.command == "context":
        from sparkls.tools.context_cli import run as run_context

        return run_context(args)
    if args.command == "doctor":
        from sparkls.tools.doctor import run as run_doctor

        return run_doctor(args)
    if args.command == "demo":
        from sparkls.tools.demo import run_demo

        return run_demo(force_emulator=args.emulator)

    from sparkls.lsp import build_server
    from sparkls.lsp.stdio import serve

    if sys.stdin is not None and sys.stdin.isatty():  # a person, not an editor: say what this is, then serve anyway
        print(TTY_HINT, file=sys.stderr, flush=True)
    # Worker threads (parsing, extracting symbols) hand the GIL back to the event loop
    # within 1 ms instead of Python's 5: a request never waits long behind them.
    sys.setswitchinterval(0.001)
    server = build_server()
    attach(server.client_log)  # the editor's log, at the level its trace asks for
    return serve(server)  # LSP's exit code: 0 after shutdown, else 1
