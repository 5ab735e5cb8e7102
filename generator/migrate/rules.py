"""Rule learning: the kind rules of the new mapping, generalised from what each raw record became.

Alignment (and shape guessing) says what each raw record became; a mapping needs rules over raw
fields instead. A small decision tree (``RuleLearner``) does that: split on the field value (or
the field's presence) that best separates what records became, prefer fields named like a kind
(``type``, ``role`` ...), and merge sibling rules that only differ in one value. Where the old
output said nothing, trajectory-cleaner's own inference (generator/infer) may know better than a
guess from one record's shape: ``adopt_inferred`` takes its reading unless the shape guess keeps
structure (a tool step) it would flatten or drop, and ``kept_structure`` puts first the inferred
kinds that keep tool calls and results the old script dropped. Inference only helps here: when
it is missing or fails, alignment and shapes stand on their own.

A rule is the unit the report shows and the mapping's ``kinds`` list is made of; this module
also turns one into its mapping entry (paths written the way mapping files write them,
docs/mapping.md), its name and its description in words. Contract: every function returns new
values; the rules passed in are never changed.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from typing import Any

from cleaner_runtime.mapping import compile_paths, dotted, path_notation, paths_notation
from generator.migrate.alignment import RawRec, Sig

CONTENT_ROLES = ("user", "assistant", "reasoning", "system", "observation", "tool_result", "tool_exchange")
SOURCE_WORDS = {"alignment": "learned from the old output", "shape": "guessed from the record shape",
                "inference": "from trajectory-cleaner's inference"}
SOURCE_SHORT = {"alignment": "old output", "shape": "record shape", "inference": "inference"}
STRUCTURE_RANK = {"tool_exchange": 5, "tool_call": 4, "tool_result": 3, "reasoning": 2, "user": 1, "assistant": 1,
                  "system": 1, "observation": 1}
NAME_PREFERENCE = ("type", "kind", "event", "role", "from", "who", "speaker", "sender", "author", "source", "actor")
MAX_TREE_DEPTH = 4  # conditions per rule, at most
UNUSABLE = "\x00unusable"
MISSING_KEY = "\x00missing"


# --- a rule, and what it says in the mapping and the report -----------------------------------

@dataclass
class Rule:
    """A learned kind rule and the evidence behind it."""

    conds: list  # (path, op, value): op in eq, missing, has, lacks
    sig: Sig
    records: int
    aligned: int
    values: dict = field(default_factory=dict)  # path -> extra values merged into an eq condition
    source: str = "alignment"  # alignment | shape | inference


def _conditions(rule: Rule) -> tuple[dict, list, list]:
    match, has, lacks = {}, [], []
    for path, op, value in rule.conds:
        if op == "eq":
            values = [value, *rule.values.get(path, [])]
            match[dotted(path)] = values if len(values) > 1 else value
        elif op in ("missing", "lacks"):
            lacks.append(path_notation(path))
        elif op == "has":
            has.append(path_notation(path))
    return match, has, lacks


def rule_name(rule: Rule) -> str:
    """The rule's conditions in words (``type=tool, no who``): its name in the mapping and the report."""
    parts = []
    for path, op, value in rule.conds:
        if op == "eq":
            values = [value, *rule.values.get(path, [])]
            parts.append(f"{dotted(path)}={'|'.join(map(str, values))}")
        elif op in ("missing", "lacks"):
            parts.append(f"no {dotted(path)}")
        else:
            parts.append(f"has {dotted(path)}")
    return ", ".join(parts) or "every record"


def rule_kind(rule: Rule) -> dict:
    """The mapping's ``kinds`` entry for a rule."""
    match, has, lacks = _conditions(rule)
    sig = rule.sig
    kind: dict[str, Any] = {"name": rule_name(rule)}
    if match:
        kind["match"] = match
    if has:
        kind["has"] = has
    if lacks:
        kind["lacks"] = lacks
    kind["role"] = sig.role
    if sig.role in CONTENT_ROLES:
        kind["content"] = paths_notation([sig.content])
    if sig.role in ("tool_call", "tool_exchange"):
        kind["tool_name"] = paths_notation([sig.tool_name])
        if sig.args:
            kind["args"] = paths_notation([sig.args])
        if sig.call_id:
            kind["call_id"] = paths_notation([sig.call_id])
    if sig.role == "tool_result" and sig.link:
        kind["result_link"] = paths_notation([sig.link])
    if sig.role in ("tool_result", "tool_exchange") and sig.ok:
        kind["ok"] = {"path": path_notation(sig.ok[0]), "negate": sig.ok[1]}
    return kind


def rule_matches(rule: Rule, record: dict) -> bool:
    """Does a raw record meet every condition of the rule?"""
    from cleaner_runtime import convert
    for path, op, value in rule.conds:
        actual = convert.get_path(record, path)
        if op == "eq" and not any(convert.same_value(actual, v) for v in [value, *rule.values.get(path, [])]):
            return False
        if op in ("missing", "lacks") and actual not in (convert.MISSING, None):
            return False
        if op == "has" and actual in (convert.MISSING, None):
            return False
    return True


def describe_rule(rule: Rule) -> str:
    """What a rule does, in words, for the report's mapping table."""
    sig = rule.sig
    if sig.role == "skip":
        return "skipped"
    parts = [sig.role]
    if sig.content:
        parts.append(f"content from {dotted(sig.content)}")
    if sig.tool_name:
        parts.append(f"tool name from {dotted(sig.tool_name)}")
    if sig.args:
        parts.append(f"args from {dotted(sig.args)}")
    if sig.call_id:
        parts.append(f"call id from {dotted(sig.call_id)}")
    if sig.link:
        parts.append(f"linked by {dotted(sig.link)}")
    if sig.ok:
        parts.append(f"ok from {'not ' if sig.ok[1] else ''}{dotted(sig.ok[0])}")
    return ", ".join(parts)


# --- learning rules: a decision tree over raw fields -------------------------------------------

class RuleLearner:
    """Splits the raw records into kinds whose records all turned into the same thing."""

    def __init__(self, raws: list[RawRec], sigs: dict[int, Sig], exclude: set):
        self.sigs = sigs
        values, present = _field_values(raws, exclude)
        self.value_paths = [p for p, v in values.items() if UNUSABLE not in v and 1 <= len(v) <= 12
                            and (len(v) < present[p] or len(raws) <= 2)]
        self.key_paths = [p for p in present if len(p) <= 2]

    def sig(self, rec: RawRec) -> Sig:
        sig = self.sigs[rec.pos]
        return Sig(**{**sig.__dict__, "ok": ()}) if sig.ok else sig

    @staticmethod
    def _purity(groups: list[list[RawRec]], sig) -> int:
        return sum(max(Counter(sig(r) for r in g).values()) for g in groups if g)

    def _preference(self, path: tuple) -> tuple:
        last = str(path[-1]).lower()
        return (NAME_PREFERENCE.index(last) if last in NAME_PREFERENCE else len(NAME_PREFERENCE), len(path))

    def build(self, records: list[RawRec], conds: list, depth: int = 0) -> list[Rule]:
        counts = Counter(self.sig(r) for r in records)
        if len(counts) == 1 or depth >= MAX_TREE_DEPTH:
            return [self._leaf(records, conds)]
        best = self._best_split(records, {c[0] for c in conds})
        if best is None or best[0][0] <= max(counts.values()):
            return [self._leaf(records, conds)]
        _, how, path, groups = best
        rules: list[Rule] = []
        for key, group in groups.items():
            rules.extend(self.build(group, [*conds, _condition(how, path, key)], depth + 1))
        return self._merge(rules)

    def _best_split(self, records: list[RawRec], used: set) -> tuple | None:
        """(score, how, path, groups) of the split keeping most records with their kind; None if none."""
        best = None
        for candidate in chain(self._value_splits(records, used), self._key_splits(records, used)):
            if best is None or candidate[0] > best[0]:
                best = candidate
        return best

    def _value_splits(self, records: list[RawRec], used: set):
        """Candidate splits by a field's value (missing is a value of its own)."""
        from cleaner_runtime import convert
        for path in self.value_paths:
            if path in used:
                continue
            groups: dict[str, list[RawRec]] = {}
            for rec in records:
                value = convert.get_path(rec.record, path)
                key = MISSING_KEY if value is convert.MISSING else json.dumps(value)
                groups.setdefault(key, []).append(rec)
            if len(groups) < 2:
                continue
            score = (self._purity(list(groups.values()), self.sig), 1, -len(groups), [-x for x in self._preference(path)])
            yield score, "value", path, groups

    def _key_splits(self, records: list[RawRec], used: set):
        """Candidate splits by whether a field is there (and not null)."""
        from cleaner_runtime import convert
        for path in self.key_paths:
            if path in used:
                continue
            have = [r for r in records if convert.get_path(r.record, path) not in (convert.MISSING, None)]
            lack = [r for r in records if convert.get_path(r.record, path) in (convert.MISSING, None)]
            if not have or not lack:
                continue
            score = (self._purity([have, lack], self.sig), 0, -2, [-x for x in self._preference(path)])
            yield score, "key", path, {"has": have, "lacks": lack}

    @staticmethod
    def _merge(rules: list[Rule]) -> list[Rule]:
        """Sibling leaves that differ only in one value of one field become one rule with a value list."""
        out: list[Rule] = []
        for rule in rules:
            k = next((k for k, other in enumerate(out) if _siblings(other, rule)), None)
            if k is None:
                out.append(rule)
            else:
                out[k] = _merged(out[k], rule)
        return out

    def _leaf(self, records: list[RawRec], conds: list) -> Rule:
        sigs = [self.sig(r) for r in records]
        learned = [s for s in sigs if s.learned]
        sig = Counter(learned or sigs).most_common(1)[0][0]
        oks = [self.sigs[r.pos].ok for r in records if self.sigs[r.pos].ok and self.sigs[r.pos].role == sig.role]
        if oks:
            sig = Sig(**{**sig.__dict__, "ok": Counter(oks).most_common(1)[0][0]})
        return Rule(conds, sig, len(records), len(learned), source="alignment" if learned else "shape")


def _field_values(raws: list[RawRec], exclude: set) -> tuple[dict[tuple, set], Counter]:
    """The values each shallow field takes (UNUSABLE for long or structured ones), and how often it is there."""
    values: dict[tuple, set] = {}
    present: Counter = Counter()
    for rec in raws:
        for path, value in rec.leaves:
            if any(isinstance(p, int) for p in path) or len(path) > 3 or path in exclude:
                continue
            present[path] += 1
            if isinstance(value, bool) or (isinstance(value, str) and 0 < len(value) <= 40) or (
                    isinstance(value, int) and abs(value) < 1000):
                values.setdefault(path, set()).add(json.dumps(value))
            else:
                values.setdefault(path, set()).add(UNUSABLE)
    return values, present


def _siblings(a: Rule, b: Rule) -> bool:
    """Do two rules become the same thing, and differ only in the value their last condition wants?"""
    return a.sig == b.sig and len(a.conds) == len(b.conds) and a.conds[:-1] == b.conds[:-1] \
        and a.conds[-1][1] == b.conds[-1][1] == "eq" and a.conds[-1][0] == b.conds[-1][0]


def _merged(rule: Rule, sibling: Rule) -> Rule:
    """A new rule: ``rule`` also wanting its sibling's value (and the values merged into it), counts added."""
    path = rule.conds[-1][0]
    values = [*rule.values.get(path, []), sibling.conds[-1][2], *sibling.values.get(sibling.conds[-1][0], [])]
    return replace(rule, values={**rule.values, path: values}, records=rule.records + sibling.records,
                   aligned=rule.aligned + sibling.aligned)


def _condition(how: str, path: tuple, key: str) -> tuple:
    if how == "value":
        return (path, "missing", None) if key == MISSING_KEY else (path, "eq", json.loads(key))
    return (path, key, None)


# --- where the old output is silent: trajectory-cleaner's inference ---------------------------

def try_infer(samples: list[Path], notice) -> Any:
    """The lead's inference (generator/infer.py) when this build has it; None otherwise."""
    try:
        from generator import infer  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        return infer.infer([str(s) for s in samples])
    except Exception as exc:  # noqa: BLE001 - inference only helps here; alignment stands on its own
        notice(f"notice: inference failed ({exc.__class__.__name__}: {exc}); using alignment and record shapes only")
        return None


def adopt_inferred(rules: list[Rule], raws: list[RawRec], inference: Any) -> list[Rule]:
    """Rules the old output said nothing about: the inferred kind, unless the record shape keeps more.

    The inference module (when present) reads the samples as a whole and knows noise and role
    names better; the shape guess wins only where it keeps structure the inferred reading would
    flatten or drop (a tool step read as a result with nothing to link to, a call read as text
    whose content field is not there). Returns the rules in order, an adopted one as a new rule.
    """
    mapping = getattr(inference, "mapping", None) if inference is not None else None
    if not isinstance(mapping, dict) or not mapping.get("kinds"):
        return list(rules)
    from cleaner_runtime import convert
    specs = mapping["kinds"]
    try:
        kinds = [convert.Kind.compile(i, spec) for i, spec in enumerate(specs)]
    except (KeyError, TypeError, ValueError):
        return list(rules)
    linkable = any(r.sig.role in ("tool_call", "tool_exchange") for r in rules)
    adopted = []
    for rule in rules:
        members = [rec for rec in raws if rule_matches(rule, rec.record)] if rule.source == "shape" else []
        adopted.append(_adopt(rule, members, kinds, specs, linkable) if members else rule)
    return adopted


def _adopt(rule: Rule, members: list[RawRec], kinds: list, specs: list[dict], linkable: bool) -> Rule:
    """The first inferred kind matching every member replaces the rule's guess (in a new rule),
    unless the guess keeps more; ``rule`` itself when nothing is adopted."""
    for kind, spec in zip(kinds, specs):
        if not all(kind.matches(rec.record) for rec in members):
            continue
        try:
            inferred = _sig_from_spec(spec)
        except (KeyError, TypeError, ValueError):
            return rule
        if inferred.role not in ("skip", "meta") and not _usable(inferred, members, linkable):
            return rule
        shape_wins = STRUCTURE_RANK.get(rule.sig.role, 0) >= 2 and _usable(rule.sig, members, linkable) \
            and _weight(rule.sig) > _weight(inferred)
        return rule if shape_wins else replace(rule, sig=inferred, source="inference")
    return rule


def _usable(sig: Sig, members: list[RawRec], linkable: bool) -> bool:
    """Does a candidate reading work on these records (its paths are there; a result can be linked)?"""
    from cleaner_runtime import convert

    def present(path: tuple) -> bool:
        return bool(path) and sum(convert.get_path(r.record, path) not in (convert.MISSING, None)
                                  for r in members) * 2 > len(members)

    if sig.role in CONTENT_ROLES and not present(sig.content):
        return False
    if sig.role in ("tool_call", "tool_exchange") and not present(sig.tool_name):
        return False
    return not (sig.role == "tool_result" and not sig.link and not linkable)


def _weight(sig: Sig) -> tuple:
    return (STRUCTURE_RANK.get(sig.role, 0),
            sum(1 for p in (sig.content, sig.tool_name, sig.args, sig.call_id, sig.link) if p))


def _sig_from_spec(spec: dict) -> Sig:

    def first(key):
        paths = compile_paths(spec.get(key))
        return paths[0] if paths else ()

    return Sig(spec["role"], content=first("content"), tool_name=first("tool_name"), args=first("args"),
               call_id=first("call_id"), link=first("result_link"), learned=False)


def decision_text(decision: Any) -> str:
    """One of the inference module's open decisions, as a line for the report."""
    key, value = getattr(decision, "key", None), getattr(decision, "value", None)
    if key is None:
        return f"inference: {decision}"
    text = f"inference is unsure of {key}: {value}"
    evidence = getattr(decision, "evidence", None)
    candidates = getattr(decision, "candidates", None)
    if evidence:
        text += f" ({evidence})"
    if candidates:
        text += f"; candidates: {', '.join(map(str, candidates))}"
    return text


def kept_structure(rules: list[Rule], raws: list[RawRec], inference: Any) -> tuple[list[dict], list[str]]:
    """The inferred kinds that keep calls and results the learned rules drop, to put first.

    The old script may have dropped every tool call and result (it wrote only the conversation's
    text); the new cleaner keeps them, as the inference reads them (calls in a list beside the
    text, results linked by id). Such a kind comes before the learned rules only where, for the
    records it matches, the learned rule skips them or reads text only. Returns (kinds, notes).
    """
    mapping = getattr(inference, "mapping", None) if inference is not None else None
    if not isinstance(mapping, dict):
        return [], []
    from cleaner_runtime import convert
    kinds, notes = [], []
    for index, spec in enumerate(mapping.get("kinds") or []):
        entries = spec.get("emit") or []
        structured = spec.get("role") in ("tool_call", "tool_exchange") or (
            spec.get("role") == "tool_result" and spec.get("result_link")) or any(
            e.get("as") in ("tool_call", "tool_result", "tool_exchange") for e in entries)
        if not structured:
            continue
        try:
            kind = convert.Kind.compile(index, spec)
        except (KeyError, TypeError, ValueError):
            continue
        members = [rec for rec in raws if kind.matches(rec.record)]
        dropped = [rec for rec in members if (learned := next((r for r in rules if rule_matches(r, rec.record)), None))
                   is None or learned.sig.role not in ("tool_call", "tool_result", "tool_exchange")]
        if not dropped:
            continue
        kinds.append({**spec, "name": f"{spec.get('name', 'kind')} (calls and results the old script dropped)"})
        notes.append(f"{spec.get('name', 'a kind')}: {len(dropped)} record(s) whose tool calls or results the old "
                     "script dropped; the new cleaner keeps them, as inference reads them")
    return kinds, notes
