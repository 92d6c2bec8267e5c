"""context/queries.py: a language's queries, compiled once and off the event loop."""

from __future__ import annotations

import threading
from importlib import resources

from sparkls.context import queries
from sparkls.documents.languages import query_folder


async def test_a_languages_queries_are_compiled_in_a_worker_thread(monkeypatch):
    """`compiled` (awaited before a request reads a document) compiles every query of the
    language, none on the loop's thread: TypeScript's held the loop 100 ms and more."""
    queries.query.cache_clear()
    monkeypatch.setattr(queries, "_COMPILED", set())
    compiled_on: list[int] = []
    real = queries.Query

    def recording(language, text):
        compiled_on.append(threading.get_ident())
        return real(language, text)

    monkeypatch.setattr(queries, "Query", recording)
    await queries.compiled("typescript")
    assert compiled_on and threading.get_ident() not in compiled_on
    folder = resources.files("sparkls") / "queries" / str(query_folder("typescript"))
    names = [path.name.removesuffix(".scm") for path in folder.iterdir() if path.name.endswith(".scm")]
    compiled_on.clear()
    assert all(queries.query("typescript", name) is not None for name in names)
    assert compiled_on == []  # each was compiled already
    queries.query.cache_clear()  # compiled by the real Query for the tests after this one


async def test_a_language_without_queries_compiles_nothing():
    await queries.compiled("plaintext")
    assert queries.query("plaintext", "symbols") is None
