"""The new cleaner's mapping, learned from the old script's output and the raw samples.

Everything learned is put together here into one mapping (docs/mapping.md): the kind rules
(rules.py, from what alignment.py traced or guessed), which raw fields hold the time and in
which zone, how the raw records group into sessions, the block types, and the old script's own
redaction. Times and sessions are learned here because they come from the same evidence, the
(raw record, old record) pairs: a raw field whose time equals the old record's timestamp is the
time field, and if only zone-less raw times differ from the old ones by one constant offset,
that offset is the zone the old script assumed; the field whose value is constant within each
old session and differs between them is what the new cleaner groups by. Without old output,
fields named like times and one session per file are used (or the inference's reading), and the
guess reported.

Contract: ``learn_mapping`` never prompts - what could not be learned is written down as
questions for the report - and returns a ``Learned`` with a mapping that passes the mapping
checks; a mapping that does not is a bug here, raised as MigrateError.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

from cleaner_runtime.mapping import compile_paths, dotted, paths_notation
from cleaner_runtime.redaction import Redactor
from generator.migrate.alignment import Aligner, RawRec, Sig, Target, TextMatcher, guess_sig
from generator.migrate.old_script import ScriptFacts
from generator.migrate.old_traces import MigrateError, instant, is_naive
from generator.migrate.rules import (
    SOURCE_WORDS,
    Rule,
    RuleLearner,
    adopt_inferred,
    decision_text,
    describe_rule,
    kept_structure,
    rule_kind,
    rule_name,
)

TIME_NAME = re.compile(r"time|date|_at$|^at$|^ts$|when", re.IGNORECASE)


@dataclass
class Learned:
    """The learned mapping, the rules it was made of, and what could not be learned (for the report)."""

    mapping: dict
    rules: list[Rule]
    questions: list[str]
    notes: list[str]
    aligned: int = 0
    old_records: int = 0
    unmatched: list[str] = field(default_factory=list)


def learn_mapping(raws: list[RawRec], include: list[str], targets: list[Target] | None,
                  source: str, source_profile: str, tz: str | None, facts: ScriptFacts, inference: Any) -> Learned:
    """The new cleaner's mapping: aligned where the old output says, guessed from shape elsewhere."""
    questions: list[str] = []
    notes: list[str] = []
    sigs, pairs, unmatched = _align(raws, targets, facts.markers)
    used_paths = {p for s in sigs.values() for p in (s.content, s.tool_name, s.args, s.call_id, s.link) if p}
    inferred = getattr(inference, "mapping", None) if inference is not None else None
    inferred = inferred if isinstance(inferred, dict) else {}
    ts_fields, zone_name, ts_notes, ts_questions = learn_times(raws, pairs, tz, used_paths)
    session, session_path, session_questions = learn_session(raws, pairs, used_paths | set(ts_fields))
    if not targets and inferred:
        # nothing to align with: the inference module's reading of sessions and times stands
        if isinstance(inferred.get("session"), dict):
            session = inferred["session"]
            field_paths = compile_paths(session.get("field")) if session.get("by") == "field" else ()
            session_path = field_paths[0] if field_paths else None
            session_questions = []
        if isinstance(inferred.get("timestamps"), dict) and inferred["timestamps"].get("fields"):
            ts_fields = list(compile_paths(inferred["timestamps"]["fields"]))
            zone_name = tz or inferred["timestamps"].get("timezone") or "UTC"
            ts_questions = []
        questions += [decision_text(d) for d in getattr(inference, "questions", None) or []]
    notes += ts_notes
    questions += ts_questions + session_questions
    exclude = used_paths | set(ts_fields) | ({session_path} if session_path else set())
    for rec in raws:
        if rec.pos not in sigs:
            sigs[rec.pos] = guess_sig(rec, set(ts_fields))
    rules = adopt_inferred(RuleLearner(raws, sigs, exclude).build(raws, []), raws, inference)
    kept, kept_notes = kept_structure(rules, raws, inference)
    notes += kept_notes
    if inference is None and not targets:
        questions.append("without --run-old (and without the inference module) every kind is classified from "
                         "its field names and shape; review the mapping table")
    rule_notes, rule_questions = _explain_rules(rules, bool(targets))
    notes += rule_notes
    questions += rule_questions
    blocks, block_questions = block_types(raws, rules)
    questions += block_questions
    timestamps, fallback_questions = _timestamps(raws, ts_fields, zone_name, {} if targets else inferred)
    questions += fallback_questions
    privacy, privacy_notes, privacy_questions = _privacy(facts)
    notes += privacy_notes
    questions += privacy_questions
    mapping: dict[str, Any] = {
        "mapping_version": 1,
        "source": source,
        "source_profile": source_profile,
        "input": {"container": "auto", "include": include, "invalid_lines": "skip"},
        "session": session,
        "timestamps": timestamps,
        "kinds": [*kept, *(rule_kind(rule) for rule in rules)],
        "unknown_kinds": "fail",
        **_optional_sections(inferred, blocks, rules),
        "privacy": privacy,
    }
    _check(mapping)
    return Learned(mapping, rules, questions, notes, aligned=len(targets or []) - len(unmatched),
                   old_records=len(targets or []), unmatched=unmatched)


def _align(raws: list[RawRec], targets: list[Target] | None, markers: list[str]
           ) -> tuple[dict[int, Sig], list[tuple[RawRec, Target]], list[str]]:
    """(what each aligned raw record became, (raw, old record) pairs, old records not found)."""
    sigs: dict[int, Sig] = {}
    pairs: list[tuple[RawRec, Target]] = []
    unmatched: list[str] = []
    if not targets:
        return sigs, pairs, unmatched
    aligner = Aligner(raws, TextMatcher(markers))
    aligner.align(targets)
    sigs = aligner.sigs()
    by_pos = {rec.pos: rec for rec in raws}
    for pos, assigned in aligner.assigned.items():
        for _, target in assigned:
            pairs.append((by_pos[pos], target))
    redactor = Redactor()
    for target in aligner.unmatched:
        preview = redactor.redact(target.record.get("content") or json.dumps(target.record.get("tool_calls")))
        unmatched.append(f"old session {target.session + 1}, record {target.index}: {target.record['role']} "
                         f"{TextMatcher.norm(str(preview))[:60]!r}")
    return sigs, pairs, unmatched


def _explain_rules(rules: list[Rule], aligned: bool) -> tuple[list[str], list[str]]:
    """(a note for each partly aligned rule, a question for each rule the old output did not teach)."""
    notes: list[str] = []
    questions: list[str] = []
    for rule in rules:
        if rule.source == "alignment":
            if rule.aligned < rule.records:
                notes.append(f"{rule_name(rule)}: {rule.aligned} of {rule.records} records were in the old "
                             f"output; the new cleaner writes all {rule.records} as {rule.sig.role}")
            continue
        what = describe_rule(rule)
        if not aligned:
            questions.append(f"{rule_name(rule)} ({rule.records} record(s)): {what} ({SOURCE_WORDS[rule.source]})")
        elif rule.sig.role == "skip":
            questions.append(f"{rule_name(rule)} ({rule.records} record(s)) never reached the old output and "
                             "looks like noise or a header; it is skipped")
        else:
            questions.append(f"{rule_name(rule)} ({rule.records} record(s)) never reached the old output; the "
                             f"new cleaner keeps it as {what} ({SOURCE_WORDS[rule.source]})")
    return notes, questions


def _timestamps(raws: list[RawRec], ts_fields: list[tuple], zone_name: str, inferred: dict
                ) -> tuple[dict[str, Any], list[str]]:
    """(the mapping's ``timestamps``: the learned fields and zone, the inferred format, an mtime
    fallback; the question the fallback raises, if any)."""
    questions: list[str] = []
    timestamps: dict[str, Any] = {"fields": paths_notation(ts_fields) if ts_fields else ["timestamp"],
                                  "format": "auto", "timezone": zone_name}
    if isinstance(inferred.get("timestamps"), dict):
        for key in ("format", "layout"):
            if inferred["timestamps"].get(key):
                timestamps[key] = inferred["timestamps"][key]
    without = files_without_time(raws, ts_fields)
    if without or not ts_fields:
        timestamps["fallback"] = "file_mtime"
        questions.append("some sessions have no timestamp at all ("
                         + ", ".join(without[:3]) + "); they use the file's modification time")
    return timestamps, questions


def _optional_sections(inferred: dict, blocks: dict, rules: list[Rule]) -> dict[str, Any]:
    """The mapping's ``meta`` (inferred), ``blocks`` and ``tools``, when there is something to say."""
    sections: dict[str, Any] = {}
    meta = inferred.get("meta") if isinstance(inferred.get("meta"), dict) else {}
    if meta:
        sections["meta"] = meta
    if blocks:
        sections["blocks"] = {"type_field": "type", "types": blocks, "unknown": "skip"}
    if any(r.sig.role in ("tool_call", "tool_result", "tool_exchange") for r in rules):
        sections["tools"] = {"orphan_results": "skip"}
    return sections


def _privacy(facts: ScriptFacts) -> tuple[dict[str, Any], list[str], list[str]]:
    """(the mapping's ``privacy``: redaction on, with the old script's own patterns kept; a note that
    they are; a question for each that could not be)."""
    privacy: dict[str, Any] = {"redact": True}
    notes: list[str] = []
    if facts.patterns:
        privacy["extra_patterns"] = dict(facts.patterns)
        notes.append("the old script's own redaction patterns are kept as privacy.extra_patterns: "
                     + ", ".join(facts.patterns))
    questions = [f"the old script's pattern {p} could not be carried over; add it to "
                 "privacy.extra_patterns by hand" for p in facts.skipped_patterns]
    return privacy, notes, questions


def _check(mapping: dict) -> None:
    """A learned mapping that fails the mapping checks is a bug here, not the user's input."""
    from generator.answers import AnswersError, check_mapping

    try:
        check_mapping(mapping, "learned mapping")
    except AnswersError as exc:
        raise MigrateError(f"{exc} (a bug in the migration: please report it with --debug)") from None


def block_types(raws: list[RawRec], rules: list[Rule]) -> tuple[dict, list[str]]:
    """Block types learned from the alignment, and the others seen in the same lists (skipped)."""
    from cleaner_runtime import convert
    types: dict[str, dict] = {}
    questions = []
    for rule in rules:
        for type_value, key in rule.sig.blocks:
            types[type_value] = {"as": "reasoning" if rule.sig.role == "reasoning" else "text", "field": key}
    seen: set[str] = set()
    for rule in rules:
        if not rule.sig.content:
            continue
        for rec in raws:
            value = convert.get_path(rec.record, rule.sig.content)
            if isinstance(value, list):
                for block in value:
                    if isinstance(block, dict) and isinstance(block.get("type"), str):
                        seen.add(block["type"])
    for type_value in sorted(seen - set(types)):
        types[type_value] = {"as": "skip"}
        questions.append(f"content blocks of type {type_value!r} never reached the old output; they are skipped "
                         "(map them under blocks.types if they matter)")
    return types, questions


# --- times ------------------------------------------------------------------------------------

def learn_times(raws: list[RawRec], pairs: list[tuple[RawRec, Target]], tz: str | None, exclude: set
                ) -> tuple[list[tuple], str, list[str], list[str]]:
    """(timestamp paths, zone of naive times, notes, questions) from the old output's times."""
    from cleaner_runtime import timestamps
    zone_name = tz or "UTC"
    old_zone = timestamps.zone(zone_name)
    notes, questions = [], []
    votes, offsets, naive_raw = _vote(pairs, old_zone, exclude)
    fields = [path for path, _ in votes.most_common()]
    if not fields and offsets:
        path, counter = max(offsets.items(), key=lambda kv: sum(kv[1].values()))
        seconds, _ = counter.most_common(1)[0]
        if len(counter) == 1 and tz is None:
            zone_name = _offset_name(seconds)
            fields = [path]
            notes.append(f"zone-less times in {dotted(path)} are read as {zone_name}: the old script's output "
                         "says so")
    if fields and naive_raw[fields[0]] and tz is None and not any(n.startswith("zone-less") for n in notes):
        questions.append(f"{dotted(fields[0])} holds times without a zone; they are read as UTC (give --timezone, "
                         "or set timestamps.timezone in .copier-answers.yml, if they are local times)")
    if not fields:
        fields = _named_like_times(raws, old_zone, exclude)
        if fields:
            questions.append("the old output had no timestamps to learn from; times are read from "
                             + ", ".join(dotted(p) for p in fields) + " (a guess from the field names)")
    return fields, zone_name, notes, questions


def _vote(pairs: list[tuple[RawRec, Target]], old_zone, exclude: set) -> tuple[Counter, dict, Counter]:
    """Per raw path: how often its time equals the old one, the offsets of zone-less ones that do
    not, and how many equal ones were zone-less."""
    from cleaner_runtime import timestamps
    votes: Counter = Counter()
    offsets: dict[tuple, Counter] = {}
    naive_raw: Counter = Counter()
    for rec, target in pairs:
        if target.old_ts in (None, ""):
            continue
        try:
            old = instant(timestamps.to_iso(target.old_ts, "auto", None, old_zone))
        except (ValueError, TypeError):
            continue
        old_naive = is_naive(target.old_ts)
        for path, value in rec.leaves:
            if path in exclude or isinstance(value, (dict, list, bool)) or value is None:
                continue
            try:
                raw = instant(timestamps.to_iso(value, "auto", None, old_zone))
            except (ValueError, TypeError):
                continue
            if raw == old:
                votes[path] += 1
                if is_naive(value):
                    naive_raw[path] += 1
            elif is_naive(value) and not old_naive:
                as_utc = instant(timestamps.to_iso(value, "auto", None, UTC))
                offsets.setdefault(path, Counter())[int((as_utc - old).total_seconds())] += 1
    return votes, offsets, naive_raw


def _offset_name(seconds: int) -> str:
    """The zone ``+HH:MM`` of local times that read ``seconds`` late as UTC."""
    sign = "-" if seconds > 0 else "+"
    hours, minutes = divmod(abs(seconds) // 60, 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def _named_like_times(raws: list[RawRec], old_zone, exclude: set) -> list[tuple]:
    """Fields named like times (time, date, ..._at, ts, when) that hold readable times."""
    from cleaner_runtime import timestamps
    fields: list[tuple] = []
    for rec in raws:
        for path, value in rec.leaves:
            if path in exclude or any(isinstance(p, int) for p in path):
                continue
            if isinstance(path[-1], str) and TIME_NAME.search(path[-1]):
                try:
                    timestamps.to_iso(value, "auto", None, old_zone)
                except (ValueError, TypeError):
                    continue
                if path not in fields:
                    fields.append(path)
    return fields


def files_without_time(raws: list[RawRec], fields: list[tuple]) -> list[str]:
    """The sample files none of whose records has a value in any of ``fields``."""
    if not fields:
        return sorted({r.where.rsplit(":", 1)[0] for r in raws})
    from cleaner_runtime import convert
    have: dict[int, bool] = {}
    names: dict[int, str] = {}
    for rec in raws:
        names[rec.file] = rec.where.split(" (record")[0].rsplit(":", 1)[0]
        if not have.get(rec.file):
            have[rec.file] = any(convert.get_path(rec.record, p) not in (convert.MISSING, None) for p in fields)
    return [names[f] for f, ok in have.items() if not ok]


# --- sessions ---------------------------------------------------------------------------------

def learn_session(raws: list[RawRec], pairs: list[tuple[RawRec, Target]], exclude: set
                  ) -> tuple[dict, tuple | None, list[str]]:
    """One session per raw file, or a grouping field when the old script split or merged files."""
    if _one_session_per_file(pairs):
        return {"by": "file"}, None, []
    candidates = _grouping_fields(raws, pairs, exclude)
    if not candidates:
        return {"by": "file"}, None, [(
            "the old script split or merged the raw files into sessions by a rule this migration could not find; "
            "sessions are one raw file each (set session.by: field in .copier-answers.yml if that is wrong)")]
    fill, _, _, path = max(candidates)
    session = {"by": "field", "field": paths_notation([path])}
    if fill < len(raws):
        session["missing"] = "skip"
    return session, path, []


def _one_session_per_file(pairs: list[tuple[RawRec, Target]]) -> bool:
    per_file: dict[int, set] = {}
    per_session: dict[int, set] = {}
    for rec, target in pairs:
        per_file.setdefault(rec.file, set()).add(target.session)
        per_session.setdefault(target.session, set()).add(rec.file)
    return all(len(v) == 1 for v in per_file.values()) and all(len(v) == 1 for v in per_session.values())


def _grouping_fields(raws: list[RawRec], pairs: list[tuple[RawRec, Target]], exclude: set) -> list[tuple]:
    """(records that have it, -depth, name, path) of each shallow field with one value per old session."""
    from cleaner_runtime import convert
    candidates = []
    for path in {p for rec, _ in pairs for p, v in rec.leaves if isinstance(v, (str, int)) and not isinstance(v, bool)}:
        if path in exclude or any(isinstance(p, int) for p in path) or len(path) > 2:
            continue
        by_session: dict[int, set] = {}
        for rec, target in pairs:
            value = convert.get_path(rec.record, path)
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                by_session = {}
                break
            by_session.setdefault(target.session, set()).add(json.dumps(value))
        values = list(by_session.values())
        if values and all(len(v) == 1 for v in values) and len({next(iter(v)) for v in values}) == len(values):
            fill = sum(1 for rec in raws if convert.get_path(rec.record, path) not in (convert.MISSING, None))
            candidates.append((fill, -len(path), str(path), path))
    return candidates
