"""Tracing each record of the old output back to the raw record it came from.

This is how ``migrate script --run-old`` learns: once an old message is found in a raw record,
the path it was copied from (and the role it was given) is evidence for that record's kind. The
search keeps to the raw order where it can, and never uses one raw field for two old records.
"""

from __future__ import annotations

import json
import re

from generator.migrate.records import RawRec, Sig, Target
from generator.migrate.text_match import TextMatcher
from generator.migrate.vocabulary import ID_KEYS, LINK_KEYS, NAME_KEYS


def synthesised(call_id: str) -> bool:
    """Was this call id made up by the converter (``call_3``), so no raw field holds it?"""
    return bool(re.fullmatch(r"call_\d+(__\d+)?", call_id))


def leaf_equal(rec: RawRec, wanted: str, exclude: tuple = ()) -> tuple | None:
    """The path of a scalar equal to ``wanted``; id-, link- and name-like fields win ties."""
    best = None
    for path, value in rec.leaves:
        if path == exclude or isinstance(value, (dict, list, bool)) or value is None:
            continue
        named = ID_KEYS + LINK_KEYS + NAME_KEYS
        if str(value) == wanted and (best is None or (path[-1] in named and best[-1] not in named)):
            best = path
    return best


def args_path(rec: RawRec, args: dict) -> tuple | None:
    """The path of an object (or a JSON string of one) equal to a call's arguments."""
    if not args:
        return None
    for path, value in rec.leaves:
        if isinstance(value, dict) and value == args:
            return path
        if isinstance(value, str) and value.strip().startswith("{"):
            try:
                if json.loads(value) == args:
                    return path
            except ValueError:
                continue
    return None


class Aligner:
    """Finds, for each record of the old output (migrated mechanically), the raw record it came from."""

    def __init__(self, raws: list[RawRec], matcher: TextMatcher):
        self.raws = raws
        self.matcher = matcher
        self.pointer = 0
        self.index: dict[str, list[tuple[RawRec, tuple, tuple]]] = {}
        self.scalars: dict[str, list[RawRec]] = {}
        for rec in raws:
            for path, value, blocks in rec.texts:
                self.index.setdefault(value, []).append((rec, path, blocks))
            for _, value in rec.leaves:
                if isinstance(value, str) and len(value) <= 200:
                    holders = self.scalars.setdefault(value, [])
                    if not holders or holders[-1] is not rec:
                        holders.append(rec)
        self.assigned: dict[int, list[tuple[Sig, Target]]] = {}
        self.used: set[tuple[int, str]] = set()
        self.unmatched: list[Target] = []

    def _order(self):
        n = len(self.raws)
        for k in range(n):
            yield self.raws[(self.pointer + k) % n]

    def _take(self, rec: RawRec, sig: Sig, target: Target, slot: str) -> None:
        self.assigned.setdefault(rec.pos, []).append((sig, target))
        self.used.add((rec.pos, slot))
        self.pointer = rec.pos

    def _find(self, content: str, slot: str, prefer=None) -> tuple[RawRec, tuple, tuple] | None:
        """The raw text an old text came from: exact by lookup (the next one after the last match
        first), else the first placeholder or truncation match in order, prefiltered by a literal."""
        a = TextMatcher.norm(content)
        if not a:
            return None
        hits = [h for h in self.index.get(a, ()) if (h[0].pos, slot) not in self.used]
        if hits:
            if prefer is not None:
                hits = [h for h in hits if prefer(h)] or hits
            after = [h for h in hits if h[0].pos >= self.pointer]
            return (after or hits)[0]
        key = self.matcher.key(content)
        if not key:
            return None
        for rec in self._order():
            if (rec.pos, slot) in self.used:
                continue
            for path, value, blocks in rec.texts:
                if key in value and self.matcher.score(content, value):
                    return rec, path, blocks
        return None

    def text(self, target: Target, role: str) -> bool:
        found = self._find(target.record.get("content") or "", "text")
        if found is None:
            return False
        rec, path, blocks = found
        self._take(rec, Sig(role, content=path, blocks=blocks), target, "text")
        return True

    def call(self, target: Target, call: dict) -> bool:
        try:
            args = json.loads(call.get("args") or "{}")
        except ValueError:
            args = {}
        holders = sorted(self.scalars.get(str(call.get("name")), ()), key=lambda r: (r.pos < self.pointer, r.pos))
        for rec in holders:
            if (rec.pos, "call") in self.used:
                continue
            name = leaf_equal(rec, call["name"])
            if name is None:
                continue
            found_args = args_path(rec, args)
            if args and found_args is None:
                continue
            id_path = None if synthesised(call["id"]) else leaf_equal(rec, call["id"], exclude=name)
            self._take(rec, Sig("tool_call", tool_name=name, args=found_args or (), call_id=id_path or ()),
                       target, "call")
            return True
        return False

    def result(self, target: Target) -> bool:
        link = target.record.get("tool_call_id") or ""
        linked = None if synthesised(link) else (lambda h: leaf_equal(h[0], link, exclude=h[1]) is not None)
        found = self._find(target.record.get("content") or "", "result", prefer=linked)
        if found is None:
            return False
        rec, path, blocks = found
        link_path = None if synthesised(link) else leaf_equal(rec, link, exclude=path)
        ok = _ok_flag(rec, target.record.get("ok"))
        self._take(rec, Sig("tool_result", content=path, blocks=blocks, link=link_path or (), ok=ok), target,
                   "result")
        return True

    def align(self, targets: list[Target]) -> None:
        for target in targets:
            record = target.record
            role = record["role"]
            if role == "assistant" and record.get("tool_calls"):
                found = [self.call(target, call) for call in record["tool_calls"]]  # every call, no short cut
                ok = all(found)
            elif role == "tool":
                ok = self.result(target)
            else:
                ok = self.text(target, role)
            if not ok:
                self.unmatched.append(target)

    def sigs(self) -> dict[int, Sig]:
        """One signature per aligned raw record; a call and its result on one record make an exchange."""
        out = {}
        for pos, pairs in self.assigned.items():
            sigs = [sig for sig, _ in pairs]
            call = next((s for s in sigs if s.role == "tool_call"), None)
            result = next((s for s in sigs if s.role == "tool_result"), None)
            if call and result:
                out[pos] = Sig("tool_exchange", content=result.content, tool_name=call.tool_name, args=call.args,
                               call_id=call.call_id, blocks=result.blocks, ok=result.ok)
            else:
                out[pos] = sigs[0]
        return out


def _ok_flag(rec: RawRec, ok) -> tuple:
    """(path, negate) of the raw boolean a result's ``ok`` came from; () when ``ok`` is not a bool."""
    if not isinstance(ok, bool):
        return ()
    flags = [(p, v) for p, v in rec.leaves if isinstance(v, bool)]
    flags.sort(key=lambda pv: not re.search(r"ok|success|error|fail", str(pv[0][-1]), re.IGNORECASE))
    if flags:
        return (flags[0][0], flags[0][1] != ok)
    return ()
