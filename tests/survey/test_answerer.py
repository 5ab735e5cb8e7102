"""The benchmark's scripted answerer (benchmarks/bench_generality.py): it picks the choice whose
output holds the expected record where the choices differ, and nothing when none does."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from benchmarks.bench_generality import Target, answer
from generator.choices import describe
from generator.infer.trial import Trial

META = {"role": "meta", "source": "x"}
USER = {"role": "user", "content": "Is the export broken?"}
AS_USER = {"role": "user", "content": "Looking now."}
AS_ASSISTANT = {"role": "assistant", "content": "Looking now."}
NOISE = {"role": "user", "content": "heartbeat 42"}


def _line(record: dict) -> bytes:
    return json.dumps(record, separators=(",", ":")).encode()


def _target(*expected: dict) -> Target:
    return Target("case", Path("."), "x", lambda data, _: data, Counter(map(_line, expected)),
                  lambda out: (False, ""))


def _offered(*outputs: list[dict]):
    return describe("k", [(f"v{n}", None, Trial(0, {"s.jsonl": records})) for n, records in enumerate(outputs)])


def test_the_choice_writing_the_expected_record_is_picked_even_when_not_first():
    offered = _offered([META, USER, AS_USER], [META, USER, AS_ASSISTANT])
    assert answer(_target(META, USER, AS_ASSISTANT), offered).value == "v1"


def test_no_choice_writing_the_expected_record_means_no_answer():
    offered = _offered([META, USER, AS_USER], [META, USER, {"role": "reasoning", "content": "Looking now."}])
    assert answer(_target(META, USER, AS_ASSISTANT), offered) is None


def test_a_choice_writing_nothing_where_the_others_write_the_unexpected_is_picked():
    # neither output is the whole expected one (a later question settles the reply); at the first
    # difference, v0 writes noise the expected output lacks and v1 writes nothing: v1 is closer
    offered = _offered([META, USER, NOISE], [META, USER])
    assert offered.position == ("s.jsonl", 2)
    assert answer(_target(META, USER, AS_ASSISTANT), offered).value == "v1"
