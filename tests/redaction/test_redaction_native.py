"""The optional native anchor search (hyperscan, #19) changes nothing but speed.

With hyperscan installed, ``Redactor`` finds the start anchors with hyperscan's literal matcher
instead of one ``re`` search; these tests redact the same texts with the native path on and off
(``engine.NATIVE_ANCHORS``) and require identical candidate positions, output text and counts:
over the labelled corpora, the realistic trace text ``benchmarks/bench_redaction.py`` times (with
and without corpus secrets), and random texts mixing anchors, escapes and unicode. They skip when
hyperscan is missing; the tests of the switch and of the fallbacks run either way.

The last test pins the other speed-up of #19, in pure Python: the keyword check's search for a
setting command (``aws configure set``) is skipped on lines holding none of its words.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "benchmarks"))

from bench_redaction import realistic_trace, with_secrets
from redaction_support import (
    ALL_FORM_CLASSES,
    FRAGMENT,
    NEGATIVE,
    PERSONAL,
    POSITIVE,
    load_jsonl,
    load_redact,
    make_form,
)

redact_mod = load_redact()
engine = redact_mod.engine
Redactor = redact_mod.Redactor

try:
    import hyperscan
except ImportError:
    hyperscan = None
needs_hyperscan = pytest.mark.skipif(hyperscan is None, reason="hyperscan not installed (requirements-fast.txt)")

_EXAMPLES = int(os.environ.get("REDACTION_PROPERTY_EXAMPLES", "30"))
SETTINGS = settings(max_examples=_EXAMPLES * 10, deadline=None, derandomize=_EXAMPLES <= 30,
                    suppress_health_check=[HealthCheck.too_slow], database=None)
CONFIGS = [{}, {"personal_data": True}, {"extra_patterns": {"ticket": r"(?i)tkt-[0-9]{6}"}, "allowlist": ["hunter2"]}]


@contextmanager
def native(on: bool) -> Iterator[None]:
    """The native anchor search allowed or not, for the duration of the block."""
    before = engine.NATIVE_ANCHORS
    engine.NATIVE_ANCHORS = on
    try:
        yield
    finally:
        engine.NATIVE_ANCHORS = before


def redact_all(texts: list[str], on: bool, **kw) -> tuple[list[str], dict[str, int], list[list[int]]]:
    """Outputs, total counts and candidate positions of one Redactor over ``texts``."""
    with native(on):
        r = Redactor(**kw)
        outs = [r.redact(t) for t in texts]
        cands = [r._c.candidates(t) for t in texts]
    return outs, dict(r.counts), cands


def assert_same(texts: list[str], **kw) -> None:
    """Native and pure paths agree on every text: candidates, outputs, counts."""
    pure_out, pure_counts, pure_cands = redact_all(texts, False, **kw)
    fast_out, fast_counts, fast_cands = redact_all(texts, True, **kw)
    for text, a, b in zip(texts, pure_cands, fast_cands, strict=True):
        assert a == b, text[:200]
    for text, a, b in zip(texts, pure_out, fast_out, strict=True):
        assert a == b, text[:200]
    assert pure_counts == fast_counts


# ---------------------------------------------------------------------------
# Equivalence (needs hyperscan)
# ---------------------------------------------------------------------------

@needs_hyperscan
@pytest.mark.parametrize("personal", [False, True])
def test_native_path_is_built_when_hyperscan_is_installed(personal):
    """Otherwise the equivalence tests below would compare the pure path with itself."""
    assert engine._compiled(personal, ()).native is not None


@needs_hyperscan
@pytest.mark.parametrize("kw", CONFIGS, ids=["default", "personal", "extra-allowlist"])
def test_corpus_identical_native_and_pure(kw):
    texts = [c["text"] for path in (POSITIVE, NEGATIVE, PERSONAL) for c in load_jsonl(path)]
    assert_same(texts, **kw)


@needs_hyperscan
@pytest.mark.parametrize("kw", CONFIGS[:2], ids=["default", "personal"])
def test_benchmark_trace_identical_native_and_pure(kw):
    """The realistic trace text bench_redaction.py times, per message and as one string."""
    rng = random.Random(7)
    clean = realistic_trace(rng, target=300_000)
    dirty = with_secrets(rng, clean)
    assert_same(clean + dirty + ["\n".join(dirty)], **kw)


@needs_hyperscan
@SETTINGS
@given(parts=st.lists(FRAGMENT, max_size=40), personal=st.booleans())
def test_random_mixtures_identical_native_and_pure(parts, personal):
    assert_same(["".join(parts)], personal_data=personal)


@needs_hyperscan
@SETTINGS
@given(cls=st.sampled_from(ALL_FORM_CLASSES), seed=st.integers(0, 2**32),
       before=st.lists(FRAGMENT, max_size=8), after=st.lists(FRAGMENT, max_size=8))
def test_secret_forms_in_mixtures_identical_native_and_pure(cls, seed, before, after):
    snippet, _secret = make_form(cls, random.Random(seed))
    text = "".join(before) + " " + snippet + " " + "".join(after)
    assert_same([text, text.replace('"', '\\"'), text.replace("\n", "\\n")])


# ---------------------------------------------------------------------------
# The switch and the fallbacks (run with or without hyperscan)
# ---------------------------------------------------------------------------

class _Refusing:
    """A native matcher whose every scan is refused (as when hyperscan's scratch is in use)."""

    calls = 0

    def starts(self, low: bytes) -> None:  # None: "search with re instead"
        _Refusing.calls += 1


class _Exploding:
    """A native matcher that must never be asked."""

    def starts(self, low: bytes) -> list[int]:
        raise AssertionError("native search used although NATIVE_ANCHORS is False")


def _fresh_compiled(native_stub) -> object:
    c = engine._Compiled(list(engine._DETECTORS), ())
    c.native = native_stub
    return c


TEXT = 'I\'ll check how the session token stream works. export GITHUB_TOKEN="ghp_' + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" + '"'


def test_refused_native_scan_falls_back_to_the_same_positions():
    expected = engine._Compiled(list(engine._DETECTORS), ())
    with native(False):
        want = expected.candidates(TEXT)
    with native(True):
        got = _fresh_compiled(_Refusing()).candidates(TEXT)
    assert got == want and _Refusing.calls == 1


def test_switch_off_never_asks_the_native_matcher():
    with native(False):
        assert _fresh_compiled(_Exploding()).candidates(TEXT) == engine._Compiled(list(engine._DETECTORS), ()).candidates(TEXT)


def test_without_hyperscan_the_pure_path_is_used(monkeypatch):
    monkeypatch.setattr(engine, "_hs", None)
    c = engine._Compiled(list(engine._DETECTORS), ())
    assert c.native is None
    with native(True):
        assert c.candidates(TEXT)  # the anchors are still found, by re


def test_environment_variable_forces_the_pure_path():
    code = "from cleaner_runtime.redaction import engine; print(engine.NATIVE_ANCHORS)"
    env = {**os.environ, engine.PURE_ENV: "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         cwd=HERE.parents[1])
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------
# The keyword check's shortcut (pure Python, runs always)
# ---------------------------------------------------------------------------

SET_CMD_TEXT = st.lists(st.one_of(
    st.sampled_from(["set", "SeT", "setx", "set -x", "set-item env:", "config", "CONFIGURE set", "git config --global",
                     "env", "ENV", "\nENV", "\n  Env", "\\nENV", "\\n\tENV", " -g", "aws ", "x", "=", "ſet", "ſ", "K",
                     "İ", "é", "\u212a"]),
    st.text(alphabet="setnvcofigurSETNVCOFIGUR -\t\n", max_size=6),
    st.sampled_from([" ", "\t", "\n"])), max_size=20).map("".join)


@SETTINGS
@given(text=SET_CMD_TEXT, cut=st.one_of(st.just(10**6), st.integers(0, 200)), back=st.integers(0, 200))
@example(text="run: setx ", cut=10**6, back=200)  # one match per word the shortcut looks for
@example(text="RUN set -e\nENV ", cut=10**6, back=4)
@example(text="git config --global ", cut=10**6, back=200)
def test_set_command_shortcut_agrees_with_the_regex(text, cut, back):
    checks = redact_mod.checks
    end = min(cut, len(text))
    start = max(0, end - back)
    assert checks._set_command_before(text, start, end) == (checks._SET_CMD_RE.search(text, start, end) is not None)


@SETTINGS
@given(text=SET_CMD_TEXT, ki=st.integers(0, 400))
@example(text="x" * 130 + "\n" + "set -x " * 3, ki=150)  # a line break inside the 120-character window
@example(text="config set " + "x" * 200, ki=211)  # the command before the window does not count
@example(text="setx " + "y" * 115, ki=120)  # the command at the window's first character counts
@example(text="setx " + "y" * 116, ki=121)  # ... and one character before it does not
@example(text="-", ki=0)
def test_blank_value_rejection_is_the_rule_as_written(text, ki):
    """``_blank_value_rejected`` finds the key's line (and its 120-character cap) with branches, not
    max(): it answers as the rule written with max() and the regex does."""
    checks = redact_mod.checks
    ki = min(ki, len(text))
    line = max(text.rfind("\n", max(0, ki - 120), ki) + 1, ki - 120, 0)
    want = not text.startswith("-", ki) and checks._SET_CMD_RE.search(text, line, ki) is None
    assert checks._blank_value_rejected(text, ki) == want
