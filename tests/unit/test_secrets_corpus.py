"""The secrets corpus (tests/fixtures/secrets/, `tests/secrets_corpus.py`): what
gitleaks' rules and detect-secrets' plugins are tested with, and the shapes of issue
34 in every format, held to the recall the issue asks for; and fuzzed: embedded in
code, every line stays a line and no secret of the corpus survives."""

from __future__ import annotations

import collections
import random

from hypothesis import given
from hypothesis import strategies as st

from sparkls.guard.secrets import redact
from tests.secrets_corpus import load, survives
from tests.unit.fuzzing import fuzz_settings

RECALL = 0.99  # issue 34: at least 99% of the positives


def _misses(positives) -> list[dict]:
    return [p for p in positives if survives(redact(p["text"])[0], p["secret"])]


def test_recall_over_the_whole_corpus_is_at_least_99_percent():
    """At least 99% of the corpus's positives lose their secret (bench/redaction.py
    lists every miss, and why each is left)."""
    corpus = load()
    missed = _misses(corpus.positives)
    recall = 1 - len(missed) / len(corpus.positives)
    by_rule = collections.Counter((p["source"], p["rule"]) for p in missed).most_common(10)
    assert recall >= RECALL, f"recall {recall:.4f} < {RECALL}: most missed {by_rule}"
    assert len(corpus.positives) > 7000  # the corpus is all there


def test_every_shape_of_the_issue_is_hidden_in_every_format():
    """The shapes issue 34 found on the wire, in each language and format: none survives."""
    ours = [p for p in load().positives if p["source"] == "sparkls"]
    missed = [(p["rule"], p["format"], p["text"][:80]) for p in _misses(ours)]
    assert len(ours) > 700 and missed == []


def test_every_gitleaks_rule_is_met():
    """Each gitleaks rule with test cases has most of them recognised (a rule whose
    secret is a vendor's name and a value only entropy could tell is the exception:
    at most a handful, listed by the bench)."""
    positives = [p for p in load().positives if p["source"] == "gitleaks"]
    totals = collections.Counter(p["rule"] for p in positives)
    missed = collections.Counter(p["rule"] for p in _misses(positives))
    weak = sorted(rule for rule, n in totals.items() if missed[rule] > n // 4)
    assert len(totals) > 200 and len(weak) <= 3, weak


_CODE = st.lists(
    st.sampled_from(
        [
            "def f(a, b):", "    return a + b", "x = {'k': 1, 'v': [1, 2]}", "# a comment about tokens", "",
            "    if key in cache:", 'name = "token_type"', "print(f'{x=}')", "class A:", "    pass",
        ]
    ),
    max_size=8,
)  # fmt: skip


@fuzz_settings(300)
@given(before=_CODE, after=_CODE, index=st.integers(min_value=0))
def test_a_secret_of_the_corpus_embedded_in_code_does_not_survive(before, after, index):
    """A corpus case (one the rules recognise) between lines of code: still hidden,
    every line still a line, and redacting twice changes nothing more."""
    found = [p for p in load().positives if p["source"] == "sparkls"]
    case = found[index % len(found)]
    text = "\n".join([*before, case["text"].rstrip("\n"), *after]) + "\n"
    out, count = redact(text)
    assert count >= 1 and not survives(out, case["secret"])
    assert out.count("\n") == text.count("\n")
    assert redact(out)[0] == out


@fuzz_settings(200)
@given(text=st.text(alphabet=st.sampled_from(list("ab =:\"'\n\\{}[],;-_/+.AKIghp0123456789xoxskpassword")), max_size=400))
def test_any_text_keeps_its_lines_and_redaction_is_idempotent(text):
    """Whatever the text, redaction keeps every line and a second pass changes nothing."""
    out, _ = redact(text)
    assert out.count("\n") == text.count("\n")
    assert redact(out)[0] == out


def test_the_corpus_is_sampled_the_same_way_every_run():
    """The fuzz cases above come from the stored corpus, not from randomness here."""
    assert random.Random(34).random() == random.Random(34).random()
