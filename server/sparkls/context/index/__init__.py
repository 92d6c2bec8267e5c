"""The workspace symbol index: every definition in the workspace, by name, and the
words (identifiers) each file uses, in SQLite.

- database.py — the SQLite file: schema and version, the extraction rules'
  fingerprint, where it lives (`default_db_path`) and how many are kept
  (`prune_indexes`), the rows of one file.
- symbol_index.py — `SymbolIndex`: build, update from disk, store the symbols of a
  buffer as handed over, look up by name, find the files using a word. Synchronous,
  usable anywhere.
- health.py — what goes wrong with the file (locked, full, unusable) and how it is
  lived through: retries with backoff, each fault said once, the liveness mark that
  keeps pruning off an index a live process holds.
- worker.py — the index worker process (`python -m sparkls.context.index.worker`):
  walks, parses, extracts and writes, so tree-sitter never takes the GIL from the
  server's event loop. Exits as soon as its standard input closes.
- process.py — `IndexWorker`: the server's asyncio handle on that process: one
  command at a time, progress back, started on demand, closed when idle or on shutdown.

The service the server uses (build with progress, refresh, lookups for prompts) is
`sparkls.context.index.workspace.WorkspaceIndex`.
"""

from sparkls.context.index.database import SCHEMA_VERSION, default_db_path, extractor_fingerprint, prune_indexes
from sparkls.context.index.symbol_index import FROM_BUFFER, MAX_FILE_BYTES, BuildStats, SymbolIndex

__all__ = [
    "FROM_BUFFER",
    "MAX_FILE_BYTES",
    "SCHEMA_VERSION",
    "BuildStats",
    "SymbolIndex",
    "default_db_path",
    "extractor_fingerprint",
    "prune_indexes",
]
