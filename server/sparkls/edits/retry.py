"""One more try after a reply that does not parse: the same request, told what was wrong.

`with_parse_error` appends a note to the request's draft (the stable parts before it
stay as they were, so the provider's prompt cache still hits) naming the first few
syntax errors of the rejected region, by line of that region; the pieces of the
model's answer it quotes are the model's words (`FromModel`) to the guard.
"""

from __future__ import annotations

import textwrap

from tree_sitter import Node

from sparkls.documents.languages import new_parser
from sparkls.guard import Draft, FromModel, Section
from sparkls.guard.parts import Part

RETRY_NOTE = "Your previous answer did not parse."
MAX_ERRORS = 3


def syntax_errors(language_id: str, region: str, limit: int = MAX_ERRORS) -> list[str]:
    """The first syntax errors of `region` parsed alone: "line N: missing `)`" or
    "line N: unexpected `...`" (lines of the region, 1-based)."""
    parser = new_parser(language_id)
    if parser is None:
        return []
    source = textwrap.dedent(region).encode("utf-8", "surrogatepass")
    found: list[str] = []
    stack: list[Node] = [parser.parse(source).root_node]
    while stack and len(found) < limit:
        node = stack.pop()
        if node.is_missing:
            found.append(f"line {node.start_point.row + 1}: missing `{node.type}`")
        elif node.is_error:
            lines = source[node.start_byte : node.end_byte].decode("utf-8", "replace").strip().splitlines()
            first, last = node.start_point.row + 1, node.end_point.row + 1
            if len(lines) > 1:
                found.append(f"lines {first}-{last}: cannot be parsed (ends with `{lines[-1].strip()[:40]}`)")
            else:
                found.append(f"line {first}: unexpected `{lines[0][:40] if lines else ''}`")
        elif node.has_error:
            stack.extend(reversed(node.children))
    return found


def with_parse_error(draft: Draft, language_id: str, rejected_region: str) -> Draft:
    """`draft` again, with a note saying why its last answer was rejected."""
    problems = syntax_errors(language_id, rejected_region) or ["it has syntax errors"]
    note: list[Part | str] = [RETRY_NOTE + " Syntax errors in the region you wrote:"]
    for problem in problems:
        note += ["\n- ", FromModel(problem)]
    note.append(
        "\nAnswer again with the complete new text of the editable region in one fenced code block, "
        "and make sure it parses."
    )
    return draft.then(Section.of(*note))
