"""Speakers: a text kind with no role name whose records say who wrote them.

Why: multi-agent logs (AutoGen's ``source``, a chat export's ``sender``) name the human with a role
word (``user``, ``user_proxy``, ``customer``) and each agent by its own name (``researcher``,
``writer``). A record's role is then a fact of its speaker field, not a guess: the values that name
the user are the user's, and every other speaker is an agent the trajectory is about (assistant).
Person ids and names (``U07MAYA``, ``Jonas Berg``) name no role, so a field without a user word
decides nothing; a speaker named ``system`` or ``tool`` makes the split unsafe, so it decides
nothing either.

Contract: ``split_by_speaker(draft)``: for every text kind whose role is a guess, the one string
field named like a speaker (at most two keys deep, in every record, 2..12 values) whose values
include a user-naming value and at least one value that names no role. The kind becomes the
agents' (assistant, confident), and ``plan.speaker = (path, values)`` makes the user's values a
rule written before it (see ``rules.kinds_section``).
"""

from __future__ import annotations

from typing import Any

from generator.infer.calls import norm
from generator.infer.draft import Draft
from generator.inspect import dotted, get, mapping_path, name_roles, words

# the last key of a field that says who wrote a record
SPEAKER_WORDS = {"source", "sender", "author", "from", "speaker", "agent", "participant", "actor", "who",
                 "origin", "by", "writer", "persona", "character", "name", "user", "role"}
TEXT_ROLES = ("user", "assistant", "reasoning")


def speaker_field(recs: list[Any]) -> tuple[tuple, list[str]] | None:
    """The speaker field of ``recs`` and its user-naming values, or None (see the module contract)."""
    found = []
    paths = {path for rec in recs[:50] for path in _string_paths(rec.data)}
    for path in sorted(paths, key=lambda p: (len(p), p)):
        if not set(words(str(path[-1]))) & SPEAKER_WORDS:
            continue
        values = [get(rec.data, path) for rec in recs]
        if any(not isinstance(v, str) or not v.strip() for v in values):
            continue
        distinct = sorted(set(values))
        if not 2 <= len(distinct) <= 12:
            continue
        roles = {v: name_roles(v) for v in distinct}
        humans = [v for v in distinct if roles[v][:1] == ["user"]]
        others = [v for v in distinct if not roles[v]]
        if humans and others and all(roles[v][:1] in ([], ["user"], ["assistant"]) for v in distinct):
            found.append((path, humans))
    return found[0] if len(found) == 1 else None


def _string_paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    out = []
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, str):
                out.append((*prefix, key))
            elif isinstance(value, dict) and not prefix:
                out.extend(_string_paths(value, (key,)))
    return out


def split_by_speaker(draft: Draft) -> None:
    for plan in draft.plans:
        key = f"kinds[{plan.kind.key}]"
        if plan.role not in TEXT_ROLES or plan.emit or draft.role_decision(plan) is None or draft.sure(plan):
            continue
        found = speaker_field(plan.kind.recs)
        if found is None or any(norm(p[-1]) == norm(found[0][-1]) for p, _ in plan.kind.match):
            continue
        path, humans = found
        plan.role, plan.speaker = "assistant", (path, humans)
        shown = ", ".join(f"`{v}`" for v in humans)
        draft.redecide(f"{key}.role", "assistant", 0.85,
                          f"`{dotted(path)}` names who wrote each record: {shown} the user, every other speaker an "
                          "agent of the run")
        draft.decide(f"{key}.speaker", {mapping_path(path): humans if len(humans) > 1 else humans[0]}, 0.85,
                        f"records whose `{dotted(path)}` is {shown} are the user's")


def people_beside_bots(draft: Draft) -> None:
    """A text kind whose role is a guess is a person's when a confident assistant kind is told apart
    by a key naming a bot (``has: [bot_id]``) that these records never carry, and both read their
    text at the same field: in a chat export, every message no bot posted was written by a person."""
    bots = [(plan.kind.has[0], plan.content[:1]) for plan in draft.plans
            if plan.role == "assistant" and plan.kind.has and plan.kind.hints[:1] == ["assistant"]
            and draft.sure(plan)]
    for plan in draft.plans:
        if plan.role not in TEXT_ROLES or plan.emit or draft.sure(plan):
            continue
        for has, content in bots:
            if content != plan.content[:1] or any(get(rec.data, has) is not None for rec in plan.kind.recs):
                continue
            plan.role = "user"
            draft.redecide(f"kinds[{plan.kind.key}].role", "user", 0.85,
                              f"{plan.kind.count} record(s) without `{dotted(has)}`, which every bot message carries: "
                              "written by a person")
            break

