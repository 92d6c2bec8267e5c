"""Which of sparkls's own notifications the client asked for.

`sparkls/status` and `sparkls/nextEdit` are not LSP: a client with no handler for them
shows each as an error or a warning ("Unknown notification: sparkls/status" in
lsp-mode's *Warnings* window). So they go only to clients that ask, in either of two
ways, with the same list (`"status"`, `"nextEdit"`; the full method names are accepted):

- the initialization option `notifications` (what a user's set-up writes:
  `init_options = { notifications = { 'status', 'nextEdit' } }` in Neovim);
- the client capability `experimental.sparkls.notifications` (what an extension
  declares).

The option is the client's, not a setting: it is taken out of the initialization
options before they are read as settings. Pure: no LSP objects beyond plain data.
"""

from __future__ import annotations

from typing import Any

PREFIX = "sparkls/"
KNOWN = frozenset({"status", "nextEdit"})
OPTION = "notifications"


def _names(value: Any, where: str, problems: list[str]) -> set[str]:
    if value is None:
        return set()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"`{where}` must be a list of names ({', '.join(sorted(KNOWN))}); ignored")
        return set()
    names = {v.removeprefix(PREFIX) for v in value}
    unknown = sorted(names - KNOWN)
    if unknown:
        problems.append(f"`{where}`: unknown notification {', '.join(unknown)} (known: {', '.join(sorted(KNOWN))})")
    return names & KNOWN


def asked_for(options: Any, experimental: Any) -> tuple[frozenset[str], Any, list[str]]:
    """The notifications the client asked for, the initialization options without the
    `notifications` key (as given when there is none), and the problems found."""
    problems: list[str] = []
    names: set[str] = set()
    if isinstance(options, dict) and OPTION in options:
        options = dict(options)
        names |= _names(options.pop(OPTION), f"initializationOptions.{OPTION}", problems)
    ours = experimental.get("sparkls") if isinstance(experimental, dict) else None
    if isinstance(ours, dict):
        names |= _names(ours.get(OPTION), f"capabilities.experimental.sparkls.{OPTION}", problems)
    return frozenset(names), options, problems


def method_name(name: str) -> str:
    """`status` -> `sparkls/status`."""
    return PREFIX + name
