"""Checks on a multi-file change before it is applied: all pass, or nothing lands. Pure.

- **Syntax**: a changed file may not gain tree-sitter ERROR or MISSING nodes (a file
  that had some may keep or lose them); a new file must parse cleanly. Files without
  a grammar are not checked. The same rule as the fast tier's (edits/validate.py),
  applied to whole files.
- **Secrets**: files are shown to the model with secrets redacted, so a change that
  would write the redaction marker into a file is refused (it would replace the
  user's secret with the marker).
"""

from __future__ import annotations

from collections.abc import Sequence

from sparkls.guard import MARKER
from sparkls.deep.apply import FileChange
from sparkls.documents.languages import grammar_record, language_id_for, new_parser
from sparkls.edits.validate import count_syntax_errors
from sparkls.errors import InvalidEdit


def syntax_errors(path: str, text: str) -> int | None:
    """ERROR and MISSING nodes in `text` parsed as `path`'s language; None without a grammar."""
    language_id = language_id_for(path)
    if grammar_record(language_id) is None:
        return None
    parser = new_parser(language_id)
    assert parser is not None
    return count_syntax_errors(parser.parse(text.encode("utf-8", "surrogatepass")).root_node)


def check_changes(changes: Sequence[FileChange], *, made_by: str = "the deep tier") -> None:
    """Raise InvalidEdit naming the first file whose change breaks a rule above."""
    for change in changes:
        old = change.old_text or ""
        if change.new_text.count(MARKER) > old.count(MARKER):
            raise InvalidEdit(
                f"The change {made_by} wrote for {change.path} holds {MARKER}, the marker that hides "
                "secrets from the model; applying it would overwrite a secret. Nothing was changed."
            )
        after = syntax_errors(change.path, change.new_text)
        if after is None or after == 0:
            continue
        before = syntax_errors(change.path, old) if change.old_text is not None else 0
        if before is not None and after > before:
            raise InvalidEdit(
                f"The change {made_by} wrote for {change.path} does not parse ({after} syntax "
                f"error{'s' if after != 1 else ''}{f', {before} before' if before else ''}); nothing was changed."
            )
