"""Records the format marks as no longer part of the conversation: dropped when they are words taken
back, a doubt (`new --yes` refuses) otherwise.

Why: some formats keep what a person undid. A message whose ``state`` is ``rewound`` (hermes), a
turn marked ``discarded`` or ``superseded``, stays in the file beside the history that replaced
it. A cleaner that reads every record writes both: every text is kept, so no score sees a loss,
yet the trajectory says the agent did what was undone. Letta's adapters, the downstream authority,
drop what the harness itself excludes from replay (hermes's rewound rows, a tree's abandoned
branches), so a message taken back is skipped, counted under its rule's name. That reading is
taken only for speech: every marked record is of a kind written as user, assistant or reasoning,
and each such kind holds unmarked records too (the mark is a state beside the kind, not a kind of
its own). A marked tool result (a deploy whose status says ``reverted``) is a fact of what
happened, and a kind marked throughout is a kind: those stay a doubt, and `--yes` refuses until a
mapping that tells them apart is given (a kinds rule matching that field) or ``kinds.undone`` is
answered.

The rule, on the profile: a field of the records whose values are words (outside lists, at most
``MAX_VALUES`` distinct values, each one token) holds, in some records but not all, a value whose words include
one of ``SUPERSEDED``; and no kinds rule of the mapping matches on that field.

Contract: ``superseded_records(profile, mapping)`` returns ``None`` or one sentence naming the
field, the value and how many sampled records hold it; ``undone_rule(draft, kinds)`` decides
``kinds.undone`` (skip, sure, for speech taken back; else keep, a question) and, for skip, puts a
rule skipping them before the others.
"""

from __future__ import annotations

import re
from typing import Any

from cleaner_runtime.mapping import compile_path
from cleaner_runtime.mapping import dotted as match_key
from generator.inspect import LIST, Profile, dotted, get, words

SPOKEN = {"user", "assistant", "reasoning"}
# marks that say the words left the history (a turn whose edits were later `reverted` did happen)
TAKEN_BACK = {"rewound", "retracted", "discarded", "superseded"}
SUPERSEDED = {"rewound", "reverted", "discarded", "abandoned", "superseded", "retracted", "undone", "rolled",
              "deleted", "obsolete"}
MAX_VALUES = 12
_TOKEN = re.compile(r"[A-Za-z][\w.:-]{0,39}")


def marked_records(profile: Profile) -> tuple[tuple, list[str], int] | None:
    """(field, its values that mean undone, sampled records holding them), or None."""
    for path, stat in profile.stats.items():
        if LIST in path or stat.overflow or not stat.values or len(stat.values) > MAX_VALUES:
            continue
        if not all(isinstance(v, str) and _TOKEN.fullmatch(v) for v in stat.values):
            continue  # a state is a word (``rewound``, ``discarded_by_user``), never a sentence
        marked = {v: n for v, n in stat.values.items() if isinstance(v, str) and SUPERSEDED & set(words(v))}
        held = sum(marked.values())
        if marked and held < stat.records:
            return path, sorted(marked, key=lambda v: -marked[v]), held
    return None


def superseded_records(profile: Profile, mapping: dict[str, Any]) -> str | None:
    found = marked_records(profile)
    matched = {key for rule in mapping.get("kinds") or [] for key in (rule.get("match") or {})}
    if found is None or dotted(found[0]) in matched:
        return None
    path, values, held = found
    return (f"{held} sampled record(s) have `{dotted(path)}` = `{values[0]}`, a mark that they left the "
            "conversation (undone or replaced); the cleaner would write them as part of the session. "
            "Whether they belong is the format's call: answer the survey (it asks) or give a mapping whose "
            f"kinds match `{dotted(path)}`")


def undone_rule(draft: Any, kinds: list[dict]) -> list[dict]:
    """The kinds, with records marked undone skipped first when they are speech taken back (Letta's
    reading) or the person says so (``kinds.undone``); kept, as a question, otherwise."""
    found = marked_records(draft.p)
    if found is None:
        return kinds
    path, values, held = found
    marks = f"{held} record(s) have `{dotted(path)}` = {', '.join(f'`{v}`' for v in values)}"
    if taken_back(draft, path, values):
        choice = draft.decide("kinds.undone", "skip", 0.9,
                              f"{marks}: messages taken back, which Letta's adapters drop as the harness "
                              "excludes them from replay (counted)", ["keep"])
    else:
        choice = draft.decide("kinds.undone", "keep", 0.6, marks, ["skip"])
    if choice != "skip":
        return kinds
    match = {match_key(path): values[0] if len(values) == 1 else values}
    return [{"name": f"records marked {' / '.join(values)} (skip)", "match": match, "role": "skip"}, *kinds]


def taken_back(draft: Any, path: tuple, values: list[str]) -> bool:
    """Whether the marked records are words taken back: each is of a kind written as speech, and each
    such kind holds unmarked records too (the mark is a state beside the kind)."""
    if not all(TAKEN_BACK & set(words(v)) for v in values):
        return False
    marked = [plan for plan in draft.plans if any(get(r.data, path) in values for r in plan.kind.recs)]
    return bool(marked) and all(
        plan.role in SPOKEN and not all(get(r.data, path) in values for r in plan.kind.recs) for plan in marked)


def branching_tree(profile: Profile, mapping: dict[str, Any]) -> str | None:
    """A conversation tree (``session.tree``) in which a message has two or more children of one
    speaker (``role``): a regenerated answer beside the one kept. The cleaner writes every branch,
    so `--yes` refuses (a doubt). Spans of a trace (no role) fork into parallel steps, not branches."""
    tree = (mapping.get("session") or {}).get("tree")
    if not tree:
        return None
    parent = compile_path(tree["parent"])
    roles = [compile_path(p) for p in ("role", "message.author.role", "author.role", "message.role")]
    children: dict = {}
    for kind in profile.kinds:
        for rec in kind.recs:
            value = get(rec.data, parent)
            role = next((r for r in (get(rec.data, p) for p in roles) if isinstance(r, str)), None)
            if role is not None and isinstance(value, (str, int)) and not isinstance(value, bool):
                key = (rec.file, getattr(rec, "element", None), value, role)
                children[key] = children.get(key, 0) + 1
    forks = sum(1 for n in children.values() if n > 1)
    if not forks:
        return None
    return (f"{forks} sampled record(s) have two or more children by `{tree['parent']}`: branches (a regenerated "
            "answer beside the kept one), and the cleaner would write every branch as one history; "
            "give a mapping that keeps one branch")
