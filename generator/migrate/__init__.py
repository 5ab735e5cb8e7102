"""Leave the pre-trajectory shape behind: convert old traces, and relearn the cleaners that wrote them.

Lerim used to read ``{"type", "message": {"role", "content"}, "timestamp"}`` per line; it now
reads only trajectory-v1. Two things need migrating:

* folders of old output (``migrate_traces``): the mapping is mechanical, so it is written once
  as an ordinary mapping (``old_shape_mapping``) and run through the cleaner runtime's
  ``Converter`` - the same code every rendered cleaner ships - which already splits block lists,
  links tool results to calls, derives missing times from neighbours and redacts secrets;
* the old cleaner scripts (``migrate_script``): read by AST to find where they emit the old
  shape, optionally run on the raw samples, and the raw -> role/content mapping they embody is
  learned by aligning their output with the raw records. A new cleaner is rendered from it and
  an equivalence report compares the two outputs record by record.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from generator.migrate.convert_old import FileResult, convert_old_file
from generator.migrate.errors import MigrateError
from generator.migrate.notation import dotted, path_out, paths_out
from generator.migrate.old_run import OldRun, run_old_script
from generator.migrate.old_shape import is_naive, old_shape_mapping
from generator.migrate.records import RawRec, Sig, Target
from generator.migrate.samples import read_samples
from generator.migrate.script_reading import ScriptFacts, read_script
from generator.migrate.script_redaction import portable_pattern
from generator.migrate.text_match import TextMatcher
from generator.migrate.traces import migrate_traces
from generator.migrate.traces_summary import format_traces_report
from generator.paths import runtime_module

__all__ = ["MigrateError", "RawRec", "Target", "TextMatcher", "format_script_report", "format_traces_report",
           "learn_session", "migrate_script", "migrate_traces", "portable_pattern", "read_script"]

# =============================================================================================
# Part 2c: learning the mapping by aligning the old output with the raw samples
# =============================================================================================

NAME_KEYS = ("tool", "tool_name", "name", "fn", "function", "action", "command")
ARGS_KEYS = ("args", "arguments", "params", "parameters", "input", "tool_input", "kwargs", "query")
RESULT_KEYS = ("result", "output", "returned", "response", "observation", "tool_output", "return")
LINK_KEYS = ("call_ref", "call_id", "tool_call_id", "tool_use_id", "action_id", "ref", "parent_id", "reply_to")
ID_KEYS = ("id", "call_id", "tool_call_id", "action_id", "tool_use_id", "uid")
TEXT_KEYS = ("text", "content", "body", "message", "msg", "says", "note", "thought", "thinking", "value")
USER_WORDS = {"user", "human", "customer", "requester", "client", "input", "question", "prompt", "caller",
              "requestor", "member", "patient", "person"}
ASSISTANT_WORDS = {"assistant", "ai", "bot", "agent", "model", "answer", "reply", "response", "researcher",
                   "analyst", "support", "responder", "copilot", "llm", "gpt", "claude"}
REASONING_WORDS = {"thought", "thinking", "reasoning", "reflection", "scratchpad", "deliberation", "rationale",
                   "agent_note", "note", "plan", "internal"}
NOISE_WORDS = {"heartbeat", "typing", "progress", "ping", "pong", "usage", "keepalive", "metrics", "debug",
               "telemetry", "status", "tick", "noop"}
HEADER_WORDS = {"opened", "start", "started", "header", "session", "created", "meta", "init", "begin"}
SYSTEM_WORDS = {"system"}


def _synthesised(call_id: str) -> bool:
    return bool(re.fullmatch(r"call_\d+(__\d+)?", call_id))


def _leaf_equal(rec: RawRec, wanted: str, exclude: tuple = ()) -> tuple | None:
    best = None
    for path, value in rec.leaves:
        if path == exclude or isinstance(value, (dict, list, bool)) or value is None:
            continue
        named = ID_KEYS + LINK_KEYS + NAME_KEYS
        if str(value) == wanted and (best is None or (path[-1] in named and best[-1] not in named)):
            best = path
    return best


def _args_path(rec: RawRec, args: dict) -> tuple | None:
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
            name = _leaf_equal(rec, call["name"])
            if name is None:
                continue
            args_path = _args_path(rec, args)
            if args and args_path is None:
                continue
            id_path = None if _synthesised(call["id"]) else _leaf_equal(rec, call["id"], exclude=name)
            self._take(rec, Sig("tool_call", tool_name=name, args=args_path or (), call_id=id_path or ()),
                       target, "call")
            return True
        return False

    def result(self, target: Target) -> bool:
        link = target.record.get("tool_call_id") or ""
        linked = None if _synthesised(link) else (lambda h: _leaf_equal(h[0], link, exclude=h[1]) is not None)
        found = self._find(target.record.get("content") or "", "result", prefer=linked)
        if found is None:
            return False
        rec, path, blocks = found
        link_path = None if _synthesised(link) else _leaf_equal(rec, link, exclude=path)
        ok = ()
        if isinstance(target.record.get("ok"), bool):
            flags = [(p, v) for p, v in rec.leaves if isinstance(v, bool)]
            flags.sort(key=lambda pv: not re.search(r"ok|success|error|fail", str(pv[0][-1]), re.IGNORECASE))
            if flags:
                ok = (flags[0][0], flags[0][1] != target.record["ok"])
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


def _words(rec: RawRec, exclude: set) -> set[str]:
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
    best = None
    for path, value in rec.leaves:
        if any(isinstance(p, int) for p in path) or not isinstance(path[-1], str):
            continue
        if path[-1].lower() in keys and want(value):
            rank = (keys.index(path[-1].lower()), len(path))
            if best is None or rank < best[0]:
                best = (rank, path)
    return best[1] if best else None


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


def guess_sig(rec: RawRec, ts_paths: set) -> Sig:
    """A record the old output did not cover, classified by its shape and the names it uses."""
    nonempty = lambda v: isinstance(v, str) and v.strip() != ""
    name = _first_key(rec, NAME_KEYS, _identifier)
    args = _first_key(rec, ARGS_KEYS, _is_args)
    result = _first_key(rec, RESULT_KEYS, nonempty)
    link = _first_key(rec, LINK_KEYS, lambda v: isinstance(v, (str, int)) and not isinstance(v, bool))
    call_id = _first_key(rec, ID_KEYS, lambda v: isinstance(v, (str, int)) and not isinstance(v, bool))
    text = _first_key(rec, TEXT_KEYS, nonempty)
    if text is None:
        strings = [(len(v), p) for p, v in rec.leaves if isinstance(v, str) and p not in ts_paths
                   and not any(isinstance(x, int) for x in p) and len(v) > 40]
        text = max(strings)[1] if strings else None
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
            lacks.append(path_out(path))
        elif op == "has":
            has.append(path_out(path))
    return match, has, lacks


def _rule_name(rule: Rule) -> str:
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
    kind: dict[str, Any] = {"name": _rule_name(rule)}
    if match:
        kind["match"] = match
    if has:
        kind["has"] = has
    if lacks:
        kind["lacks"] = lacks
    kind["role"] = sig.role
    if sig.role in ("user", "assistant", "reasoning", "system", "observation", "tool_result", "tool_exchange"):
        kind["content"] = paths_out([sig.content])
    if sig.role in ("tool_call", "tool_exchange"):
        kind["tool_name"] = paths_out([sig.tool_name])
        if sig.args:
            kind["args"] = paths_out([sig.args])
        if sig.call_id:
            kind["call_id"] = paths_out([sig.call_id])
    if sig.role == "tool_result" and sig.link:
        kind["result_link"] = paths_out([sig.link])
    if sig.role in ("tool_result", "tool_exchange") and sig.ok:
        kind["ok"] = {"path": path_out(sig.ok[0]), "negate": sig.ok[1]}
    return kind


NAME_PREFERENCE = ("type", "kind", "event", "role", "from", "who", "speaker", "sender", "author", "source", "actor")


class RuleLearner:
    """Splits the raw records into kinds whose records all turned into the same thing."""

    def __init__(self, raws: list[RawRec], sigs: dict[int, Sig], exclude: set):
        self.raws = raws
        self.sigs = sigs
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
                    values.setdefault(path, set()).add("\x00unusable")
        self.value_paths = [p for p, v in values.items() if "\x00unusable" not in v and 1 <= len(v) <= 12
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
        if len(counts) == 1 or depth >= 4:
            return [self._leaf(records, conds)]
        current = max(counts.values())
        best = None
        used = {c[0] for c in conds}
        for path in self.value_paths:
            if path in used:
                continue
            groups: dict[str, list[RawRec]] = {}
            for rec in records:
                value = runtime_module("convert").get_path(rec.record, path)
                key = "\x00missing" if value is runtime_module("convert").MISSING else json.dumps(value)
                groups.setdefault(key, []).append(rec)
            if len(groups) < 2:
                continue
            score = (self._purity(list(groups.values()), self.sig), 1, -len(groups), [-x for x in self._preference(path)])
            if best is None or score > best[0]:
                best = (score, "value", path, groups)
        for path in self.key_paths:
            if path in used:
                continue
            get = runtime_module("convert").get_path
            missing = runtime_module("convert").MISSING
            have = [r for r in records if get(r.record, path) not in (missing, None)]
            lack = [r for r in records if get(r.record, path) in (missing, None)]
            if not have or not lack:
                continue
            score = (self._purity([have, lack], self.sig), 0, -2, [-x for x in self._preference(path)])
            if best is None or score > best[0]:
                best = (score, "key", path, {"has": have, "lacks": lack})
        if best is None or best[0][0] <= current:
            return [self._leaf(records, conds)]
        _, how, path, groups = best
        rules: list[Rule] = []
        for key, group in groups.items():
            if how == "value":
                cond = (path, "missing", None) if key == "\x00missing" else (path, "eq", json.loads(key))
            else:
                cond = (path, key, None)
            rules.extend(self.build(group, [*conds, cond], depth + 1))
        return self._merge(rules)

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


def _instant(iso: str) -> datetime:
    return datetime.fromisoformat(iso[:-1] + "+00:00" if iso.endswith("Z") else iso)


def learn_times(raws: list[RawRec], pairs: list[tuple[RawRec, Target]], tz: str | None, exclude: set
                ) -> tuple[list[tuple], str, list[str], list[str]]:
    """(timestamp paths, zone of naive times, notes, questions) from the old output's times."""
    timestamps = runtime_module("timestamps")
    zone_name = tz or "UTC"
    old_zone = timestamps.zone(zone_name)
    votes: Counter = Counter()
    offsets: dict[tuple, Counter] = {}
    naive_raw: Counter = Counter()
    notes, questions = [], []
    for rec, target in pairs:
        if target.old_ts in (None, ""):
            continue
        try:
            old = _instant(timestamps.to_iso(target.old_ts, "auto", None, old_zone))
        except (ValueError, TypeError):
            continue
        old_naive = is_naive(target.old_ts)
        for path, value in rec.leaves:
            if path in exclude or isinstance(value, (dict, list, bool)) or value is None:
                continue
            try:
                raw = _instant(timestamps.to_iso(value, "auto", None, old_zone))
            except (ValueError, TypeError):
                continue
            if raw == old:
                votes[path] += 1
                if is_naive(value):
                    naive_raw[path] += 1
            elif is_naive(value) and not old_naive:
                as_utc = _instant(timestamps.to_iso(value, "auto", None, UTC))
                offsets.setdefault(path, Counter())[int((as_utc - old).total_seconds())] += 1
    fields = [path for path, _ in votes.most_common()]
    if not fields and offsets:
        path, counter = max(offsets.items(), key=lambda kv: sum(kv[1].values()))
        seconds, _ = counter.most_common(1)[0]
        if len(counter) == 1 and tz is None:
            sign = "-" if seconds > 0 else "+"
            hours, minutes = divmod(abs(seconds) // 60, 60)
            zone_name = f"{sign}{hours:02d}:{minutes:02d}"
            fields = [path]
            notes.append(f"zone-less times in {dotted(path)} are read as {zone_name}: the old script's output "
                         "says so")
    if fields and naive_raw[fields[0]] and tz is None and not any(n.startswith("zone-less") for n in notes):
        questions.append(f"{dotted(fields[0])} holds times without a zone; they are read as UTC (give --timezone, "
                         "or set timestamps.timezone in .copier-answers.yml, if they are local times)")
    if not fields:
        for rec in raws:
            for path, value in rec.leaves:
                if path in exclude or any(isinstance(p, int) for p in path):
                    continue
                if isinstance(path[-1], str) and re.search(r"time|date|_at$|^at$|^ts$|when", path[-1], re.IGNORECASE):
                    try:
                        timestamps.to_iso(value, "auto", None, old_zone)
                    except (ValueError, TypeError):
                        continue
                    if path not in fields:
                        fields.append(path)
        if fields:
            questions.append("the old output had no timestamps to learn from; times are read from "
                             + ", ".join(dotted(p) for p in fields) + " (a guess from the field names)")
    return fields, zone_name, notes, questions


def learn_session(raws: list[RawRec], pairs: list[tuple[RawRec, Target]], n_files: int, exclude: set
                  ) -> tuple[dict, tuple | None, list[str]]:
    """One session per raw file, or a grouping field when the old script split or merged files."""
    per_file: dict[int, set] = {}
    per_session: dict[int, set] = {}
    for rec, target in pairs:
        per_file.setdefault(rec.file, set()).add(target.session)
        per_session.setdefault(target.session, set()).add(rec.file)
    if all(len(v) == 1 for v in per_file.values()) and all(len(v) == 1 for v in per_session.values()):
        return {"by": "file"}, None, []
    convert = runtime_module("convert")
    candidates = []
    for path in {p for rec, _ in pairs for p, v in rec.leaves if isinstance(v, (str, int)) and not isinstance(v, bool)}:
        if path in exclude or any(isinstance(p, int) for p in path) or len(path) > 2:
            continue
        by_session: dict[int, set] = {}
        for rec, target in pairs:
            value = convert.get_path(rec.record, path)
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                by_session = {}
                break
            by_session.setdefault(target.session, set()).add(json.dumps(value))
        values = list(by_session.values())
        if values and all(len(v) == 1 for v in values) and len({next(iter(v)) for v in values}) == len(values):
            fill = sum(1 for rec in raws if convert.get_path(rec.record, path) not in (convert.MISSING, None))
            candidates.append((fill, -len(path), str(path), path))
    if not candidates:
        return {"by": "file"}, None, [(
            "the old script split or merged the raw files into sessions by a rule this migration could not find; "
            "sessions are one raw file each (set session.by: field in .copier-answers.yml if that is wrong)")]
    fill, _, _, path = max(candidates)
    session = {"by": "field", "field": paths_out([path])}
    if fill < len(raws):
        session["missing"] = "skip"
    return session, path, []


def _block_types(raws: list[RawRec], rules: list[Rule]) -> tuple[dict, list[str]]:
    """Block types learned from the alignment, and the others seen in the same lists (skipped)."""
    convert = runtime_module("convert")
    types: dict[str, dict] = {}
    questions = []
    for rule in rules:
        for type_value, key in rule.sig.blocks:
            types[type_value] = {"as": "reasoning" if rule.sig.role == "reasoning" else "text", "field": key}
    seen: set[str] = set()
    for rule in rules:
        if not rule.sig.content:
            continue
        for rec in raws:
            value = convert.get_path(rec.record, rule.sig.content)
            if isinstance(value, list):
                for block in value:
                    if isinstance(block, dict) and isinstance(block.get("type"), str):
                        seen.add(block["type"])
    for type_value in sorted(seen - set(types)):
        types[type_value] = {"as": "skip"}
        questions.append(f"content blocks of type {type_value!r} never reached the old output; they are skipped "
                         "(map them under blocks.types if they matter)")
    return types, questions


def _try_infer(samples: list[Path], notice) -> Any:
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


STRUCTURE_RANK = {"tool_exchange": 5, "tool_call": 4, "tool_result": 3, "reasoning": 2, "user": 1, "assistant": 1,
                  "system": 1, "observation": 1}


def _usable(sig: Sig, members: list[RawRec], linkable: bool) -> bool:
    """Does a candidate reading work on these records (its paths are there; a result can be linked)?"""
    convert = runtime_module("convert")

    def present(path: tuple) -> bool:
        return bool(path) and sum(convert.get_path(r.record, path) not in (convert.MISSING, None)
                                  for r in members) * 2 > len(members)

    if sig.role in ("user", "assistant", "reasoning", "system", "observation", "tool_result", "tool_exchange") \
            and not present(sig.content):
        return False
    if sig.role in ("tool_call", "tool_exchange") and not present(sig.tool_name):
        return False
    return not (sig.role == "tool_result" and not sig.link and not linkable)


def _weight(sig: Sig) -> tuple:
    return (STRUCTURE_RANK.get(sig.role, 0),
            sum(1 for p in (sig.content, sig.tool_name, sig.args, sig.call_id, sig.link) if p))


def _adopt_inferred(rules: list[Rule], raws: list[RawRec], inference: Any) -> None:
    """Rules the old output said nothing about: the inferred kind, unless the record shape keeps more.

    The inference module (when present) reads the samples as a whole and knows noise and role
    names better; the shape guess wins only where it keeps structure the inferred reading would
    flatten or drop (a tool step read as a result with nothing to link to, a call read as text
    whose content field is not there).
    """
    mapping = getattr(inference, "mapping", None) if inference is not None else None
    if not isinstance(mapping, dict) or not mapping.get("kinds"):
        return
    convert = runtime_module("convert")
    specs = mapping["kinds"]
    try:
        kinds = [convert.Kind.compile(i, spec) for i, spec in enumerate(specs)]
    except (KeyError, TypeError, ValueError):
        return
    linkable = any(r.sig.role in ("tool_call", "tool_exchange") for r in rules)
    for rule in rules:
        if rule.source != "shape":
            continue
        members = [rec for rec in raws if _rule_matches(rule, rec.record)]
        if not members:
            continue
        for kind, spec in zip(kinds, specs):
            if not all(kind.matches(rec.record) for rec in members):
                continue
            try:
                inferred = _sig_from_spec(spec)
            except (KeyError, TypeError, ValueError):
                break
            if inferred.role not in ("skip", "meta") and not _usable(inferred, members, linkable):
                break
            shape_wins = STRUCTURE_RANK.get(rule.sig.role, 0) >= 2 and _usable(rule.sig, members, linkable) \
                and _weight(rule.sig) > _weight(inferred)
            if not shape_wins:
                rule.sig = inferred
                rule.source = "inference"
            break


def _rule_matches(rule: Rule, record: dict) -> bool:
    convert = runtime_module("convert")
    for path, op, value in rule.conds:
        actual = convert.get_path(record, path)
        if op == "eq" and not any(convert.same_value(actual, v) for v in [value, *rule.values.get(path, [])]):
            return False
        if op in ("missing", "lacks") and actual not in (convert.MISSING, None):
            return False
        if op == "has" and actual in (convert.MISSING, None):
            return False
    return True


def _sig_from_spec(spec: dict) -> Sig:
    compile_paths = runtime_module("mapping").compile_paths

    def first(key):
        paths = compile_paths(spec.get(key))
        return paths[0] if paths else ()

    return Sig(spec["role"], content=first("content"), tool_name=first("tool_name"), args=first("args"),
               call_id=first("call_id"), link=first("result_link"), learned=False)


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


def _decision_text(decision: Any) -> str:
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


SOURCE_WORDS = {"alignment": "learned from the old output", "shape": "guessed from the record shape",
                "inference": "from trajectory-cleaner's inference"}
SOURCE_SHORT = {"alignment": "old output", "shape": "record shape", "inference": "inference"}


@dataclass
class Learned:
    mapping: dict
    rules: list[Rule]
    questions: list[str]
    notes: list[str]
    aligned: int = 0
    old_records: int = 0
    unmatched: list[str] = field(default_factory=list)


def learn_mapping(raws: list[RawRec], files: list[str], include: list[str], targets: list[Target] | None,
                  source: str, source_profile: str, tz: str | None, facts: ScriptFacts, inference: Any) -> Learned:
    """The new cleaner's mapping: aligned where the old output says, guessed from shape elsewhere."""
    questions: list[str] = []
    notes: list[str] = []
    sigs: dict[int, Sig] = {}
    pairs: list[tuple[RawRec, Target]] = []
    unmatched: list[str] = []
    if targets:
        aligner = Aligner(raws, TextMatcher(facts.markers))
        aligner.align(targets)
        sigs = aligner.sigs()
        by_pos = {rec.pos: rec for rec in raws}
        for pos, assigned in aligner.assigned.items():
            for _, target in assigned:
                pairs.append((by_pos[pos], target))
        redactor = runtime_module("redact").Redactor()
        for target in aligner.unmatched:
            preview = redactor.redact(target.record.get("content") or json.dumps(target.record.get("tool_calls")))
            unmatched.append(f"old session {target.session + 1}, record {target.index}: {target.record['role']} "
                             f"{TextMatcher.norm(str(preview))[:60]!r}")
    used_paths = {p for s in sigs.values() for p in (s.content, s.tool_name, s.args, s.call_id, s.link) if p}
    inferred = getattr(inference, "mapping", None) if inference is not None else None
    inferred = inferred if isinstance(inferred, dict) else {}
    ts_fields, zone_name, ts_notes, ts_questions = learn_times(raws, pairs, tz, used_paths)
    session, session_path, session_questions = learn_session(raws, pairs, len(files), used_paths | set(ts_fields))
    compile_paths = runtime_module("mapping").compile_paths
    if not targets and inferred:
        # nothing to align with: the inference module's reading of sessions and times stands
        if isinstance(inferred.get("session"), dict):
            session = inferred["session"]
            field_paths = compile_paths(session.get("field")) if session.get("by") == "field" else ()
            session_path = field_paths[0] if field_paths else None
            session_questions = []
        if isinstance(inferred.get("timestamps"), dict) and inferred["timestamps"].get("fields"):
            ts_fields = list(compile_paths(inferred["timestamps"]["fields"]))
            zone_name = tz or inferred["timestamps"].get("timezone") or "UTC"
            ts_questions = []
        questions += [_decision_text(d) for d in getattr(inference, "questions", None) or []]
    notes += ts_notes
    questions += ts_questions + session_questions
    exclude = used_paths | set(ts_fields) | ({session_path} if session_path else set())
    for rec in raws:
        if rec.pos not in sigs:
            sigs[rec.pos] = guess_sig(rec, set(ts_fields))
    learner = RuleLearner(raws, sigs, exclude)
    rules = learner.build(raws, [])
    _adopt_inferred(rules, raws, inference)
    if inference is None and not targets:
        questions.append("without --run-old (and without the inference module) every kind is classified from "
                         "its field names and shape; review the mapping table")
    for rule in rules:
        if rule.source == "alignment":
            if rule.aligned < rule.records:
                notes.append(f"{_rule_name(rule)}: {rule.aligned} of {rule.records} records were in the old "
                             f"output; the new cleaner writes all {rule.records} as {rule.sig.role}")
            continue
        what = describe_rule(rule)
        if targets:
            if rule.sig.role == "skip":
                questions.append(f"{_rule_name(rule)} ({rule.records} record(s)) never reached the old output and "
                                 "looks like noise or a header; it is skipped")
            else:
                questions.append(f"{_rule_name(rule)} ({rule.records} record(s)) never reached the old output; the "
                                 f"new cleaner keeps it as {what} ({SOURCE_WORDS[rule.source]})")
        else:
            questions.append(f"{_rule_name(rule)} ({rule.records} record(s)): {what} ({SOURCE_WORDS[rule.source]})")
    blocks, block_questions = _block_types(raws, rules)
    questions += block_questions
    timestamps: dict[str, Any] = {"fields": paths_out(ts_fields) if ts_fields else ["timestamp"],
                                  "format": "auto", "timezone": zone_name}
    if not targets and isinstance(inferred.get("timestamps"), dict):
        for key in ("format", "layout"):
            if inferred["timestamps"].get(key):
                timestamps[key] = inferred["timestamps"][key]
    files_without_time = _files_without_time(raws, ts_fields)
    if files_without_time or not ts_fields:
        timestamps["fallback"] = "file_mtime"
        questions.append("some sessions have no timestamp at all ("
                         + ", ".join(files_without_time[:3]) + "); they use the file's modification time")
    meta = inferred.get("meta") if isinstance(inferred.get("meta"), dict) else {}
    mapping: dict[str, Any] = {
        "mapping_version": 1,
        "source": source,
        "source_profile": source_profile,
        "input": {"container": "auto", "include": include, "invalid_lines": "skip"},
        "session": session,
        "timestamps": timestamps,
        "kinds": [rule_kind(rule) for rule in rules],
        "unknown_kinds": "fail",
    }
    if meta:
        mapping["meta"] = meta
    if blocks:
        mapping["blocks"] = {"type_field": "type", "types": blocks, "unknown": "skip"}
    if any(r.sig.role in ("tool_call", "tool_result", "tool_exchange") for r in rules):
        mapping["tools"] = {"orphan_results": "skip"}
    mapping["privacy"] = {"redact": True}
    if facts.patterns:
        mapping["privacy"]["extra_patterns"] = dict(facts.patterns)
        notes.append("the old script's own redaction patterns are kept as privacy.extra_patterns: "
                     + ", ".join(facts.patterns))
    if facts.skipped_patterns:
        questions += [f"the old script's pattern {p} could not be carried over; add it to "
                      "privacy.extra_patterns by hand" for p in facts.skipped_patterns]
    from generator.answers import AnswersError, check_mapping

    try:
        check_mapping(mapping, "learned mapping")
    except AnswersError as exc:
        raise MigrateError(f"{exc} (a bug in the migration: please report it with --debug)") from None
    return Learned(mapping, rules, questions, notes, aligned=len(targets or []) - len(unmatched),
                   old_records=len(targets or []), unmatched=unmatched)


def _files_without_time(raws: list[RawRec], fields: list[tuple]) -> list[str]:
    if not fields:
        return sorted({r.where.rsplit(":", 1)[0] for r in raws})
    convert = runtime_module("convert")
    have: dict[int, bool] = {}
    names: dict[int, str] = {}
    for rec in raws:
        names[rec.file] = rec.where.split(" (record")[0].rsplit(":", 1)[0]
        if not have.get(rec.file):
            have[rec.file] = any(convert.get_path(rec.record, p) not in (convert.MISSING, None) for p in fields)
    return [names[f] for f, ok in have.items() if not ok]


# =============================================================================================
# Part 2d: the equivalence report - the old output migrated mechanically vs the new cleaner
# =============================================================================================

RUNTIME_PLACEHOLDER = re.compile(r"\[REDACTED:[A-Za-z0-9_-]+\]")


@dataclass
class SessionCompare:
    old: str
    new: str | None
    texts: int = 0
    same: int = 0
    redaction: list[str] = field(default_factory=list)  # present, the placeholders differ
    reordered: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)  # new output shows what the old script redacted
    times: list[str] = field(default_factory=list)
    added: Counter = field(default_factory=Counter)
    added_examples: list[str] = field(default_factory=list)

    @property
    def present(self) -> int:
        """Old user and assistant messages found in the new output."""
        return self.texts - sum(1 for m in self.missing if m.startswith(("user ", "assistant ")))

    @property
    def passed(self) -> bool:
        return self.new is not None and not (self.missing or self.reordered or self.leaks)


def _texts(records: list[dict]) -> list[tuple[int, str, str]]:
    return [(i, r["role"], r["content"]) for i, r in enumerate(records)
            if r.get("role") in ("user", "assistant") and isinstance(r.get("content"), str)]


def _items(records: list[dict]) -> list[tuple[int, str, str]]:
    """(record index, kind, comparable text) of every non-meta record; one item per tool call."""
    out = []
    for index, record in enumerate(records):
        role = record.get("role")
        if role == "meta":
            continue
        if role == "assistant" and record.get("tool_calls"):
            for call in record["tool_calls"]:
                out.append((index, "tool call", f"{call.get('name')} {call.get('args')}"))
        elif role == "tool":
            out.append((index, "tool result", str(record.get("content") or "")))
        elif isinstance(record.get("content"), str):
            out.append((index, str(role), record["content"]))
    return out


def _equivalent(old: str, new: str, matcher: TextMatcher) -> str | None:
    """None, "same", "redaction" (old placeholders hide the same spans in new) or "leak"."""
    a, b = TextMatcher.norm(old), TextMatcher.norm(new)
    if a == b:
        return "same"
    pattern = matcher.pattern(old)
    if pattern is None:
        return None
    match = pattern.fullmatch(b)
    if match is None:
        return None
    if all(RUNTIME_PLACEHOLDER.search(gap) or matcher.marker.fullmatch(gap) for gap in match.groups()):
        return "redaction"
    return "leak"


def _short(text: str, limit: int = 70) -> str:
    text = TextMatcher.norm(text)
    return json.dumps(text if len(text) <= limit else text[: limit - 3] + "...", ensure_ascii=False)


def compare_session(old_name: str, old: list[dict], new_name: str | None, new: list[dict] | None,
                    matcher: TextMatcher) -> SessionCompare:
    """Every old record looked up in the new output: user and assistant text in order, the rest present."""
    result = SessionCompare(old_name, new_name)
    old_items = _items(old)
    result.texts = sum(1 for _, kind, _ in old_items if kind in ("user", "assistant"))
    if new is None:
        result.missing = [f"{kind} {_short(text)}" for _, kind, text in old_items]
        return result
    new_items = _items(new)
    matched: set[int] = set()
    cursor = 0
    for old_index, kind, text in old_items:
        ordered = kind in ("user", "assistant")
        found = None
        order = list(range(cursor, len(new_items))) + list(range(cursor)) if ordered else range(len(new_items))
        for k in order:
            _, new_kind, new_text = new_items[k]
            if k in matched or new_kind != kind:
                continue
            verdict = _equivalent(text, new_text, matcher)
            if verdict is not None:
                found = (k, verdict)
                break
        if found is None:
            result.missing.append(f"{kind} {_short(text)}")
            continue
        k, verdict = found
        matched.add(k)
        index = new_items[k][0]
        if ordered:
            if k < cursor:
                result.reordered.append(f"{kind} {_short(text)} (now record {index}, before an earlier message)")
            else:
                cursor = k + 1
        if verdict == "same":
            result.same += 1 if ordered else 0
        elif verdict == "redaction":
            result.redaction.append(f"{kind} {_short(new_items[k][2])}")
        else:
            result.leaks.append(f"{kind} record {index}: shows text the old script had redacted")
        old_ts, new_ts = old[old_index].get("timestamp"), new[index].get("timestamp")
        if isinstance(old_ts, str) and isinstance(new_ts, str):
            try:
                differs = _instant(old_ts) != _instant(new_ts)
            except ValueError:
                differs = old_ts != new_ts
            if differs:
                result.times.append(f"{kind} {_short(text, 40)}: old {old_ts}, new {new_ts}")
    for k, (_, kind, text) in enumerate(new_items):
        if k in matched:
            continue
        result.added[kind] += 1
        if len(result.added_examples) < 8:
            result.added_examples.append(f"{kind}: {_short(text, 60)}")
    return result


def _present(role: str, text: str, exact: set, texts: list[tuple[int, str, str]], joined: str,
             matcher: TextMatcher) -> bool:
    """Is an old message in a new session? Exact text by lookup; the slow placeholder match only if needed."""
    if (role, TextMatcher.norm(text)) in exact:
        return True
    if matcher.pattern(text) is None or (matcher.key(text) or "") not in joined:
        return False
    return any(r == role and _equivalent(text, t, matcher) for _, r, t in texts)


def _pair_sessions(old: dict[str, list[dict]], new: dict[str, list[dict]], matcher: TextMatcher
                   ) -> list[tuple[str, str | None]]:
    """Pair each old session with the new session sharing the most messages (each used once)."""
    scores = []
    texts = {name: _texts(records) for name, records in new.items()}
    exact = {name: {(role, TextMatcher.norm(text)) for _, role, text in items} for name, items in texts.items()}
    joined = {name: "\n".join(TextMatcher.norm(text) for _, _, text in items) for name, items in texts.items()}
    for old_name, old_records in old.items():
        old_texts = _texts(old_records)
        for new_name in new:
            hits = sum(1 for _, role, text in old_texts
                       if _present(role, text, exact[new_name], texts[new_name], joined[new_name], matcher))
            if hits:
                scores.append((hits, old_name, new_name))
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    for _, old_name, new_name in sorted(scores, key=lambda s: (-s[0], s[1], s[2])):
        if old_name not in pairs and new_name not in taken:
            pairs[old_name] = new_name
            taken.add(new_name)
    return [(name, pairs.get(name)) for name in old]


# =============================================================================================
# Part 2e: the whole `migrate script` run
# =============================================================================================


@dataclass
class ScriptReport:
    facts: ScriptFacts
    output: str
    ran_old: bool
    old_run: OldRun | None
    learned: Learned | None
    sessions: list[SessionCompare] = field(default_factory=list)
    extra_new: list[str] = field(default_factory=list)
    old_redactions: Counter = field(default_factory=Counter)
    old_problems: list[str] = field(default_factory=list)
    cleaner_exit: int = 0
    cleaner_output: str = ""
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timezone: str = "UTC"

    @property
    def compared(self) -> bool:
        return bool(self.sessions)

    @property
    def passed(self) -> bool:
        if self.errors or self.cleaner_exit != 0:
            return False
        if self.ran_old:
            return self.compared and all(s.passed for s in self.sessions)
        return True

    def to_json(self) -> dict:
        learned = self.learned
        return {
            "script": self.facts.path,
            "output": self.output,
            "emits_old_shape": self.facts.emits_old_shape,
            "sites": [{"line": s.line, "what": s.what} for s in self.facts.sites + self.facts.message_sites],
            "ran_old": self.ran_old,
            "old_run_log": self.old_run.log if self.old_run else [],
            "mapping": learned.mapping if learned else None,
            "kinds": [{"rule": _rule_name(r), "does": describe_rule(r), "records": r.records,
                       "in_old_output": r.aligned, "learned_from": r.source} for r in (learned.rules if learned else [])],
            "open_questions": learned.questions if learned else [],
            "notes": (learned.notes if learned else []) + self.notes,
            "equivalence": {
                "passed": self.passed,
                "compared": self.compared,
                "sessions": [{
                    "old": s.old, "new": s.new, "old_messages": s.texts, "same": s.same,
                    "redaction_differs": s.redaction, "reordered": s.reordered, "missing": s.missing,
                    "shows_redacted": s.leaks, "timestamp_differs": s.times, "added": dict(s.added),
                } for s in self.sessions],
                "new_sessions_without_old": self.extra_new,
            },
            "old_output_secrets_redacted": dict(self.old_redactions),
            "new_cleaner_exit": self.cleaner_exit,
            "errors": self.errors,
        }


MAPPING_FILE = "migration-mapping.yml"


def _default_source(script: Path) -> str:
    name = script.resolve().parent.name
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")
    return name or "custom-agent"


def migrate_script(old_script: str, samples: list[str], output: str, *, run_old: bool = False, timeout: float = 120,
                   source: str | None = None, source_profile: str = "generic", tz: str | None = None,
                   notice=lambda text: None) -> ScriptReport:
    """Detect, (optionally) run and align, render the new cleaner, compare, and write both documents."""
    from generator.render import RenderError, render_new

    facts = read_script(old_script)
    script = Path(old_script)
    sample_paths = [Path(s) for s in samples]
    for given, path in zip(samples, sample_paths):
        if not path.exists():
            raise MigrateError(f"{given}: no such file or folder (check --samples)")
    dest = Path(output)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise MigrateError(f"{output}: exists and is not empty; choose a new --output folder")
    if run_old and not {"--input", "--output"} <= set(facts.cli):
        raise MigrateError(f"{old_script}: has no --input/--output arguments, so --run-old cannot run it; "
                           "run it without --run-old to learn from the samples alone")
    if run_old and not timeout > 0:
        raise MigrateError(f"--timeout {timeout:g}: give a number of seconds above 0")
    if source is not None and not source.strip():
        raise MigrateError("--source must name your agent or workflow (it becomes the meta record's source)")
    if tz is not None:
        try:
            runtime_module("timestamps").zone(tz)
        except ValueError as exc:
            raise MigrateError(f"--timezone: {exc}") from None
    if not facts.emits_old_shape:
        notice(f"notice: {old_script}: no old-shape record found in the code (no dict with keys type and message)"
               + ("; it already writes trajectory-v1 records" if facts.trajectory_sites else ""))
    source = source or _default_source(script)
    raws, files, include, sample_notes = read_samples(sample_paths)
    report = ScriptReport(facts, output, run_old, None, None, notes=list(sample_notes), timezone=tz or "UTC")
    work = Path(tempfile.mkdtemp(prefix="trajectory-cleaner-migrate-"))
    try:
        old_sessions: dict[str, FileResult] = {}
        targets: list[Target] = []
        if run_old:
            notice(f"running {old_script} on the samples (timeout {timeout:g}s per sample)")
            report.old_run = run_old_script(script, old_script, sample_paths, timeout, work)
            if report.old_run.error:
                report.errors.append(report.old_run.error)
            plain = old_shape_mapping(source, tz or "UTC", fallback_mtime=True, redact=False)
            for n, (path, shown) in enumerate(report.old_run.files):
                result = convert_old_file(path, f"old output {shown}", plain, path.stat().st_mtime)
                report.old_problems += result.not_old_shape
                if result.error:
                    report.old_problems.append(result.error)
                    continue
                old_sessions[shown] = result
                for index, record in enumerate(result.trajectory):
                    if index == 0:
                        continue
                    row = result.origins[index]
                    targets.append(Target(n, index, record, result.old_times[row] if row >= 0 else None))
            if report.old_run.files and not targets:
                report.errors.append(f"{old_script}: its output on the samples has no old-shape rows to learn from "
                                     "(see the old-output problems in the report)")
        inference = _try_infer(sample_paths, notice)
        learned = learn_mapping(raws, files, include, targets or None, source, source_profile, tz, facts, inference)
        report.learned = learned
        report.timezone = learned.mapping["timestamps"]["timezone"]
        try:
            rendered = render_new(learned.mapping, sample_paths, dest, {"questions": learned.questions})
        except RenderError as exc:
            # Nothing was rendered; the documents and the learned mapping still go to --output so that
            # the mapping can be fixed by hand (or by a coding agent) and rendered with `new --answers`.
            from generator.answers import dump_mapping

            report.cleaner_exit = 2
            report.cleaner_output = str(exc)
            report.errors.append(f"the new cleaner could not be rendered: {str(exc).splitlines()[0]}; the learned "
                                 f"mapping is in {output}/{MAPPING_FILE} (fix it, then `trajectory-cleaner new "
                                 f"SAMPLES --answers {output}/{MAPPING_FILE} -o DIR`)")
            dest.mkdir(parents=True, exist_ok=True)
            runtime_module("writer").write_atomic(dest / MAPPING_FILE, dump_mapping(learned.mapping).encode("utf-8"))
            write_documents(report, dest)
            return report
        report.cleaner_exit = rendered.cleaner_exit
        report.cleaner_output = rendered.cleaner_output
        if rendered.cleaner_exit != 0:
            report.errors.append(f"the new cleaner failed on the samples (exit {rendered.cleaner_exit}); see "
                                 f"{output}/MIGRATION_REPORT.md and fix the mapping in {output}/.copier-answers.yml")
        if old_sessions:
            _compare(report, old_sessions, dest, tz or report.timezone, source, facts)
        write_documents(report, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


def _compare(report: ScriptReport, old_sessions: dict[str, FileResult], dest: Path, tz: str, source: str,
             facts: ScriptFacts) -> None:
    """Migrate the old output mechanically (with redaction) and compare it with the new cleaner's output."""
    mapping = old_shape_mapping(source, tz, fallback_mtime=True, redact=True)
    old: dict[str, list[dict]] = {}
    for path, shown in report.old_run.files if report.old_run else []:
        if shown not in old_sessions:
            continue
        result = convert_old_file(path, shown, mapping, path.stat().st_mtime)
        if result.error:
            continue
        old[shown] = result.trajectory
        report.old_redactions.update(result.redactions)
    expected = dest / "tests" / "expected"
    new: dict[str, list[dict]] = {}
    for path in sorted(expected.rglob("*.jsonl")):
        try:
            new[path.relative_to(expected).as_posix()] = [
                json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        except (OSError, ValueError):
            continue
    matcher = TextMatcher(facts.markers)
    pairs = _pair_sessions(old, new, matcher)
    for old_name, new_name in pairs:
        report.sessions.append(compare_session(old_name, old[old_name], new_name,
                                               new.get(new_name) if new_name else None, matcher))
    paired = {n for _, n in pairs if n}
    report.extra_new = [name for name in new if name not in paired]


# =============================================================================================
# Part 2f: MIGRATION_REPORT.md, MIGRATION_PROMPT.md and the printed summary
# =============================================================================================


def _md(text: Any) -> str:
    from generator.jinja_ext import md_code

    return md_code(str(text))


def _verdict(report: ScriptReport) -> str:
    if not report.ran_old:
        return ("not compared: the old script was not run (--run-old), so there is no old output to compare; "
                "the mapping was inferred from the samples alone")
    if not report.compared:
        return "FAILED: no old output could be compared (see the errors above)"
    if report.passed:
        return "PASSED: every user and assistant message of the old output is present in the new output, in order"
    return "FAILED: the differences below would lose or reorder what the old output had"


def render_report(report: ScriptReport) -> str:
    """MIGRATION_REPORT.md: how the mapping was learned, and old vs new output, differences listed."""
    facts, learned = report.facts, report.learned
    out = [f"# Migration report: {facts.path}", ""]
    out.append(f"**Equivalence: {_verdict(report)}**")
    out.append("")
    if report.errors:
        out += ["## Errors", ""] + [f"- {e}" for e in report.errors] + [""]
    out += ["## Where the old script writes the old shape", ""]
    if facts.sites or facts.message_sites:
        out += [f"- `{facts.path}:{s.line}`: {s.what}" for s in facts.sites + facts.message_sites]
    else:
        out.append("- nowhere found: no dict with keys `type` and `message`"
                   + (" (it writes trajectory-v1 records already)" if facts.trajectory_sites else ""))
    if facts.patterns:
        out += ["", "Its own redaction (kept in the new cleaner as `privacy.extra_patterns`):", ""]
        out += [f"- `{facts.path}:{facts.pattern_lines[c]}` {_md(p)} -> class `{c}`" for c, p in facts.patterns.items()]
    out.append("")
    if report.old_run is not None:
        out += ["## The old script on the samples", ""] + [f"- {line}" for line in report.old_run.log]
        out += [f"- old output file: `{shown}`" for _, shown in report.old_run.files]
        if report.old_problems:
            out += ["", "Rows of the old output that are not old-shape:", ""] + [f"- {p}" for p in report.old_problems]
        out.append("")
    if learned is not None:
        out += ["## The mapping", ""]
        if report.ran_old:
            out.append(f"Learned by aligning the old output with the raw samples: {learned.aligned} of "
                       f"{learned.old_records} old records were traced back to a raw record.")
        else:
            out.append("Inferred from the samples (the old script was not run).")
        out += ["", "| raw records | records | in old output | new cleaner writes | learned from |",
                "|---|---|---|---|---|"]
        for rule in learned.rules:
            out.append(f"| {_md(_rule_name(rule))} | {rule.records} | {rule.aligned} | {describe_rule(rule)} | "
                       f"{SOURCE_SHORT[rule.source]} |")
        session = learned.mapping["session"]
        ts = learned.mapping["timestamps"]
        out += ["", f"- sessions: {'one per raw file' if session['by'] == 'file' else 'grouped by ' + _md(session['field'])}",
                f"- timestamps: {_md(ts['fields'])}, zone-less times read in {ts['timezone']}"
                + (", file modification time when a session has none" if ts.get("fallback") == "file_mtime" else "")]
        if learned.unmatched:
            out += ["", "Old records no raw record could be found for:", ""] + [f"- {u}" for u in learned.unmatched]
        if learned.notes or report.notes:
            out += ["", "Notes:", ""] + [f"- {n}" for n in learned.notes + report.notes]
        out += ["", "## What could not be learned", ""]
        out += [f"- {q}" for q in learned.questions] or ["- nothing: every kind was learned from the old output"]
        out += ["", "The mapping is in `.copier-answers.yml`; change it there and run `trajectory-cleaner update .`.", ""]
    if report.sessions:
        out += ["## Old output (migrated mechanically) vs the new cleaner", ""]
        out.append(f"The old output was migrated as `trajectory-cleaner migrate traces` would (zone-less times in "
                   f"{report.timezone}); the new output is `tests/expected/` (the new cleaner on the samples).")
        out += ["", ("| old session | new session | old messages | identical | redaction differs | reordered | "
                     "missing | added by the new cleaner |"), "|---|---|---|---|---|---|---|---|"]
        for s in report.sessions:
            added = ", ".join(f"{n} {k}" for k, n in sorted(s.added.items())) or "-"
            out.append(f"| {_md(s.old)} | {_md(s.new or 'none')} | {s.texts} | {s.same} | {len(s.redaction)} | "
                       f"{len(s.reordered)} | {len(s.missing)} | {added} |")
        out += ["", "### Differences", ""]
        listed = False
        for s in report.sessions:
            for title, items in (("missing from the new output", s.missing), ("reordered", s.reordered),
                                 ("the new output shows what the old script redacted", s.leaks),
                                 ("present, with different redaction placeholders", s.redaction),
                                 ("timestamp differs", s.times), ("added by the new cleaner", s.added_examples)):
                if items:
                    listed = True
                    out.append(f"- {_md(s.old)}: {title}:")
                    out += [f"  - {item}" for item in items]
        if report.extra_new:
            listed = True
            out.append("- sessions the new cleaner writes that the old script did not: "
                       + ", ".join(_md(n) for n in report.extra_new))
        if not listed:
            out.append("- none")
        if report.old_redactions:
            out += ["", "### Secrets in the old output", "",
                    f"The old output had leaked {sum(report.old_redactions.values())} secret(s) ("
                    + ", ".join(f"{n} x {k}" for k, n in sorted(report.old_redactions.items()))
                    + "). `migrate traces` and the new cleaner redact them; re-migrate or delete the old folders."]
        out.append("")
    if report.cleaner_exit != 0:
        out += ["## The new cleaner's output on the samples", "", "```", report.cleaner_output.strip(), "```", ""]
    return "\n".join(out)


def _section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    return match.group(1).strip() if match else ""


def render_migration_prompt(report: ScriptReport, schema: tuple[str, str] | None = None) -> str:
    """MIGRATION_PROMPT.md: what a coding agent needs to finish the migration."""
    from generator.prompt import render_prompt, resolved_schema

    facts, learned = report.facts, report.learned
    schema_path, origin = schema or resolved_schema()
    mapping = learned.mapping if learned else {"source": "custom-agent"}
    agent_prompt = render_prompt(source=mapping["source"], source_profile=mapping.get("source_profile", "generic"),
                                 mapping=mapping, schema=(schema_path, origin))
    constraints = _section(agent_prompt, "Hard constraints")
    redactor = runtime_module("redact").Redactor()
    code = redactor.redact(facts.text)
    fence = "```"
    while fence in code:
        fence += "`"
    out = [f"# Finish migrating `{Path(facts.path).name}` to a trajectory-v1 cleaner", "",
           ("Lerim no longer reads the pre-trajectory shape `{\"type\", \"message\": {\"role\", \"content\"}, "
            "\"timestamp\"}` that the old script below writes. trajectory-cleaner has rendered a new cleaner in this "
            "folder (`clean_to_trajectory_jsonl.py`, generated from `.copier-answers.yml`) and compared it with the "
            "old script in `MIGRATION_REPORT.md`. Your job: close the gaps listed there and below, without losing "
            "anything the old script kept."), "",
           "## The schema", "",
           (f"The trajectory-v1 schema on this machine is `{schema_path}` ({origin}). Read it first; it is the "
            "contract. It describes a whole file as an array: load every line into a list and validate the list."), "",
           "## The new hard constraints", "", constraints, "",
           "## What the old script did", ""]
    out += [f"- `{facts.path}:{s.line}`: {s.what}" for s in facts.sites + facts.message_sites] or [
        "- no old-shape record was found in the code"]
    if facts.patterns:
        out.append("- it redacts with its own patterns, now `privacy.extra_patterns`: "
                   + ", ".join(f"`{c}`" for c in facts.patterns))
    out += ["", f"{fence}python", code.rstrip("\n"), fence, ""]
    if learned is not None:
        out += ["## The mapping table", "", "| raw records | records | in old output | new cleaner writes | learned from |",
                "|---|---|---|---|---|"]
        for rule in learned.rules:
            out.append(f"| {_md(_rule_name(rule))} | {rule.records} | {rule.aligned} | {describe_rule(rule)} | "
                       f"{SOURCE_SHORT[rule.source]} |")
        out += ["", "## Still open", ""]
        out += [f"- {q}" for q in learned.questions] or ["- nothing"]
        out.append("")
    out += ["## How to work", "",
            ("- Keep reasoning and tool calls the old shape flattened away: they are what the new cleaner should now "
             "write (`reasoning`, `assistant` + `tool_calls`, `tool`)."),
            ("- Change the mapping in `.copier-answers.yml` and run `trajectory-cleaner update .`; put logic a "
             "mapping cannot express in `cleaner_hooks.py` (never edit `clean_to_trajectory_jsonl.py`)."),
            ("- Keep `python -m pytest` passing, and every user and assistant message of the old output present, "
             "in order (`MIGRATION_REPORT.md`)."),
            "- Check the output with `trajectory-cleaner validate <output folder>`.",
            ("- Convert folders the old script already wrote with `trajectory-cleaner migrate traces OLD -o NEW "
             f"--source {mapping['source']}`."), ""]
    return "\n".join(out)


def write_documents(report: ScriptReport, dest: Path) -> None:
    writer = runtime_module("writer")
    writer.write_atomic(dest / "MIGRATION_REPORT.md", render_report(report).encode("utf-8"))
    writer.write_atomic(dest / "MIGRATION_PROMPT.md", render_migration_prompt(report).encode("utf-8"))


def format_script_report(report: ScriptReport, list_open: bool = False) -> str:
    """The printed summary of `migrate script`."""
    facts, learned = report.facts, report.learned
    out = []
    where = ", ".join(f"{facts.path}:{s.line}" for s in facts.sites) or "not found"
    out.append(f"old shape written at: {where}")
    if report.old_run is not None:
        out.append(f"old script run:       {len(report.old_run.files)} output file(s)"
                   + (f" - {report.old_run.error}" if report.old_run.error else ""))
    if learned is not None:
        if report.ran_old:
            out.append(f"learned:              {learned.aligned} of {learned.old_records} old records traced to raw "
                       f"records; {len(learned.rules)} kind rule(s)")
        else:
            out.append(f"inferred:             {len(learned.rules)} kind rule(s) from the samples")
        for rule in learned.rules:
            out.append(f"  {_rule_name(rule)} -> {describe_rule(rule)} ({SOURCE_SHORT[rule.source]})")
        if list_open:
            out.append(f"could not learn:      {len(learned.questions)}")
            out += [f"  - {q}" for q in learned.questions]
        else:
            out.append(f"could not learn:      {len(learned.questions)} (listed in MIGRATION_REPORT.md; --yes prints them)")
    out.append(f"rendered:             {report.output} (new cleaner exit {report.cleaner_exit} on the samples)")
    for s in report.sessions:
        added = ", ".join(f"{n} {k}" for k, n in sorted(s.added.items())) or "nothing"
        out.append(f"  {s.old} -> {s.new or 'NO MATCHING SESSION'}: {s.present}/{s.texts} messages "
                   f"present, {len(s.missing)} missing, {len(s.reordered)} reordered; adds {added}")
    if report.old_redactions:
        out.append(f"old output secrets:   {sum(report.old_redactions.values())} leaked by the old script, redacted")
    out.append(f"equivalence:          {_verdict(report)}")
    out.append(f"report:               {report.output}/MIGRATION_REPORT.md")
    out.append(f"agent prompt:         {report.output}/MIGRATION_PROMPT.md")
    return "\n".join(out)
