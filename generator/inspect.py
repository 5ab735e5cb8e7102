"""Profile sample raw traces: containers, sessions, fields, record kinds, times and tool links.

Why: inference (generator/infer.py), the survey and the agent prompt all need the same facts
about a format nobody has described, and a person deciding whether to trust a proposed mapping
needs to see them too. The profile is structure and counts first; example values are shortened
and passed through the cleaner runtime's own redaction before anyone sees them.

Large inputs are read by bounded sampling (a byte budget spread over files, and over the head,
middle and tail of a big file), and the profile says which part was read, so gigabytes of
samples take seconds and bounded memory.
"""

from __future__ import annotations

import glob
import itertools
import json
import math
import os
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from generator.paths import runtime_module

MAX_BYTES = 16 * 1024 * 1024
MIN_FILE_BYTES = 64 * 1024
MAX_FILES = 400
ANALYSED = 6000  # records kept for the structural analyses (every shape, a bounded number of each)
KEEP_STRING = 2000
MAX_DISTINCT = 200
TIME_PROBES = 300
LIST = "[]"  # path segment standing for "every element of a list"

# -- vocabulary --------------------------------------------------------------------------------
# Names are one signal among several (structure, linkage and content shape decide); these word
# lists only say what a value or a field name *sounds like*.
ROLE_WORDS: dict[str, set[str]] = {
    "user": {"user", "human", "customer", "requester", "request", "input", "question", "prompt", "query", "trigger",
             "client", "caller", "visitor", "enduser", "member", "inbound", "ask", "person", "operator"},
    "assistant": {"assistant", "ai", "bot", "agent", "model", "answer", "response", "reply", "completion",
                  "outbound", "llm", "copilot", "gpt", "generation", "final", "support", "advisor"},
    "reasoning": {"thinking", "reasoning", "thought", "thoughts", "reflection", "deliberation", "scratchpad",
                  "rationale", "cot", "think", "plan", "planning", "analysis", "note", "notes", "internal"},
    "system": {"system", "developer", "instruction", "instructions", "sys"},
    "tool_call": {"tool_use", "tool_call", "function_call", "toolcall", "tooluse", "functioncall", "action",
                  "invoke", "invocation", "call", "command", "exec", "execute", "step_start"},
    "tool_result": {"tool_result", "toolresult", "observation", "tool", "function", "tool_message", "function_output", "tool_output", "function_result",
                    "result", "output", "return", "returns", "tool_response", "function_response", "response_tool",
                    "step_end", "stdout"},
    "skip": {"heartbeat", "ping", "pong", "keepalive", "progress", "usage", "token_count", "tokens", "metrics",
             "metric", "telemetry", "retry", "retrying", "debug", "stats", "cost", "status", "checkpoint",
             "snapshot", "tick", "noop", "alive", "health", "latency", "rate_limit", "ratelimit", "backoff",
             "spinner", "typing", "presence", "ack", "trace_event", "log", "compaction", "label"},
    "meta": {"session", "header", "session_start", "session_meta", "meta", "metadata", "init", "run_start",
             "start", "begin", "config", "context", "environment", "setup", "trace_start", "conversation_start"},
}
PHRASES = {
    ("tool", "use"): "tool_call", ("tool", "call"): "tool_call", ("function", "call"): "tool_call",
    ("tool", "result"): "tool_result", ("tool", "output"): "tool_result", ("function", "output"): "tool_result",
    ("call", "output"): "tool_result", ("function", "result"): "tool_result", ("tool", "response"): "tool_result",
    ("function", "response"): "tool_result", ("token", "count"): "skip", ("rate", "limit"): "skip",
    ("model", "change"): "skip", ("session", "info"): "skip", ("thinking", "level"): "skip",
    ("step", "started"): "tool_call", ("step", "start"): "tool_call", ("step", "finished"): "tool_result",
    ("step", "end"): "tool_result", ("step", "completed"): "tool_result", ("step", "output"): "tool_result",
}
DISCRIMINATOR_NAMES = {
    "type", "kind", "role", "event", "eventtype", "event_type", "record_type", "recordtype", "entry_type",
    "msg_type", "message_type", "item_type", "object", "category", "speaker", "author", "sender", "from",
    "actor", "who", "party", "participant", "direction", "step_type", "run_type", "node_type", "action_type",
    "op", "operation", "subtype", "event_name", "type_", "t", "source_type", "entity", "origin", "by",
}
ROLE_FIELD_NAMES = {"role", "speaker", "author", "sender", "from", "actor", "who", "party", "participant", "by",
                    "origin", "direction"}
SESSION_WORDS = {"session", "conversation", "convo", "conv", "thread", "trace", "chat", "dialog", "dialogue", "episode",
                 "run", "ticket", "case", "job", "workflow", "execution", "incident", "interaction", "transcript",
                 "pipeline", "build", "task"}
SESSION_RANK = {"session": 0, "conversation": 0, "convo": 0, "conv": 0, "thread": 0, "chat": 0, "dialog": 0, "dialogue": 0,
                "transcript": 0, "trace": 1, "episode": 1, "interaction": 1, "ticket": 2, "case": 2, "incident": 2,
                "run": 2, "job": 2, "workflow": 2, "execution": 2, "pipeline": 2, "build": 2, "task": 3}
TIME_WORDS = {"timestamp", "ts", "time", "date", "datetime", "created", "created_at", "createdat", "at", "when",
              "sent", "sent_at", "start", "started", "start_time", "started_at", "event_time", "logged", "occurred",
              "received", "posted", "emitted", "t", "epoch", "time_ms", "ts_ms", "unix"}
TIME_LATE_WORDS = {"end", "ended", "end_time", "ended_at", "finished", "finished_at", "completed", "completed_at",
                   "updated", "updated_at", "modified", "expires", "expiry", "deadline", "due", "closed", "stop"}
META_NAMES = {
    "cwd": {"cwd", "working_dir", "workdir", "working_directory", "workspace", "project_dir", "directory",
            "workspace_dir", "root_dir", "repo_path", "project_path", "workspacefolder", "pwd"},
    "git_branch": {"git_branch", "gitbranch", "branch", "branch_name", "git_ref", "ref_name"},
    "model": {"model", "model_name", "modelid", "model_id", "llm", "engine", "model_slug", "deployment"},
}

# the words of a field that names a person: it tells kinds apart only by values that name roles
PERSON_WORDS = {"user", "username", "author", "sender", "speaker", "from", "owner", "assignee", "creator", "person",
                "member", "participant", "actor", "who", "customer", "requester"}
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def words(value: str) -> list[str]:
    """``toolResult`` / ``function_call_output`` / ``Tool-Use`` -> lower-case words."""
    return [w.lower() for w in _WORD_SPLIT.split(value) if w]


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


def strong_roles(value: Any) -> list[str]:
    """Roles a name spells out whole (``tool_result``, ``toolResult``, ``observation``), no guessing."""
    if not isinstance(value, str) or not value or len(value) > 60:
        return []
    ws = [_singular(w) for w in words(value)]
    joined = "_".join(ws)
    found = [role for role, vocab in ROLE_WORDS.items() if joined in vocab or joined.replace("_", "") in vocab]
    for a, b in itertools.pairwise(ws):
        role = PHRASES.get((a, b))
        if role and role not in found:
            found.insert(0, role)
    return found


def name_roles(value: Any) -> list[str]:
    """What a discriminator value or a key *sounds like*, strongest first (may be empty)."""
    if not isinstance(value, str) or not value or len(value) > 60:
        return []
    ws = [_singular(w) for w in words(value)]
    joined = "_".join(ws)
    found: list[str] = []
    for role, vocab in ROLE_WORDS.items():
        if joined in vocab or joined.replace("_", "") in vocab:
            found.append(role)
    for a, b in itertools.pairwise(ws):
        role = PHRASES.get((a, b))
        if role and role not in found:
            found.insert(0, role)
    if not found:
        # single words inside a compound name: agent_reasoning -> reasoning, user_message -> user
        order = ["tool_result", "tool_call", "reasoning", "skip", "system", "user", "assistant", "meta"]
        hits = {role for w in ws for role, vocab in ROLE_WORDS.items() if w in vocab}
        found = [role for role in order if role in hits]
    return found


# -- small helpers -----------------------------------------------------------------------------
def dotted(path: tuple) -> str:
    """A path for people: ``message.content[].type``."""
    out = ""
    for part in path:
        if part == LIST:
            out += "[]"
        else:
            out += ("." if out else "") + str(part)
    return out


def mapping_path(path: tuple) -> str | list:
    """A path as the mapping writes it: dotted, or a list of keys when a key holds a dot."""
    if any(isinstance(p, str) and ("." in p or p.isdigit() or p == "") for p in path):
        return list(path)
    return ".".join(str(p) for p in path)


def get(record: Any, path: tuple) -> Any:
    node = record
    for key in path:
        if isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return None
    return node


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


_SPACE = re.compile(r"\s")


def token_like(value: str) -> bool:
    return 0 < len(value) <= 64 and not _SPACE.search(value)


def human_size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"


class LongText(str):
    """A long string kept shortened in the sample; remembers what the whole value was."""

    original_length: int
    json_kind: str | None

    def __new__(cls, text: str, original_length: int, json_kind: str | None):
        obj = super().__new__(cls, text)
        obj.original_length = original_length
        obj.json_kind = json_kind
        return obj


def json_kind_of(text: str) -> str | None:
    """``object``/``array`` when a string holds a JSON object or array (tool arguments often do)."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else None


def shrink(value: Any) -> Any:
    """The record with very long strings cut (memory stays bounded by the byte budget)."""
    if isinstance(value, str):
        if len(value) > KEEP_STRING:
            return LongText(value[: KEEP_STRING // 2] + value[-200:], len(value), json_kind_of(value))
        return value
    if isinstance(value, dict):
        return {k: shrink(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shrink(v) for v in value]
    return value


def str_len(value: str) -> int:
    return value.original_length if isinstance(value, LongText) else len(value)


def str_json_kind(value: str) -> str | None:
    return value.json_kind if isinstance(value, LongText) else json_kind_of(value)


# -- timestamps --------------------------------------------------------------------------------
HUMAN_LAYOUTS = [
    "%d/%m/%Y %H:%M:%S", "%m/%d/%Y %H:%M:%S", "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S.%f", "%m/%d/%Y %H:%M:%S.%f",
    "%m/%d/%Y %I:%M:%S %p", "%d/%m/%Y %I:%M:%S %p", "%m/%d/%Y %I:%M %p", "%d/%m/%Y %I:%M %p",
    "%Y/%m/%d %H:%M:%S", "%Y/%m/%d %H:%M", "%Y/%m/%d %H:%M:%S.%f",
    "%d.%m.%Y %H:%M:%S", "%d.%m.%Y %H:%M", "%d-%m-%Y %H:%M:%S", "%m-%d-%Y %H:%M:%S",
    "%b %d, %Y %H:%M:%S", "%b %d %Y %H:%M:%S", "%d %b %Y %H:%M:%S", "%d %B %Y %H:%M:%S", "%B %d, %Y %H:%M:%S",
    "%b %d, %Y %I:%M:%S %p", "%b %d, %Y %I:%M %p", "%B %d, %Y %I:%M %p", "%d %b %Y %H:%M",
    "%a, %d %b %Y %H:%M:%S %z", "%a, %d %b %Y %H:%M:%S GMT", "%a %b %d %H:%M:%S %Y", "%a %b %d %H:%M:%S %z %Y",
    "%d/%b/%Y:%H:%M:%S %z", "%Y-%m-%d %H:%M:%S,%f", "%Y%m%d %H%M%S", "%Y%m%d%H%M%S",
    "%Y-%m-%d %H:%M:%S %Z", "%Y-%m-%d %H:%M:%S %z", "%Y-%m-%d %H.%M.%S", "%d-%b-%Y %H:%M:%S",
]
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", re.ASCII)
_NUMERIC = re.compile(r"[+-]?\d+(\.\d+)?", re.ASCII)
_HAS_ZONE = re.compile(r"(Z|[+-]\d{2}:?\d{2})$", re.ASCII)
_HUMANISH = re.compile(r"\d{1,2}[:.]\d{2}|\d{8}", re.ASCII)  # every human layout has a clock time
EPOCH_RANGES = (("epoch_s", 9.46e8, 4.1e9), ("epoch_ms", 9.46e11, 4.1e12), ("epoch_us", 9.46e14, 4.1e15),
                ("epoch_ns", 9.46e17, 4.1e18))  # years 2000..2099


def epoch_unit(number: float) -> str | None:
    for unit, low, high in EPOCH_RANGES:
        if low <= number <= high:
            return unit
    return None


def time_formats(value: Any) -> set[str]:
    """Every format a raw value could be read as: iso, iso_naive, epoch_*, strptime:<layout>."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, (int, float)):
        unit = epoch_unit(float(value)) if math.isfinite(value) else None
        return {unit} if unit else set()
    if not isinstance(value, str) or len(value) > 64 or len(value) < 6:
        return set()
    text = value.strip()
    if _NUMERIC.fullmatch(text):
        unit = epoch_unit(float(text))
        return {unit + "_string"} if unit else set()
    if _ISO_DATE.match(text):
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            moment = None
        if moment is not None:
            return {"iso" if moment.tzinfo is not None or _HAS_ZONE.search(text) else "iso_naive"}
    found = set()
    if len(text) <= 40 and _HUMANISH.search(text):
        for layout in HUMAN_LAYOUTS:
            try:
                datetime.strptime(text, layout)
            except ValueError:
                continue
            found.add("strptime:" + layout)
    return found


def parse_time(value: Any, fmt: str) -> float | None:
    """Seconds since the epoch for monotonicity and gaps (naive values read as UTC)."""
    try:
        if fmt.startswith("epoch_"):
            unit = fmt.removesuffix("_string")
            divisor = {"epoch_s": 1, "epoch_ms": 1e3, "epoch_us": 1e6, "epoch_ns": 1e9}[unit]
            return float(value) / divisor
        if fmt in ("iso", "iso_naive"):
            moment = datetime.fromisoformat(str(value).strip())
        elif fmt.startswith("strptime:"):
            moment = datetime.strptime(str(value).strip(), fmt.split(":", 1)[1])
        else:
            return None
    except (ValueError, TypeError, OverflowError):
        return None
    if moment.tzinfo is None:

        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


# -- field statistics --------------------------------------------------------------------------
@dataclass
class FieldStat:
    """What one dotted path holds across the records that were read."""

    path: tuple
    records: int = 0  # records where the path is present and not null
    nulls: int = 0
    occurrences: int = 0
    types: Counter = field(default_factory=Counter)
    values: Counter = field(default_factory=Counter)  # scalar values, up to MAX_DISTINCT
    overflow: bool = False
    hashes: set = field(default_factory=set)  # for a cardinality estimate (capped)
    examples: list = field(default_factory=list)
    str_count: int = 0
    str_total: int = 0
    str_max: int = 0
    str_spaced: int = 0
    str_json_object: int = 0
    time_probes: int = 0
    time_formats: Counter = field(default_factory=Counter)
    layouts_ok: set | None = None  # human layouts that read every probed value

    def add(self, value: Any) -> None:
        self.occurrences += 1
        kind = type_name(value)
        self.types[kind] += 1
        if kind in ("object", "array"):
            return
        if kind == "null":
            return
        if len(self.hashes) < 20000:
            self.hashes.add(value if not isinstance(value, float) else repr(value))
        key = value
        if not self.overflow:
            if key in self.values or len(self.values) < MAX_DISTINCT:
                self.values[key] += 1
            else:
                self.overflow = True
        if len(self.examples) < 3 and value not in self.examples:
            self.examples.append(value)
        if isinstance(value, str):
            n = str_len(value)
            self.str_count += 1
            self.str_total += n
            self.str_max = max(self.str_max, n)
            if _SPACE.search(value, 0, 200):
                self.str_spaced += 1
            if value[:1] in "{[" and str_json_kind(value) == "object":
                self.str_json_object += 1
        if self.time_probes < TIME_PROBES and kind in ("string", "int", "float") and (
                self.time_probes < 20 or self.time_formats):  # stop probing paths that never held a time
            self.time_probes += 1
            formats = time_formats(value)
            for fmt in formats:
                if not fmt.startswith("strptime:"):
                    self.time_formats[fmt] += 1
            layouts = {f for f in formats if f.startswith("strptime:")}
            if layouts:
                self.time_formats["strptime"] += 1
                self.layouts_ok = layouts if self.layouts_ok is None else self.layouts_ok & layouts

    # derived facts
    @property
    def cardinality(self) -> int:
        return len(self.hashes)

    @property
    def main_type(self) -> str:
        counts = Counter({k: v for k, v in self.types.items() if k != "null"})
        return counts.most_common(1)[0][0] if counts else "null"

    @property
    def avg_len(self) -> float:
        return self.str_total / self.str_count if self.str_count else 0.0

    @property
    def prose(self) -> float:
        """How much the strings look like text written for people (0..1)."""
        if not self.str_count:
            return 0.0
        spaced = self.str_spaced / self.str_count
        return spaced * min(1.0, self.avg_len / 40)

    @property
    def tokenish(self) -> bool:
        """Short identifiers without spaces (kind names, ids, enum values)."""
        return self.str_count > 0 and self.str_spaced == 0 and self.str_max <= 64

    def time_format(self) -> tuple[str | None, float]:
        """The best timestamp format of the values and the share of probed values it reads."""
        probed = sum(n for t, n in self.types.items() if t in ("string", "int", "float"))
        probed = min(probed, self.time_probes) or 0
        if not probed or not self.time_formats:
            return None, 0.0
        fmt, count = self.time_formats.most_common(1)[0]
        if fmt == "strptime" and self.layouts_ok:
            fmt = min(self.layouts_ok, key=lambda f: HUMAN_LAYOUTS.index(f.split(":", 1)[1]))
        elif fmt == "strptime":
            return None, 0.0
        return fmt, count / probed

    def to_dict(self, total: int, show_values: bool = False) -> dict:
        fmt, share = self.time_format()
        out: dict[str, Any] = {
            "path": dotted(self.path),
            "types": dict(self.types),
            "fill": round(self.records / total, 3) if total else 0.0,
            "records": self.records,
            "cardinality": self.cardinality if len(self.hashes) < 20000 else "20000+",
        }
        if self.str_count:
            out["avg_length"] = round(self.avg_len, 1)
            out["max_length"] = self.str_max
            if self.str_json_object:
                out["json_object_strings"] = self.str_json_object
        if fmt and share >= 0.8:
            out["time_format"] = fmt
        if self.values and not self.overflow and self.tokenish and self.cardinality <= 30:
            out["values"] = {example(k, show_values, self.path): v for k, v in self.values.most_common(30)}
        if self.examples:
            out["examples"] = [example(v, show_values, self.path) for v in self.examples]
        return out


def _walk(value: Any, path: tuple, out: list) -> None:
    out.append((path, value))
    if isinstance(value, dict):
        for key, item in value.items():
            _walk(item, (*path, key), out)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                _walk(item, (*path, LIST), out)
            else:
                out.append(((*path, LIST), item))


def profile_fields(records: list[dict], stats: dict[tuple, FieldStat] | None = None, *,
                   times: bool = True) -> dict[tuple, FieldStat]:
    """Per-path statistics over records (every nested path, list elements under ``[]``).

    ``times=False`` skips timestamp probing (kind and block profiles reuse the global one).
    """
    stats = {} if stats is None else stats
    for record in records:
        nodes: list = []
        _walk(record, (), nodes)
        seen: set = set()
        for path, value in nodes:
            if not path:
                continue
            stat = stats.get(path)
            if stat is None:
                stat = stats[path] = FieldStat(path)
                if not times:
                    stat.time_probes = TIME_PROBES
            if value is None:
                stat.nulls += 1
                stat.types["null"] += 1
                continue
            stat.add(value)
            if path not in seen:
                seen.add(path)
                stat.records += 1
    return stats


# -- redacted examples -------------------------------------------------------------------------
_REDACTOR: Any = None


def redact(text: str) -> str:
    """The runtime's own secret redaction (what a rendered cleaner would do to the value)."""
    global _REDACTOR
    if _REDACTOR is None:
        try:
            _REDACTOR = runtime_module("redaction").Redactor()
        except Exception:  # noqa: BLE001 - redaction unavailable: show shapes only
            _REDACTOR = False
    if _REDACTOR is False:
        return f"<{len(text)} chars>"
    return _REDACTOR.redact(text)


SECRET_NAME = re.compile(
    r"(pass(word|wd|phrase)?|secret|token|api[_-]?key|apikey|auth(orization)?|cookie|session[_-]?id|"
    r"private[_-]?key|credentials?|access[_-]?key|client[_-]?secret|signature|sig)$",
    re.IGNORECASE,
)


def secret_named(path: tuple | None) -> bool:
    """A field whose name says it holds a secret: its values are never shown, whatever they look like."""
    if not path:
        return False
    last = str(path[-1])
    return bool(SECRET_NAME.search(last.replace("-", "_")))


def example(value: Any, show_values: bool = False, path: tuple | None = None) -> str:
    """A short, redacted rendering of one value; prose is hidden unless show_values."""
    if secret_named(path) and value is not None and not isinstance(value, bool):
        return f"<redacted, {len(str(value))} chars>"
    if isinstance(value, str):
        n = str_len(value)
        if not show_values and (any(c.isspace() for c in value[:200]) or n > 40):
            return f"<text, {n} chars>"
        limit = 80 if show_values else 40
        text = redact(value[: limit * 2])
        return text if len(text) <= limit and n <= limit else text[: limit - 1] + "…"
    return json.dumps(value)[:40]


# -- reading -----------------------------------------------------------------------------------
@dataclass
class FileReport:
    """One input file: how it is stored, what was read of it, and what could not be read."""

    path: str
    size: int
    compressed: bool = False
    container: str = "jsonl"  # jsonl, json_array, json_object, not_json, unreadable
    records_path: tuple | None = None
    records_path_choices: list = field(default_factory=list)
    records: int = 0
    bad_lines: list = field(default_factory=list)  # (where, reason), first 20
    bad_count: int = 0
    bytes_read: int = 0
    read: str = "whole file"
    complete: bool = True
    mtime: float = 0.0
    problem: str | None = None
    one_line: bool = False  # a document written on one line (the cleaner must be told it is one)
    envelope: dict | None = field(default=None, repr=False)  # the JSON object without its record list

    def bad(self, where: str, reason: str) -> None:
        self.bad_count += 1
        if len(self.bad_lines) < 20:
            self.bad_lines.append((where, reason))

    def to_dict(self) -> dict:
        return {
            "path": self.path, "size": self.size, "compressed": self.compressed, "container": self.container,
            "records_path": dotted(self.records_path) if self.records_path else None,
            "records": self.records, "bad_lines": self.bad_count,
            "bad_line_examples": [{"where": w, "reason": r} for w, r in self.bad_lines],
            "bytes_read": self.bytes_read, "read": self.read, "complete": self.complete, "problem": self.problem,
            "document_fields": sorted(map(str, self.envelope)) if self.envelope else [],
        }


@dataclass
class Rec:
    """One sampled record: which file, its position in that file, where to point people."""

    file: int
    pos: int
    where: str
    data: dict
    envelope: dict | None = field(default=None, repr=False)  # the fields around its record list, if any
    element: int | None = None  # the element of a nested record list (``*.messages``) holding it


_GLOB_CHARS = set("*?[")


def expand_paths(paths: list[str]) -> tuple[list[tuple[str, Path]], list[str]]:
    """Files named by paths, folders (recursive, hidden skipped) and globs; plus problems."""
    readers = runtime_module("readers")
    out: list[tuple[str, Path]] = []
    problems: list[str] = []
    seen: set = set()
    for given in paths:
        candidates: list[str]
        if not os.path.exists(given) and _GLOB_CHARS & set(given):
            candidates = sorted(glob.glob(given, recursive=True))
            if not candidates:
                problems.append(f"{given}: no file matches this pattern")
        else:
            candidates = [given]
        for candidate in candidates:
            path = Path(candidate)
            if not path.exists():
                problems.append(f"{candidate}: no such file or folder")
                continue
            if path.is_dir():
                items = [(str(item.path), item.path) for item in readers.discover(candidate, ["*"])]
            else:
                items = [(candidate, path)]
            for shown, real in items:
                key = os.path.realpath(real)
                if key not in seen:
                    seen.add(key)
                    out.append((shown, real))
    return out, problems


def _open(path: Path):
    return runtime_module("readers")._open_bytes(path)


TOOL_NAME_FIELDS = {"tool", "tool_name", "function_name", "toolname"}  # name tools, not kinds of records
DEFINITIONS_ONLY = ("(lists that define the run)",)  # a choice that stands for the lists given way
# Lists in a request or export document that define the run rather than record it.
DEFINITION_LISTS = {"tools", "functions", "tool_definitions", "system", "stop", "stop_sequences", "schemas",
                    "plugins", "agents", "models", "parameters", "settings", "permissions", "labels", "tags",
                    # ... or judge and describe it afterwards (a trace's scores, a ticket's custom fields)
                    "scores", "evaluations", "feedback", "ratings", "custom_fields", "fields", "metrics"}


def _records_in_document(document: Any) -> tuple[list | None, tuple | None, list]:
    """The record list of a JSON document, its path, and the other lists that could be it."""
    if isinstance(document, list):
        return document, None, []
    if not isinstance(document, dict):
        return None, None, []
    found: list[tuple[tuple, list]] = []

    def visit(node: dict, path: tuple, depth: int) -> None:
        for key, value in node.items():
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                found.append(((*path, key), value))
            elif isinstance(value, dict) and depth < 3:
                visit(value, (*path, key), depth + 1)

    visit(document, (), 0)
    if not found:
        return None, None, []
    found.sort(key=lambda item: (-len(item[1]), len(item[0])))
    # lists that define rather than record (a request's tool schemas, its system prompt) give way
    recorded = [item for item in found if "_".join(words(str(item[0][-1]))) not in DEFINITION_LISTS]
    best_path, best = (recorded or found)[0]
    if len(recorded) == 1 and len(found) > 1:
        # the one list that records something: no choice to make, but the path must be named
        return best, best_path, [best_path, DEFINITIONS_ONLY]
    return best, best_path, [p for p, _ in found]


class _Partial:
    """Records from the first bytes of a JSON document too big to read whole."""

    def __init__(self, text: str):
        self.text = text
        self.decoder = json.JSONDecoder()

    def skip(self, i: int) -> int:
        while i < len(self.text) and self.text[i] in " \t\r\n,":
            i += 1
        return i

    def array(self, i: int) -> tuple[list, int]:
        items: list = []
        i = self.skip(i + 1)
        while i < len(self.text) and self.text[i] != "]":
            try:
                value, i = self.decoder.raw_decode(self.text, i)
            except ValueError:
                break
            items.append(value)
            i = self.skip(i)
        return items, i

    def find(self) -> tuple[list, tuple | None]:
        i = self.skip(0)
        if i < len(self.text) and self.text[i] == "[":
            return self.array(i)[0], None
        return self.object(i, ())

    def object(self, i: int, path: tuple) -> tuple[list, tuple | None]:
        i = self.skip(i + 1)
        while i < len(self.text) and self.text[i] == '"':
            try:
                key, i = self.decoder.raw_decode(self.text, i)
            except ValueError:
                break
            i = self.skip(i)
            if i >= len(self.text) or self.text[i] != ":":
                break
            i = self.skip(i + 1)
            if i >= len(self.text):
                break
            start = self.text[i]
            try:
                value, end = self.decoder.raw_decode(self.text, i)
            except ValueError:
                if start == "[":
                    items, _ = self.array(i)
                    return [v for v in items if isinstance(v, dict)], (*path, key)
                if start == "{":
                    return self.object(i, (*path, key))
                break
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                return value, (*path, key)
            i = self.skip(end)
        return [], None


def _segments(size: int, budget: int) -> list[tuple[int, int, str]]:
    """Byte ranges of a big file to read: mostly the head, some middle, some tail."""
    if size <= budget:
        return [(0, size, "head")]
    head = int(budget * 0.6)
    middle = int(budget * 0.2)
    tail = budget - head - middle
    mid_start = max(head, size // 2 - middle // 2)
    return [(0, head, "head"), (mid_start, middle, "middle"), (size - tail, tail, "tail")]


def _parse_line(raw: bytes, where: str, report: FileReport, out: list, index: int) -> None:
    if not raw.strip():
        return
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        report.bad(where, f"invalid UTF-8 at byte {exc.start}")
        return
    except (ValueError, RecursionError) as exc:
        torn = not raw.endswith(b"\n")
        detail = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        report.bad(where, "torn last line (no newline)" if torn else f"invalid JSON ({detail})")
        return
    if not isinstance(value, dict):
        report.bad(where, f"a JSON {type_name(value)}, not an object")
        return
    out.offer(value, where)


SIGNATURE_KEYS = DISCRIMINATOR_NAMES | ROLE_FIELD_NAMES | {"subtype", "status", "level", "name"}


def signature(record: dict) -> int:
    """A cheap shape of a record: its keys, and the values of fields named like kinds or roles."""
    parts: list = [frozenset(record)]
    for key in record.keys() & SIGNATURE_KEYS:
        value = record[key]
        if type(value) is str and len(value) <= 40:
            parts.append((key, value))
    for key, value in record.items():
        if type(value) is dict:
            for key2 in value.keys() & SIGNATURE_KEYS:
                value2 = value[key2]
                if type(value2) is str and len(value2) <= 40:
                    parts.append((key, key2, value2))
    return hash(frozenset(parts))


class _Keep(list):
    """The records of one file kept for analysis: every shape, a bounded number of each.

    Rare shapes are kept even past the cap, so a kind that shows up once in a gigabyte is
    still seen; common shapes stop being kept once there are enough of them.
    """

    def __init__(self, index: int, cap: int):
        super().__init__()
        self.index = index
        self.cap = cap
        self.per_shape = max(10, cap // 3)
        self.shapes: Counter = Counter()
        self.parsed = 0

    def offer(self, value: dict, where: str) -> Rec | None:
        self.parsed += 1
        shape = signature(value)
        seen = self.shapes[shape]
        self.shapes[shape] = seen + 1
        if (len(self) < self.cap and seen < self.per_shape) or (seen < 5 and len(self) < 2 * self.cap):
            rec = Rec(self.index, self.parsed, where, shrink(value))
            self.append(rec)
            return rec
        return None


def _read_jsonl(report: FileReport, path: Path, budget: int, index: int, keep: int) -> list[Rec]:
    out = _Keep(index, keep)
    if report.compressed or report.size <= budget:
        with _open(path) as stream:
            number = 0
            while True:
                raw = stream.readline()
                if not raw:
                    break
                number += 1
                if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                report.bytes_read += len(raw)
                _parse_line(raw, f"{report.path}:{number}", report, out, index)
                if report.bytes_read >= budget:
                    if stream.readline():
                        report.complete = False
                        kind = "decompressed " if report.compressed else ""
                        report.read = f"first {human_size(report.bytes_read)} ({kind}lines 1-{number})"
                    break
        return out
    report.complete = False
    parts = []
    with open(path, "rb") as stream:
        for start, length, name in _segments(report.size, budget):
            stream.seek(start)
            data = stream.read(length)
            report.bytes_read += len(data)
            lines = data.split(b"\n")
            at_end = start + length >= report.size
            if start > 0:
                lines = lines[1:]  # the first piece is the rest of a line we did not start
            if not at_end:
                lines = lines[:-1]  # the last piece is cut by the budget
            if name == "head":
                if lines and lines[0].startswith(b"\xef\xbb\xbf"):
                    lines[0] = lines[0][3:]
                for number, raw in enumerate(lines, start=1):
                    _parse_line(raw + b"\n", f"{report.path}:{number}", report, out, index)
                parts.append(f"lines 1-{len(lines)}")
            else:
                for raw in lines:
                    _parse_line(raw + b"\n", f"{report.path} (byte ~{start})", report, out, index)
                parts.append(f"{human_size(length)} of the {name} (from byte {start})")
    report.read = f"{human_size(report.bytes_read)} of {human_size(report.size)}: " + ", ".join(parts)
    return out


def _read_document(report: FileReport, path: Path, budget: int, index: int, keep: int) -> list[Rec]:
    with _open(path) as stream:
        data = stream.read(budget + 1)
        complete = len(data) <= budget
    report.bytes_read = min(len(data), budget)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if complete:
        try:
            document = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            report.problem = f"invalid UTF-8 at byte {exc.start}"
            report.bad(report.path, report.problem)
            return []
        except (ValueError, RecursionError) as exc:
            report.problem = f"invalid JSON document ({exc})"
            report.bad(report.path, report.problem)
            return []
        records, records_path, choices = _records_in_document(document)
        if isinstance(document, dict) and records_path:
            report.envelope = shrink(runtime_module("readers").without_path(document, records_path))
    else:
        report.complete = False
        text = data[:budget].decode("utf-8", errors="ignore")
        records, records_path = _Partial(text).find()
        choices = [records_path] if records_path else []
        kind = "decompressed " if report.compressed else ""
        report.read = f"first {human_size(report.bytes_read)} ({kind}bytes of the document)"
    if records is None:
        report.problem = "no list of records found in the JSON document"
        report.bad(report.path, report.problem)
        return []
    report.container = "json_array" if records_path is None else "json_object"
    report.records_path = records_path
    report.records_path_choices = choices
    nested = _nested_key(records)
    if nested is not None:
        return _read_elements(report, records, nested, index, keep)
    out = _Keep(index, keep)
    for number, value in enumerate(records, start=1):
        where = f"{report.path} (record {number})"
        if isinstance(value, dict):
            out.offer(value, where)
        else:
            report.bad(where, f"record {number} is a JSON {type_name(value)}, not an object")
    return out


NESTED_LIST_NAMES = {"messages", "turns", "events", "records", "entries", "steps", "history", "chat_messages",
                     "conversation", "transcript", "utterances", "exchanges", "interactions", "dialog", "dialogue",
                     "log", "logs", "trajectory", "spans", "items", "chat", "thread", "chat_history", "message_list"}


REPLY_KEYS = {"response", "choices", "completion", "output", "outputs", "answer", "reply", "result", "generation"}


def _nested_key(elements: list) -> str | None:
    """The key under which every element of a record list holds its own records (an array of
    conversations, each with its ``messages``); None when the elements are records themselves."""
    dicts = [e for e in elements if isinstance(e, dict)]
    if not dicts or len(dicts) < 0.9 * len(elements):
        return None
    counts: Counter = Counter()
    maps: Counter = Counter()
    for element in dicts:
        for key, value in element.items():
            name = "_".join(words(str(key)))
            if name in REPLY_KEYS and value not in (None, "", [], {}):
                return None  # a request with its response (an LLM call log): the history repeats per line
            if isinstance(value, str) and (name in ROLE_FIELD_NAMES or (
                    name in ("text", "content", "body", "message") and value.strip())):
                return None  # a message: the elements are the records
            if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
                counts[key] += 1
            elif _node_map(value):
                maps[key] += 1
    key, n = counts.most_common(1)[0] if counts else (None, 0)
    if key is not None and n >= 0.8 * len(dicts) and "_".join(words(str(key))) in NESTED_LIST_NAMES:
        return key
    key, n = maps.most_common(1)[0] if maps else (None, 0)
    return key if key is not None and n >= 0.8 * len(dicts) else None


def _node_map(value: Any) -> bool:
    """An object of objects keyed by their own ids (a ChatGPT export's ``mapping`` of message nodes):
    a record list written as a map, whatever its key is called."""
    if not isinstance(value, dict) or len(value) < 2 or not all(isinstance(v, dict) for v in value.values()):
        return False
    own = sum(1 for k, v in value.items() if any(inner == k for inner in v.values() if isinstance(inner, str)))
    return own >= 0.8 * len(value)


def _read_elements(report: FileReport, elements: list, key: str, index: int, keep: int) -> list[Rec]:
    """The records nested in each element (``*.<key>``), each knowing its element and the element's
    other fields (its envelope)."""
    report.records_path = (*(report.records_path or ()), "*", key)
    report.records_path_choices = [report.records_path]
    report.envelope = None  # each element is its records' envelope
    without = runtime_module("readers").without_path
    out = _Keep(index, keep)
    for e_no, element in enumerate(elements, start=1):
        inner = element.get(key) if isinstance(element, dict) else None
        if isinstance(inner, dict):
            inner = list(inner.values())  # a node map: its values are the records
        if not isinstance(inner, list):
            report.bad(f"{report.path} (element {e_no})", f"no list at `{key}`")
            continue
        envelope = shrink(without(element, (key,)))
        for number, value in enumerate(inner, start=1):
            where = f"{report.path} (element {e_no}, record {number})"
            if not isinstance(value, dict):
                report.bad(where, f"record {number} is a JSON {type_name(value)}, not an object")
                continue
            rec = out.offer(value, where)
            if rec is not None:
                rec.element, rec.envelope = e_no, envelope
    return out


def _expand_lines(report: FileReport, lines: list[Rec], key: str, index: int, keep: int) -> list[Rec]:
    """JSONL whose every line is one conversation holding its records at ``key`` (``*.<key>``)."""
    report.records_path = ("*", key)
    report.records_path_choices = [report.records_path]
    without = runtime_module("readers").without_path
    out = _Keep(index, keep)
    for line in lines:
        inner = line.data.get(key)
        if not isinstance(inner, list):
            report.bad(line.where, f"no list at `{key}`")
            continue
        envelope = without(line.data, (key,))
        for number, value in enumerate(inner, start=1):
            if isinstance(value, dict):
                rec = out.offer(value, f"{line.where} (record {number})")
                if rec is not None:
                    rec.element, rec.envelope = line.pos, envelope
    return out


def _first_byte(path: Path) -> bytes:
    with _open(path) as stream:
        chunk = stream.read(65536).lstrip(b" \t\r\n")
    if chunk.startswith(b"\xef\xbb\xbf"):
        chunk = chunk[3:].lstrip(b" \t\r\n")
    return chunk[:1]


def _first_line_longer(path: Path, limit: int) -> bool:
    with _open(path) as stream:
        return not stream.readline(limit).endswith(b"\n") and bool(stream.read(1))


def _container(readers: Any, path: Path) -> str:
    """``jsonl`` or a JSON document, decided exactly as the cleaner's reader decides it."""
    try:
        kind, fallback = readers._detect(path, readers.Limits())
    except (AttributeError, TypeError):
        with _open(path) as stream:
            line = stream.readline(1 << 20).strip(b" \t\r\n\xef\xbb\xbf")
        try:
            return "jsonl" if isinstance(json.loads(line), dict) else "json_array"
        except ValueError:
            return "json_object"
    if kind != "jsonl" and fallback:
        # one line holding a whole value: a document only if the whole file parses as one
        with _open(path) as stream:
            head = stream.read(1 << 20)
        try:
            json.loads(head)
        except ValueError:
            return "jsonl" if len(head) < (1 << 20) else kind
    return kind


def _read_table(report: FileReport, path: Path, table: str, index: int, keep: int) -> list[Rec]:
    """A CSV/TSV file read by the cleaner's own table reader: one record a row."""
    readers = runtime_module("readers")
    report.container = table
    kept = _Keep(index, keep)
    for entry in readers.read_records(readers.InputFile(path, Path(path.name)), table):
        if isinstance(entry, readers.BadLine):
            report.bad(f"{report.path}:{entry.where.line}", entry.reason)
        else:
            kept.offer(entry[1], f"{report.path}:{entry[0].line}")
    report.bytes_read = report.size
    report.records = getattr(kept, "parsed", len(kept))
    if not kept:
        report.problem = "no row under the header"
    return list(kept)


def read_sample(shown: str, path: Path, budget: int, index: int, keep: int = 6000) -> tuple[FileReport, list[Rec]]:
    """Read at most ``budget`` bytes of one file as the cleaner's readers would."""
    readers = runtime_module("readers")
    try:
        stat = path.stat()
        report = FileReport(shown, stat.st_size, mtime=stat.st_mtime)
        with open(path, "rb") as handle:
            report.compressed = handle.read(2) == b"\x1f\x8b"
        table = readers.table_kind(path)
        if table is not None:
            return report, _read_table(report, path, table, index, keep)
        first = _first_byte(path)
        named_json = any(part in (".json", ".jsonl", ".ndjson") for part in Path(shown.lower()).suffixes)
        if not first or (first not in (b"{", b"[") and not named_json):
            report.container = "not_json" if first else "empty"
            report.problem = "not JSON (the first character is not { or [)" if first else "empty file"
            return report, []
        if first in (b"{", b"[") and _first_line_longer(path, budget):
            records = _read_document(report, path, budget, index, keep)  # one huge line: a document
        elif first not in (b"{", b"[") or _container(readers, path) == "jsonl":
            report.container = "jsonl"  # a junk first line is one bad line of a JSONL file
            records = _read_jsonl(report, path, budget, index, keep)
            if not records:
                report.container, report.problem = "not_json", "no line holds a JSON object"
            elif len(records) > 1 and (nested := _nested_key([r.data for r in records])) is not None:
                records = _expand_lines(report, records, nested, index, keep)
            elif len(records) == 1 and report.complete and getattr(records, "parsed", 1) == 1:
                # one compact line holding a list of records: a JSON object document, not JSONL
                inner, inner_path, choices = _records_in_document(records[0].data)
                if inner is not None and len(inner) > 1:
                    report.container, report.records_path, report.records_path_choices = (
                        "json_object", inner_path, choices)
                    report.one_line = True
                    report.envelope = shrink(runtime_module("readers").without_path(records[0].data, inner_path))
                    kept = _Keep(index, keep)
                    for number, value in enumerate(inner, start=1):
                        kept.offer(value, f"{report.path} (record {number})")
                    records = kept
        else:
            records = _read_document(report, path, budget, index, keep)
    except (OSError, EOFError, ValueError) as exc:
        report = FileReport(shown, 0, container="unreadable", problem=f"cannot read ({exc})")
        return report, []
    report.records = getattr(records, "parsed", len(records))
    if report.envelope is not None:
        for rec in records:
            rec.envelope = report.envelope
    return report, list(records)


# -- analyses ----------------------------------------------------------------------------------
@dataclass
class SessionInfo:
    """What one session is: a file, or a grouping field; with the facts that decided it."""

    by: str = "file"
    path: tuple | None = None
    candidates: list = field(default_factory=list)  # dicts: path, fill, distinct, per_file_max, ...
    sessions: int = 0
    interleaved: bool = False
    across_files: bool = False
    missing_kinds: list = field(default_factory=list)
    evidence: str = ""

    def to_dict(self) -> dict:
        return {
            "by": self.by, "field": dotted(self.path) if self.path else None, "sessions": self.sessions,
            "interleaved": self.interleaved, "across_files": self.across_files,
            "candidates": self.candidates, "evidence": self.evidence,
        }


def session_key(rec: Rec, session: SessionInfo) -> Any:
    if session.by == "element":
        return (rec.file, rec.element)
    if session.by == "field" and session.path:
        value = get(rec.data, session.path)
        return (None, value) if value is not None else (rec.file, None)
    return (rec.file, None)


def find_sessions(recs: list[Rec], stats: dict[tuple, FieldStat], files: list[FileReport]) -> SessionInfo:
    nested = [f for f in files if f.records_path and "*" in f.records_path]
    if nested:
        info = SessionInfo(by="element")
        path = nested[0].records_path
        at = path.index("*")
        outer = f"`{dotted(path[:at])}`" if at else "the array"
        info.evidence = (f"each element of {outer} holds one conversation's records at `{dotted(path[at + 1:])}`"
                         f" ({len({(r.file, r.element) for r in recs})} elements in {len(nested)} file(s))")
        info.sessions = len({session_key(r, info) for r in recs})
        return info
    info = SessionInfo()
    total = len(recs)
    candidates = []
    for path, stat in stats.items():
        if LIST in path or not stat.records or stat.main_type not in ("string", "int"):
            continue
        name_words = set(words(str(path[-1])))
        hits = name_words & SESSION_WORDS
        if not hits or name_words & {"parent", "prev", "previous", "root", "type", "kind", "status", "name",
                                      "title", "count", "index", "seq", "number", "step", "start", "end"}:
            continue
        if stat.time_format()[1] >= 0.8 and stat.cardinality > 0.5 * stat.records:
            continue  # a time, not a grouping (thread_ts-style ids repeat)
        values_by_file: dict[int, set] = defaultdict(set)
        files_by_value: dict[Any, set] = defaultdict(set)
        sequence: dict[int, list] = defaultdict(list)
        present = 0
        for rec in recs:
            value = get(rec.data, path)
            if value is None or isinstance(value, (dict, list, bool)):
                continue
            present += 1
            values_by_file[rec.file].add(value)
            files_by_value[value].add(rec.file)
            seq = sequence[rec.file]
            if not seq or seq[-1] != value:
                seq.append(value)
        if not present:
            continue
        distinct = len(files_by_value)
        per_file_max = max(len(v) for v in values_by_file.values())
        if distinct >= 0.9 * present and present > len(values_by_file):
            continue  # a value per record: record ids, not sessions
        switches = sum(len(seq) - len(set(seq)) for seq in sequence.values())
        rank = min(SESSION_RANK.get(w, 3) for w in hits)
        candidates.append({
            "path": path, "fill": round(present / total, 3), "distinct": distinct, "per_file_max": per_file_max,
            "across_files": sum(1 for v in files_by_value.values() if len(v) > 1), "interleaved": switches > 0,
            "rank": rank,
        })
    candidates.sort(key=lambda c: (c["per_file_max"] <= 1 and not c["across_files"], c["rank"], -c["fill"]))
    info.candidates = [{**c, "path": dotted(c["path"])} for c in candidates]
    # one value in every file is a label (a pipeline or project name), not a session id
    grouping = [c for c in candidates if (c["per_file_max"] > 1 or c["across_files"])
                and not (c["distinct"] == 1 and len(files) > 1)]
    outer = [c for c in candidates if c not in grouping and c["per_file_max"] == 1 and not c["across_files"]]
    if grouping and not grouping[0]["across_files"] and any(
            c["rank"] < grouping[0]["rank"] and c["fill"] >= grouping[0]["fill"] for c in outer):
        # runs (`run_id`) inside one conversation per file (`thread_id`): parts of the session
        best = next(c for c in outer if c["rank"] < grouping[0]["rank"] and c["fill"] >= grouping[0]["fill"])
        info.evidence = (f"`{dotted(best['path'])}` has one value per file; `{dotted(grouping[0]['path'])}` "
                         "splits it into parts")
        info.sessions = len({session_key(r, info) for r in recs})
        return info
    if grouping:
        best = grouping[0]
        info.by, info.path = "field", best["path"]
        info.interleaved = best["interleaved"]
        info.across_files = bool(best["across_files"])
        info.evidence = (
            f"`{dotted(best['path'])}` groups records: {best['distinct']} values, up to {best['per_file_max']} in "
            f"one file" + (", interleaved" if best["interleaved"] else "")
            + (f", {best['across_files']} continuing across files" if best["across_files"] else "")
        )
    else:
        info.evidence = (
            f"`{dotted(candidates[0]['path'])}` has one value per file" if candidates
            else "no session, conversation, thread or run id field"
        )
    info.sessions = len({session_key(r, info) for r in recs})
    return info


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


def _mostly_present(recs: list[Rec], depth: int = 2) -> Counter:
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
        counts = _mostly_present(group)
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


def _discriminator(recs: list[Rec], candidates: list[tuple], used: set, after_role: bool,
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


_COUNT_OR_TIME = re.compile(r"[\d\s.:+TZ-]+\Z")
# words of a key about another record (``parent_user_id``, ``reply_users``, ``latest_reply``)
_REFERS = {"parent", "thread", "reply", "replies", "latest", "last", "root", "previous", "prev", "next", "original",
           "reply_to", "in"}


def key_roles(key: Any, recs: list[Rec]) -> list[str]:
    """What a key its records alone hold says about who wrote them (``bot_id``, ``visitor``), when
    it identifies the writer: a count, a time, a list or a reference to another record (Slack's
    ``reply_count``, ``reply_users``, ``parent_user_id``) is about other records, whatever its name
    sounds like."""
    values = [r.data.get(key) for r in recs[:200] if isinstance(r.data, dict) and r.data.get(key) is not None]
    if set(words(str(key))) & _REFERS or any(
            isinstance(v, (int, float, list)) and not isinstance(v, bool)
            or isinstance(v, str) and _COUNT_OR_TIME.match(v) for v in values):
        return []  # a count, a list, a time, a number, a reference to another record
    return name_roles(str(key))


def _presence_split(recs: list[Rec], lacks: list, depth: int = 0) -> list[tuple[list, list, list[Rec]]]:
    """Records told apart by which keys they have: [(has, lacks, records)]."""
    counts = _mostly_present(recs, depth=1)
    n = len(recs)
    optional = [k for k, c in counts.items() if c < n]
    if not optional or depth >= 4:
        return [([], list(lacks), recs)]
    best = None
    for key in optional:
        inside = [r for r in recs if key[0] in r.data and r.data[key[0]] is not None]
        outside = [r for r in recs if not (key[0] in r.data and r.data[key[0]] is not None)]
        if not inside or not outside:
            continue
        a, b = _mostly_present(inside, 1), _mostly_present(outside, 1)
        keys = set(a) | set(b)
        distance = sum(abs(a[k] / len(inside) - b[k] / len(outside)) for k in keys) / len(keys)
        name_bonus = 0.05 if key_roles(key[0], inside) else 0.0
        score = distance + name_bonus
        if best is None or score > best[0]:
            best = (score, key, inside, outside)
    if best is None or best[0] < 0.25:
        return [([], list(lacks), recs)]
    _, key, inside, outside = best
    out = [([key], list(lacks), inside)]
    out += _presence_split(outside, [*lacks, key], depth + 1)
    return out


CALL_NAME_KEYS = {"name", "tool", "tool_name", "function", "function_name", "action", "action_name", "command_name"}
CALL_ARG_KEYS = {"args", "arguments", "params", "parameters", "input", "inputs", "tool_input", "kwargs",
                 "action_input", "tool_args"}


def _call_container(data: dict) -> str | None:
    """The key of an object holding a tool name and its arguments (``action: {name, params}``), or
    the arguments' key when the record itself holds both (``tool: lookup, args: {...}``)."""
    for key, value in data.items():
        if not isinstance(value, dict):
            continue
        names = {"_".join(words(str(k))) for k, v in value.items() if isinstance(v, str) and token_like(v)}
        args = {"_".join(words(str(k))) for k, v in value.items() if v is not None}
        if names & CALL_NAME_KEYS and args & CALL_ARG_KEYS:
            return key
    if any("_".join(words(str(k))) in CALL_NAME_KEYS and isinstance(v, str) and token_like(v) for k, v in data.items()):
        return next((k for k, v in data.items() if "_".join(words(str(k))) in CALL_ARG_KEYS and v is not None
                     and not isinstance(v, (bool, int, float))), None)
    return None


def _prose_outside(data: dict, skip: str | None) -> bool:
    """Whether a record holds text written for people outside ``skip`` (two levels deep)."""
    stack = [(v, 1) for k, v in data.items() if k != skip]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if len(value) >= 12 and _SPACE.search(value) and not time_formats(value):
                return True
        elif isinstance(value, dict) and depth < 2:
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list) and depth < 2:
            stack.extend((v, depth + 1) for v in value[:20])
    return False


def _call_split(recs: list[Rec]) -> list[tuple[list, list, list[Rec]]]:
    """A message kind whose records are text or only a tool call: [(has, lacks, records)], or [].

    A bot or agent often writes a tool call as its own message (``sender=bot`` with
    ``action: {name, params}`` and no text) beside its text messages; the two shapes are two kinds.
    """
    calls: list[Rec] = []
    rest: list[Rec] = []
    keys: Counter = Counter()
    for rec in recs:
        key = _call_container(rec.data)
        if key is not None and not _prose_outside(rec.data, key):
            calls.append(rec)
            keys[key] += 1
        else:
            rest.append(rec)
    if not calls or not rest or len(keys) != 1:
        return []
    key = next(iter(keys))
    if any(rec.data.get(key) is not None for rec in rest) or not any(_prose_outside(r.data, None) for r in rest):
        return []
    return [([(key,)], [], calls), ([], [(key,)], rest)]


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
        found = _discriminator(subset, candidates, used, role_known, named) if depth < 4 else None
        if found is None:
            if not match:  # nothing names the kind: tell records apart by the keys they have
                for has, lacks2, group in _presence_split(subset, lacks):
                    leaves.append((match, has, lacks2, group))
            else:  # a message kind may mix text records with records that are only a tool call
                for has, lacks2, group in _call_split(subset) or [([], [], subset)]:
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


@dataclass
class BlockType:
    name: str
    count: int
    stats: dict = field(default_factory=dict, repr=False)
    containers: Counter = field(default_factory=Counter)  # content path -> count

    def to_dict(self) -> dict:
        fields = {dotted(p): s.main_type for p, s in self.stats.items() if LIST not in p and len(p) <= 2}
        return {"type": self.name, "count": self.count, "in": [dotted(p) for p in self.containers],
                "fields": fields}


@dataclass
class Blocks:
    """Lists of typed content blocks: where they are, the type field and each type's fields.

    Lists whose items have no type field but are told apart by the key they hold (Gemini
    ``parts``: ``{"text"}``, ``{"functionCall"}``, ``{"thought": true, "text"}``) are ``by_key``
    types, in the order a block is checked (flags such as ``thought`` first), at ``key_paths``.
    """

    type_field: tuple | None = None
    paths: list = field(default_factory=list)
    types: dict = field(default_factory=dict)
    key_paths: list = field(default_factory=list)
    by_key: dict = field(default_factory=dict)

    @property
    def all_paths(self) -> list:
        return [*self.paths, *self.key_paths]

    def to_dict(self) -> dict:
        return {"type_field": dotted(self.type_field) if self.type_field else None,
                "paths": [dotted(p) for p in self.paths],
                "types": [b.to_dict() for b in self.types.values()],
                "key_paths": [dotted(p) for p in self.key_paths],
                "by_key": [b.to_dict() for b in self.by_key.values()]}


BLOCK_KEYS = {"text", "thought", "thinking", "reasoning", "function_call", "function_response", "tool_call",
              "tool_use", "tool_result", "tool_response", "inline_data", "file_data", "executable_code",
              "code_execution_result", "image", "image_url", "audio", "video", "file", "document", "refusal"}
NOT_BLOCK_KEYS = ROLE_FIELD_NAMES | TIME_WORDS | {"type", "kind", "id", "uuid"}


def _key_typed(items: list[dict]) -> list[str] | None:
    """The keys that tell untyped blocks apart, in the order to check them; None if not blocks."""
    if not items or any(not isinstance(i, dict) for i in items):
        return None
    held: dict[str, list] = {}
    for item in items:
        if len(item) > 5 or any("_".join(words(str(k))) in NOT_BLOCK_KEYS - {"text"} for k in item):
            return None
        for key, value in item.items():
            if "_".join(words(str(key))) in BLOCK_KEYS and value is not None and value is not False and value != "":
                held.setdefault(key, []).append(value)
    if not held:
        return None
    covered = sum(1 for item in items if any(k in held and item[k] not in (None, False, "") for k in item))
    if covered < len(items):
        return None
    flags = [k for k, values in held.items() if all(isinstance(v, bool) for v in values)]
    return flags + [k for k in held if k not in flags]


_MEDIA_TYPE = re.compile(r"[a-z]+/[\w.+-]+(;.*)?\Z")


def _media_types(stat: FieldStat) -> bool:
    """Values such as ``text/plain`` and ``image/png``: the media types of attached files (a ticket's
    ``attachments``, a message's ``files``), not the type names of content blocks."""
    return bool(stat.values) and all(isinstance(v, str) and _MEDIA_TYPE.match(v) for v in stat.values)


def find_blocks(recs: list[Rec], stats: dict[tuple, FieldStat]) -> Blocks:
    """Lists whose items are objects carrying a short type name: typed content blocks.

    Lists whose items carry no type name but hold one of the keys content blocks are known by
    (``text``, ``functionCall``, ``inlineData`` ...) are blocks typed by that key.
    """
    found = Blocks()
    lists = [p for p, s in stats.items() if s.types.get("array") and (*p, LIST) in stats
             and stats[(*p, LIST)].types.get("object")]
    type_names = Counter()
    untyped = []
    for path in lists:
        for key in ("type", "kind", "block_type", "content_type", "object"):
            stat = stats.get((*path, LIST, key))
            item = stats.get((*path, LIST))
            if stat and item and stat.records and stat.tokenish and stat.occurrences >= 0.9 * item.occurrences \
                    and not _media_types(stat):
                type_names[key] += stat.occurrences
                found.paths.append(path)
                break
        else:
            untyped.append(path)
    if untyped:
        _find_key_blocks(recs, untyped, found)
    if not type_names:
        return found
    type_field = type_names.most_common(1)[0][0]
    found.type_field = (type_field,)
    items_by_type: dict[str, list] = defaultdict(list)
    containers: dict[str, Counter] = defaultdict(Counter)

    def collect(node: Any, path: tuple) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                collect(v, (*path, k))
        elif isinstance(node, list):
            if path in found.paths:
                for item in node:
                    if isinstance(item, dict) and isinstance(item.get(type_field), str):
                        name = item[type_field]
                        if len(items_by_type[name]) < 2000:
                            items_by_type[name].append(item)
                        containers[name][path] += 1
            for item in node:
                if isinstance(item, (dict, list)):
                    collect(item, (*path, LIST))

    for rec in recs:
        collect(rec.data, ())
    for name, items in items_by_type.items():
        found.types[name] = BlockType(name, sum(containers[name].values()), profile_fields(items, times=False),
                                      containers[name])
    return found


def _find_key_blocks(recs: list[Rec], paths: list[tuple], found: Blocks) -> None:
    """Untyped block lists at ``paths`` (LIST segments allowed), typed by the keys they hold."""
    items_at: dict[tuple, list] = defaultdict(list)
    for rec in recs[:5000]:
        for path in paths:
            for value in values_at(rec.data, path):
                if isinstance(value, list) and len(items_at[path]) < 4000:
                    items_at[path].extend(value)
    order: list[str] = []
    for path in paths:
        keys = _key_typed(items_at[path])
        if keys is None:
            continue
        found.key_paths.append(path)
        order += [k for k in keys if k not in order]
    if not found.key_paths:
        return
    flags = [k for k in order if all(isinstance(i.get(k), bool) for p in found.key_paths for i in items_at[p]
                                     if isinstance(i, dict) and i.get(k) is not None)]
    order = flags + [k for k in order if k not in flags]
    by_key: dict[str, list] = defaultdict(list)
    containers: dict[str, Counter] = defaultdict(Counter)
    for path in found.key_paths:
        for item in items_at[path]:
            key = next((k for k in order if item.get(k) not in (None, False, "")), None)
            if key is not None:
                by_key[key].append(item)
                containers[key][path] += 1
    for key in order:
        if by_key[key]:
            found.by_key[key] = BlockType(key, len(by_key[key]), profile_fields(by_key[key][:2000], times=False),
                                          containers[key])


def values_at(value: Any, path: tuple) -> list:
    """Every value at a path whose LIST segments stand for each element of a list."""
    nodes = [value]
    for key in path:
        nxt = []
        for node in nodes:
            if key == LIST and isinstance(node, list):
                nxt.extend(node)
            elif isinstance(node, dict) and key in node:
                nxt.append(node[key])
        nodes = nxt
    return nodes


@dataclass
class Link:
    """Values of one field that reappear in another field: tool linkage or a parent/child tree."""

    source: str  # where the ids are defined: "kind:<key>" / "block:<type>" / "list:<path>"
    source_path: tuple
    target: str
    target_path: tuple
    overlap: float  # share of target values found among source values
    after: float  # share of matched target values that come after their source
    matched: int

    def to_dict(self) -> dict:
        return {"ids": f"{self.source} {dotted(self.source_path)}", "referenced_by": f"{self.target} "
                f"{dotted(self.target_path)}", "overlap": round(self.overlap, 3), "after": round(self.after, 3),
                "matched": self.matched}


def _id_sites(kinds: list[Kind], blocks: Blocks) -> list[tuple[str, tuple, list[tuple[Any, tuple]]]]:
    """(site, path, [(value, order)]) for every short string/int field of kinds and blocks."""
    sites = []
    for kind in kinds:
        per_path: dict[tuple, list] = defaultdict(list)
        for rec in kind.recs[:5000]:
            nodes: list = []
            _walk(rec.data, (), nodes)
            for sub, (path, value) in enumerate(nodes):
                if isinstance(value, int) and not isinstance(value, bool) and "id" not in words(str(path[-1])):
                    continue
                if isinstance(value, (str, int)) and not isinstance(value, bool) and path:
                    if any(path[: len(p)] == p and len(path) > len(p) for p in blocks.all_paths):
                        continue
                    if isinstance(value, str) and not token_like(value):
                        continue
                    per_path[path].append((value, (rec.file, rec.pos, sub)))
        for path, values in per_path.items():
            sites.append((f"kind:{kind.key}", path, values))
    if blocks.type_field:
        per_block: dict[tuple, list] = defaultdict(list)
        for kind in kinds:
            for rec in kind.recs[:5000]:
                for bpath in blocks.paths:
                    items = get(rec.data, bpath)
                    if not isinstance(items, list):
                        continue
                    for i, item in enumerate(items):
                        if not isinstance(item, dict):
                            continue
                        name = item.get(blocks.type_field[0])
                        for key, value in item.items():
                            if isinstance(value, str) and token_like(value) and key != blocks.type_field[0]:
                                per_block[(str(name), (key,))].append((value, (rec.file, rec.pos, i)))
        for (name, path), values in per_block.items():
            sites.append((f"block:{name}", path, values))
    if blocks.by_key:
        per_key: dict[tuple, list] = defaultdict(list)
        order = list(blocks.by_key)
        for kind in kinds:
            for rec in kind.recs[:5000]:
                for bpath in blocks.key_paths:
                    items = [i for v in values_at(rec.data, bpath) if isinstance(v, list) for i in v]
                    for i, item in enumerate(items):
                        name = next((k for k in order if isinstance(item, dict) and item.get(k) not in (None, False, "")),
                                    None)
                        if name is None:
                            continue
                        nodes: list = []
                        _walk(item, (), nodes)
                        for path, value in nodes:
                            if path and isinstance(value, str) and token_like(value) and len(path) <= 3:
                                per_key[(name, path)].append((value, (rec.file, rec.pos, i)))
        for (name, path), values in per_key.items():
            sites.append((f"key:{name}", path, values))
    return sites


def _idlike(stat: FieldStat | None) -> bool:
    """Values that name one thing each: (nearly) never repeated, not prose, not times."""
    if stat is None or stat.main_type not in ("string", "int") or not stat.occurrences:
        return False
    scalars = sum(n for t, n in stat.types.items() if t in ("string", "int"))
    return stat.cardinality >= 0.8 * scalars and stat.time_format()[1] < 0.8 and (stat.tokenish or not stat.str_count)


def find_links(kinds: list[Kind], blocks: Blocks, stats: dict[tuple, FieldStat],
               session: tuple | None = None) -> list[Link]:
    """Id fields whose values reappear later in another kind's or block's field.

    Tool linkage is found this way (a result's ``call_id`` values are the ``id`` values of
    earlier calls), and so are parent/child trees (``parent_id`` -> ``id``).
    """
    sites = [site for site in _id_sites(kinds, blocks) if not (site[0].startswith("kind:") and site[1] == session)]
    id_sites = []
    for site, path, values in sites:
        if site.startswith(("block:", "key:")):
            block = (blocks.types if site.startswith("block:") else blocks.by_key).get(site.split(":", 1)[1])
            stat = block.stats.get(path) if block else None
        else:
            stat = stats.get(path)
        distinct = {v for v, _ in values}
        if _idlike(stat) and any(isinstance(v, int) or len(v) >= 3 for v in distinct):
            id_sites.append((site, path, values, distinct))
        elif stat is not None and any(w in ("id", "ids") for w in words(str(path[-1]))) and stat.str_count:
            id_sites.append((site, path, values, distinct))  # references repeat (several results per id)
    links = []
    for s_site, s_path, s_values, s_distinct in id_sites:
        first_seen: dict[Any, tuple] = {}
        for value, order in s_values:
            if value not in first_seen or order < first_seen[value]:
                first_seen[value] = order
        for t_site, t_path, t_values, t_distinct in id_sites:
            if (t_site, t_path) == (s_site, s_path):
                continue
            common = s_distinct & t_distinct
            if not common or len(common) < 0.5 * len(t_distinct):
                continue
            after = sum(1 for v, order in t_values if v in first_seen and order > first_seen[v])
            matched = sum(1 for v, _ in t_values if v in first_seen)
            if not matched or after < 0.5 * matched:
                continue
            links.append(Link(s_site, s_path, t_site, t_path, len(common) / len(t_distinct),
                              after / matched if matched else 0.0, matched))
    return links


@dataclass
class TimeField:
    path: tuple
    format: str
    share: float
    fill: float
    name_rank: int
    monotonic: float | None = None
    median_gap: float | None = None
    max_gap: float | None = None

    def to_dict(self) -> dict:
        return {"path": dotted(self.path), "format": self.format, "readable": round(self.share, 3),
                "fill": round(self.fill, 3), "monotonic": None if self.monotonic is None else round(self.monotonic, 3),
                "median_gap_s": self.median_gap, "max_gap_s": self.max_gap}


def time_name_rank(path: tuple) -> int:
    """0 for timestamp-like names, 1 other time words, 2 no time word, 3 end/updated times."""
    name = str(path[-1]).lower()
    ws = set(words(str(path[-1])))
    if ws & TIME_LATE_WORDS or name in TIME_LATE_WORDS:
        return 3
    if name in ("timestamp", "ts", "time", "@timestamp", "datetime", "date"):
        return 0
    if name in TIME_WORDS or ws & TIME_WORDS:
        return 1
    return 2


def find_times(recs: list[Rec], stats: dict[tuple, FieldStat], session: SessionInfo) -> list[TimeField]:
    total = len(recs) or 1
    found = []
    for path, stat in stats.items():
        if LIST in path or not stat.records:
            continue
        fmt, share = stat.time_format()
        if not fmt or share < 0.8:
            continue
        rank = time_name_rank(path)
        if fmt.startswith("epoch") and rank >= 2:
            continue  # a bare number is a time only when its name says so
        found.append(TimeField(path, fmt, share, stat.records / total, rank))
    for tf in found:
        by_session: dict[Any, list[float]] = defaultdict(list)
        for rec in recs:
            value = get(rec.data, tf.path)
            if value is not None:
                seconds = parse_time(value, tf.format)
                if seconds is not None:
                    by_session[session_key(rec, session)].append(seconds)
        pairs = ordered = 0
        gaps: list[float] = []
        for seq in by_session.values():
            for a, b in itertools.pairwise(seq):
                pairs += 1
                ordered += b >= a
                gaps.append(abs(b - a))
        if pairs:
            tf.monotonic = ordered / pairs
            gaps.sort()
            tf.median_gap = round(gaps[len(gaps) // 2], 3)
            tf.max_gap = round(gaps[-1], 3)
    found.sort(key=lambda t: (t.name_rank, -t.fill, len(t.path)))
    return found


def find_meta(stats: dict[tuple, FieldStat], total: int) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {"cwd": [], "git_branch": [], "model": []}
    for path, stat in stats.items():
        if LIST in path or not stat.str_count:
            continue
        joined = "_".join(words(str(path[-1])))
        flat = joined.replace("_", "")
        for key, names in META_NAMES.items():
            if joined in names or flat in names or (key == "git_branch" and path[-1] == "branch"):
                sample = [v for v in stat.values if isinstance(v, str)]
                if key == "cwd" and not any(v.startswith(("/", "~", "\\")) or v[1:3] == ":\\" for v in sample):
                    continue
                if stat.prose > 0.3:
                    continue
                out[key].append({"path": path, "fill": round(stat.records / total, 3), "distinct": stat.cardinality})
    for cands in out.values():
        cands.sort(key=lambda c: (-c["fill"], len(c["path"])))
    return out


# -- native harnesses --------------------------------------------------------------------------
@dataclass
class Native:
    source: str
    family: list
    evidence: str


def _has(recs: list[Rec], test) -> int:
    return sum(1 for r in recs if test(r.data))


def detect_native(recs: list[Rec], files: list[FileReport]) -> Native | None:
    """Harness formats Letta's trajectory normalizer reads natively, told by their structure."""
    if not recs:
        return None
    n = len(recs)
    names = " ".join(f.path.lower() for f in files)

    def pick(family: list[str]) -> str:
        for name in family:
            if re.search(rf"(^|[^a-z]){re.escape(name)}([^a-z]|$)", names):
                return name
        return family[0]

    pi_header = _has(recs, lambda d: d.get("type") == "session" and "cwd" in d and "version" in d)
    pi_msgs = _has(recs, lambda d: d.get("type") == "message" and isinstance(d.get("message"), dict)
                   and d["message"].get("role") in ("user", "assistant", "toolResult", "bashExecution"))
    if pi_msgs and pi_msgs + pi_header >= 0.5 * n:
        family = ["pi", "openclaw"]
        return Native(pick(family), family, f"{pi_msgs} `type=message` records with `message.role` "
                      "user/assistant/toolResult (the Pi/OpenClaw session format)")
    cc = _has(recs, lambda d: d.get("type") in ("user", "assistant") and isinstance(d.get("message"), dict)
              and d["message"].get("role") == d.get("type") and ("uuid" in d or "sessionId" in d))
    if cc >= 0.5 * n:
        return Native("claude-code", ["claude-code"], f"{cc} records with `type` = `message.role` and a `uuid` "
                      "(Claude Code transcripts)")
    codex = _has(recs, lambda d: d.get("type") in ("response_item", "event_msg", "session_meta", "turn_context")
                 and isinstance(d.get("payload"), dict))
    if codex >= 0.8 * n:
        return Native("codex", ["codex"], f"{codex} `response_item`/`event_msg` records with a `payload` "
                      "(Codex CLI rollouts)")
    return None


# -- the profile -------------------------------------------------------------------------------
@dataclass
class Profile:
    """Everything inspect learned from the samples; ``to_dict()`` is the --json report."""

    inputs: list
    files: list = field(default_factory=list)
    recs: list = field(default_factory=list, repr=False)
    stats: dict = field(default_factory=dict, repr=False)
    session: SessionInfo = field(default_factory=SessionInfo)
    kinds: list = field(default_factory=list)
    blocks: Blocks = field(default_factory=Blocks)
    links: list = field(default_factory=list)
    times: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    native: Native | None = None
    problems: list = field(default_factory=list)
    budget: int = MAX_BYTES
    files_total: int = 0
    bytes_total: int = 0
    seconds: float = 0.0

    @property
    def records(self) -> int:
        """Records analysed (all of them in small samples; every shape, bounded, in big ones)."""
        return len(self.recs)

    @property
    def records_read(self) -> int:
        return sum(f.records for f in self.files)

    @property
    def complete(self) -> bool:
        return self.files_total == len(self.files) and all(f.complete for f in self.files)

    def to_dict(self, show_values: bool = False) -> dict:
        total = self.records
        fields = [s.to_dict(total, show_values) for p, s in sorted(self.stats.items(), key=lambda kv: dotted(kv[0]))]
        return {
            "inputs": self.inputs,
            "sampling": {"budget_bytes": self.budget, "files_found": self.files_total, "files_read": len(self.files),
                         "bytes_total": self.bytes_total,
                         "bytes_read": sum(f.bytes_read for f in self.files), "complete": self.complete},
            "files": [f.to_dict() for f in self.files],
            "records": total,
            "records_read": self.records_read,
            "bad_lines": sum(f.bad_count for f in self.files),
            "session": self.session.to_dict(),
            "fields": fields,
            "kinds": [k.to_dict(show_values) for k in self.kinds],
            "blocks": self.blocks.to_dict(),
            "links": [link.to_dict() for link in self.links],
            "timestamps": [t.to_dict() for t in self.times],
            "meta": {k: [{**c, "path": dotted(c["path"])} for c in v] for k, v in self.meta.items()},
            "native": None if self.native is None else {"source": self.native.source, "evidence": self.native.evidence},
            "problems": self.problems,
            "seconds": round(self.seconds, 3),
        }


class _Progress:
    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()
        self.last = 0.0

    def show(self, text: str, final: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if final or now - self.last > 0.1:
            self.last = now
            sys.stderr.write("\r\033[K" + text + ("\n" if final else ""))
            sys.stderr.flush()


def _choose_files(found: list[tuple[str, Path]], budget: int) -> list[tuple[str, Path]]:
    """Every file when few; otherwise an even spread (first and last included)."""
    limit = max(2, min(MAX_FILES, budget // MIN_FILE_BYTES))
    if len(found) <= limit:
        return found
    step = (len(found) - 1) / (limit - 1)
    return [found[round(i * step)] for i in range(limit)]


def profile_paths(paths: list[str], *, max_bytes: int = MAX_BYTES, progress: bool = False) -> Profile:
    """Read a bounded sample of the inputs and profile it (raises FileNotFoundError for no input)."""
    started = time.monotonic()
    found, problems = expand_paths(paths)
    profile = Profile(inputs=list(paths), problems=problems, budget=max_bytes, files_total=len(found))
    if not found:
        raise FileNotFoundError("; ".join(problems) or f"{' '.join(paths)}: no files found")
    sizes = []
    for _, path in found:
        try:
            sizes.append(path.stat().st_size)
        except OSError:
            sizes.append(0)
    profile.bytes_total = sum(sizes)
    chosen = _choose_files(found, max_bytes)
    show = _Progress(progress)
    remaining = max_bytes
    keep = max(16, ANALYSED // len(chosen))
    for i, (shown, path) in enumerate(chosen):
        if remaining < MIN_FILE_BYTES // 4 and profile.recs:
            break  # the budget is spent; the report says how many files were read
        share = max(MIN_FILE_BYTES // 4, min(remaining, max(MIN_FILE_BYTES, remaining // max(1, len(chosen) - i))))
        show.show(f"inspect: reading {i + 1}/{len(chosen)} {shown}")
        report, recs = read_sample(shown, path, share, len(profile.files), keep)
        remaining = max(0, remaining - report.bytes_read)
        profile.files.append(report)
        profile.recs.extend(recs)
    show.show(f"inspect: profiling {len(profile.recs)} records", final=False)
    profile.stats = profile_fields([r.data for r in profile.recs])
    profile.session = find_sessions(profile.recs, profile.stats, profile.files)
    profile.kinds = find_kinds(profile.recs, profile.stats, profile.session)
    profile.blocks = find_blocks(profile.recs, profile.stats)
    profile.links = find_links(profile.kinds, profile.blocks, profile.stats, profile.session.path)
    profile.times = find_times(profile.recs, profile.stats, profile.session)
    profile.meta = find_meta(profile.stats, max(1, len(profile.recs)))
    profile.native = detect_native(profile.recs, profile.files)
    profile.seconds = time.monotonic() - started
    show.show(f"inspect: {len(profile.recs)} records from {len(profile.files)} file(s) "
              f"in {profile.seconds:.1f}s", final=True)
    return profile


def sample_records(paths: list[str], n: int = 5, *, max_bytes: int = 4 * 1024 * 1024) -> list[dict]:
    """A few raw records, one per kind first, for previews and prompts (NOT redacted)."""
    found, _ = expand_paths(paths)
    recs: list[Rec] = []
    budget = max_bytes
    for i, (shown, path) in enumerate(found[:50]):
        _, got = read_sample(shown, path, max(MIN_FILE_BYTES, budget // max(1, min(50, len(found)) - i)), i)
        budget -= sum(len(json.dumps(r.data)) for r in got[:1000])
        recs.extend(got)
        if budget <= 0:
            break
    if not recs:
        return []
    stats = profile_fields([r.data for r in recs[:5000]])
    kinds = find_kinds(recs[:5000], stats, SessionInfo())
    out: list[dict] = []
    for kind in kinds:
        if len(out) < n:
            out.append(kind.recs[0].data)
    for rec in recs:
        if len(out) >= n:
            break
        if not any(rec.data is r for r in out):
            out.append(rec.data)
    return out


# -- the text report ---------------------------------------------------------------------------
def report_text(profile: Profile, show_values: bool = False) -> str:
    """The people's report: structure and counts first, redacted short examples."""
    lines: list[str] = []
    add = lines.append
    read = sum(f.bytes_read for f in profile.files)
    add(f"Inputs: {profile.files_total} file(s), {human_size(profile.bytes_total)}; read "
        f"{len(profile.files)} file(s), {human_size(read)}"
        + (" (everything)" if profile.complete else f" (bounded sample, budget {human_size(profile.budget)})")
        + f"; {profile.records_read} records"
        + (f", {profile.records} analysed (every shape, a bounded number of each)"
           if profile.records < profile.records_read else ""))
    for problem in profile.problems:
        add(f"  ! {problem}")
    add("")
    add("Files")
    containers = Counter(f.container + (" (gzip)" if f.compressed else "") for f in profile.files)
    add("  containers: " + ", ".join(f"{k} x{v}" for k, v in containers.most_common()))
    for f in profile.files[:30]:
        extra = f", records at `{dotted(f.records_path)}`" if f.records_path else ""
        add(f"  {f.path}: {f.container}{' gzip' if f.compressed else ''}, {f.records} records{extra}, read "
            f"{f.read}" + (f", {f.bad_count} bad line(s)" if f.bad_count else "") + (f"; {f.problem}" if f.problem else ""))
        for where, reason in f.bad_lines[:5]:
            add(f"    bad: {where}: {reason}")
    if len(profile.files) > 30:
        add(f"  ... {len(profile.files) - 30} more file(s)")
    around = sorted({str(k) for r in profile.recs if r.envelope for k in r.envelope})
    if around:
        add(f"  fields beside the record list (input.document_key reaches them): {', '.join(around[:20])}")
    add("")
    s = profile.session
    add(f"Sessions: {s.sessions} in the sample; one session = "
        + ("one file" if s.by == "file" else "one element of a nested record list" if s.by == "element"
           else f"one value of `{dotted(s.path)}`"))
    add(f"  {s.evidence}")
    if s.by == "field":
        add(f"  interleaved in one file: {'yes' if s.interleaved else 'no'}; continues across files: "
            f"{'yes' if s.across_files else 'no'}")
    add("")
    if profile.native:
        add(f"Native harness: this looks like {profile.native.source} ({profile.native.evidence}).")
        add("  Letta's trajectory normalizer reads it natively: prefer the native path (for Lerim, the "
            "supported agent) over a custom cleaner.")
        add("")
    add(f"Record kinds ({len(profile.kinds)}):")
    for kind in profile.kinds:
        sounds = f"  (named like {', '.join(kind.hints)})" if kind.hints else ""
        add(f"  [{kind.key}] x{kind.count}{sounds}")
        keys = [dotted(p) for p, st in kind.stats.items() if len(p) == 1 and st.records]
        add(f"      keys: {', '.join(keys[:14])}{' ...' if len(keys) > 14 else ''}")
    add("")
    if profile.blocks.type_field:
        add(f"Content blocks: lists at {', '.join('`' + dotted(p) + '`' for p in profile.blocks.paths)}, "
            f"typed by `{dotted(profile.blocks.type_field)}`")
        for block in profile.blocks.types.values():
            fields = [dotted(p) for p, st in block.stats.items() if len(p) == 1]
            add(f"  {block.name} x{block.count}: {', '.join(fields)}")
        add("")
    if profile.blocks.by_key:
        add(f"Content blocks without a type field: lists at "
            f"{', '.join('`' + dotted(p) + '`' for p in profile.blocks.key_paths)}, told apart by the key they hold")
        for block in profile.blocks.by_key.values():
            fields = [dotted(p) for p, st in block.stats.items() if len(p) <= 2]
            add(f"  {block.name} x{block.count}: {', '.join(fields[:8])}")
        add("")
    add("Timestamps:")
    if not profile.times:
        add("  none: no field holds times (a cleaner must fall back to file modification times)")
    for t in profile.times[:6]:
        mono = "" if t.monotonic is None else f", {t.monotonic:.0%} in order"
        gap = "" if t.max_gap is None else f", median gap {t.median_gap:g}s, max gap {t.max_gap:g}s"
        add(f"  `{dotted(t.path)}`: {t.format}, filled in {t.fill:.0%} of records{mono}{gap}")
    add("")
    tool_links = [link for link in profile.links if link.overlap >= 0.5]
    add("Value links (ids defined in one place and referenced in another):")
    if not tool_links:
        add("  none")
    for link in tool_links[:10]:
        add(f"  {link.target} `{dotted(link.target_path)}` -> {link.source} `{dotted(link.source_path)}`: "
            f"{link.overlap:.0%} of values match, {link.after:.0%} after the definition")
    add("")
    add("Meta candidates:")
    any_meta = False
    for key, cands in profile.meta.items():
        if cands:
            any_meta = True
            add(f"  {key}: " + ", ".join(f"`{dotted(c['path'])}` ({c['fill']:.0%})" for c in cands[:3]))
    if not any_meta:
        add("  none")
    add("")
    add(f"Fields ({len(profile.stats)} paths; fill = share of records holding the path):")
    total = profile.records or 1
    for path, st in sorted(profile.stats.items(), key=lambda kv: dotted(kv[0]))[:120]:
        types = "/".join(t for t, _ in st.types.most_common() if t != "null") or "null"
        detail = f"{dotted(path)}: {types}, fill {st.records / total:.0%}"
        if st.main_type in ("string", "int", "float"):
            detail += f", {st.cardinality}{'+' if st.cardinality >= 20000 else ''} distinct"
        if st.str_count and st.prose > 0.3:
            detail += f", text (avg {st.avg_len:.0f} chars)"
        fmt, share = st.time_format()
        if fmt and share >= 0.8:
            detail += f", time {fmt}"
        if st.values and not st.overflow and st.tokenish and st.cardinality <= 12:
            detail += ": " + ", ".join(example(v, show_values, path) for v, _ in st.values.most_common(8))
        elif st.examples and (show_values or st.tokenish):
            detail += "; e.g. " + ", ".join(example(v, show_values, path) for v in st.examples[:2])
        add("  " + detail)
    if len(profile.stats) > 120:
        add(f"  ... {len(profile.stats) - 120} more path(s) (use --json)")
    return "\n".join(lines) + "\n"
