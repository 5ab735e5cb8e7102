"""Turn the raw records of one session into trajectory-v1 records, as the mapping says.

The mapping decides everything format-specific (which rule a record matches, where its content,
times and tool fields are); this module holds the rules every format shares: block lists,
call/result linkage, timestamp derivation, privacy, and the record shapes of trajectory-v1.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from . import model
from .mapping import MISSING, compile_path, compile_paths, dotted, get_path, same_value
from .readers import Where
from .timestamps import TimestampError, from_mtime, to_iso, zone
from .trees import depth_first, ordered
from .writer import json_text, orjson, plain_json

Mapping = model.Mapping

MAX_SESSION_MB = 512  # cleaned output of one session held in memory (--max-session-mb)
RECORD_OVERHEAD = 400  # bytes a small output record costs in memory, for --max-session-mb
PRECUT = 4  # strings longer than PRECUT x their truncation limit are cut before redaction
_MARKER = re.compile(r"\[\.\.\. ([0-9]+) characters truncated \.\.\.\]")
KIND_CACHE_SIZE = 4096  # distinct discriminator values remembered by Converter.classify
SETTLE_RECORDS = 4096  # records a session builder holds before it hands the final ones to its output
SHORT_TEXT = 64  # strings up to this long have their redaction remembered (Privacy.redact)
SHORT_CACHE_SIZE = 16384  # per redaction settings, shared by the sessions of a run
_SHORT_CACHES: dict[tuple, dict[str, tuple[str, tuple[str, ...]]]] = {}
TEXT_ROLES = ("user", "assistant", "reasoning", "system", "observation")


class SessionFailed(Exception):
    """The session cannot be written; the message names the place and the answer to change."""


class SessionSkipped(Exception):
    """The session is deliberately not written (a policy of the mapping); counted, not an error."""


def holds(value: Any) -> bool:
    """Whether a value holds something: not absent, null, an empty string, list or object."""
    return value is not MISSING and value is not None and value != "" and value != [] and value != {}


def first_present(record: Any, paths: tuple) -> Any:
    for path in paths:
        value = get_path(record, path)
        if value is not MISSING and value is not None:
            return value
    return MISSING


def first_content(record: Any, paths: tuple) -> Any:
    """Like first_present, but an empty string, list or object gives way to a later path that holds
    something: a message often carries ``content: ""`` beside the ``tool_calls`` that matter."""
    fallback = MISSING
    for path in paths:
        value = get_path(record, path)
        if value is MISSING or value is None:
            continue
        if value in ("", [], {}):
            if fallback is MISSING:
                fallback = value
            continue
        return value
    return fallback


def delete_path(record: Any, path: tuple) -> bool:
    parent = get_path(record, path[:-1]) if len(path) > 1 else record
    key = path[-1]
    if isinstance(parent, dict) and key in parent:
        del parent[key]
        return True
    return False


def compact(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``; by orjson (the fast extra)
    when the value holds no floats, where the two write the same text."""
    if orjson is not None and plain_json(value):
        try:
            return orjson.dumps(value).decode("utf-8")
        except TypeError:  # orjson.JSONEncodeError: lone surrogates, integers beyond 64 bits; json writes them
            pass
    return json_text(value)


@dataclass
class OkSpec:
    """How a tool result's outcome is read (docs/mapping.md, ``ok``): a boolean as it is, a value
    among those meaning success, a number in a range, or whether a field holds something."""

    path: tuple
    negate: bool
    values: tuple | None = None
    range: tuple[float, float] | None = None
    presence: bool = False


def compile_ok(spec: Any) -> OkSpec | None:
    if spec is None:
        return None
    if isinstance(spec, dict):
        values = spec.get("values")
        bounds = spec.get("range")
        return OkSpec(compile_path(spec["path"]), bool(spec.get("negate", False)),
                      tuple(values) if values is not None else None,
                      (float(bounds[0]), float(bounds[1])) if bounds is not None else None,
                      bool(spec.get("presence", False)))
    return OkSpec(compile_path(spec), False)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _same_outcome_value(actual: Any, wanted: Any) -> bool:
    """Equality for ``ok.values``: exact, or the same number written as text (CSV cells are text)."""
    if same_value(actual, wanted):
        return True
    if isinstance(actual, str) != isinstance(wanted, str):
        a, b = _number(actual), _number(wanted)
        return a is not None and a == b
    return False


def read_ok(record: Any, spec: OkSpec | None) -> bool | None:
    if spec is None:
        return None
    value = get_path(record, spec.path)
    if spec.presence:
        result = holds(value) and value is not False  # `error: false` says there is no error
    elif value is MISSING or value is None:
        return None
    elif spec.values is not None:
        result = any(_same_outcome_value(value, wanted) for wanted in spec.values)
    elif spec.range is not None:
        number = _number(value)
        if number is None:
            return None
        result = spec.range[0] <= number <= spec.range[1]
    elif isinstance(value, bool):
        result = value
    else:
        return None
    return not result if spec.negate else result


_HOLE = re.compile(r"\{\{|\}\}|\{([^{}]+)\}")


@dataclass
class Piece:
    """One piece of a ``join``: a path's text (with prefix and suffix), or a text with placeholders."""

    paths: tuple = ()
    each: tuple = ()
    prefix: str = ""
    suffix: str = ""
    parts: tuple = ()  # for a text piece: literal strings and compiled placeholder paths, in order

    @classmethod
    def compile(cls, spec: Any) -> Piece:
        if not isinstance(spec, dict):
            return cls(paths=compile_paths(spec))
        if "text" in spec:
            parts: list[Any] = []
            text, at = spec["text"], 0
            for hole in _HOLE.finditer(text):
                parts.append(text[at:hole.start()])
                parts.append((compile_path(hole.group(1).strip()),) if hole.group(1) else hole.group(0)[0])
                at = hole.end()
            parts.append(text[at:])
            return cls(parts=tuple(part for part in parts if part != ""))
        return cls(paths=compile_paths(spec["path"]), each=compile_paths(spec.get("each")),
                   prefix=spec.get("prefix", ""), suffix=spec.get("suffix", ""))


@dataclass
class Join:
    """Content composed of several fields (docs/mapping.md, ``join``)."""

    pieces: list[Piece]
    sep: str

    def read(self, record: Any, to_text: Any) -> Any:
        texts = []
        for piece in self.pieces:
            text = self._piece(record, piece, to_text)
            if text:
                texts.append(text)
        return self.sep.join(texts) if texts else MISSING

    @staticmethod
    def _piece(record: Any, piece: Piece, to_text: Any) -> str | None:
        if piece.parts:
            out = []
            for part in piece.parts:
                if isinstance(part, str):
                    out.append(part)
                    continue
                text = to_text(first_present(record, part))
                if not text:
                    return None  # a placeholder with nothing to say leaves its piece out
                out.append(text)
            return "".join(out)
        value = first_present(record, piece.paths)
        if piece.each and isinstance(value, (list, dict)):
            items = value if isinstance(value, list) else list(value.values())
            lines = [to_text(first_present(item, piece.each) if isinstance(item, dict) else item) for item in items]
            text = "\n".join(line for line in lines if line)
        else:
            text = to_text(value)
        return piece.prefix + text + piece.suffix if text else None


def compile_content(spec: Any) -> tuple | Join:
    """Content paths (the first present wins), or a ``join`` composing several fields."""
    if isinstance(spec, dict) and "join" in spec:
        return Join([Piece.compile(piece) for piece in spec["join"]], spec.get("sep", "\n"))
    return compile_paths(spec)


@dataclass
class Kind:
    """One compiled rule of the mapping's ``kinds``."""

    name: str
    role: str
    match: list[tuple[tuple, tuple]]
    has: list[tuple]
    lacks: list[tuple]
    content: tuple
    timestamp: tuple
    call_id: tuple
    tool_name: tuple
    args: tuple
    args_key: str
    result_link: tuple
    ok: OkSpec | None
    reasoning: tuple = ()  # tool_call / tool_exchange: the thought written before the call (ReAct `log`)
    result_timestamp: tuple = ()  # tool_exchange: the result's own time
    emit: list[Entry] = field(default_factory=list)  # several records from one raw record, in order
    same: list[tuple[tuple, tuple]] = field(default_factory=list)  # pairs of paths whose values must be equal

    @property
    def text_role(self) -> str:
        """The role of the text entries of ``emit`` that name none."""
        return self.role if self.role in TEXT_ROLES and self.role != "reasoning" else "assistant"

    @classmethod
    def compile(cls, index: int, spec: dict) -> Kind:
        match = []
        for key, expected in (spec.get("match") or {}).items():
            values = tuple(expected) if isinstance(expected, list) else (expected,)
            match.append((compile_path(key), values))
        return cls(
            name=spec.get("name") or f"kinds[{index}]",
            role=spec["role"],
            match=match,
            has=[compile_path(p) for p in spec.get("has") or []],
            lacks=[compile_path(p) for p in spec.get("lacks") or []],
            content=compile_content(spec.get("content")),
            timestamp=compile_paths(spec.get("timestamp")),
            call_id=compile_paths(spec.get("call_id")),
            tool_name=compile_paths(spec.get("tool_name")),
            args=compile_paths(spec.get("args")),
            args_key=spec.get("args_key") or "_raw",
            result_link=compile_paths(spec.get("result_link")),
            ok=compile_ok(spec.get("ok")),
            reasoning=compile_paths(spec.get("reasoning")),
            result_timestamp=compile_paths(spec.get("result_timestamp")),
            emit=[Entry.compile(entry) for entry in spec.get("emit") or []],
            same=[(compile_path(a), compile_path(b)) for a, b in (spec.get("same") or {}).items()],
        )

    def __call__(self, out: SessionBuilder, record: dict) -> None:
        """Write what the mapping says this kind writes. A rendered cleaner runs its generated code
        instead (one function per kind, the same calls spelled out for its format); this is the
        meaning that code is generated from, and tested against."""
        role = self.role
        if role == "skip":
            out.skip_kind(self.name)
            return
        if role == "meta":
            return
        c = out.c
        at = out.time(first_present(record, self.timestamp or c.ts_fields))
        if self.emit:
            out.entries(record, self.emit, self.text_role, at)
        elif role in TEXT_ROLES:
            content = self.content
            out.text(role, out.compose(record, content) if content.__class__ is Join else first_content(record, content),
                     at)
        elif role == "tool_result":
            out.result(link=first_present(record, self.result_link), content=c.read(record, self.content),
                       ok=read_ok(record, self.ok), at=at, tool=first_present(record, self.tool_name))
        else:  # tool_call, tool_exchange
            call_id = out.call(call_id=first_present(record, self.call_id), tool=first_present(record, self.tool_name),
                               args=first_present(record, self.args), at=at, args_key=self.args_key,
                               thought=first_present(record, self.reasoning))
            if role == "tool_exchange":
                output = c.to_text(c.read(record, self.content))
                if call_id is not None and output is not None:
                    result_at = out.time(first_present(record, self.result_timestamp)) if self.result_timestamp else None
                    out.result(answers=call_id, content=output, ok=read_ok(record, self.ok), at=result_at or at)

    def matches(self, record: dict) -> bool:
        for path, values in self.match:
            actual = get_path(record, path)
            if actual is MISSING or not any(same_value(actual, v) for v in values):
                return False
        for path in self.has:
            if get_path(record, path) in (MISSING, None):
                return False
        for path in self.lacks:
            if get_path(record, path) not in (MISSING, None):
                return False
        for path, other in self.same:  # a record that repeats another field (a ticket's first comment)
            value = get_path(record, path)
            if not holds(value) or not same_value(value, get_path(record, other)):
                return False
        return True


@dataclass
class Block:
    """One compiled entry of the mapping's ``blocks.types``."""

    kind: str
    field: tuple
    text: str
    call_id: tuple
    tool_name: tuple
    args: tuple
    args_key: str
    result_link: tuple
    ok: OkSpec | None
    timestamp: tuple = ()  # the block's own time (a reasoning item's `started_at`); default its record's

    @classmethod
    def compile(cls, spec: dict) -> Block:
        return cls(
            kind=spec["as"],
            field=compile_content(spec.get("field") or spec.get("content")),
            text=spec.get("text", ""),
            call_id=compile_paths(spec.get("call_id")),
            tool_name=compile_paths(spec.get("tool_name")),
            args=compile_paths(spec.get("args")),
            args_key=spec.get("args_key") or "_raw",
            result_link=compile_paths(spec.get("result_link")),
            ok=compile_ok(spec.get("ok")),
            timestamp=compile_paths(spec.get("timestamp")),
        )

    def __call__(self, c: Converter, item: Any) -> Part:
        """What a block of this type says (``said``), with its own time when the rule names one."""
        part = self.said(c, item)
        return part._replace(at=first_present(item, self.timestamp)) if self.timestamp else part

    def said(self, c: Converter, item: Any) -> Part:
        """What a block of this type says, read from it. A rendered cleaner runs its generated code
        instead (one function per block type, the same reads spelled out); this is their meaning."""
        kind = self.kind
        if kind in ("text", "reasoning"):
            return Part(kind, c.read(item, self.field))
        if kind == "placeholder":
            return Part(kind, self.text)
        if kind == "tool_call":
            return Part(kind, call_id=first_present(item, self.call_id), tool=first_present(item, self.tool_name),
                        args=first_present(item, self.args), args_key=self.args_key)
        if kind == "tool_exchange":
            return Part(kind, c.read(item, self.field), call_id=first_present(item, self.call_id),
                        tool=first_present(item, self.tool_name), args=first_present(item, self.args),
                        args_key=self.args_key, ok=read_ok(item, self.ok))
        if kind == "tool_result":
            return Part(kind, c.read(item, self.field), link=first_present(item, self.result_link),
                        tool=first_present(item, self.tool_name), ok=read_ok(item, self.ok))
        return Part(kind)  # skip


class Part(NamedTuple):
    """What one content block says: ``kind`` (text, reasoning, placeholder, tool_call,
    tool_exchange, tool_result or skip) and the raw values read from it (MISSING where absent).
    ``value`` is the text (a placeholder's fixed text, an exchange's output, a result's content)."""

    kind: str
    value: Any = MISSING
    call_id: Any = MISSING
    tool: Any = MISSING
    args: Any = MISSING
    args_key: str = "_raw"
    link: Any = MISSING
    ok: bool | None = None
    at: Any = MISSING  # the block's own time, raw (``blocks.types[].timestamp``)


BlockReader = Callable[["Converter", Any], Part]


@dataclass
class Entry:
    """One entry of a kind's ``emit`` (or of ``session.opening``/``closing``): a block read from the
    raw record itself, or from every item of a list in it."""

    block: Block
    each: tuple  # paths of the list whose items the entry reads; () reads the record
    role: str | None  # text entries: the role written (default: the kind's)
    timestamp: tuple  # the time of the entry's records (default: the record's)
    result_timestamp: tuple  # tool_exchange: the result's own time

    @classmethod
    def compile(cls, spec: dict) -> Entry:
        return cls(Block.compile(spec), compile_paths(spec.get("each")), spec.get("role"),
                   compile_paths(spec.get("timestamp")), compile_paths(spec.get("result_timestamp")))


# One block to write: its type name, what it says (None for a type the mapping has no rule for),
# the role of its text, its time and (tool_exchange) its result's time. A plain tuple, not a named
# one: one is made for every content block, and a named tuple's constructor is a Python call.
Step = tuple[str, Part | None, str, str | None, str | None]


class Privacy:
    """Redaction then head+tail truncation, applied to every string that reaches output."""

    def __init__(self, settings: model.Privacy | dict):
        """``settings``: the mapping's ``privacy`` section; a dict (as the helper processes pass it)
        is completed with the model's defaults."""
        if not isinstance(settings, model.Privacy):
            settings = model.Privacy.load(settings)
        self.redactor = None
        if settings.redact:
            from .redaction import Redactor

            self.redactor = Redactor(
                extra_patterns=settings.extra_patterns,
                allowlist=settings.allowlist,
                personal_data=bool(settings.personal_data),
            )
        self.tool_limit = int(settings.truncate.tool)
        self.other_limit = int(settings.truncate.other)
        self.truncated = 0
        self.short: dict[str, tuple[str, tuple[str, ...]]] | None = None
        if self.redactor is not None:
            try:
                key = (tuple(settings.extra_patterns.items()), tuple(settings.allowlist), bool(settings.personal_data))
                self.short = _SHORT_CACHES.setdefault(key, {})
            except TypeError:  # unhashable settings: no cache
                self.short = None

    @property
    def counts(self) -> Counter:
        return self.redactor.counts if self.redactor is not None else Counter()

    def redact(self, text: str) -> str:
        """The redacted text. Short strings repeat (tool names, argument keys, short replies), so
        their redaction, a pure function of the text and the settings, is remembered with the
        detections it counted, which are counted again on every reuse."""
        redactor = self.redactor
        if redactor is None:
            return text
        short = self.short
        if short is None or len(text) > SHORT_TEXT:
            out, found = redactor.redact_found(text)
        else:
            hit = short.get(text)
            if hit is None:
                hit = redactor.redact_found(text)
                if len(short) < SHORT_CACHE_SIZE:
                    short[text] = hit
            out, found = hit
        if found:
            redactor.counts.update(found)
        return out

    def text(self, text: str, *, tool: bool = False) -> str:
        """Redact, then keep the head and tail of what is longer than the limit.

        A string far longer than its limit (a pasted log, a base64 blob) is first cut to twice
        the limit at each end, so that redaction, which costs time per character, never scans
        the tens of megabytes truncation would drop anyway. The cut lies inside the part the
        truncation removes, and the marker still counts every character removed.
        """
        limit = self.tool_limit if tool else self.other_limit
        cut = 0
        if self.redactor is not None and len(text) > PRECUT * limit + 1024:
            keep = PRECUT // 2 * limit
            cut = len(text) - 2 * keep
            text = text[:keep] + text[-keep:]
        text = self.redact(text)
        if len(text) > limit or cut:
            from .truncate import truncate_head_tail

            self.truncated += 1
            text = truncate_head_tail(text, max(limit - 24, 1) if cut else limit)
            if cut:
                text = _MARKER.sub(lambda m: f"[... {int(m.group(1)) + cut} characters truncated ...]", text, count=1)
        return text

    def _value(self, value: Any) -> Any:
        """An argument value with its strings (and object keys) redacted and truncated."""
        if isinstance(value, str):
            return self.text(value, tool=True)
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():  # a loop, not a comprehension: no function made per object
                name = self.redact(str(key))
                out[name] = self.text(item, tool=True) if item.__class__ is str else self._value(item)
            return out
        if isinstance(value, list):
            return [self._value(v) for v in value]
        return value

    def args(self, args: dict) -> str:
        """Redact the argument values, serialise, then redact the serialised text again."""
        text = compact(self._value(args))
        again = self.redact(text)
        if again == text:
            return text
        try:
            parsed = json.loads(again)
        except ValueError:
            parsed = None
        return again if isinstance(parsed, dict) else compact({"_raw": again})


class Converter:
    """The compiled mapping: classifies raw records and builds sessions."""

    def __init__(self, mapping: Mapping | dict, privacy: Privacy | None = None, adapter: Any = None):
        """``mapping``: the loaded mapping (a dict is checked and loaded: ``Mapping.load``).
        ``adapter``: a rendered cleaner's generated code (its module: ``kind_of`` and one function
        per kind), which then classifies and writes records in place of the compiled ``kinds``."""
        mapping = Mapping.load(mapping)
        self.mapping = mapping
        self.privacy = privacy
        self.source = mapping.source
        self.kinds = [Kind.compile(i, rule.to_dict()) for i, rule in enumerate(mapping.kinds)]
        blocks = mapping.blocks
        self.block_type = compile_path(blocks.type_field)
        # the type field as one top-level key ("type", almost always): read in place, without a path walk
        single = self.block_type[0] if len(self.block_type) == 1 else None
        self.block_key: str | None = single if single.__class__ is str else None
        # what each block type says: the generated code's function per type, else the compiled rule
        self.blocks: dict[str, BlockReader] = {name: Block.compile(spec) for name, spec in blocks.types.items()}
        # blocks without the type field are typed by the first of these keys they hold
        self.by_key: list[tuple[str, BlockReader]] = [(key, Block.compile(spec)) for key, spec in blocks.by_key.items()]
        if adapter is not None and (hasattr(adapter, "BLOCK_TYPES") or hasattr(adapter, "BLOCK_KEYS")):
            self.blocks = dict(getattr(adapter, "BLOCK_TYPES", {}))  # the script leaves out a table it has
            self.by_key = list(getattr(adapter, "BLOCK_KEYS", {}).items())  # nothing for
        self.unknown_blocks = blocks.unknown
        ts = mapping.timestamps
        self.ts_fields = compile_paths(ts.fields)
        self.ts_format = ts.format
        self.ts_layout = ts.layout
        self.ts_zone = zone(ts.timezone)
        self.ts_fallback = ts.fallback
        self.ts_fallback_field = compile_paths(ts.fallback_field)
        self.tz_fields = compile_paths(ts.timezone_field)
        session = mapping.session
        self.order_by = compile_paths(session.order_by)
        tree = session.tree
        self.tree = (compile_path(tree.id), compile_path(tree.parent)) if tree else None
        self.opening = [Entry.compile(entry) for entry in session.opening]
        self.closing = [Entry.compile(entry) for entry in session.closing]
        # a session is read whole before it is mapped when its order, tree or zone needs every record
        self.buffered = bool(self.order_by or self.tree or self.tz_fields)
        self.meta_paths = {key: compile_paths(getattr(mapping.meta, key)) for key in ("cwd", "git_branch", "model")}
        self.drop_fields = [compile_path(p) for p in mapping.privacy.drop_fields]
        self.error_prefix = mapping.tools.error_prefix
        self.orphans = mapping.tools.orphan_results
        self.unknown_kinds = mapping.unknown_kinds
        self.sessions = mapping.sessions.to_dict()  # read by policy name (``without_user``)
        self.harness_noise = tuple(mapping.sessions.harness_noise)
        self.max_session_chars = MAX_SESSION_MB * 1024 * 1024  # the runner sets --max-session-mb
        seen: list[tuple] = []
        for kind in self.kinds:
            for path, _ in kind.match:
                if path not in seen:
                    seen.append(path)
        self.discriminators = seen

        # Classification depends only on the values at the match paths and on whether the has/lacks
        # paths hold something, so its verdict is cached by those (scalars only; bounded).
        presence: list[tuple] = []
        for kind in self.kinds:
            for path in (*kind.has, *kind.lacks):
                if path not in presence:
                    presence.append(path)
        self.presence = presence
        self.kind_cache: dict[tuple, Kind | None] = {}
        self.cacheable = not any(kind.same for kind in self.kinds)  # `same` compares values the key lacks
        if adapter is not None:
            self.classify = adapter.kind_of  # type: ignore[method-assign]

    def is_harness_noise(self, role: str, text: str) -> bool:
        """A user text opening with one of ``sessions.harness_noise``: the harness's, not the person's."""
        return role == "user" and bool(self.harness_noise) and text.lstrip().startswith(self.harness_noise)

    def classify(self, record: dict) -> Kind | None:
        """The rule of ``kinds`` a record matches (a callable writing it, with a ``name``); None for none."""
        key = self._kind_key(record)
        if key is not None:
            kind = self.kind_cache.get(key, MISSING)
            if kind is not MISSING:
                return kind
        kind = self.classify_uncached(record)
        if key is not None and len(self.kind_cache) < KIND_CACHE_SIZE:
            self.kind_cache[key] = kind
        return kind

    def _kind_key(self, record: dict) -> tuple | None:
        """What ``classify_uncached`` looks at, as a hashable key; None when a value is a structure."""
        if not self.cacheable:
            return None
        parts: list[Any] = []
        for path in self.discriminators:
            value = get_path(record, path)
            if value is MISSING or value is None:
                parts.append(value)
            elif isinstance(value, (str, int, float)):  # bool is an int: the class keeps True apart from 1
                parts.append((value.__class__, value))
            else:
                return None
        for path in self.presence:
            parts.append(get_path(record, path) in (MISSING, None))
        return tuple(parts)

    def classify_uncached(self, record: dict) -> Kind | None:
        for kind in self.kinds:
            if kind.matches(record):
                return kind
        return None

    def describe(self, record: dict) -> str:
        """The values that decide a record's kind, for 'unknown kind' messages."""
        if self.discriminators:
            parts = []
            for path in self.discriminators:
                value = get_path(record, path)
                parts.append(f"{dotted(path)}=" + ("<absent>" if value is MISSING else compact(value)[:60]))
            return ", ".join(parts)
        return "keys " + ", ".join(sorted(map(str, record)))[:200]

    def is_block_list(self, value: Any) -> bool:
        if not isinstance(value, list) or not value:
            return False
        key = self.block_key
        if key is not None:  # the common case: every item a plain object holding the type key
            for item in value:
                if item.__class__ is not dict or key not in item:
                    break
            else:
                return True
        if self.by_key:
            return all(isinstance(item, dict) and (get_path(item, self.block_type) is not MISSING
                                                   or self._held_key(item) is not None) for item in value)
        return all(isinstance(item, dict) and get_path(item, self.block_type) is not MISSING for item in value)

    def _held_key(self, item: dict) -> tuple[str, BlockReader] | None:
        """The first ``blocks.by_key`` entry whose key the block holds (present, not null/false/empty)."""
        for key, block in self.by_key:
            held = item.get(key)
            if held is not None and held is not False and held != "":
                return key, block
        return None

    def steps_of(self, blocks: list, role: str, ts: str | None) -> list[Step]:
        """What the blocks of a block list say, as ``SessionBuilder._steps`` takes them, at one role
        and time: ``part_of`` of each, its common case (the type a plain string at the type key)
        read in place, since lists of blocks are most of what many formats write."""
        key, readers = self.block_key, self.blocks
        steps: list[Step] = []
        for item in blocks:
            name = item.get(key) if key is not None and item.__class__ is dict else None
            if name.__class__ is str:
                reader = readers.get(name)
                steps.append((name, reader(self, item) if reader is not None else None, role, ts, ts))
            else:
                steps.append((*self.part_of(item), role, ts, ts))
        return steps

    def part_of(self, item: dict) -> tuple[str, Part | None]:
        """A block's type name and what it says (None for a type without a rule)."""
        name, reader = self.block_of(item)
        return name, (reader(self, item) if reader is not None else None)

    def block_of(self, item: dict) -> tuple[str, BlockReader | None]:
        """A block's type name and its reader: by the type field, else by the key it holds."""
        key = self.block_key
        value = item.get(key, MISSING) if key is not None and item.__class__ is dict else get_path(item, self.block_type)
        if value is MISSING:
            held = self._held_key(item) if self.by_key else None
            if held is not None:
                return held
            return "(no type field; keys " + ", ".join(sorted(map(str, item)))[:80] + ")", None
        name = _block_name(value)
        return name, self.blocks.get(name)

    def compose(self, record: Any, join: Join) -> Any:
        """The text a ``join`` composes from several fields (MISSING when none holds any)."""
        return join.read(record, self.to_text)

    def read(self, record: Any, spec: tuple | Join) -> Any:
        """The raw value of a content spec: the first path present, or the composed text of a join."""
        if spec.__class__ is Join:
            return spec.read(record, self.to_text)
        return first_present(record, spec)

    def to_text(self, value: Any) -> str | None:
        """Any raw content as one plain string: text blocks joined, structures as compact JSON."""
        if value.__class__ is str:  # the common case first
            return value
        if value is MISSING or value is None or (isinstance(value, list) and not value):
            return None
        if isinstance(value, str):
            return value
        if self.is_block_list(value):
            parts = []
            for item, (_, part, _, _, _) in zip(value, self.steps_of(value, "", None)):
                if part is None:
                    parts.append(compact(item))
                    continue
                kind = part.kind
                if kind in ("text", "reasoning", "tool_result", "tool_exchange"):
                    text = part.value if part.value.__class__ is str else self.to_text(part.value)
                    if text:
                        parts.append(text)
                elif kind == "placeholder":
                    parts.append(part.value)
            return "\n".join(parts)
        if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
            return "\n".join(value)
        return compact(value)

    def session(self, key: str, privacy: Privacy | None = None) -> SessionBuilder:
        """A builder for one session; ``privacy`` (its redaction counters) defaults to the converter's.
        A run compiles its mapping once and gives each session its own privacy."""
        return SessionBuilder(self, key, privacy or self.privacy)


def _block_name(value: Any) -> str:
    return value if isinstance(value, str) else compact(value)


def normalise_args(value: Any, wrap_key: str) -> dict:
    """Tool arguments as a JSON object: objects kept, JSON-object strings parsed, the rest wrapped."""
    if value is MISSING or value is None:
        return {}
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, dict):
            return parsed
        if value.strip() == "":
            return {}
    return {wrap_key: value}


@dataclass
class SessionStats:
    skipped: Counter = field(default_factory=Counter)
    repaired: Counter = field(default_factory=Counter)
    examples: dict = field(default_factory=dict)

    def skip(self, reason: str, where: Where) -> None:
        self.skipped[reason] += 1
        self.examples.setdefault(reason, str(where))

    def repair(self, reason: str, count: int = 1) -> None:
        self.repaired[reason] += count


class SessionBuilder:
    """Collects one session's records in order, then fills times and adds the meta record."""

    def __init__(self, converter: Converter, key: str, privacy: Privacy | None = None):
        self.c = converter
        self.privacy = privacy or converter.privacy
        self.key = key
        self.records: list[dict] = []  # each with its own "timestamp" (None until filled)
        # With an output (a stream.SessionOutput), the records that are final are handed to it now
        # and then and let go: ``released`` of them so far, the time the last of them had
        # (``previous_ts``) and how many were given a neighbour's (``derived``).
        self.output: Any = None
        self.released = 0
        self.settle_at = SETTLE_RECORDS
        self.previous_ts: str | None = None
        self.derived = 0
        self.meta: dict[str, str] = {}
        self.shown_ids: dict[str, str] = {}  # call id -> the id written (see _shown_id)
        self.meta_wanted = [(key, paths) for key, paths in converter.meta_paths.items() if paths]  # not found yet
        self.stats = SessionStats()
        # calls, results and texts the mapping read from the raw records, and of those the ones written
        # (plain ints: they are counted on the hot path)
        self.calls_seen = self.calls_written = self.results_seen = self.results_written = self.texts = 0
        self.raw_records = 0
        self.unreadable_times = 0
        self.first_time_error: str | None = None
        self.fallback_value: Any = MISSING
        self.first_file: str | None = None
        self.mtime: float | None = None
        self.used_ids: set[str] = set()
        # Open calls are kept in insertion-ordered dicts (oldest first), indexed by the id the source
        # gave them and by tool name, and dropped once answered: linking a result costs the same
        # however many calls a session has made or left unanswered.
        self.unanswered: dict[str, None] = {}
        self.unanswered_by_name: dict[str, dict[str, None]] = {}
        self.by_original: dict[str, list[str]] = {}  # source id -> its open calls' ids
        self.originals: dict[str, str] = {}  # open call id -> the id the source gave it
        self.call_names: dict[str, str] = {}  # open call id -> its raw tool name
        # renamed ids (X__2) that are neither answered nor ever given by the source: a result linked
        # to any other id in used_ids repeats an answer (one set of every id, not three, is kept)
        self.renamed_open: set[str] = set()
        self.synthesised = 0
        self.size = 0  # characters of output so far, for the session size limit
        self.offload: Any = None  # an offload.Offload when helper processes redact long strings
        self.size_sent = 0  # self.size when the offload last heard of it
        self.zone = converter.ts_zone  # the zone of naive times (timestamps.timezone_field may set it)
        self.buffer: list[tuple[Where, dict]] | None = [] if converter.buffered else None
        self.first_record: dict | None = None  # for session.closing
        self.where = Where(key, 0)  # the raw record being mapped, for messages and skips

    # -- input ---------------------------------------------------------------------------------
    def add(self, where: Where, record: dict) -> None:
        """Map one raw record (or keep it, when the session's order, tree or zone needs them all);
        raises SessionFailed on an unknown kind when the mapping says so."""
        if self.buffer is not None:
            self.buffer.append((where, record))
            return
        self._map(where, record)

    def _map(self, where: Where, record: dict) -> None:
        c = self.c
        self.where = where
        if self.first_record is None:
            self.first_record = record
            if c.opening:
                self._steps(self._entry_steps(record, c.opening, "user", None), where)
        self.raw_records += 1
        for path in c.drop_fields:
            delete_path(record, path)
        if self.meta_wanted:
            found = False
            for key, paths in self.meta_wanted:
                value = first_present(record, paths)
                if isinstance(value, str) and value.strip():
                    self.meta[key] = self.privacy.text(value)
                    found = True
            if found:
                self.meta_wanted = [(key, paths) for key, paths in self.meta_wanted if key not in self.meta]
        if self.fallback_value is MISSING and c.ts_fallback_field:
            self.fallback_value = first_present(record, c.ts_fallback_field)
        kind = c.classify(record)
        if kind is None:
            self._unknown(c.unknown_kinds, where, f"unknown kind ({c.describe(record)})",
                          f"unknown record kind: {c.describe(record)}; add a rule for it to 'kinds' "
                          "in the mapping, or set unknown_kinds: skip")
            return
        kind(self, record)
        size = self.size
        if self.offload is not None:
            size = self.offload.record_done(size - self.size_sent)
            self.size_sent = self.size
        limit = c.max_session_chars
        if limit and size > limit:
            raise SessionFailed(
                f"{where}: the session's cleaned output passes the {round(limit / (1024 * 1024), 3):g} MiB limit "
                "(nothing written); split the input, lower privacy.truncate, or raise --max-session-mb"
            )
        if self.output is not None and len(self.records) >= self.settle_at:
            self._settle()

    @property
    def seen(self) -> Counter:
        """Calls, results and texts the mapping read (for the summary's kept: line)."""
        return Counter({"calls": self.calls_seen, "results": self.results_seen, "texts": self.texts})

    @property
    def written(self) -> Counter:
        return Counter({"calls": self.calls_written, "results": self.results_written, "texts": self.texts})

    def _unknown(self, policy: str, where: Where, skip_reason: str, failure: str) -> None:
        """The mapping's policy for what it has no rule for: count a skip, or fail the session."""
        if policy != "skip":
            raise SessionFailed(f"{where}: {failure}")
        self.stats.skip(skip_reason, where)

    def _replay(self) -> None:
        """Map the kept records: in the session's zone, in its order, its trees depth first."""
        c = self.c
        records, self.buffer = self.buffer or [], None
        if c.tz_fields:
            self._find_zone(records)
        if c.order_by:
            records = ordered(records, c.order_by, self._sort_key)
        if c.tree:
            records = depth_first(records, *c.tree)
        for where, record in records:
            self._map(where, record)

    def _find_zone(self, records: list[tuple[Where, dict]]) -> None:
        for where, record in records:
            value = first_present(record, self.c.tz_fields)
            if isinstance(value, str) and value.strip():
                try:
                    self.zone = zone(value.strip())
                except TimestampError as exc:
                    raise SessionFailed(f"{where}: {exc} (read by timestamps.timezone_field)") from exc
                return

    def _sort_key(self, value: Any) -> tuple:
        """Numbers as numbers, times as instants, anything else as text after both."""
        number = _number(value) if not isinstance(value, str) else None
        if number is not None:
            return (0, number, "")
        if isinstance(value, str):
            c = self.c
            try:
                instant = datetime.fromisoformat(to_iso(value, c.ts_format, c.ts_layout, self.zone))
                return (0, instant.timestamp(), "")
            except (TimestampError, ValueError):
                return (1, 0.0, value)
        return (1, 0.0, compact(value))

    def position(self) -> int:
        """The place in the session of the next record emitted (records let go included)."""
        return self.released + len(self.records)

    def _settle(self) -> None:
        """Hand the records that are final to the output and let them go: those before the first
        one still waiting for a helper's result, once a time is known to fill theirs with."""
        records = self.records
        end = len(records)
        if self.offload is not None:
            waiting = self.offload.waiting_from()
            if waiting is not None:
                end = min(end, waiting - self.released)
        if end > 0 and self._fill_times(end):
            done = records[:end]
            del records[:end]
            self.released += end
            self.output.add(done)
        self.settle_at = len(records) + SETTLE_RECORDS

    # -- emitting ------------------------------------------------------------------------------
    def _emit(self, record: dict, text: str, tool: bool, ts: str | None) -> None:
        """Append a record without calls (``_emit_calls`` writes those) at time ``ts``, its content
        the text redacted and truncated: here, or (long text, with helper processes) once the
        result is back, before the session is finished."""
        if self.offload is not None and len(text) > SHORT_TEXT:
            self.offload.text(record, "content", text, tool)
            text = ""
        else:
            text = record["content"] = self.privacy.text(text, tool=tool)
        record["timestamp"] = ts  # last, where every record has it; a None is filled by finish
        self.records.append(record)
        # Roughly the memory the record holds in CPython: ~400 bytes for a small record (its dict,
        # keys and timestamp; measured), plus its text.
        self.size += RECORD_OVERHEAD + len(text)

    def _emit_text(self, role: str, text: str | None, ts: str | None, where: Where) -> None:
        if text is None or text == "":
            self.stats.skip(f"{role} record with no content", where)
            return
        if self.c.is_harness_noise(role, text):
            self.stats.skip("harness-noise user record (sessions.harness_noise)", where)
            return
        self.texts += 1
        self._emit({"role": role, "content": None}, text, False, ts)

    def _emit_calls(self, calls: list[tuple[Any, Any, dict]], ts: str | None, where: Where) -> list[str | None]:
        """One assistant record holding the calls; their ids in order (None for a call dropped)."""
        out = []
        ids: list[str | None] = []
        for raw_id, name, args in calls:
            if not isinstance(name, str) or not name.strip():
                self.stats.skip("tool call without a tool name", where)
                ids.append(None)
                continue
            offload = self.offload
            text = self.privacy.args(args) if offload is None or not args else ""
            shown = self.privacy.redact(name)
            call_id = self._new_call_id(raw_id, name)  # after everything that can fail: ids stay consistent
            call = {"id": self._shown_id(call_id), "name": shown, "args": text}
            if offload is not None and args:
                offload.args(call, "args", args)
            out.append(call)
            ids.append(call_id)
        if out:
            self.records.append({"role": "assistant", "content": None, "tool_calls": out, "timestamp": ts})
            # as _emit counts a record, and half a record more for each call with its strings
            size = RECORD_OVERHEAD
            for call in out:
                size += RECORD_OVERHEAD // 2 + len(call["id"]) + len(call["name"]) + len(call["args"])
            self.size += size
        self.calls_seen += len(calls)
        self.calls_written += len(out)
        return ids

    def _emit_result(
        self, link: Any, content: str | None, ok: bool | None, ts: str | None, where: Where, exact: str | None = None,
        name: Any = None,
    ) -> None:
        self.results_seen += 1
        call_id = self._answer(link, where, exact, name)
        if call_id is None:
            return
        self.results_written += 1
        text = content or ""
        if ok is False and self.c.error_prefix and not text.startswith(self.c.error_prefix):
            text = self.c.error_prefix + text
        record: dict[str, Any] = {"role": "tool", "tool_call_id": self._shown_id(call_id), "content": None}
        if ok is not None:
            record["ok"] = ok
        self._emit(record, text, True, ts)

    # -- tool-call linkage ---------------------------------------------------------------------
    def _shown_id(self, call_id: str) -> str:
        """The id written for a call and its results: the id itself, unless the detector finds a
        secret in it; then ``call_`` + a digest of it, the same wherever it appears (so results still
        link), counted once per session in the redaction counts."""
        shown = self.shown_ids.get(call_id)
        if shown is None:
            shown = call_id
            if self.privacy.redactor is not None and self.privacy.redact(call_id) != call_id:
                shown = "call_" + hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:24]
            self.shown_ids[call_id] = shown
        return shown

    def _new_call_id(self, raw_id: Any, name: str) -> str:
        original = raw_id if isinstance(raw_id, str) and raw_id else (
            str(raw_id) if isinstance(raw_id, int) and not isinstance(raw_id, bool) else None
        )
        if original is None:
            self.synthesised += 1
            n = self.synthesised
            while f"call_{n}" in self.used_ids:
                n += 1
            call_id = f"call_{n}"
            self.synthesised = n
            self.stats.repair("call ids synthesised (the source has none)")
            original = call_id
        elif original in self.used_ids:
            n = 2
            while f"{original}__{n}" in self.used_ids:
                n += 1
            call_id = f"{original}__{n}"
            self.renamed_open.add(call_id)
            self.stats.repair("duplicate call ids renamed")
        else:
            call_id = original
        self.used_ids.add(call_id)
        self.unanswered[call_id] = None
        self.by_original.setdefault(original, []).append(call_id)
        self.originals[call_id] = original
        self.renamed_open.discard(original)  # now an id the source gave
        self.call_names[call_id] = name
        self.unanswered_by_name.setdefault(name, {})[call_id] = None
        return call_id

    def _answer(self, link: Any, where: Where, exact: str | None = None, name: Any = None) -> str | None:
        """The id of the call a result answers: by its link, else by the tool name it gives (the oldest
        unanswered call of that tool), else the oldest unanswered call."""
        if exact is not None:
            self._mark_answered(exact)
            return exact
        if isinstance(link, int) and not isinstance(link, bool):
            link = str(link)
        if not isinstance(link, str) or not link:
            if not self.unanswered:
                return self._orphan("tool result with no link and no unanswered call", where)
            named = self.unanswered_by_name.get(name) if isinstance(name, str) else None
            if named:
                call_id = next(iter(named))
                self.stats.repair("results linked by tool name to the oldest unanswered call of that tool")
            else:
                call_id = next(iter(self.unanswered))
                self.stats.repair("results linked to the oldest unanswered call")
        else:
            waiting = self.by_original.get(link) or []
            if not waiting:
                if link in self.used_ids and link not in self.renamed_open:  # answered, or a source's id
                    self.stats.skip("duplicate tool result", where)
                    return None
                return self._orphan("tool result with no earlier call", where)
            call_id = waiting[0]
        self._mark_answered(call_id)
        return call_id

    def _mark_answered(self, call_id: str) -> None:
        del self.unanswered[call_id]
        name = self.call_names.pop(call_id)
        named = self.unanswered_by_name[name]
        del named[call_id]
        if not named:
            del self.unanswered_by_name[name]
        original = self.originals.pop(call_id)
        waiting = self.by_original[original]
        waiting.remove(call_id)
        if not waiting:
            del self.by_original[original]
        self.renamed_open.discard(call_id)

    def _orphan(self, reason: str, where: Where) -> None:
        if self.c.orphans == "fail":
            raise SessionFailed(f"{where}: {reason}; set tools.orphan_results: skip to drop such results")
        self.stats.skip(reason, where)

    # -- what a kind writes: the calls a format's generated code (and Kind) makes -------------------
    # Each writes at the raw record being mapped (``where``); values are raw values as read from the
    # record (MISSING where a field is absent).
    def time(self, value: Any) -> str | None:
        """A raw time value as an ISO instant in UTC; None when absent, or unreadable (counted, and
        filled from a neighbour when the session is finished)."""
        if value is MISSING:
            return None
        c = self.c
        try:
            return to_iso(value, c.ts_format, c.ts_layout, self.zone)
        except TimestampError as exc:
            self.unreadable_times += 1
            if self.first_time_error is None:
                self.first_time_error = f"{self.where}: {exc}"
            return None

    def skip_kind(self, name: str) -> None:
        """A record of a kind the mapping skips: counted under the kind's name."""
        self.stats.skip(f"kind {name!r} (skipped by the mapping)", self.where)

    def text_of(self, value: Any) -> str | None:
        """Any raw content as one plain string (``Converter.to_text``)."""
        return self.c.to_text(value)

    def compose(self, record: Any, join: Join) -> Any:
        """The text a ``join`` composes from several fields of the record (MISSING when none holds any)."""
        return self.c.compose(record, join)

    def text(self, role: str, value: Any, at: str | None) -> None:
        """A record of ``role`` holding the content: text as it is, a content-block list block by
        block (``blocks`` in the mapping), any other structure as compact JSON."""
        if self.c.is_block_list(value):
            self._blocks(role, value, at, self.where)
        else:
            self._emit_text(role, self.c.to_text(value), at, self.where)

    def call(self, call_id: Any, tool: Any, args: Any, at: str | None, *, args_key: str = "_raw",
             thought: Any = MISSING) -> str | None:
        """One tool call (after the thought written before it, as reasoning, if any); its id in the
        output, or None when it was dropped (no tool name)."""
        text = self.c.to_text(thought)
        if text:
            self._emit_text("reasoning", text, at, self.where)
        return self._emit_calls([(call_id, tool, normalise_args(args, args_key))], at, self.where)[0]

    def result(self, *, content: Any, at: str | None, link: Any = MISSING, ok: bool | None = None,
               tool: Any = MISSING, answers: str | None = None) -> None:
        """One tool result, linked to the call that ``answers`` names (a call this record wrote), else
        to the call whose source id ``link`` is, else by tool name or order (counted as repairs).
        Content that is a list of result blocks (each with its own link and outcome) is those results."""
        if link is MISSING and answers is None and ok is None and self.c.is_block_list(content):
            steps = self.c.steps_of(content, "user", at)
            if any(part is not None and part.kind == "tool_result" for _, part, _, _, _ in steps):
                self._steps(steps, self.where)
                return
        self._emit_result(link, self.c.to_text(content), ok, at, self.where, exact=answers, name=tool)

    def entries(self, record: dict, entries: list[Entry], role: str, at: str | None) -> None:
        """Several records from one raw record, in the order of ``entries`` (a kind's ``emit``)."""
        self._steps(self._entry_steps(record, entries, role, at), self.where)

    def _entry_steps(self, record: dict, entries: list[Entry], role: str, ts: str | None) -> list[Step]:
        """What a list of entries writes from one raw record, in order; an entry whose field (or
        list) holds nothing writes nothing."""
        c = self.c
        steps: list[Step] = []
        for entry in entries:
            block = entry.block
            if block.kind == "skip":
                continue
            if entry.each:
                found = first_present(record, entry.each)
                items = found if isinstance(found, list) else list(found.values()) if isinstance(found, dict) else []
            else:
                items = [record]
            text_role = entry.role or role
            for item in items:
                if not isinstance(item, dict):
                    continue
                at = self.time(first_present(item, entry.timestamp)) or ts
                result_at = self.time(first_present(item, entry.result_timestamp)) or at
                if block.kind in ("text", "reasoning", "tool_result", "tool_exchange") or (
                        block.kind == "placeholder" and block.field):
                    value = c.read(item, block.field)
                    if block.kind in ("text", "reasoning", "placeholder") and not holds(value):
                        continue
                    if block.kind == "text" and c.is_block_list(value):
                        steps.extend((*c.part_of(sub), text_role, at, result_at) for sub in value)
                        continue
                if block.kind in ("tool_call", "tool_exchange") and not holds(first_present(item, block.tool_name)):
                    continue
                if block.kind == "tool_result" and not holds(c.read(item, block.field)) \
                        and not holds(first_present(item, block.result_link)):
                    continue
                steps.append((block.kind, block(c, item), text_role, at, result_at))
        return steps

    def _blocks(self, role: str, blocks: list, ts: str | None, where: Where) -> None:
        self._steps(self.c.steps_of(blocks, role, ts), where)

    def _steps(self, steps: list[Step], where: Where) -> None:
        """Write blocks in order: consecutive texts of one role and time join into one record,
        consecutive calls of one time into one assistant record, each followed by the results of
        the exchanges among them; reasoning and results are records of their own."""
        c = self.c
        to_text = c.to_text
        texts: list[str] = []
        text_role: str = ""  # the role and time of the texts held
        text_ts: str | None = None
        calls: list[tuple[Any, Any, dict]] = []
        calls_ts: str | None = None
        outputs: list[tuple[int, str | None, bool | None, str | None]] = []  # exchanges: (call, output, ok, time)
        for name, part, role, ts, result_ts in steps:
            if part is None:
                self._unknown(c.unknown_blocks, where, f"unknown block type {name!r}",
                              f"unknown content block type {name!r}; add it to blocks.types in the "
                              "mapping, or set blocks.unknown: skip")
                continue
            kind, value = part[0], part[1]
            if part.at is not MISSING:  # the block's own time, where it names one
                own = self.time(part.at)
                if own is not None:
                    result_ts = own if result_ts == ts else result_ts
                    ts = own
            if kind == "text" or kind == "placeholder":
                if calls or (texts and (text_role != role or text_ts != ts)):
                    self._flush(texts, text_role, text_ts, calls, calls_ts, outputs, where)
                text = value if kind == "placeholder" or value.__class__ is str else to_text(value)
                if text:
                    texts.append(text)
                    text_role, text_ts = role, ts
            elif kind == "tool_call" or kind == "tool_exchange":
                if texts or (calls and calls_ts != ts):
                    self._flush(texts, text_role, text_ts, calls, calls_ts, outputs, where)
                calls.append((part.call_id, part.tool, normalise_args(part.args, part.args_key)))
                calls_ts = ts
                if kind == "tool_exchange":  # the output follows once the calls beside it are written
                    outputs.append((len(calls) - 1, to_text(value), part.ok, result_ts))
            elif kind == "reasoning":
                self._flush(texts, text_role, text_ts, calls, calls_ts, outputs, where)
                self._emit_text("reasoning", to_text(value), ts, where)
            elif kind == "tool_result":
                self._flush(texts, text_role, text_ts, calls, calls_ts, outputs, where)
                self._emit_result(part.link, to_text(value), part.ok, ts, where, name=part.tool)
            elif kind == "skip":
                self.stats.skip(f"block type {name!r} (skipped by the mapping)", where)
        self._flush(texts, text_role, text_ts, calls, calls_ts, outputs, where)

    def _flush(self, texts: list[str], text_role: str, text_ts: str | None, calls: list[tuple[Any, Any, dict]],
               calls_ts: str | None, outputs: list[tuple[int, str | None, bool | None, str | None]],
               where: Where) -> None:
        """``_steps``' held texts as one record, or its held calls as one record followed by the
        results of the exchanges among them (never both: each kind flushes the other); emptied."""
        if texts:
            self._emit_text(text_role, "\n".join(texts), text_ts, where)
            texts.clear()
        if calls:
            ids = self._emit_calls(list(calls), calls_ts, where)
            calls.clear()
            for index, content, ok, result_ts in outputs:
                if ids[index] is not None and content is not None:
                    self._emit_result(None, content, ok, result_ts, where, exact=ids[index])
            outputs.clear()

    # -- output --------------------------------------------------------------------------------
    def finish(self) -> list[dict]:
        """The session's trajectory-v1 records, meta first; raises SessionFailed or SessionSkipped."""
        if self.buffer is not None:
            self._replay()
        if self.c.closing and self.first_record is not None:
            where = self.where = Where(self.key, 0)  # read from the session's first record, once
            self._steps(self._entry_steps(self.first_record, self.c.closing, "assistant", None), where)
        if self.offload is not None:
            self.offload.settle()
        if self.calls_seen and not self.calls_written:
            raise SessionFailed(
                f"session {self.key}: every one of its {self.calls_seen} tool call(s) was lost "
                f"({', '.join(r for r in self.stats.skipped if 'call' in r) or 'see the skips'}); fix the call "
                "fields of the mapping (tool_name, call_id, args)")
        if not self.records and not self.released:
            raise SessionSkipped("no records to write")
        for role, policy in (("user", "without_user"), ("assistant", "without_assistant")):
            if self.c.sessions.get(policy) == "skip" and not any(r["role"] == role for r in self.records) \
                    and (self.output is None or role not in self.output.roles):
                raise SessionSkipped(f"no {role} record (sessions.{policy}: skip)")
        if not self._fill_times(len(self.records)):
            self._fall_back()
        derived = self.derived - self.unreadable_times
        if derived > 0:
            self.stats.repair("timestamps derived from neighbouring records", derived)
        if self.unreadable_times:
            self.stats.repair("unreadable timestamps replaced by a neighbour's", self.unreadable_times)
        meta: dict[str, Any] = {"role": "meta", "source": self.c.source}
        for key in ("cwd", "git_branch", "model"):
            if key in self.meta:
                meta[key] = self.meta[key]
        records = self.records
        if self.output is not None:
            self.output.add(records)
            records.clear()
            return [meta]
        records.insert(0, meta)  # in place: a large session is not held in a second list
        return records

    def _fill_times(self, end: int) -> bool:
        """Give each of the first ``end`` records without a readable time its neighbour's: the
        previous record's, else (at the session's start) the first known one; False, and nothing
        filled, while none of the session's records so far has a time."""
        records = self.records
        previous = self.previous_ts
        if previous is None:
            previous = next((records[i]["timestamp"] for i in range(end) if records[i]["timestamp"] is not None),
                            None)
            if previous is None:
                return False
        derived = 0
        for i in range(end):
            record = records[i]
            ts = record["timestamp"]
            if ts is None:
                derived += 1
                record["timestamp"] = previous
            else:
                previous = ts
        self.previous_ts = previous
        self.derived += derived
        return True

    def _fall_back(self) -> None:
        """A session in which no record has a readable time: each takes the mapping's fallback."""
        if self.unreadable_times:
            raise SessionFailed(
                f"{self.first_time_error}; no timestamp in this session could be read "
                "(check timestamps.format, timestamps.layout and timestamps.fields)"
            )
        fallback = self._fallback_time()
        for record in self.records:
            record["timestamp"] = fallback
        self.stats.repair(f"timestamps from the session fallback ({self.c.ts_fallback})", len(self.records))

    def _fallback_time(self) -> str:
        c = self.c
        if c.ts_fallback == "file_mtime" and self.mtime is not None:
            return from_mtime(self.mtime)
        if c.ts_fallback == "field" and self.fallback_value not in (MISSING, None):
            try:
                return to_iso(self.fallback_value, c.ts_format, c.ts_layout, self.zone)
            except TimestampError as exc:
                raise SessionFailed(f"session {self.key}: fallback timestamp: {exc}") from exc
        raise SessionFailed(
            f"session {self.key}: no record has a timestamp; set timestamps.fallback in the mapping "
            "(file_mtime, or field with fallback_field) or fix timestamps.fields"
        )
