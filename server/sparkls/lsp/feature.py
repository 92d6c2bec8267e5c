"""What a feature declares at the LSP edge: one `Feature` value per capability.

A capability's LSP face (`<capability>/handlers.py`) exports `FEATURE`; `lsp/features.py`
lists them in one tuple, and the server and the core handlers only loop over that
tuple (none of them names a capability). A feature says:

- what it registers: `commands` (`workspace/executeCommand`) and `methods` (LSP
  methods of its own; one with `when` is registered at `initialize`, only for a client
  that `when` says needs it);
- what it adds to the code-action menu (`actions`: a `Contribution` each, listed
  without waiting on the model, resolved to an edit or to something `Shown`) and to
  the ghost text at the cursor (`ghost`: a `Ghost` each, the first answer wins);
- what it keeps per document (`stores`: a `Store` each, made on first use, emptied
  on `didClose`);
- what it does after a document changed (`changed`), and with an edit the edge applies
  or hands the editor (`edited`);
- the modules to load after `initialized`, before a first request needs them (`preload`).

Every callable here gets the `Edge` (lsp/edge.py) first: the edge's toolkit and the
way to the request environment. These are declarations only: no state, no I/O.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, Union

if TYPE_CHECKING:
    from lsprotocol import types

    from sparkls.documents.store import Document
    from sparkls.edits.tail import EditOutcome
    from sparkls.lsp.edge import Edge

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Shown:
    """What a code action or a command shows instead of an edit: `markdown`, opened as
    the private file `name` where the editor shows documents, else said as `message`."""

    name: str
    markdown: str
    message: str


UNTAGGED = "fix"  # the tag of an action whose `data` carries none (a quick fix's: its data is `sparkls.edit`'s argument)

Offer = Callable[["Edge", "Document", "types.CodeActionParams"], "list[types.CodeAction]"]
Resolve = Callable[["Edge", "dict[str, Any]"], Awaitable[Union["EditOutcome", Shown]]]


@dataclass(frozen=True, slots=True)
class Contribution:
    """What one feature adds to the code-action menu, and how its picked actions resolve."""

    kinds: tuple[str, ...]
    offer: Offer
    rank: int  # where its actions go in the menu (lower first)
    tag: str | None = None  # the `data["spark"]` of the actions it resolves
    resolve: Resolve | None = None  # to an edit (returned as the action's `edit`) or to something shown
    title: str = "Spark fix"  # the resolve's progress title


@dataclass(frozen=True, slots=True)
class Ghost:
    """Ghost text a feature offers at the cursor (`textDocument/inlineCompletion`):
    the features' offers are asked in `rank` order, and the first item is the answer."""

    rank: int
    offer: Callable[["Edge", "Document", int, "types.InlineCompletionParams"], Awaitable["types.InlineCompletionItem | None"]]


@dataclass(frozen=True, slots=True)
class Command:
    """`workspace/executeCommand` `name`: `run(edge, *arguments)`, sync or async."""

    name: str
    run: Callable[..., Any]


@dataclass(frozen=True, slots=True)
class Method:
    """An LSP method the feature answers: `run(edge, params)`, sync or async. With
    `when`, it is registered at `initialize`, and only if `when(client capabilities)`."""

    name: str
    run: Callable[..., Any]
    options: Any = None
    when: Callable[["types.ClientCapabilities"], bool] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Store(Generic[T]):
    """A per-document store: made by `make()` on first use (`Edge.store(this)`: the
    declaration is the key), named `name` in `SparkServer.held_documents()`; what it
    makes has `forget(uri)` and `held()`. `make` imports what it needs when called,
    so that declaring a store loads nothing at start-up."""

    name: str
    make: Callable[[], T]


@dataclass(frozen=True, slots=True)
class Feature:
    """One capability at the LSP edge (see the module doc)."""

    name: str
    commands: tuple[Command, ...] = ()
    methods: tuple[Method, ...] = ()
    actions: tuple[Contribution, ...] = ()
    ghost: tuple[Ghost, ...] = ()
    stores: tuple[Store[Any], ...] = ()
    # After `didChange` applied a change: (edge, the document, its text and version before).
    changed: Callable[["Edge", "Document", str, int], None] | None = None
    # An edit the edge applies (`workspace/applyEdit`) or returns as a code action's edit.
    edited: Callable[["Edge", "EditOutcome"], None] | None = None
    preload: tuple[str, ...] = ()  # dotted module names, imported one by one after `initialized`
