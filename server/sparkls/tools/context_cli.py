"""`sparkls context FILE --line N`: print what the fast tier would get for an edit there.

Reads the file from disk, with the workspace's `.sparkls.toml` and `.gitignore`, and
goes through the same code as an edit in the editor (`context.prompt.prepare_edit`), with the
same lookup: the workspace index of `--root`, built or brought up to date (warm, a
`stat` per file) by the index worker process, exactly as the server does after
`initialized`, in the same database. Prints the report to stdout and nothing else: it
is a command, not the server (the index's progress, on a terminal, goes to stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from sparkls.config import load_settings, read_project_file
from sparkls.guard.confine import Confinement
from sparkls.guard.exclusions import PathFilter
from sparkls.context.report import context_report, context_result, render_report
from sparkls.documents.positions import Position
from sparkls.documents.document import Document
from sparkls.documents.store import DocumentStore
from sparkls.context.prompt import prepare_edit
from sparkls.guard import Guard
from sparkls.errors import SparkError

if TYPE_CHECKING:
    from sparkls.config import Settings
    from sparkls.context.definitions import Lookup
    from sparkls.context.index.workspace import WorkspaceIndex

PLACEHOLDER = "(your instruction)"
Built = TypeVar("Built")


def _from_one(text: str) -> int:
    """An argparse type: a line or column number, counted from 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is out of range (lines and columns count from 1)")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the source file")
    parser.add_argument("--line", type=_from_one, required=True, help="1-based line of the cursor")
    parser.add_argument("--column", type=_from_one, default=1, help="1-based column (characters), default 1")
    parser.add_argument("--end-line", type=_from_one, help="1-based last line of a selection (ends at its end)")
    parser.add_argument("--root", type=Path, help="workspace root (default: the current directory)")
    parser.add_argument("--instruction", default=PLACEHOLDER, help="the instruction to show in the prompt")
    parser.add_argument(
        "--json", action="store_true", help="print the JSON report (with the prompt), as sparkls.showContext returns it"
    )


def _argument_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments, short of reading the file; None when nothing."""
    if args.root is not None and not args.root.is_dir():
        return f"--root {args.root}: {'not a directory' if args.root.exists() else 'no such directory'}"
    if args.file.is_dir():
        return f"{args.file} is a directory; give a source file"
    if not args.file.exists():
        return f"{args.file}: no such file"
    if args.end_line is not None and args.end_line < args.line:
        return f"--end-line {args.end_line} is before --line {args.line}"
    return None


def _position_problem(args: argparse.Namespace, doc: Document) -> str | None:
    """--line, --end-line or --column past the end of the file or of the line; None when inside."""
    lines = doc.lines.line_count
    if lines > 1 and not doc.lines.line_text(lines - 1):
        lines -= 1  # the final line break ends the last line; it does not start another
    for flag, line in (("--line", args.line), ("--end-line", args.end_line)):
        if line is not None and line > lines:
            return f"{flag} {line} is past the end of {args.file} ({lines} line{'s' if lines != 1 else ''})"
    width = len(doc.lines.line_text(args.line - 1))
    if args.column > width + 1:
        return f"--column {args.column} is past the end of line {args.line} ({width} characters: columns 1 to {width + 1})"
    return None


def run(args: argparse.Namespace) -> int:
    if (problem := _argument_problem(args)) is not None:
        print(f"sparkls context: {problem}", file=sys.stderr)
        return 2
    root = (args.root or Path.cwd()).resolve()
    refusal = Confinement([root]).refusal(args.file.absolute(), shown=str(args.file))
    if refusal is not None:  # what the editor would never send, this does not print
        print(f"sparkls context: {refusal} (Workspace root: {root}; see --root.)", file=sys.stderr)
        return 2
    path = args.file.resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"sparkls context: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    project, problems = read_project_file(root)
    settings, more = load_settings(project)
    for problem in problems + more:
        print(f"sparkls context: {problem}", file=sys.stderr)
    uri = path.as_uri()
    doc = DocumentStore(encoding="utf-32").open(uri, text, 0)
    if (problem := _position_problem(args, doc)) is not None:
        print(f"sparkls context: {problem}", file=sys.stderr)
        return 2
    line = max(0, min(args.line - 1, doc.lines.line_count - 1))
    start = doc.offset(Position(line, max(0, args.column - 1)))
    end = start
    if args.end_line is not None:
        last = max(line, min(args.end_line - 1, doc.lines.line_count - 1))
        end = doc.offset(Position(last, len(doc.lines.line_text(last))))
    try:
        guard = Guard(root, PathFilter.from_root(root, settings.context.exclude))
        guard.check_document(uri)
        ctx, prompt = with_index(
            root,
            settings,
            lambda lookup: prepare_edit(
                doc, start, end, guard=guard, settings=settings, instruction=args.instruction, lookup=lookup,
            ),
        )  # fmt: skip
    except SparkError as exc:
        print(f"sparkls context: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(context_result(ctx, prompt), indent=2))
    else:
        print(render_report(context_report(ctx, prompt), prompt), end="")
    return 0


def with_index(root: Path, settings: Settings, build: Callable[[Lookup | None], Awaitable[Built]]) -> Built:
    """`build(lookup)` with the workspace index of `root` as the lookup, built or
    refreshed first as the server does (`WorkspaceIndex.build`, in the worker process);
    with no lookup when `context.index` is off."""

    async def indexed() -> Built:
        from sparkls.context.index.workspace import WorkspaceIndex

        if not settings.context.index:
            return await build(None)
        index = WorkspaceIndex(root)
        try:
            return await build(await _built(index, settings.context.exclude))
        finally:
            index.close()
            await index.wait_closed()

    return asyncio.run(indexed())


async def _built(index: WorkspaceIndex, exclude: list[str]) -> WorkspaceIndex | None:
    """The index, up to date; None when it cannot be built (said on stderr: definitions
    from other files are then missing from the report). On a terminal, its progress
    shows on stderr, on one line that is cleared afterwards."""
    from sparkls.context.index.process import IndexWorkerFailed

    def progress(done: int, total: int) -> None:
        print(f"\rsparkls context: indexing the workspace, {done}/{total} files", end="", file=sys.stderr, flush=True)

    shown = sys.stderr.isatty()
    try:
        await index.build(exclude, progress if shown else None)
    except IndexWorkerFailed as exc:
        print(f"sparkls context: the workspace index failed ({exc}); no definitions from other files", file=sys.stderr)
        return None
    finally:
        if shown:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
    return index
