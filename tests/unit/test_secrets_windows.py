"""Redaction in bounded windows (guard/secrets/__init__.py): a secret across a
window's edge is hidden as it is in one piece, no rule reads more than one window
at a time, the work grows in proportion to the text, and a window with more
candidates, more bytes of values or more keywords than its budget is hidden from
there on (edits.Budget), with nothing before the cut left unweighed."""

from __future__ import annotations

import random
import string

import pytest

import sparkls.guard.secrets as secrets_package
from sparkls.guard.secrets import MARKER, OVERLAP, WINDOW, redact
from sparkls.guard.secrets.edits import DECISIONS, HITS, WEIGHED

SCAN = secrets_package.scan  # the rules over one window's bytes

PEM_BODY = [
    "MIIEowIBAAKCAQEAvY3c2p6JmTq1kq7Hq9r1f0n8mW2t6o1Yl7B3e0xQw9Zk4T5u",
    "0dM8nJ3qV1b2c5X7yZ0aB4cD6eF8gH0iJ2kL4mN6oP8qR0sT2uV4wX6yZ8aB0cD2",
    "eF4gH6iJ8kL0mN2oP4qR6sT8uV0wX2yZ4aB6cD8eF0gH2iJ4kL6mN8oP0qR2s==",
]
SECRETS = [
    'password = "Tr0ub4dor&3xQ"',
    "token = gh" + "p_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    'headers = {"Authorization": "Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0"}',
    "url = 'https://deploy:Qx7pLm2Zr9@db.internal/app'",
    "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_BODY) + "\n-----END RSA PRIVATE KEY-----",
    '{"private_key": "-----BEGIN PRIVATE KEY-----\\n' + "\\n".join(PEM_BODY) + '\\n-----END PRIVATE KEY-----\\n"}',
]


@pytest.fixture
def small_windows(monkeypatch):
    """Windows of 4 KB (the overlap stays what the rules need), so that short texts cross many edges."""
    monkeypatch.setattr(secrets_package, "WINDOW", 4096)


def _text_across_edges(separator: str) -> str:
    """Filler, with every secret placed so that each window edge falls inside one."""
    filler = "x = compute(a, b)" + separator
    parts = []
    for shift in range(0, 64, 3):
        for secret in SECRETS:
            parts.append(filler * (4096 // len(filler)))
            parts.append("y" * shift)  # the edge lands at a different place in each copy
            parts.append(separator + secret + separator)
    return "".join(parts)


@pytest.mark.parametrize("separator", ["\n", "; "], ids=["lines", "one line"])
def test_secrets_across_window_edges_are_hidden_as_in_one_window(monkeypatch, separator):
    """Cut into 4 KB windows (at line breaks, or anywhere on one long line), the text
    comes out exactly as from one window: same edits, same count."""
    text = _text_across_edges(separator)
    whole = redact(text)
    monkeypatch.setattr(secrets_package, "WINDOW", 4096)
    assert len(text) > 40 * 4096
    assert redact(text) == whole
    assert whole[1] >= len(SECRETS) * 20 and "Tr0ub4dor" not in whole[0] and PEM_BODY[1] not in whole[0]


def test_no_rule_reads_more_than_one_window(monkeypatch):
    """A 2 MB line is read in windows of at most WINDOW + 2 * OVERLAP characters, each
    character about once (the overlaps aside): no regex call holds the interpreter long."""
    seen: list[int] = []

    def counting(data: bytes):
        seen.append(len(data))
        return SCAN(data)

    monkeypatch.setattr(secrets_package, "scan", counting)
    text = "password=" * (2 * 1024 * 1024 // 9)
    redact(text)
    assert max(seen) <= WINDOW + 2 * OVERLAP
    assert sum(seen) <= len(text) * (1 + 2 * OVERLAP / WINDOW) + 2 * OVERLAP


@pytest.mark.parametrize(
    "unit", ["password=", "{token:a,secret:b}", "-----BEGIN PRIVATE KEY-----", '"\\\\"', "a", "key ", 'key_id" == ', "="]
)
def test_the_work_grows_in_proportion_to_the_text(monkeypatch, unit):
    """Doubling an adversarial text doubles the bytes the rules read (give or take a
    window's overlap): linear, whatever the text holds."""
    seen: list[int] = []

    def counting(data: bytes):
        seen.append(len(data))
        return SCAN(data)

    monkeypatch.setattr(secrets_package, "scan", counting)
    read = []
    for size in (512 * 1024, 1024 * 1024, 2 * 1024 * 1024):
        seen.clear()
        redact((unit * (size // len(unit) + 1))[:size])
        read.append(sum(seen))
    assert read[1] <= 2 * read[0] + 2 * OVERLAP and read[2] <= 2 * read[1] + 2 * OVERLAP


def test_a_window_with_more_candidates_than_its_budget_is_hidden_from_there(small_windows):
    """A file made of secrets (more candidates in a window than the rules may weigh one
    by one) comes out hidden from the first one not weighed, its lines kept."""
    line = "password=Qx7pLm2Zr9{}\n"
    text = "".join(line.format(n) for n in range(4 * DECISIONS))
    out, count = redact(text)
    assert out.count("\n") == text.count("\n") and count >= 1
    assert "Qx7pLm2Zr9" not in out


def _random_strings(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(string.ascii_letters + string.digits) for _ in range(32)) for _ in range(count)]


def test_a_secret_another_rule_finds_before_the_cut_is_hidden():
    """A single-quoted random string, then more double-quoted ones than the budget
    weighs: the budget runs out on the second kind, and the first is hidden all the
    same (each pattern hands its candidates in order; the cut lies past them)."""
    secret, *others = _random_strings(2 * DECISIONS, seed=34)
    text = f"blob = '{secret}'\n" + "".join(f'x{n} = "{value}"\n' for n, value in enumerate(others))
    out, _ = redact(text)
    assert secret not in out and out.count("\n") == text.count("\n")


@pytest.mark.parametrize("flood", ["key ", "password: ", 'key="', "key_id?"])
def test_a_window_with_more_keywords_than_its_budget_is_hidden_from_there(flood):
    """A secret, then a keyword more times than a window may try its patterns on: the
    secret is hidden, and so is the flood from where the budget ran out (line breaks
    kept); no rule run after the cut misses what lies before it."""
    secret = _random_strings(1, seed=4)[0]
    flood_line = flood * 64 + "\n"
    text = f"blob = '{secret}'\n" + flood_line * (2 * HITS * len(flood) // len(flood_line) + 1)
    out, count = redact(text)
    assert secret not in out and count >= 2
    assert out.count("\n") == text.count("\n") and out.endswith(MARKER + "\n" * out.count("\n", out.rindex(MARKER)))


def test_keywords_as_dense_as_in_real_code_are_weighed_one_by_one():
    """A keyword every 100 bytes across whole windows (nearly as dense as the densest
    file measured, one every 87 bytes, and six times as many as any window of real code
    holds) is weighed one by one, nothing cut: only the secret is hidden."""
    line = "    result = compute_total(values, scale=2, offset=base.offset + step)  # the cached entry's key\n"
    body = line * (WINDOW // len(line))
    text = body + 'password = "Qx7pLm2Zr9"\n' + body
    out, count = redact(text)
    assert count == 1 and out == text.replace("Qx7pLm2Zr9", MARKER)


def test_a_window_whose_values_weigh_more_than_its_budget_is_hidden_from_there():
    """Long credentials one after another (`Authorization:` and 2 KB each): weighed
    until their bytes pass the budget, the rest of the window hidden, lines kept."""
    values = [value * 62 + "9" for value in _random_strings(2, seed=5)]  # 1,985 characters each
    lines = [f"Authorization: {values[n % 2]}\n" for n in range(4 * WEIGHED // 2000)]
    out, _ = redact("".join(lines))
    assert not any(value in out for value in values) and out.count("\n") == len(lines)


def test_text_without_line_breaks_in_many_windows_keeps_its_characters():
    """Non-ASCII text across window edges comes back unchanged, character for character."""
    text = ("密码 🔑 ünïcödé " * 40000)[: WINDOW * 3]
    assert redact(text) == (text, 0)


def test_a_marker_is_what_replaces_a_secret():
    assert redact("token = gh" + "p_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")[0] == f"token = {MARKER}"
