"""Records the format marks as no longer part of the conversation: a doubt, so `new --yes` refuses.

Why: some formats keep what a person undid. A message whose ``state`` is ``rewound`` (hermes), a
turn marked ``discarded`` or ``superseded``, stays in the file beside the history that replaced
it. A cleaner that reads every record writes both: every text is kept, so no score sees a loss,
yet the trajectory says the agent did what was undone. Whether such records belong to the session
is the format owner's call, never a guess, so it is said and `--yes` refuses until a mapping
that tells them apart is given (a kinds rule matching that field).

The rule, on the profile: a field of the records whose values are words (outside lists, at most
``MAX_VALUES`` distinct values, each one token) holds, in some records but not all, a value whose words include
one of ``SUPERSEDED``; and no kinds rule of the mapping matches on that field.

Contract: ``superseded_records(profile, mapping)`` returns ``None`` or one sentence naming the
field, the value and how many sampled records hold it.
"""

from __future__ import annotations

import re
from typing import Any

from generator.inspect import LIST, Profile, dotted, words

SUPERSEDED = {"rewound", "reverted", "discarded", "abandoned", "superseded", "retracted", "undone", "rolled",
              "deleted", "obsolete"}
MAX_VALUES = 12
_TOKEN = re.compile(r"[A-Za-z][\w.:-]{0,39}")


def superseded_records(profile: Profile, mapping: dict[str, Any]) -> str | None:
    matched = {key for rule in mapping.get("kinds") or [] for key in (rule.get("match") or {})}
    for path, stat in profile.stats.items():
        if LIST in path or stat.overflow or not stat.values or len(stat.values) > MAX_VALUES:
            continue
        if not all(isinstance(v, str) and _TOKEN.fullmatch(v) for v in stat.values):
            continue  # a state is a word (``rewound``, ``discarded_by_user``), never a sentence
        if dotted(path) in matched:
            continue
        marked = {v: n for v, n in stat.values.items() if isinstance(v, str) and SUPERSEDED & set(words(v))}
        held = sum(marked.values())
        if marked and held < stat.records:
            value = max(marked, key=lambda v: marked[v])
            return (f"{held} sampled record(s) have `{dotted(path)}` = `{value}`, a mark that they left the "
                    "conversation (undone or replaced); the cleaner would write them as part of the session. "
                    "Whether they belong is the format's call: answer the survey or give a mapping whose kinds "
                    f"match `{dotted(path)}`")
    return None
