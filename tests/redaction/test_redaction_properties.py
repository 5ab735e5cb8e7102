"""Property tests: a secret of every class never survives redaction.

The secret (in its minimal context, e.g. ``DB_PASSWORD=<s>`` for generic
passwords) is placed anywhere inside random surrounding text, separated from
it by a realistic delimiter, and the whole thing is redacted raw, as
``json.dumps`` of the string, of a dict holding it, and JSON-escaped twice.
No 8+ character window of the secret (raw or escaped) may survive.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redaction_support import ALL_FORM_CLASSES, EveryPosition, leaks, load_redact, load_truncate, make_form

redact_mod = load_redact()
truncate_head_tail = load_truncate().truncate_head_tail
Redactor = redact_mod.Redactor

# REDACTION_PROPERTY_EXAMPLES=500 runs a longer, randomised search (the
# default keeps the whole redaction suite well under a minute, reproducibly).
_EXAMPLES = int(os.environ.get("REDACTION_PROPERTY_EXAMPLES", "30"))
SETTINGS = settings(
    max_examples=_EXAMPLES,
    deadline=None,
    derandomize=_EXAMPLES <= 30,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)

# Surrounding text: prose, code and log characters plus some non-ASCII.
ALPHABET = st.sampled_from(
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    + list(" \n\t.,;:!?()[]{}<>'\"`/\\|-_=+*&^%$#@~")
    + ["é", "ü", "中", "文", "€", "\u00a0", "\U0001f600", "\u2028"]
)
SURROUND = st.text(alphabet=ALPHABET, max_size=80)
LEFT = st.sampled_from([" ", "\n", "\t", "(", "[", "{", '"', "'", "`", ",", ";", "|", ">", "\r\n", " = ",
                        "\u00a0", "\u3000", "\n\n"])
RIGHT = st.sampled_from([" ", "\n", "\t", '"', "'", "`", ",", ";", "\r\n", " |", "\n}", " ..."])


def encodings(text: str) -> dict[str, str]:
    return {
        "raw": text,
        "dumps": json.dumps(text),
        "dumps-ascii-off": json.dumps(text, ensure_ascii=False),
        "dict": json.dumps({"role": "tool", "content": text, "meta": {"n": 1}}),
        "nested": json.dumps(json.dumps(text)),
        "nested-dict": json.dumps({"arguments": json.dumps({"command": text})}),
    }


def _check(cls: str, seed: int, prefix: str, suffix: str, left: str, right: str) -> None:
    snippet, secret = make_form(cls, random.Random(seed))
    text = prefix + left + snippet + right + suffix
    around = "\n".join(encodings(prefix + left).values()) + "\n".join(encodings(right + suffix).values())
    for name, enc in encodings(text).items():
        r = Redactor()
        out = r.redact(enc)
        surviving = leaks(secret, out, ignore=around)
        assert not surviving, (cls, name, surviving, out)
        assert sum(r.counts.values()) >= 1
        if name != "raw":
            json.loads(out)  # escaped JSON stays valid


@pytest.mark.parametrize("cls", ALL_FORM_CLASSES)
@SETTINGS
@given(seed=st.integers(0, 2**32), prefix=SURROUND, suffix=SURROUND, left=LEFT, right=RIGHT)
def test_secret_never_survives(cls, seed, prefix, suffix, left, right):
    _check(cls, seed, prefix, suffix, left, right)


@SETTINGS
@given(seed=st.integers(0, 2**32), data=st.data())
def test_many_secrets_in_one_text(seed, data):
    rng = random.Random(seed)
    classes = data.draw(st.lists(st.sampled_from(ALL_FORM_CLASSES), min_size=2, max_size=6))
    parts, secrets = [], []
    for cls in classes:
        snippet, secret = make_form(cls, rng)
        parts.append(data.draw(SURROUND) + "\n" + snippet + "\n")
        secrets.append(secret)
    text = "".join(parts)
    around = text
    for secret in secrets:
        around = around.replace(secret, "\x00")
    around = "\n".join(encodings(around).values())
    for name, enc in encodings(text).items():
        out = Redactor().redact(enc)
        for secret in secrets:
            assert not leaks(secret, out, ignore=around), (name, secret, out)


@SETTINGS
@given(text=st.text(max_size=300))
def test_idempotent_and_total_on_arbitrary_text(text):
    r = Redactor(personal_data=True)
    once = r.redact(text)
    assert r.redact(once) == once
    assert isinstance(once, str)
    for enc in (json.dumps(text), json.dumps({"k": text})):
        out = Redactor().redact(enc)
        assert isinstance(json.loads(out), (str, dict))


@SETTINGS
@given(prefix=SURROUND, suffix=SURROUND, seed=st.integers(0, 2**32))
def test_redact_then_truncate_leaves_no_half_secret(prefix, suffix, seed):
    rng = random.Random(seed)
    snippet, secret = make_form(rng.choice(ALL_FORM_CLASSES), rng)
    text = prefix + "\n" + snippet + "\n" + suffix
    red = Redactor().redact(text)
    for limit in (100, 150, 300, len(red) // 2 + 1):
        out = truncate_head_tail(red, limit)
        assert len(out) <= limit
        assert not leaks(secret, out, ignore=prefix + "\n" + suffix)


# ---------------------------------------------------------------------------
# The prefilter is exact: trying every detector at every position finds
# exactly what the anchor/run candidates and the gated detectors find.
# ---------------------------------------------------------------------------

def _bruteforce(personal: bool = False):
    r = Redactor(personal_data=personal)
    r._c = EveryPosition(r._c)
    return r


def _same(text: str, personal: bool = False) -> None:
    fast = Redactor(personal_data=personal).redact(text)
    slow = _bruteforce(personal).redact(text)
    assert fast == slow, (text, fast, slow)


def test_prefilter_is_exact_on_the_corpus():
    from redaction_support import NEGATIVE, PERSONAL, POSITIVE, load_jsonl

    for path, personal in ((POSITIVE, False), (NEGATIVE, False), (PERSONAL, True)):
        for case in load_jsonl(path):
            _same(case["text"], personal)
            _same(json.dumps(case["text"]), personal)


@SETTINGS
@given(seed=st.integers(0, 2**32), prefix=SURROUND, suffix=SURROUND, left=LEFT, right=RIGHT,
       personal=st.booleans())
def test_prefilter_is_exact_on_random_text(seed, prefix, suffix, left, right, personal):
    rng = random.Random(seed)
    snippet, _secret = make_form(rng.choice(ALL_FORM_CLASSES), rng)
    text = prefix + left + snippet + right + suffix
    for enc in encodings(text).values():
        _same(enc, personal)
