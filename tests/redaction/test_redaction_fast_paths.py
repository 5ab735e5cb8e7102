"""The redaction engine's shortcuts (#19) give exactly what the long way gives.

* Each detector on its own, and only those that may start at the position (``gate``), instead of
  one alternation of all detectors: at every candidate position of the labelled corpora and of
  hostile random texts, the first that matches is what the combined alternation matches (same
  span, same detector, same groups); and wherever any detector matches, the gate names it.
* The native scan's "no literal ``pre``" answer: when hyperscan says a text holds no literal
  ``pre`` (``eyJ``), the ``str.find`` it lets ``candidates`` skip would indeed have found nothing.
  And the anchor each scan reports at a position (``gate`` reads it) is the anchor trie's match
  there, native or not.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from redaction_support import FRAGMENT, NEGATIVE, PERSONAL, POSITIVE, load_jsonl, load_redact

redact_mod = load_redact()
engine = redact_mod.engine
Redactor = redact_mod.Redactor

_EXAMPLES = int(os.environ.get("REDACTION_PROPERTY_EXAMPLES", "30"))
SETTINGS = settings(max_examples=_EXAMPLES * 10, deadline=None, derandomize=_EXAMPLES <= 30,
                    suppress_health_check=[HealthCheck.too_slow], database=None)

CORPUS = [c["text"] for path in (POSITIVE, NEGATIVE, PERSONAL) for c in load_jsonl(path)]


TEXTS = st.lists(FRAGMENT, max_size=40).map("".join)


# ---------------------------------------------------------------------------
# Each detector on its own, only those that may start at the position
# ---------------------------------------------------------------------------

def _combined(dets: list) -> re.Pattern[str]:
    """The single alternation of all detectors the engine used before, built from the table as it
    built it: per first character, its detectors in table order (same group names)."""
    groups: dict[str, list[str]] = {}
    for di, det in enumerate(dets):
        for ch in dict.fromkeys(det.first):
            pfx = f"d{di}c{ord(ch)}_"
            groups.setdefault(ch, []).append(f"(?P<{pfx}>{det.lb or ''}{det.rest.replace('@@', pfx)})")
    return re.compile("|".join(re.escape(ch) + "(?:" + "|".join(alts) + ")" for ch, alts in groups.items()),
                      engine._FLAGS)


_COMPILED = {personal: engine._compiled(personal, ()) for personal in (False, True)}
_COMBINED = {personal: _combined(engine._DETECTORS + (engine._PERSONAL if personal else []))
             for personal in (False, True)}


def _gated(c, text: str, p: int, words: dict[int, bytes], scanned: frozenset[int]) -> list:
    """The (detector, prefix) pairs ``gate`` names at ``p``, given the anchor ``scan`` found there,
    which must be the anchor trie's match at ``p``."""
    word = c.any_anchor.match(text.encode("ascii", "replace").lower(), p)
    assert words.get(p) == (word.group() if word is not None else None)
    gated = c.gate(text[p], words.get(p), p in scanned)
    assert all(rx is c.single(text[p], det, pfx) for det, pfx, rx in gated)
    return [(det, pfx) for det, pfx, _rx in gated]


def _same_first_match_at_candidates(text: str, personal: bool) -> None:
    """At every candidate position, the first of the gated detectors that matches on its own is the
    combined alternation's match: same span, same detector, same groups."""
    c, combined = _COMPILED[personal], _COMBINED[personal]
    cands, words, scanned = c.scan(text)
    for p in cands:
        want = combined.match(text, p)
        got = None
        for det, pfx in _gated(c, text, p, words, scanned):
            got = c.single(text[p], det, pfx).match(text, p)
            if got is not None:
                break
        assert (want is None) == (got is None), (text[max(0, p - 40):p + 80], p)
        if want is None:
            continue
        assert got.lastgroup == want.lastgroup and got.span() == want.span(), (text[p:p + 80], p)
        pfx = want.lastgroup
        assert {k: got.span(k) for k in got.re.groupindex if k.startswith(pfx)} == \
            {k: want.span(k) for k in want.re.groupindex if k.startswith(pfx)}


def _no_detector_gated_out(text: str, personal: bool) -> int:
    """Wherever any detector matches on its own, the position is a candidate and the detector is
    among those ``gate`` names there (the prefilter contract the gating relies on); the number of
    such matches."""
    c = _COMPILED[personal]
    cands, words, scanned = c.scan(text)
    cand_set = set(cands)
    n = 0
    for p, ch in enumerate(text):
        for det, pfx in c.alts.get(ch, ()):
            if c.single(ch, det, pfx).match(text, p) is None:
                continue
            n += 1
            assert p in cand_set, (det.cls, text[max(0, p - 40):p + 80])
            assert (det, pfx) in _gated(c, text, p, words, scanned), (det.cls, text[max(0, p - 40):p + 80])
    return n


@pytest.mark.parametrize("personal", [False, True], ids=["default", "personal"])
def test_gated_detectors_match_as_the_combined_regex_on_the_corpora(personal):
    for text in CORPUS:
        _same_first_match_at_candidates(text, personal)


def test_no_detector_is_gated_out_on_the_corpora():
    assert sum(_no_detector_gated_out(text, True) for text in CORPUS) > 700


@SETTINGS
@given(text=TEXTS, personal=st.booleans())
@example(text=" the token budget is set", personal=False)
@example(text='<password encrypted="no">x', personal=False)
@example(text="\\u0026sk-proj-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5", personal=False)
def test_gated_detectors_match_as_the_combined_regex_on_hostile_text(text, personal):
    _same_first_match_at_candidates(text, personal)
    _no_detector_gated_out(text, personal)


# ---------------------------------------------------------------------------
# The native scan's "no literal pre here"
# ---------------------------------------------------------------------------

try:
    import hyperscan
except ImportError:
    hyperscan = None
needs_hyperscan = pytest.mark.skipif(hyperscan is None, reason="hyperscan not installed (requirements-fast.txt)")


def _assert_flag_sound(text: str, personal: bool) -> None:
    c = _COMPILED[personal]
    low = text.encode("ascii", "replace").lower()
    starts, more = c.native.starts(low)
    assert starts == _pure_anchor_starts(c, low)  # the same positions, each with the same anchor
    if not more:
        assert all(word not in text for word, _lo, _hi in c.pre_words), text


def _pure_anchor_starts(c, low: bytes) -> dict[int, bytes]:
    before = engine.NATIVE_ANCHORS
    engine.NATIVE_ANCHORS = False
    try:
        return c.anchor_starts(low)[0]
    finally:
        engine.NATIVE_ANCHORS = before


@needs_hyperscan
@pytest.mark.parametrize("personal", [False, True], ids=["default", "personal"])
def test_native_no_pre_answer_is_sound_on_the_corpora(personal):
    for text in CORPUS:
        _assert_flag_sound(text, personal)


@needs_hyperscan
@SETTINGS
@given(text=TEXTS, personal=st.booleans())
@example(text="xeyJ", personal=False)
@example(text="İeyJhbGciOiJIUzI1NiJ9", personal=False)
def test_native_no_pre_answer_is_sound_on_hostile_text(text, personal):
    _assert_flag_sound(text, personal)


@needs_hyperscan
@pytest.mark.parametrize("text", ["eyJ", "a eyJhbGciOiJIUzI1NiJ9", "token eyJ", "EYJ"])
def test_native_scan_reports_a_pre_word(text):
    """The answer is not simply always "none here"."""
    assert _COMPILED[False].native.starts(text.encode("ascii", "replace").lower())[1]


# ---------------------------------------------------------------------------
# The keyword check's shortcut for `key <blank> value` prose
# ---------------------------------------------------------------------------

checks = redact_mod.checks
detectors = redact_mod.detectors
markup = redact_mod.markup


def _reference_keyword_check(text: str, s: int, e: int, m: re.Match[str], p: str):
    """The keyword detectors' check as it was before the shortcut: the shared check always asked."""
    kw = text[m.start()] + m.group(p + "kw0")
    if m.start(p + "qv") < 0 and m.start(p + "uv") < 0:
        em = markup._ELEMENT_RE.match(text, m.end(p + "kw0"))
        if em is not None:
            return markup._element_check(text, em, m.start(), kw)
        pm = markup._PLIST_RE.match(text, m.end(p + "kw0"))
        if pm is not None:
            return markup._plist_check(text, pm, m.start(), kw)
        return markup._attribute_check(text, m.start(), kw, text[m.end(p + "kw0"):e], e)
    r = checks._generic_check_kw(text, s, e, m, p, kw)
    if r is None and m.group(p + "ws") is not None:
        ki = m.start() - len(detectors._key_name(text, m.start()))
        before = text[ki - 1:ki]
        if m.group(p + "kq") is not None:
            if before in markup._ATTR_OPEN:
                return markup._attribute_check(text, m.start(), kw, m.group(p + "kq"), m.end(p + "kq"))
        elif before in markup._TAG_OPEN:
            em = markup._ELEMENT_RE.match(text, m.end(p + "kw0"))
            if em is not None:
                return markup._element_check(text, em, m.start(), kw)
    return r


def _same_keyword_checks(text: str) -> int:
    """At every position, each keyword detector that matches there on its own gets the same answer
    from its check as from the reference, and its ``reject`` shortcut rejects only what the
    reference rejects; the number of matches compared."""
    c = _COMPILED[False]
    n = 0
    for p, ch in enumerate(text):
        for det, pfx in c.alts.get(ch, ()):
            if det.cls != "secret" or "kw0" not in det.rest:
                continue
            m = c.single(ch, det, pfx).match(text, p)
            if m is None:
                continue
            for name in det.secret:
                s, e = m.span(pfx + name)
                if s >= 0:
                    break
            n += 1
            want = _reference_keyword_check(text, s, e, m, pfx)
            assert det.check(text, s, e, m, pfx) == want, text[p:p + 80]
            if det.reject(text, m, pfx):  # the engine's shortcut before the check
                assert want is None, text[p:p + 80]
    return n


def test_keyword_shortcut_agrees_on_the_corpora():
    assert sum(_same_keyword_checks(text) for text in CORPUS) > 200


PROSE = st.lists(st.one_of(
    FRAGMENT,
    st.sampled_from(["token ", "session ", "password ", "--password ", "-token ", "pass\t", "api_key ",
                     "aws configure set ", "git config --global ", "setx ", "\nENV ", "\\nENV ", "set -x ",
                     '<password encrypted="no">', 'name="password" value="', "<", ";", ":", "//", "::", "$env:"]),
), max_size=30).map("".join)


@SETTINGS
@given(text=PROSE)
@example(text="aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY")
@example(text="the session token budget is spent")
@example(text="mysql --password hunter22 db")
@example(text='<add key="password" value="x"/>')
def test_keyword_shortcut_agrees_on_hostile_text(text):
    _same_keyword_checks(text)
