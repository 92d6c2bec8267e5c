"""A background parse (documents/text.parse_yielding): the same tree, and nothing of the text kept."""

from __future__ import annotations

import gc
import tracemalloc

from sparkls.documents.languages import new_parser
from sparkls.documents.text import PARSE_CHUNK, parse_yielding

SOURCE = ("def f(x):\n    return x + 1\n\n" * 12_000 + "y = 'é😀'\n").encode()  # ~370 KB, not a whole number of chunks


def test_the_tree_is_the_one_a_plain_parse_makes():
    """Whole and incremental, the chunked parse reads the text exactly."""
    parser = new_parser("python")
    plain = parser.parse(SOURCE)
    assert len(SOURCE) % PARSE_CHUNK != 0
    assert str(parse_yielding(parser, SOURCE, None).root_node) == str(plain.root_node)
    edited = SOURCE.replace(b"x + 1", b"x - 1", 1)
    old = parser.parse(SOURCE)
    old.edit(start_byte=27, old_end_byte=28, new_end_byte=28, start_point=(1, 13), old_end_point=(1, 14), new_end_point=(1, 14))
    assert str(parse_yielding(parser, edited, old).root_node) == str(parser.parse(edited).root_node)


def test_repeated_parses_keep_nothing_of_the_text():
    """py-tree-sitter keeps every chunk the callback returns; sparkls's chunks cost it nothing (was the whole text a parse)."""
    parser = new_parser("python")
    parse_yielding(parser, SOURCE, None)  # the thread's buffer, made once
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(20):
            parse_yielding(parser, SOURCE, None)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < len(SOURCE) // 4, f"{kept:,} bytes kept after 20 parses of {len(SOURCE):,}"


def test_the_tree_reads_its_text_and_answers_queries_with_predicates():
    """A node's text and a query that reads node texts (attributes.scm's #eq?) work on the tree, later."""
    from sparkls.context.symbols import extract_symbols

    source = ("class Box:\n    def __init__(self, size):\n        self.size = size\n        self.items = []\n\n" * 3000).encode()
    parser = new_parser("python")
    tree = parse_yielding(parser, source, None)
    parse_yielding(parser, source[::-1], None)  # another parse in this thread overwrites the chunk buffer
    assert tree.root_node.children[0].text == source[: source.index(b"\n\n")]
    assert extract_symbols("python", tree, source) == extract_symbols("python", parser.parse(source), source)
