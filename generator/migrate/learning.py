"""The new cleaner's mapping, learned from the old script's output and the raw samples.

Everything learned (kinds, times, sessions, block types, the old script's own redaction) is
put together here into one mapping (docs/mapping.md), with what could not be learned written
down as questions for the report rather than asked: ``migrate script`` never prompts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from generator.migrate.alignment import Aligner
from generator.migrate.errors import MigrateError
from generator.migrate.inference import adopt_inferred, decision_text, kept_structure
from generator.migrate.notation import paths_out
from generator.migrate.records import RawRec, Sig, Target
from generator.migrate.rule_learning import RuleLearner
from generator.migrate.rules import SOURCE_WORDS, Rule, describe_rule, rule_kind, rule_name
from generator.migrate.script_reading import ScriptFacts
from generator.migrate.sessions import learn_session
from generator.migrate.shape_guess import guess_sig
from generator.migrate.text_match import TextMatcher
from generator.migrate.times import files_without_time, learn_times
from generator.paths import runtime_module


@dataclass
class Learned:
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
    compile_paths = runtime_module("mapping").compile_paths
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
    rules = RuleLearner(raws, sigs, exclude).build(raws, [])
    adopt_inferred(rules, raws, inference)
    kept, kept_notes = kept_structure(rules, raws, inference)
    notes += kept_notes
    if inference is None and not targets:
        questions.append("without --run-old (and without the inference module) every kind is classified from "
                         "its field names and shape; review the mapping table")
    _explain_rules(rules, bool(targets), notes, questions)
    blocks, block_questions = block_types(raws, rules)
    questions += block_questions
    timestamps = _timestamps(raws, ts_fields, zone_name, {} if targets else inferred, questions)
    mapping: dict[str, Any] = {
        "mapping_version": 1,
        "source": source,
        "source_profile": source_profile,
        "input": {"container": "auto", "include": include, "invalid_lines": "skip"},
        "session": session,
        "timestamps": timestamps,
        "kinds": [*kept, *(rule_kind(rule) for rule in rules)],
        "unknown_kinds": "fail",
    }
    _add_optional_sections(mapping, inferred, blocks, rules)
    _add_privacy(mapping, facts, notes, questions)
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
    redactor = runtime_module("redaction").Redactor()
    for target in aligner.unmatched:
        preview = redactor.redact(target.record.get("content") or json.dumps(target.record.get("tool_calls")))
        unmatched.append(f"old session {target.session + 1}, record {target.index}: {target.record['role']} "
                         f"{TextMatcher.norm(str(preview))[:60]!r}")
    return sigs, pairs, unmatched


def _explain_rules(rules: list[Rule], aligned: bool, notes: list[str], questions: list[str]) -> None:
    """A note for each partly aligned rule; a question for each rule the old output did not teach."""
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


def _timestamps(raws: list[RawRec], ts_fields: list[tuple], zone_name: str, inferred: dict,
                questions: list[str]) -> dict[str, Any]:
    """The mapping's ``timestamps``: the learned fields and zone, the inferred format, an mtime fallback."""
    timestamps: dict[str, Any] = {"fields": paths_out(ts_fields) if ts_fields else ["timestamp"],
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
    return timestamps


def _add_optional_sections(mapping: dict, inferred: dict, blocks: dict, rules: list[Rule]) -> None:
    """``meta`` (inferred), ``blocks`` and ``tools``, when there is something to say."""
    meta = inferred.get("meta") if isinstance(inferred.get("meta"), dict) else {}
    if meta:
        mapping["meta"] = meta
    if blocks:
        mapping["blocks"] = {"type_field": "type", "types": blocks, "unknown": "skip"}
    if any(r.sig.role in ("tool_call", "tool_result", "tool_exchange") for r in rules):
        mapping["tools"] = {"orphan_results": "skip"}


def _add_privacy(mapping: dict, facts: ScriptFacts, notes: list[str], questions: list[str]) -> None:
    """Redaction on, with the old script's own patterns kept (and the ones that could not be, listed)."""
    mapping["privacy"] = {"redact": True}
    if facts.patterns:
        mapping["privacy"]["extra_patterns"] = dict(facts.patterns)
        notes.append("the old script's own redaction patterns are kept as privacy.extra_patterns: "
                     + ", ".join(facts.patterns))
    if facts.skipped_patterns:
        questions += [f"the old script's pattern {p} could not be carried over; add it to "
                      "privacy.extra_patterns by hand" for p in facts.skipped_patterns]


def _check(mapping: dict) -> None:
    """A learned mapping that fails the mapping checks is a bug here, not the user's input."""
    from generator.answers import AnswersError, check_mapping

    try:
        check_mapping(mapping, "learned mapping")
    except AnswersError as exc:
        raise MigrateError(f"{exc} (a bug in the migration: please report it with --debug)") from None


def block_types(raws: list[RawRec], rules: list[Rule]) -> tuple[dict, list[str]]:
    """Block types learned from the alignment, and the others seen in the same lists (skipped)."""
    convert = runtime_module("convert")
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
