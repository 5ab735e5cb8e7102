"""The field whose values tell record kinds apart. Names are one signal, the vocabulary of the
values another, the shape of the records a third; a field that only exists inside one value of
another field is nested under it.

Contract: ``discriminator`` returns (score, path, {value: records}, records without the field) or
None. ``mostly_present`` counts keys in the records' key order, so ties break the same way on every
run.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from generator.inspect.fieldpaths import get
from generator.inspect.records import Rec
from generator.inspect.values import token_like
from generator.inspect.vocab import (
    DISCRIMINATOR_NAMES,
    META_NAMES,
    PERSON_WORDS,
    TOOL_NAME_FIELDS,
    name_roles,
    words,
)


def mostly_present(recs: list[Rec], depth: int = 2) -> Counter:
    """How many records hold each key (and each key of a nested object), in the records' key order:
    ties between keys are then broken the same way on every run (a set's order is not)."""
    counts: Counter = Counter()
    for rec in recs:
        keys: dict = {}
        for k, v in rec.data.items():
            keys[(k,)] = None
            if depth > 1 and isinstance(v, dict):
                keys.update(((k, k2), None) for k2 in v)
        counts.update(list(keys))
    return counts


def _structure_score(groups: list[list[Rec]], exclude: tuple) -> float:
    """How differently shaped the groups are (0 identical .. 1 disjoint), keys seen in >=80%."""
    shapes = []
    for group in groups:
        counts = mostly_present(group)
        shapes.append({k for k, c in counts.items() if c >= 0.8 * len(group) and k != exclude[:len(k)]})
    if len(shapes) < 2:
        return 0.0
    distances = []
    for i in range(len(shapes)):
        for j in range(i + 1, len(shapes)):
            union = shapes[i] | shapes[j]
            distances.append(1 - len(shapes[i] & shapes[j]) / len(union) if union else 0.0)
    return sum(distances) / len(distances)


def _slots(groups: dict[Any, list[Rec]]) -> bool:
    """Whether a person-named field's values are slots that recur in every file (a transcript's
    ``spk_0``/``spk_1``) rather than people, who differ from one conversation to the next."""
    files = {r.file for g in groups.values() for r in g}
    return len(files) > 1 and all({r.file for r in g} == files for g in groups.values())


def _per_file(groups: dict[Any, list[Rec]], absent: list[Rec]) -> bool:
    """Whether every file's records hold one value of the field (or all lack it), and the files
    differ: a setting of each session (a run's approval policy, its sandbox), which the next
    session may set anew or leave out."""
    owner: dict[str, Any] = {}
    for value, group in [*groups.items(), (None, absent)]:
        for rec in group:
            if owner.setdefault(rec.file, value) != value:
                return False
    return len(set(owner.values())) >= 2


def _describes(path: tuple, groups: dict) -> bool:
    """Whether a field's values say something about a record rather than what it is: a field named
    for the model, the working directory or the branch (the next session's model is a new value,
    not a new kind), or values that are paths or addresses (``src/app.py``, ``https://…``)."""
    joined = "_".join(words(str(path[-1])))
    if any(joined in names or joined.replace("_", "") in names for names in META_NAMES.values()):
        return True
    return all("/" in value or "\\" in value for value in groups)


def discriminator(recs: list[Rec], candidates: list[tuple], used: set, after_role: bool,
                   named: bool = False) -> tuple | None:
    """The field whose values best tell kinds apart in ``recs`` (None when nothing does).

    Names are one signal (``type``, ``kind``, ``role`` ...), the vocabulary of the values another,
    and the shape of the records a third: values that come with different keys are kinds. A field
    that only exists inside one value of another field is nested under it (``type=message`` then
    ``message.role``), so the outer one is chosen first.
    """
    accepted = []
    n = len(recs)
    for path in candidates:
        if path in used:
            continue
        groups: dict[Any, list[Rec]] = defaultdict(list)
        absent: list[Rec] = []
        bad = False
        for rec in recs:
            value = get(rec.data, path)
            if value is None:
                absent.append(rec)
            elif isinstance(value, str) and token_like(value):
                groups[value].append(rec)
            else:
                bad = True
                break
        if bad or not groups or len(groups) > 25:
            continue
        present = n - len(absent)
        coverage = present / n
        name = str(path[-1]).lower()
        strong = name in DISCRIMINATOR_NAMES or name.endswith(("_type", "type", "_kind", "_role"))
        hits = [v for v in groups if name_roles(v)]
        vocab = sum(len(groups[v]) for v in hits) / max(1, present)
        parts = list(groups.values()) + ([absent] if absent else [])
        structure = _structure_score(parts, path)
        if len(groups) == 1 and not absent:
            # one value that names a role or kind (agent_reasoning), where the kind is not named yet
            ok = strong and vocab >= 0.5 and not named
        elif after_role and not strong:
            ok = False  # the role is known: only a field named like a kind splits further
        else:
            ok = (strong and (len(groups) >= 2 or coverage < 1)) or (
                vocab >= 0.8 and len(hits) >= 2) or (structure >= 0.5 and 2 <= len(groups) <= 12 and coverage >= 0.5)
            if len(groups) > 1 and len(groups) >= 0.6 * present and present > 4 and vocab < 0.5:
                ok = False  # nearly one value per record: names or ids, not kinds
            if not strong and ("id" in words(str(path[-1])) or "_".join(words(name)) in TOOL_NAME_FIELDS or (
                    vocab < 0.5 and len(groups) > 1
                                                          and all(len(g) == 1 for g in groups.values()))):
                ok = False  # an id, a tool's name, or a value no two records share: it names, it does not sort
        if ok and (not strong or vocab < 0.5) and _per_file(groups, absent):
            ok = False  # one value a file (codex's approval_policy): a setting of the session, not a kind
        if ok and not strong and _describes(path, groups):
            ok = False  # the model, the directory, a file: values that describe a record, not sort it
        if ok and not strong and vocab < 0.5 and set(words(str(path[-1]))) & PERSON_WORDS and not _slots(groups):
            # people (Slack's user: U07MAYA) told apart by shape alone: a role rule keyed on a person is wrong for
            # the next one. A field named as the speaker (speaker: A/B) is asked about, value by value.
            ok = False
        if not ok:
            continue
        score = (3 if strong else 0) + 2 * vocab + 2 * structure + 2 * coverage - 0.1 * len(path)
        accepted.append((score, path, groups, absent))
    if not accepted:
        return None
    accepted.sort(key=lambda a: -a[0])
    best = accepted[0]
    changed = True
    while changed:
        changed = False
        inside = {id(r) for g in best[2].values() for r in g}
        for other in accepted:
            if other is best or len(other[3]) >= len(best[3]):
                continue
            # `best` only exists within one value of `other`: `other` is the outer discriminator
            holders = [v for v, g in other[2].items() if any(id(r) in inside for r in g)]
            if len(holders) == 1:
                best, changed = other, True
                break
    return best

