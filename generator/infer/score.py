"""How good a candidate mapping's output is, measured on what its cleaner wrote for the samples.

Why: inference guesses each part of a mapping from the samples' structure; the guesses interact
(a kind read as reasoning writes its text twice when another kind already wrote it), and only the
output shows it. Every candidate is scored the same way, so candidates can be compared.

Contract: ``score(trial, mapping, samples)`` returns a ``Score``. Its ``key`` orders candidates,
best first, by tiers: a cleaner that fails, then text of the samples that reaches no output and
calls or results dropped, then text written twice, then sessions without both a user and an
assistant record, then times not read from the records and results linked by position rather
than by id, then the mapping's size (fewer rules preferred). ``hard`` is the part of the key that
alone may decide between candidates whose outputs differ; the rest only breaks ties in favour of
the inferred mapping, never over a person's answer (``decide``).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass

from generator.infer.losses import (
    LOSING_SKIPS,
    _output_text,
    _raw_records,
    _squash,
    _windows,
    call_words,
    is_prose,
    prose_fields,
    restates_calls,
)
from generator.infer.trial import Samples, Trial

FALLBACK_TIMES = "timestamps from the session fallback"
POSITION_LINKS = "results linked to the oldest unanswered call"
_RENAMED = re.compile(r"^(?P<id>.+)__\d+$")  # the runtime's name for a call id seen before


@dataclass(frozen=True)
class Score:
    failed: int  # sessions or runs that failed (the whole trial counts 1 when the runtime refused it)
    lost: int  # distinct prose texts of the samples found in no output record
    dropped: int  # calls and results the cleaner counted as dropped
    doubled: int  # prose texts written in more than one record of a session, and calls written twice
    lonely: int  # sessions without a user record or without an assistant record
    untimed: int  # records whose time is the session's fallback
    by_position: int  # results linked to the oldest unanswered call
    rules: int  # kinds and blocks rules in the mapping
    echoed: int = 0  # the part of ``doubled`` one source record was read as twice (``echoed``)

    @property
    def hard(self) -> tuple:
        return (self.failed, self.lost + self.dropped, self.doubled, self.lonely)

    @property
    def key(self) -> tuple:
        return (*self.hard, self.untimed, self.by_position, self.rules)

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def score(trial: Trial, mapping: dict, samples: Samples) -> Score:
    if trial.exit_code == 2 or not trial.outputs:
        return Score(1, 0, 0, 0, 0, 0, 0, _rules(mapping))
    written = [record for records in trial.outputs.values() for record in records]
    return Score(
        failed=1 if trial.failed else 0,
        lost=_lost(mapping, samples, _output_text(written)),
        dropped=sum(n for what, n in trial.skips.items() if any(reason in what for reason in LOSING_SKIPS)),
        doubled=sum(_doubled(records) + echoed(records) for records in trial.outputs.values()),
        echoed=sum(echoed(records) for records in trial.outputs.values()),
        lonely=sum(_lonely(records) for records in trial.outputs.values()),
        untimed=sum(n for what, n in trial.skips.items() if FALLBACK_TIMES in what),
        by_position=sum(n for what, n in trial.skips.items() if POSITION_LINKS in what),
        rules=_rules(mapping),
    )


def _lost(mapping: dict, samples: Samples, corpus: str) -> int:
    """Distinct prose texts of every record read (whatever its kind's role) found nowhere in the output."""
    return missed(read_texts(mapping, samples), corpus)


def read_texts(mapping: dict, samples: Samples) -> dict[str, str]:
    """The distinct prose texts of every record the mapping reads (squashed text -> text)."""
    found: dict[str, str] = {}
    document_key = mapping["input"].get("document_key")
    for _, record in _raw_records(mapping, samples.root):
        said = call_words(record)
        for _, text in prose_fields(record, skip_key=document_key):
            if not restates_calls(text, said):
                found.setdefault(_squash(text), text)
    return found


def missed(texts: dict[str, str], corpus: str) -> int:
    """How many of ``texts`` an output (its text, ``output_text``) holds nowhere."""
    return sum(1 for text in texts.values() if not any(window in corpus for window in _windows(text)))


def output_text(trial: Trial) -> str:
    return _output_text([record for records in trial.outputs.values() for record in records])


def _texts(record: dict) -> list[str]:
    texts = [record["content"]] if isinstance(record.get("content"), str) else []
    return [_squash(t) for t in texts if is_prose(t)]


def _doubled(records: list[dict]) -> int:
    """Texts that two records of one session both write (a thought that is also the message)."""
    seen = Counter(text for record in records[1:] for text in set(_texts(record)))
    return sum(n - 1 for n in seen.values() if n > 1)


def echoed(records: list[dict]) -> int:
    """What one source record was read as twice: a call repeated, renamed, inside one record (a
    message's ``tool_calls`` and a copy of them elsewhere in it), and a text written by two
    consecutive records of the same time (a thought that is also the reply). Unlike a text the
    source itself repeats, no reading of the records should write these."""
    count = 0
    for record in records:
        ids = {call.get("id") for call in record.get("tool_calls") or ()}
        count += sum(1 for i in ids if isinstance(i, str) and (m := _RENAMED.match(i)) and m["id"] in ids)
    for before, after in itertools.pairwise(records):
        text = before.get("content")
        if (isinstance(text, str) and is_prose(text) and text == after.get("content")
                and before.get("timestamp") == after.get("timestamp") and before.get("role") != after.get("role")):
            count += 1
    return count


def _lonely(records: list[dict]) -> int:
    roles = {record.get("role") for record in records}
    return int("user" not in roles) + int("assistant" not in roles)


def _rules(mapping: dict) -> int:
    blocks = mapping.get("blocks") or {}
    return len(mapping.get("kinds") or ()) + len(blocks.get("types") or {}) + len(blocks.get("by_key") or {})
