"""Head+tail truncation, and redaction-before-truncation."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cleaner_runtime.redaction import Redactor
from cleaner_runtime.truncate import truncate_head_tail as truncate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "redaction"))

from redaction_support import leaks

MARKER_RE = re.compile(r"\n\[\.\.\. (\d+) characters truncated \.\.\.\]\n")


def _split(out: str) -> tuple[str, int, str]:
    m = MARKER_RE.search(out)
    assert m, out
    return out[:m.start()], int(m.group(1)), out[m.end():]


def test_short_text_unchanged():
    assert truncate("hello", 100) == "hello"
    assert truncate("x" * 100, 100) == "x" * 100
    assert truncate("", 100) == ""


def test_keeps_head_and_tail_with_marker():
    text = "".join(f"line {i:05d}\n" for i in range(5000))
    out = truncate(text, 1000)
    assert len(out) <= 1000
    head, removed, tail = _split(out)
    assert text.startswith(head) and text.endswith(tail)
    assert removed == len(text) - len(head) - len(tail)
    assert len(head) > len(tail) > 0
    assert abs(len(head) - 2 * len(tail)) <= 3  # roughly 2/3 head, 1/3 tail
    assert len(out) >= 1000 - 3  # uses (almost) the whole budget


@pytest.mark.parametrize("limit", [100, 101, 150, 999, 1000, 1001, 4096])
@pytest.mark.parametrize("n", [1001, 1500, 10_000, 123_457])
def test_respects_limit_exactly(limit, n):
    text = "abcdefghij" * (n // 10) + "k" * (n % 10)
    out = truncate(text, limit)
    if n <= limit:
        assert out == text
    else:
        assert len(out) <= limit
        head, removed, tail = _split(out)
        assert removed == n - len(head) - len(tail)


@pytest.mark.parametrize("limit", [-5, 0, 1, 2, 5, 10, 30, 49])
def test_tiny_limits_behave(limit):
    text = "0123456789" * 50
    out = truncate(text, limit)
    assert len(out) <= max(limit, 0)
    if limit >= 2:
        assert out.startswith("0")
        assert "\u2026" in out or MARKER_RE.search(out)
    if limit >= 3:
        assert out.endswith("9")
    if limit == 1:
        assert out == "\u2026"
    if limit <= 0:
        assert out == ""


def test_never_splits_surrogate_pairs():
    pair = "\ud83d\ude00"  # an emoji as two code points (surrogatepass data)
    text = pair * 500
    for limit in range(100, 140):
        out = truncate(text, limit)
        assert len(out) <= limit
        head, _, tail = _split(out)
        assert len(head) % 2 == 0 and len(tail) % 2 == 0
        assert out.encode("utf-16", "surrogatepass").decode("utf-16")  # still pairs


def test_never_splits_placeholders():
    text = "word [REDACTED:github-token] " * 200
    for limit in range(100, 180):
        out = truncate(text, limit)
        head, _, tail = _split(out)
        for part in (head, tail):
            assert part.count("[REDACTED:") == part.count("]")
            assert not re.search(r"REDACTED:[a-z-]*$", part) and not re.match(r"^[a-z-]*\]", part)


def test_non_ascii_text():
    text = "中文字符" * 1000 + "é" * 1000
    out = truncate(text, 300)
    assert len(out) <= 300
    head, _, tail = _split(out)
    assert text.startswith(head) and text.endswith(tail)


def test_redaction_before_truncation_leaves_no_half_secret():
    key = "sk-ant-api03-" + "Ab3De5Fg7Hj9Kl1Mn3Pq5Rs7Tu9Vw1Xy3Za5Bc7De9Fg1Hi3Jk5Lm7No9Pq1Rs3Tu5Vw7" + "AA"
    filler = "x" * 97
    for offset in range(0, 200, 7):
        text = "a" * offset + f"ANTHROPIC_API_KEY={key}\n" + filler * 3
        for limit in (100, 128, 160):
            out = truncate(Redactor().redact(text), limit)
            assert len(out) <= limit
            assert not leaks(key, out)
    # whereas truncating first can leave a readable half: the reason for the order
    cut = truncate("a" * 40 + key + "b" * 300, 120)
    assert leaks(key, cut)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(text=st.text(max_size=3000), limit=st.integers(min_value=-3, max_value=3000))
def test_truncate_properties(text, limit):
    out = truncate(text, limit)
    assert len(out) <= max(limit, 0)
    if len(text) <= limit:
        assert out == text
    elif limit >= 100:
        head, removed, tail = _split(out)
        assert text.startswith(head) and text.endswith(tail)
        assert removed == len(text) - len(head) - len(tail)
