"""The emulator's scripted model: regions, directives, quoting, cursor, tokens."""

from sparkls.emulator import model
from sparkls.emulator.model import NO_REGION_ANSWER, answer, split_tokens


def request(region: str, *, before: str = "", after: str = "") -> str:
    return (
        f"{before}\n<|editable_region_start|>\n{region}\n<|editable_region_end|>\n{after}"
    )


def test_replace_every_occurrence_in_region():
    """REPLACE changes every occurrence of the old text inside the region."""
    text = request("a = foo(foo)\nb = foo", before="REPLACE foo WITH bar")
    assert answer(text) == "```\na = bar(bar)\nb = bar\n```"


def test_text_outside_region_is_not_edited():
    """Occurrences outside the editable region stay out of the answer."""
    text = request("x = foo", before="foo before\nREPLACE foo WITH bar", after="foo after")
    assert answer(text) == "```\nx = bar\n```"


def test_region_kept_exactly_without_directives():
    """With no directive the answer is the region unchanged, blank lines included."""
    region = "def f():\n\n    return 1  \n"
    assert answer(request(region)) == f"```\n{region}\n```"


def test_double_quoted_operands_expand_escapes():
    """Double-quoted operands may contain spaces, \\n and \\t."""
    text = request("call(a, b)", before='REPLACE "a, b" WITH "a,\\n\\tb"')
    assert answer(text) == "```\ncall(a,\n\tb)\n```"


def test_backticked_operands_expand_escapes():
    """Backticked operands may contain double quotes and \\n."""
    text = request('say("hi")', before='REPLACE `"hi"` WITH `"hello",\\nend`')
    assert answer(text) == '```\nsay("hello",\nend)\n```'


def test_multiline_old_text_is_replaced():
    """An old operand spanning lines matches across region lines."""
    text = request("a = 1\nb = 2", before='REPLACE "1\\nb" WITH "10\\nc"')
    assert answer(text) == "```\na = 10\nc = 2\n```"


def test_directive_lines_in_region_are_untouched():
    """A region line that holds a directive is not rewritten by it."""
    text = request("x = old  # REPLACE old WITH new\ny = old")
    assert answer(text) == "```\nx = old  # REPLACE old WITH new\ny = new\n```"


def test_complete_inserts_at_cursor_and_removes_marker():
    """COMPLETE inserts its text where the cursor was; the marker disappears."""
    text = request("def f():\n    return <|cursor|>", before="COMPLETE `x + 1`")
    assert answer(text) == "```\ndef f():\n    return x + 1\n```"


def test_complete_without_cursor_appends_to_region():
    """Without a cursor, COMPLETE text goes at the end of the region."""
    text = request("items = [1, 2", before='COMPLETE ", 3]"')
    assert answer(text) == "```\nitems = [1, 2, 3]\n```"


def test_cursor_marker_removed_without_directives():
    """The cursor marker never reaches the answer."""
    assert answer(request("x = 1<|cursor|>")) == "```\nx = 1\n```"


def test_no_region_with_complete_answers_fenced_text():
    """Without region markers, a COMPLETE directive's text is the answer."""
    assert answer('Please COMPLETE "print(1)"') == "```\nprint(1)\n```"


def test_no_region_and_no_directive_answers_sentence():
    """Without markers or COMPLETE the answer is a plain sentence, not a fence."""
    assert answer("Hello there") == NO_REGION_ANSWER


def test_last_region_wins_over_earlier_example():
    """Marker lines in an example earlier in the prompt do not hide the real region."""
    text = request("example", before="") + request("real = 1", before="REPLACE 1 WITH 2")
    assert answer(text) == "```\nreal = 2\n```"


def test_empty_region():
    """An empty region yields an empty fenced block (or the COMPLETE text)."""
    text = "<|editable_region_start|>\n<|editable_region_end|>\n"
    assert answer(text) == "```\n\n```"
    assert answer(text + "COMPLETE done") == "```\ndone\n```"


def test_non_ascii_region():
    """Emoji and CJK text in the region survive replacement unchanged."""
    text = request("s = '😀 漢字' + foo", before="REPLACE foo WITH bar")
    assert answer(text) == "```\ns = '😀 漢字' + bar\n```"


def test_replace_of_a_name_renames_code_never_a_strings_words():
    """REPLACE with an identifier replaces it where it is code (in longer names too):
    the words of a string, a docstring and a comment stay; REPLACE of other text
    replaces it anywhere."""
    region = 'def area(r):\n    """The area."""\n    return area_of(r, "area")  # area'
    renamed = region.replace("def area", "def surface").replace("area_of", "surface_of")
    assert answer(request(region, before="REPLACE area WITH surface")) == "```\n" + renamed + "\n```"
    assert answer(request(region, before='REPLACE "\\"area\\"" WITH "\\"zone\\""')) == "```\n" + region.replace('"area"', '"zone"') + "\n```"


def test_bare_reply_has_no_fence():
    """The bare reply style returns the region text without a fence."""
    assert answer(request("x = 1"), reply="bare") == "x = 1"


def test_empty_reply_has_no_text():
    """The empty reply style returns no text at all."""
    assert answer(request("x = 1"), reply="empty") == ""


def test_lowercase_words_are_not_directives():
    """Only upper-case REPLACE/COMPLETE keywords are directives."""
    text = request("x = 1", before="replace 1 with 2, then complete the code")
    assert answer(text) == "```\nx = 1\n```"


def test_split_tokens_round_trips_text():
    """Token pieces join back to exactly the original text."""
    text = "def f(x):\n    return x+1  # 😀\n"
    pieces = split_tokens(text)
    assert "".join(pieces) == text
    assert pieces[:5] == ["def", " ", "f", "(", "x"]


def test_split_tokens_one_piece_per_word_or_symbol():
    """Words, whitespace runs and single symbols are separate pieces."""
    assert split_tokens("a  b,c") == ["a", "  ", "b", ",", "c"]


def test_request_text_from_responses_body():
    """Instructions and every input text part make up a Responses request's text."""
    body = {
        "instructions": "be brief",
        "input": [
            {"role": "user", "content": "first"},
            {"role": "user", "content": [{"type": "input_text", "text": "second"}]},
        ],
    }
    assert model.responses_request_text(body) == "be brief\nfirst\nsecond"
    assert model.responses_request_text({"input": "just text"}) == "just text"


def test_request_text_from_chat_body():
    """Every message's content makes up a Chat request's text."""
    body = {"messages": [{"role": "system", "content": "sys"},
                         {"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    assert model.chat_request_text(body) == "sys\nhi"


def test_prompt_cache_counts_shared_prefix():
    """A long shared prefix is reported as cached, rounded down like the service."""
    cache = model.PromptCache()
    prefix = "x" * 8000  # 2,000 tokens
    assert cache.lookup(prefix + "first") == 0
    assert cache.lookup(prefix + "second") == 1920
    assert cache.lookup("short") == 0
