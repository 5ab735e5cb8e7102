"""Records that hold their replies: a list, inside a record, of records of the same shape.

Why: chat exports keep a conversation as a tree (LibreChat's ``messagesTree``, each message's replies
in ``children``; a run tree's ``child_runs``). Read at the top level only, every reply is a field of
its parent, and its text reaches no output record. The runtime reads such lists as records of their
own, after their parent, depth first (``input.children``); this finds them.

The rule is structural: a key whose value is a non-empty list of objects that share most of their
parent's keys (the same kind of thing, nested), in at least one record. Its name does not matter;
a list of calls or blocks has keys of its own and is not taken.

Contract: ``child_lists(records)`` returns the keys (as paths of one key), most used first;
``with_children(recs)`` returns the sampled records with their replies after each, depth first (the
runtime's order), and those keys, so inspection profiles the replies' kinds too.
"""

from __future__ import annotations

from collections import Counter

from generator.inspect.records import Rec

SHARED = 0.6  # of the parent's keys an item must have too
MIN_KEYS = 3  # a record this small says too little about its shape


def _alike(parent: dict, item: dict) -> bool:
    keys = set(parent)
    return len(keys) >= MIN_KEYS and len(keys & set(item)) >= SHARED * len(keys | set(item))


def child_lists(records: list[dict]) -> list[tuple]:
    found: Counter = Counter()
    broken: set[str] = set()
    stack = [record for record in records if isinstance(record, dict)]
    seen = 0
    while stack and seen < 100_000:  # bounded: a sample is a few thousand records
        record = stack.pop()
        seen += 1
        for key, value in record.items():
            if key in broken or not isinstance(value, list) or not value:
                continue
            if all(isinstance(item, dict) and _alike(record, item) for item in value):
                found[key] += 1
                stack.extend(value)  # replies of replies
            else:
                broken.add(key)
    return [(key,) for key, _ in found.most_common() if key not in broken]


def with_children(recs: list[Rec]) -> tuple[list[Rec], list[tuple]]:
    keys = child_lists([rec.data for rec in recs])
    if not keys:
        return recs, []
    names = {key for key, in keys}
    out: list[Rec] = []
    for rec in recs:
        stack = [(rec.data, rec.where)]
        while stack and len(out) < 100_000:
            data, where = stack.pop()
            replies = [(item, f"{where} (reply)") for name in names if isinstance(data.get(name), list)
                       for item in data[name] if isinstance(item, dict)]
            kept = {k: v for k, v in data.items() if k not in names}
            out.append(Rec(rec.file, len(out) + 1, where, kept, rec.envelope, rec.element))
            stack.extend(reversed(replies))
    return out, keys
