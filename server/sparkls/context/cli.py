"""`sparkls context FILE --line N`: print what the fast tier would get for an edit there.

Reads the file from disk, with the workspace's `.sparkls.toml` and `.gitignore`, and
goes through the same code as an edit in the editor (`engine.prepare_edit`). Prints to
stdout: it is a command, not the server.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sparkls.config import load_settings, read_project_file
from sparkls.context.confine import Confinement
from sparkls.context.exclusions import PathFilter
from sparkls.context.report import context_report, render_report
from sparkls.documents.positions import Position
from sparkls.documents.store import DocumentStore
from sparkls.engine import check_may_send, display_path, prepare_edit
from sparkls.errors import SparkError

PLACEHOLDER = "(your instruction)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the source file")
    parser.add_argument("--line", type=int, required=True, help="1-based line of the cursor")
    parser.add_argument("--column", type=int, default=1, help="1-based column (characters), default 1")
    parser.add_argument("--end-line", type=int, help="1-based last line of a selection (ends at its end)")
    parser.add_argument("--root", type=Path, help="workspace root (default: the current directory)")
    parser.add_argument("--instruction", default=PLACEHOLDER, help="the instruction to show in the prompt")
    parser.add_argument("--json", action="store_true", help="print the JSON report only")


def run(args: argparse.Namespace) -> int:
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
    line = max(0, min(args.line - 1, doc.lines.line_count - 1))
    start = doc.offset(Position(line, max(0, args.column - 1)))
    end = start
    if args.end_line is not None:
        last = max(line, min(args.end_line - 1, doc.lines.line_count - 1))
        end = doc.offset(Position(last, len(doc.lines.line_text(last))))
    try:
        check_may_send(uri, root, PathFilter.from_root(root, settings.context.exclude))
        ctx, prompt = prepare_edit(
            doc, start, end, path=display_path(uri, root), settings=settings, instruction=args.instruction
        )
    except SparkError as exc:
        print(f"sparkls context: {exc}", file=sys.stderr)
        return 1
    report = context_report(ctx, prompt)
    print(json.dumps(report, indent=2) if args.json else render_report(report, prompt), end="" if not args.json else "\n")
    return 0
