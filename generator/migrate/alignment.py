"""Alignment: what each raw sample record became, traced from the old output or guessed from its shape.

This is how ``migrate script`` learns. The raw samples are read by the runtime's readers (the
rendered cleaner will see exactly the same records) into ``RawRec``s, the old script's output
(migrated mechanically) into ``Target``s. ``Aligner`` traces each target back to the raw record
it came from: once an old message is found in a raw record, the path it was copied from and
the role it was given - a ``Sig`` - are evidence for that record's kind. The search keeps to the
raw order where it can, and never uses one raw field for two old records. ``TextMatcher``
answers whether an old text comes from a raw string although the old script may have redacted,
truncated or re-spaced it (the equivalence check in reports.py asks it of the new output too).

Where the old output says nothing about a record (the old script dropped whole kinds, or was not
run), ``guess_sig`` classifies it by its shape and the field names raw traces use, marked as
guessed (``Sig.learned`` False) so the report can say so.

Contract: nothing here raises for odd data; ``read_samples`` raises MigrateError (exit 2) only
when the samples cannot be found or hold no records.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cleaner_runtime.mapping import DEFAULTS
from generator.inspect.vocab import ROLE_WORDS
from generator.migrate.old_traces import MigrateError

# The field names and words raw traces use for tools, text, roles and noise: where the old output says
# nothing about a record its kind is guessed from these, and the alignment prefers id-, link- and
# name-like fields when one value sits in several places.
NAME_KEYS = ("tool", "tool_name", "name", "fn", "function", "action", "command")
ARGS_KEYS = ("args", "arguments", "params", "parameters", "input", "tool_input", "kwargs", "query")
RESULT_KEYS = ("result", "output", "returned", "response", "observation", "tool_output", "return")
LINK_KEYS = ("call_ref", "call_id", "tool_call_id", "tool_use_id", "action_id", "ref", "parent_id", "reply_to")
ID_KEYS = ("id", "call_id", "tool_call_id", "action_id", "tool_use_id", "uid")
TEXT_KEYS = ("text", "content", "body", "message", "msg", "says", "note", "thought", "thinking", "value")
# what a kind's name sounds like: the one vocabulary inspection and inference use
USER_WORDS = ROLE_WORDS["user"]
ASSISTANT_WORDS = ROLE_WORDS["assistant"]
REASONING_WORDS = ROLE_WORDS["reasoning"]
NOISE_WORDS = ROLE_WORDS["skip"]
HEADER_WORDS = ROLE_WORDS["meta"]
SYSTEM_WORDS = ROLE_WORDS["system"]


# --- does an old text come from this raw string? ---------------------------------------------

class TextMatcher:
    """Does an old output text come from this raw string? Exact, modulo redaction, or truncated."""

    def __init__(self, markers: list[str]):
        alternatives = [re.escape(m) for m in sorted(set(markers), key=len, reverse=True)]
        alternatives.append(r"\[REDACTED(?::[A-Za-z0-9_-]+)?\]")
        self.marker = re.compile("|".join(alternatives))
        self._cache: dict[str, re.Pattern | None] = {}
        self._keys: dict[str, str | None] = {}

    @staticmethod
    def norm(text: str) -> str:
        return " ".join(text.split())

    def pattern(self, old: str) -> re.Pattern | None:
        if old not in self._cache:
            pieces = self.marker.split(self.norm(old))
            self._cache[old] = None if len(pieces) == 1 else re.compile(
                "(.+?)".join(re.escape(p) for p in pieces), re.DOTALL)
            self._keys[old] = max(pieces, key=len) if len(pieces) > 1 else self._prefix(self.norm(old))
        return self._cache[old]

    def key(self, old: str) -> str | None:
        """A literal part of ``old`` any raw text it matches (other than exactly) must contain."""
        self.pattern(old)
        return self._keys[old]

    @staticmethod
    def _prefix(a: str) -> str | None:
        for tail in ("...", "\u2026"):
            if a.endswith(tail) and len(a) > 20:
                return a[: -len(tail)].rstrip()
        if "characters truncated" in a:
            head = a.split("[...", 1)[0].strip()
            if len(head) > 20:
                return head
        return None

    def score(self, old: str, raw: str) -> int:
        """3 identical, 2 identical but where ``old`` has placeholders, 1 ``old`` is a truncation; ``raw`` normalised."""
        a, b = self.norm(old), raw
        if not a:
            return 0
        if a == b:
            return 3
        pattern = self.pattern(old)
        if pattern is not None and pattern.fullmatch(b):
            return 2
        prefix = self._prefix(a)
        if prefix is not None and b.startswith(prefix):
            return 1
        return 0


# --- the records: raw, old output, and what one became ----------------------------------------

MAX_DEPTH = 6  # how deep a record's leaves are indexed
MAX_ITEMS = 64  # list items indexed per list


@dataclass
class RawRec:
    """One raw sample record, with where it came from."""

    pos: int
    file: int
    where: str
    record: dict
    _leaves: list | None = None
    _texts: list | None = None

    @property
    def texts(self) -> list[tuple[tuple, str, tuple]]:
        if self._texts is None:
            self._texts = _text_candidates(self)
        return self._texts

    @property
    def leaves(self) -> list[tuple[tuple, Any]]:
        if self._leaves is None:
            self._leaves = list(_walk(self.record, ()))
        return self._leaves


def _walk(node: Any, path: tuple) -> Iterator[tuple[tuple, Any]]:
    """(path, value) of every node under ``node`` (containers before what they hold), to MAX_DEPTH."""
    if len(path) > MAX_DEPTH:
        return
    if isinstance(node, dict):
        if path:
            yield path, node
        for key, value in node.items():
            if isinstance(key, str):
                yield from _walk(value, (*path, key))
    elif isinstance(node, list):
        if path:
            yield path, node
        for index, value in enumerate(node[:MAX_ITEMS]):
            yield from _walk(value, (*path, index))
    else:
        yield path, node


def _text_candidates(rec: RawRec) -> list[tuple[tuple, str, tuple]]:
    """(path, normalised text, block types) of every string, and of every typed block list joined."""
    out = []
    norm = TextMatcher.norm
    for path, value in rec.leaves:
        if isinstance(value, str):
            out.append((path, norm(value), ()))
    for path, value in rec.leaves:
        if isinstance(value, list) and value and all(isinstance(b, dict) and isinstance(b.get("type"), str)
                                                     for b in value):
            keys = {k for b in value for k, v in b.items() if isinstance(v, str) and k != "type"}
            for key in sorted(keys):
                parts = [(b["type"], b[key]) for b in value if isinstance(b.get(key), str)]
                out.append((path, norm("\n".join(text for _, text in parts)),
                            tuple(sorted({(t, key) for t, _ in parts}))))
    return out


@dataclass
class Target:
    """One record of the old output (migrated mechanically), to trace back to the raw record it came from."""

    session: int
    index: int
    record: dict
    old_ts: Any


@dataclass(frozen=True)
class Sig:
    """What one raw record turned into: a role and the paths its fields came from."""

    role: str
    content: tuple = ()
    tool_name: tuple = ()
    args: tuple = ()
    call_id: tuple = ()
    link: tuple = ()
    blocks: tuple = ()  # ((type value, field), ...) when content is a typed block list
    ok: tuple = ()  # (path, negate) of a result's success flag
    learned: bool = True  # False: guessed from the record's shape (the old output had nothing)


# --- the raw samples --------------------------------------------------------------------------

DEFAULT_INCLUDE = DEFAULTS["input"]["include"]  # the mapping's default, from cleaner_runtime.model
MAX_RAW = 20000


def read_samples(samples: list[Path]) -> tuple[list[RawRec], list[str], list[str]]:
    """(records, include globs, notes) of the raw samples, read by the runtime's readers."""
    from cleaner_runtime import readers
    include = _include(samples)
    records: list[RawRec] = []
    notes: list[str] = []
    file = 0  # index of the sample file, as RawRec.file
    for sample in samples:
        try:
            items = readers.discover(str(sample), include)
        except readers.InputError as exc:
            raise MigrateError(str(exc)) from None
        for item in items:
            try:
                for entry in readers.read_records(item, "auto"):
                    if isinstance(entry, readers.BadLine):
                        notes.append(f"{entry.where}: {entry.reason} (not used for learning)")
                        continue
                    where, record = entry
                    if len(records) < MAX_RAW:
                        records.append(RawRec(len(records), file, str(where), record))
            except readers.InputError as exc:  # what was read of the file before the error is kept
                notes.append(str(exc))
            file += 1
    if len(records) >= MAX_RAW:
        notes.append(f"only the first {MAX_RAW} raw records were used for learning")
    if not records:
        raise MigrateError(f"{' '.join(map(str, samples))}: no raw records found in the samples "
                           f"(looked for {', '.join(include)})")
    return records, include, notes


def _include(samples: list[Path]) -> list[str]:
    """The default globs, plus the suffix of any sample file given by name that they miss."""
    include = list(DEFAULT_INCLUDE)
    for sample in samples:
        if sample.is_file() and not any(sample.name.lower().endswith(p[1:]) for p in include):
            suffix = "".join(sample.suffixes[-1:]) or sample.name
            include.append(f"*{suffix}")
    return include


# --- tracing the old output back to the raw records ------------------------------------------

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


# --- records the old output did not cover ----------------------------------------------------

def guess_sig(rec: RawRec, ts_paths: set) -> Sig:
    """A record the old output did not cover, classified by its shape and the names it uses."""
    name = _first_key(rec, NAME_KEYS, _identifier)
    args = _first_key(rec, ARGS_KEYS, _is_args)
    result = _first_key(rec, RESULT_KEYS, _nonempty)
    link = _first_key(rec, LINK_KEYS, _id_like)
    call_id = _first_key(rec, ID_KEYS, _id_like)
    text = _first_key(rec, TEXT_KEYS, _nonempty)
    if text is None:
        text = _longest_text(rec, ts_paths)
    words = _words(rec, {p for p in (name, text, result) if p})
    if words & NOISE_WORDS:
        return Sig("skip", learned=False)
    if name and args and result:
        return Sig("tool_exchange", content=result, tool_name=name, args=args, call_id=call_id or (), learned=False)
    if name and args:
        return Sig("tool_call", tool_name=name, args=args, call_id=call_id or (), learned=False)
    if link and (result or text):
        return Sig("tool_result", content=result or text, link=link, learned=False)
    if words & REASONING_WORDS and text:
        return Sig("reasoning", content=text, learned=False)
    if words & SYSTEM_WORDS or words & HEADER_WORDS:
        return Sig("skip", learned=False)
    if words & USER_WORDS and text:
        return Sig("user", content=text, learned=False)
    if words & ASSISTANT_WORDS and text:
        return Sig("assistant", content=text, learned=False)
    return Sig("skip", learned=False)


def _longest_text(rec: RawRec, ts_paths: set) -> tuple | None:
    """The longest top-level string over 40 characters: the text when no field is named like one."""
    strings = [(len(v), p) for p, v in rec.leaves if isinstance(v, str) and p not in ts_paths
               and not any(isinstance(x, int) for x in p) and len(v) > 40]
    return max(strings)[1] if strings else None


def _words(rec: RawRec, exclude: set) -> set[str]:
    """The short word-like values of a record (and their parts): what it calls itself."""
    words = set()
    for path, value in rec.leaves:
        if any(isinstance(p, int) for p in path) or path in exclude or len(path) > 3:
            continue
        if isinstance(value, str) and 0 < len(value) <= 40 and re.fullmatch(r"[A-Za-z][\w.:/-]*", value):
            low = value.lower()
            words.add(low)
            words.update(w for w in re.split(r"[_.:/-]", low) if w)
    return words


def _first_key(rec: RawRec, keys: tuple, want) -> tuple | None:
    """The path of the field named earliest in ``keys`` (shallowest first) whose value ``want``s."""
    best = None
    for path, value in rec.leaves:
        if any(isinstance(p, int) for p in path) or not isinstance(path[-1], str):
            continue
        if path[-1].lower() in keys and want(value):
            rank = (keys.index(path[-1].lower()), len(path))
            if best is None or rank < best[0]:
                best = (rank, path)
    return best[1] if best else None


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _id_like(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _is_args(value: Any) -> bool:
    if isinstance(value, dict):
        return True
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            return isinstance(json.loads(value), dict)
        except ValueError:
            return False
    return False


def _identifier(value: Any) -> bool:
    return isinstance(value, str) and bool(re.fullmatch(r"[A-Za-z_][\w.:/-]{0,63}", value))
