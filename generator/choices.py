"""One open decision as a choice between outputs: what each candidate value makes the cleaner write.

Why: a person who owns the traces cannot judge ``kinds[type=x].role: reasoning``, but can judge
"this record written as reasoning + a `bash` call" against "this record written as assistant
text". So each candidate value is tried the way the answer would be taken (the search re-run with
that value fixed, then the mapping it ends in run on the samples through the one cleaner runtime,
``generator.infer.trial``), and the first output record where the candidates' outputs differ, in
any session, is described for each: its role, its shortened and redacted text, its calls.

Contract: ``offer(decision, profile, paths, source=, answers=)`` returns ``Choices``: ``options`` in
the decision's order (its value first), one per distinct output (candidates writing the same
output are one option, naming all their values), each with the words to show and the trial, or
the reason its trial fails. ``settled`` is true when exactly one option writes anything: the
question need not be asked (not when every candidate fails). At most ``MAX_VALUES`` values are tried; texts are cut to ``WIDTH``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from generator.infer.search import search
from generator.infer.trial import Samples, Trial, run_trial

MAX_VALUES = 6  # candidate values tried per question: each is one search on the samples
WIDTH = 70  # characters of one text shown
_Position = tuple[str, int]  # output file, record index
_TRIAL_ROOT = re.compile(r"\S*trajectory-cleaner-trial-[^/\s]+/")  # the samples' temporary copy: not the user's


@dataclass
class Option:
    """One distinct output: the values that lead to it, what it writes where the outputs differ."""

    values: list
    trial: Trial
    inference: Any = None  # the search's inference with the first value fixed (the survey keeps it)
    label: str = ""

    @property
    def value(self) -> Any:
        return self.values[0]

    @property
    def failed(self) -> bool:
        return self.trial.failed or not self.trial.outputs


@dataclass
class Choices:
    key: str
    options: list[Option] = field(default_factory=list)
    where: str = ""  # the record the labels describe ("session x.jsonl, record 3")
    position: _Position | None = None

    @property
    def working(self) -> list[Option]:
        return [o for o in self.options if not o.failed]

    @property
    def settled(self) -> bool:
        """One output is possible (the other candidates write the same, or their cleaners fail):
        nothing for a person to choose. When every candidate fails, it is not settled: the
        person sees why each fails and may type a value of their own."""
        return len(self.working) == 1


def offer(decision: Any, profile: Any, paths: list[str], *, source: str | None = None,
          answers: dict | None = None) -> Choices:
    """Try each candidate value of ``decision`` with ``answers`` fixed, and describe the outputs."""
    answers = dict(answers or {})
    values: list = []
    for value in (decision.value, *decision.candidates):
        if value not in values and len(values) < MAX_VALUES:
            values.append(value)
    samples = Samples.copy(paths)
    try:
        tried = [_tried(decision.key, value, profile, paths, source, answers, samples) for value in values]
    finally:
        samples.remove()
    return describe(decision.key, tried)


_REJECTED = (ValueError, TypeError, KeyError, AttributeError)  # inference refusing a value it cannot plan with


def _tried(key: str, value: Any, profile: Any, paths: list[str], source: str | None, answers: dict,
           samples: Samples) -> tuple[Any, Any, Trial]:
    """One value: the search with it fixed and its mapping's trial; a value inference cannot plan
    with is a failed trial that says why, never an exception that ends the survey."""
    try:
        inference = search(profile, paths, source=source, answers={**answers, key: value}).inference
    except _REJECTED as exc:
        return value, None, Trial(2, errors=[f"inference: {exc.__class__.__name__}: {exc}"])
    return value, inference, run_trial(inference.mapping, samples)


def describe(key: str, tried: list[tuple[Any, Any, Trial]]) -> Choices:
    """Collapse equal outputs into one option, find where the rest differ, and label each."""
    choices = Choices(key)
    by_output: dict[str, Option] = {}
    for value, inference, trial in tried:
        fingerprint = "failed" if trial.failed or not trial.outputs else trial.fingerprint()
        if fingerprint in by_output and fingerprint != "failed":
            by_output[fingerprint].values.append(value)
            continue
        option = Option([value], trial, inference)
        by_output.setdefault(fingerprint, option)
        choices.options.append(option)
    working = choices.working
    choices.position = first_difference([o.trial.outputs for o in working])
    if choices.position is not None:
        name, index = choices.position
        choices.where = f"session {name}, record {index + 1}"
    for option in choices.options:
        option.label = _label(option, choices.position, working)
    return choices


def first_difference(outputs: list[dict[str, list[dict]]]) -> _Position | None:
    """The first (output file, record index) where the outputs are not all the same, or None."""
    if len(outputs) < 2:
        return None
    for name in sorted(set().union(*outputs)):
        files = [out.get(name) for out in outputs]
        longest = max(len(f or ()) for f in files)
        for index in range(longest):
            here = [json.dumps(f[index], sort_keys=True) if f and index < len(f) else None for f in files]
            if len(set(here)) > 1:
                return name, index
    return None


def records_at(option: Option, position: _Position | None, count: int = 1) -> list[dict]:
    if position is None:
        return []
    name, index = position
    return (option.trial.outputs.get(name) or [])[index:index + count]


def _label(option: Option, position: _Position | None, working: list[Option]) -> str:
    if option.failed:
        return _failure(option.trial)
    if position is None:
        return "writes the same records as every other choice"
    shown = _span(option, position, working)
    if not shown:
        return "writes nothing here"
    differing = _differing_keys([records_at(o, position) for o in working])
    return " + ".join(say_record(r, differing) for r in shown)


def _failure(trial: Trial) -> str:
    """Why a candidate's cleaner cannot be chosen: its error, or what it skipped instead of writing."""
    if trial.errors:
        return f"its cleaner fails: {_short(_TRIAL_ROOT.sub('', trial.errors[0]), 120)}"
    if trial.skips:
        what, count = trial.skips.most_common(1)[0]
        return f"writes no session ({count} x {_short(what, 100)})"
    skipped = [line.strip().split(": ", 1)[1] for line in trial.summary.splitlines()
               if line.startswith("  ") and ": " in line]  # "  <file>: <why the session was skipped>"
    return f"writes no session ({_short(skipped[0], 100)})" if skipped else "writes no session"


def _span(option: Option, position: _Position, working: list[Option]) -> list[dict]:
    """The first differing record and those written with it (the same time: one source record
    written as reasoning + a call), up to where the outputs agree again; at most 3."""
    name, index = position
    span = records_at(option, position)
    for step in (1, 2):
        here = records_at(option, (name, index + step))
        if not span or not here or here[0].get("timestamp") != span[0].get("timestamp"):
            break
        if len({json.dumps(records_at(o, (name, index + step)), sort_keys=True) for o in working}) == 1:
            break
        span.append(here[0])
    return span


def _differing_keys(records: list[list[dict]]) -> set[str]:
    keys: set[str] = set()
    flat = [r[0] if r else {} for r in records]
    for key in set().union(*flat):
        if len({json.dumps(r.get(key), sort_keys=True) for r in flat}) > 1:
            keys.add(key)
    return keys


def say_record(record: dict, differing: set[str] | None = None) -> str:
    """One output record in words: its role, its text, its calls (names and arguments), redacted."""
    differing = differing or set()
    role = record.get("role", "?")
    parts = [_role_words(record)]
    if isinstance(record.get("content"), str) and record["content"]:
        parts.append(f'"{_short(record["content"])}"')
    for call in record.get("tool_calls") or ():
        if isinstance(call, dict):
            args = call.get("args")
            args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            parts.append(f"a `{call.get('name', '?')}` call ({_short(args or '', 40)})")
    if "timestamp" in differing and record.get("timestamp"):
        parts.append(f"at {record['timestamp']}")
    shown = {"role", "content", "tool_calls", "timestamp"}
    for key in sorted(differing - shown):
        if key in record:
            parts.append(f"{key} {_short(json.dumps(record[key], ensure_ascii=False), 40)}")
    return " ".join(parts) if role != "meta" else "the session header " + " ".join(parts[1:])


def _role_words(record: dict) -> str:
    role = record.get("role", "?")
    words = {"user": "user text", "assistant": "assistant text", "reasoning": "reasoning",
             "system": "a system prompt", "tool": "a tool result", "tool_result": "a tool result"}.get(role, role)
    if record.get("tool_call_id"):
        words += f" (for call {_short(str(record['tool_call_id']), 24)})"
    return words


def _short(text: str, limit: int = WIDTH) -> str:
    from cleaner_runtime.redaction import Redactor

    text = Redactor().redact(text).replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def try_value(key: str, value: Any, profile: Any, paths: list[str], *, source: str | None = None,
              answers: dict | None = None) -> str | None:
    """Why ``value`` (typed by a person) cannot be the answer to ``key``: inference rejects it, or
    the mapping it leads to is not valid or its cleaner fails on the samples; None when it works."""
    from cleaner_runtime.mapping import MappingError
    from cleaner_runtime.model import Mapping
    from generator.infer import infer_profile

    fixed = {**(answers or {}), key: value}
    try:
        if not paths:
            Mapping.load(infer_profile(profile, source=source, answers=fixed).mapping)
            return None
        inference = search(profile, paths, source=source, answers=fixed).inference
    except (MappingError, *_REJECTED) as exc:
        return _short(f"{exc.__class__.__name__}: {exc}", 160)
    samples = Samples.copy(paths)
    try:
        trial = run_trial(inference.mapping, samples)
    finally:
        samples.remove()
    return _failure(trial) if trial.failed or not trial.outputs else None
