"""Inference as a search over whole mappings, each scored on what its cleaner writes for the samples.

Why: one guess per concept, in sequence, is never checked against the output it leads to. Here
every open decision (and every confident one whose mapping still loses text or writes it twice)
is tried with each of its candidate values; each candidate mapping is run on the samples
(``trial``) and scored (``score``); ``decide`` keeps a value only when the outputs say so.

Contract: ``search(profile, paths, source=, answers=)`` returns a ``Searched``: the final
``Inference`` (its ``questions`` are the decisions the samples could not settle), and the
``Settled`` record of every decision the search took, with the scores that took it. A person's
answers (``answers``) are fixed and never tried against. The search is bounded: at most
``MAX_TRIALS`` trials and ``MAX_SECONDS`` seconds; the progress line says what is being tried.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from cleaner_runtime.mapping import compile_path
from generator.infer.actions import actions_in_text
from generator.infer.core import CONFIDENT, Decision, Inference, infer_profile
from generator.infer.score import Score, missed, output_text, read_texts, score
from generator.infer.superseded import branching_tree, superseded_records
from generator.infer.trial import Samples, Trial, run_trial
from generator.inspect.profile import Profile, profile_paths

MAX_TRIALS = 80
MAX_SECONDS = 30.0
SETTLED_CONFIDENCE = 0.9
# Decisions that change what one record is: the profile every candidate is planned from was read
# with the inferred answer, so the other values cannot be scored on it; they stay questions.
NOT_SEARCHED = ("input.records_path", "input.container")
READING = "input.records_path"  # searched first, on its own: each value is a different profile


@dataclass
class Candidate:
    """One value tried for one decision: the mapping it leads to, what its cleaner wrote, its score."""

    value: Any
    inference: Inference
    trial: Trial
    score: Score


@dataclass
class Settled:
    """A decision the samples' outputs settled: the value kept, and why, in words."""

    key: str
    value: Any
    why: str
    candidates: list[Candidate] = field(default_factory=list, repr=False)


@dataclass
class Searched:
    inference: Inference
    settled: list[Settled]
    trials: int
    score: Score | None = None  # the final mapping's, on the samples


class _Budget:
    """Trials and seconds left; says on the progress line what is being tried."""

    def __init__(self, progress: bool):
        self.started, self.trials, self.progress = time.monotonic(), 0, progress

    def spent(self) -> bool:
        return self.trials >= MAX_TRIALS or time.monotonic() - self.started > MAX_SECONDS

    def show(self, text: str) -> None:
        if self.progress:
            sys.stderr.write(f"\r\033[Kinfer: {text}"[:200])
            sys.stderr.flush()


def _try(profile: Profile, samples: Samples, source: str | None, answers: dict, budget: _Budget,
         value: Any = None) -> Candidate:
    budget.trials += 1
    inference = infer_profile(profile, source=source, answers=answers)
    trial = run_trial(inference.mapping, samples)
    return Candidate(value, inference, trial, score(trial, inference.mapping, samples))


def decide(key: str, current: Candidate, others: list[Candidate]) -> Settled | None:
    """The value the outputs choose for ``key``, or None when they cannot (a question).

    Values whose outputs are the same as the current one's change nothing: the current value
    stands. Among the rest, a value wins only when its score's hard part is better than every
    differing value's, the current one's included; when the best two differ in output but not
    in the hard part, the samples cannot tell them apart.
    """
    field_ = _calls_alike([current, *[c for c in others if c.trial.fingerprint() != current.trial.fingerprint()]])
    distinct: dict[str, Candidate] = {}
    for candidate in field_:
        distinct.setdefault(candidate.trial.fingerprint(), candidate)
    ranked = sorted(distinct.values(), key=lambda c: c.score.hard)
    if ranked[0].score.failed:
        return None  # no candidate's cleaner runs: nothing to choose between
    if len(ranked) == 1:
        if ranked[0].score.hard != (0, 0, 0, 0):
            return None  # the same loss whatever the value: the value is not what loses it; not settled
        return Settled(key, current.value, "every candidate writes the same records", field_)
    best, second = ranked[0], ranked[1]
    if best.score.hard < second.score.hard:
        return Settled(key, best.value, _why(best, second), field_)
    return None


def _calls_alike(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates scored on the same calls: each one's drops count the calls ANY of them writes
    and it does not (by session, id and name), as ``_read_alike`` does for texts. A reading of a
    rendered text beside a call list (Open WebUI's HTML `content` beside its `output` items) keeps
    every word and writes no call; by its own measure it loses nothing."""
    written = [None if c.score.failed else _calls(c.trial) for c in candidates]
    union = set().union(*(w for w in written if w is not None))
    return [c if w is None or not union - w else dataclasses.replace(
        c, score=dataclasses.replace(c.score, dropped=c.score.dropped + len(union - w)))
        for c, w in zip(candidates, written, strict=True)]


def _calls(trial) -> set[tuple]:
    return {(session, call.get("id"), call.get("name")) for session, records in trial.outputs.items()
            for record in records for call in record.get("tool_calls") or ()}


def _joint(verdict: Settled) -> bool:
    """Whether the verdict rests only on what a session holds as a whole (a run that fails or
    writes nothing, a session without a user or an assistant): other open decisions (the role of
    the other speaker) change that, so the value is judged with each of them tried beside it."""
    ranked = sorted(verdict.candidates, key=lambda c: c.score.hard)
    best = next(c for c in ranked if c.value == verdict.value)
    others = [c for c in ranked if c is not best]
    return all(c.score.hard[1:3] == best.score.hard[1:3] for c in others)


def _completed(candidate: Candidate, key: str, rest: list[Decision], profile: Profile,
               samples: Samples, source: str | None, fixed: dict, budget: _Budget) -> Candidate:
    """The candidate scored at its best: with every single change to another open decision tried."""
    best = candidate
    for other in rest:
        for value in other.candidates:
            if value == other.value or budget.spent():
                continue
            trial = _try(profile, samples, source, {**fixed, key: candidate.value, other.key: value}, budget,
                         candidate.value)
            if trial.score.hard < best.score.hard:
                best = trial
    return best


def _why(best: Candidate, second: Candidate) -> str:
    names = ("failed", "text lost or calls dropped", "text written twice", "sessions without a user or an assistant")
    for name, a, b in zip(names, best.score.hard, second.score.hard, strict=True):
        if a != b:
            return f"{name}: {a} with {best.value!r}, {b} with {second.value!r}"
    return "the same"


def _read_alike(tried: list[tuple[Profile, Candidate]], samples: Samples) -> tuple[Candidate, list[Candidate]]:
    """The readings scored on the same texts: each one's loss counts the prose that ANY of them
    reads and its output lacks. A path that reads less (a request's messages without the reply)
    otherwise loses nothing by its own measure, and ties with the path that reads it all."""
    texts: dict[str, str] = {}
    for _, candidate in tried:
        if not candidate.score.failed:
            texts.update(read_texts(candidate.inference.mapping, samples))
    rescored = [candidate if candidate.score.failed else dataclasses.replace(
        candidate, score=dataclasses.replace(candidate.score, lost=missed(texts, output_text(candidate.trial))))
        for _, candidate in tried]
    return rescored[0], rescored[1:]


def _reprofiled(paths: list[str], value: Any) -> Profile:
    return profile_paths(paths, records_path=compile_path(value))


def _reading(profile: Profile, paths: list[str], samples: Samples, source: str | None, fixed: dict,
             budget: _Budget) -> tuple[Profile, Settled | None]:
    """Where a document's records are, chosen first: every later decision is planned on the
    records this reads, so each candidate path is re-profiled (a person's answer too) and the
    path whose whole mapping scores best is kept; a tie stays a question."""
    if fixed.get(READING) is not None:
        return _reprofiled(paths, fixed[READING]), None
    first = infer_profile(profile, source=source, answers=fixed)
    question = next((q for q in first.questions if q.key == READING), None)
    if question is None or READING in fixed:
        return profile, None
    budget.show(f"trying {len(question.candidates)} places for the records (trial {budget.trials})")
    tried: list[tuple[Profile, Candidate]] = []
    values: list = []
    for value in (question.value, *question.candidates):
        if value not in values:
            values.append(value)
    for value in values:
        reread = profile if value is None or value == question.value else _reprofiled(paths, value)
        tried.append((reread, _try(reread, samples, source, {**fixed, READING: value}, budget, value)))
    verdict = decide(READING, *_read_alike(tried, samples))
    if verdict is None:
        return profile, None
    chosen = next(p for p, c in tried if c.value == verdict.value)
    return chosen, verdict


def _open(inference: Inference, answers: dict, asked: set[str]) -> list[Decision]:
    return [q for q in inference.questions
            if q.key not in answers and q.key not in asked and q.key not in NOT_SEARCHED]


def search(profile: Profile, paths: list[str], *, source: str | None = None, answers: dict | None = None,
           progress: bool = False) -> Searched:
    """Settle what the samples can settle; leave the rest as questions."""
    given = dict(answers or {})
    fixed = dict(given)
    settled: dict[str, Settled] = {}
    unsettled: set[str] = set()
    budget = _Budget(progress)
    samples = Samples.copy(paths)
    try:
        profile, reading = _reading(profile, paths, samples, source, fixed, budget)
        if reading is not None:
            settled[READING] = reading
            fixed[READING] = reading.value
        current = _try(profile, samples, source, fixed, budget)
        while not budget.spent():
            pending = _open(current.inference, fixed, unsettled)
            if not pending:
                break
            question = pending[0]
            budget.show(f"trying {len(question.candidates)} readings of {question.key} (trial {budget.trials})")
            here = _try(profile, samples, source, {**fixed, question.key: question.value}, budget, question.value)
            others = [_try(profile, samples, source, {**fixed, question.key: value}, budget, value)
                      for value in question.candidates if value != question.value]
            verdict = decide(question.key, here, others)
            if verdict is not None and _joint(verdict):
                rest = [q for q in current.inference.questions if q.key != question.key
                        and q.key not in fixed and not q.key.startswith(NOT_SEARCHED)]
                here, *others = (_completed(c, question.key, rest, profile, samples, source, fixed, budget)
                                 for c in (here, *others))
                verdict = decide(question.key, here, others)
            if verdict is None:
                unsettled.add(question.key)
                continue
            settled[question.key] = verdict
            fixed[question.key] = verdict.value
            current = _try(profile, samples, source, fixed, budget)
        if progress:
            sys.stderr.write("\r\033[K")
    finally:
        samples.remove()
    inference = _marked(current.inference, settled, current.score.echoed)
    undone = None if "kinds.undone" in given else superseded_records(profile, inference.mapping)  # answered
    doubts = (actions_in_text(current.trial.outputs), undone, branching_tree(profile, inference.mapping))
    inference.doubts = [doubt for doubt in doubts if doubt]
    return Searched(inference, list(settled.values()), budget.trials, current.score)


def _marked(inference: Inference, settled: dict[str, Settled], doubled: int = 0) -> Inference:
    """The decisions the search took say so: chosen on the samples, with the reason."""
    decisions = []
    for decision in inference.decisions:
        verdict = settled.get(decision.key)
        if verdict is not None:
            decision = Decision(decision.key, decision.value, SETTLED_CONFIDENCE,
                                f"chosen on the samples' outputs ({verdict.why})", decision.candidates)
        decisions.append(decision)
    questions = [d for d in decisions if d.confidence < CONFIDENT]
    return Inference(inference.mapping, decisions, questions, inference.profile, inference.native_source,
                     doubled)
