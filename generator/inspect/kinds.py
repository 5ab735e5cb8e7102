"""Record kinds: the sampled records split by discriminator fields (nested), or by the keys they hold,
into ``Kind`` objects with their own field profiles, counts and name hints.

Contract: ``find_kinds`` returns the kinds in the order of their first record; each holds its
records, their stats and the conditions (match, has, lacks) that select it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from generator.inspect.discriminators import discriminator
from generator.inspect.fieldpaths import LIST, dotted
from generator.inspect.fields import FieldStat, profile_fields
from generator.inspect.records import Rec
from generator.inspect.sessions import SessionInfo, session_key
from generator.inspect.splits import call_split, key_roles, presence_split
from generator.inspect.vocab import DISCRIMINATOR_NAMES, ROLE_FIELD_NAMES, name_roles


@dataclass
class Kind:
    """A record kind: the conditions that tell it apart, and what its records hold."""

    key: str
    match: list = field(default_factory=list)  # [(path, value)]
    has: list = field(default_factory=list)
    lacks: list = field(default_factory=list)
    count: int = 0
    first_in_session: int = 0
    per_session_max: int = 0
    files: int = 0
    recs: list = field(default_factory=list, repr=False)
    stats: dict = field(default_factory=dict, repr=False)
    hints: list = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.key

    def names(self) -> list[str]:
        """The discriminator values, most specific first."""
        return [str(v) for _, v in reversed(self.match)]

    def to_dict(self, show_values: bool = False) -> dict:
        n = self.count or 1
        fields = [
            {"path": dotted(p), "fill": round(s.records / n, 3), "type": s.main_type}
            for p, s in sorted(self.stats.items(), key=lambda kv: dotted(kv[0]))
            if LIST not in p and len(p) <= 3 and s.records
        ]
        return {
            "key": self.key,
            "match": {dotted(p): v for p, v in self.match},
            "has": [dotted(p) for p in self.has],
            "lacks": [dotted(p) for p in self.lacks],
            "records": self.count, "first_in_session": self.first_in_session,
            "per_session_max": self.per_session_max, "named_like": self.hints, "fields": fields[:40],
        }


def kind_key(match: list, has: list, lacks: list) -> str:
    parts = [f"{dotted(p)}={v}" for p, v in match]
    parts += [f"has={dotted(p)}" for p in has]
    parts += [f"lacks={dotted(p)}" for p in lacks]
    return ",".join(parts) or "all"


def find_kinds(recs: list[Rec], stats: dict[tuple, FieldStat], session: SessionInfo) -> list[Kind]:
    """Split records into kinds by discriminator fields (nested), or key presence."""
    candidates = [
        path for path, stat in stats.items()
        if LIST not in path and len(path) <= 3 and stat.records and stat.main_type == "string" and stat.tokenish
        and (stat.cardinality <= 40 or str(path[-1]).lower() in DISCRIMINATOR_NAMES)
        and stat.time_format()[1] < 0.8
    ]
    if session.path:
        candidates = [p for p in candidates if p != session.path]
    leaves: list[tuple[list, list, list, list[Rec]]] = []

    def split(subset: list[Rec], match: list, lacks: list, used: set, depth: int) -> None:
        role_known = any(str(p[-1]).lower() in ROLE_FIELD_NAMES for p, _ in match)
        named = any(name_roles(v) for _, v in match)
        found = discriminator(subset, candidates, used, role_known, named) if depth < 4 else None
        if found is None:
            if not match:  # nothing names the kind: tell records apart by the keys they have
                for has, lacks2, group in presence_split(subset, lacks):
                    leaves.append((match, has, lacks2, group))
            else:  # a message kind may mix text records with records that are only a tool call
                for has, lacks2, group in call_split(subset) or [([], [], subset)]:
                    leaves.append((match, has, [*lacks, *lacks2], group))
            return
        _, path, groups, absent = found
        for value in sorted(groups, key=lambda v: -len(groups[v])):
            split(groups[value], [*match, (path, value)], lacks, used | {path}, depth + 1)
        if absent:
            split(absent, match, [*lacks, path], used | {path}, depth + 1)

    if recs:
        split(recs, [], [], set(), 0)
    kinds = []
    for match, has, lacks, group in leaves:
        kind = Kind(kind_key(match, has, lacks), match, has, lacks, len(group), recs=group)
        kind.stats = profile_fields([r.data for r in group[:3000]], times=False)
        per_session: Counter = Counter(session_key(r, session) for r in group)
        kind.per_session_max = max(per_session.values())
        kind.files = len({r.file for r in group})
        kind.hints = next((name_roles(v) for v in kind.names() if name_roles(v)), [])
        if not kind.hints and has:
            kind.hints = key_roles(has[0][-1], group)
        kinds.append(kind)
    for kind in kinds:
        if not kind.match and not kind.has and kind.lacks:
            # the last group of a presence split: name it by a key only its records have
            tops = {k for o in kinds if o is not kind for k, st in o.stats.items() if len(k) == 1 and st.records}
            own = [k for k, st in kind.stats.items() if len(k) == 1 and st.records == kind.count and k not in tops]
            if own:
                kind.has = [own[0]]
                kind.key = kind_key(kind.match, kind.has, kind.lacks)
        if kind.hints or kind.match:
            continue
        # no name for the kind: a top-level key that only its records have may say it (visitor, bot)
        mine = [k for k, st in kind.stats.items() if len(k) == 1 and st.records == kind.count]
        others = set()
        for other in kinds:
            if other is not kind:
                others.update(k for k, st in other.stats.items() if len(k) == 1 and st.records)
        for key in mine:
            if key not in others and key_roles(key[0], kind.recs):
                kind.hints = key_roles(key[0], kind.recs)
                break
    firsts: dict[Any, Rec] = {}
    for rec in recs:
        firsts.setdefault(session_key(rec, session), rec)
    first_ids = {id(r) for r in firsts.values()}
    for kind in kinds:
        kind.first_in_session = sum(1 for r in kind.recs if id(r) in first_ids)
    kinds.sort(key=lambda k: min((r.file, r.pos) for r in k.recs))
    return kinds

