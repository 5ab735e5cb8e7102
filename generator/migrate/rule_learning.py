"""Splitting the raw records into kinds whose records all turned into the same thing.

Alignment (and shape guessing) says what each raw record became; a mapping needs rules over
fields instead. A small decision tree does that: split on the field value (or the field's
presence) that best separates what records became, prefer fields named like a kind
(``type``, ``role`` ...), and merge sibling rules that only differ in one value.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import chain

from generator.migrate.records import RawRec, Sig
from generator.migrate.rules import Rule
from generator.paths import runtime_module

NAME_PREFERENCE = ("type", "kind", "event", "role", "from", "who", "speaker", "sender", "author", "source", "actor")
MAX_DEPTH = 4
UNUSABLE = "\x00unusable"
MISSING_KEY = "\x00missing"


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
        if len(counts) == 1 or depth >= MAX_DEPTH:
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
        convert = runtime_module("convert")
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
        convert = runtime_module("convert")
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
            for other in out:
                if other.sig == rule.sig and len(other.conds) == len(rule.conds) and other.conds[:-1] == rule.conds[:-1] \
                        and other.conds[-1][1] == rule.conds[-1][1] == "eq" and other.conds[-1][0] == rule.conds[-1][0]:
                    other.values.setdefault(other.conds[-1][0], []).append(rule.conds[-1][2])
                    other.values[other.conds[-1][0]].extend(rule.values.get(rule.conds[-1][0], []))
                    other.records += rule.records
                    other.aligned += rule.aligned
                    break
            else:
                out.append(rule)
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


def _condition(how: str, path: tuple, key: str) -> tuple:
    if how == "value":
        return (path, "missing", None) if key == MISSING_KEY else (path, "eq", json.loads(key))
    return (path, key, None)
