"""Validate trajectory-v1 JSONL files the way Lerim reads them.

This module is copied verbatim into every rendered cleaner project (with the rest of
``cleaner_runtime``) and is also imported by the trajectory-cleaner generator, which imports the
same package by name. It depends on the standard library and
``jsonschema`` only (``orjson`` speeds up reading tool arguments when it is installed, with the
same verdicts).

Verdicts come from two layers:

* the ``schema`` rule: the trajectory-v1 JSON Schema applied to the whole file
  loaded as a list, exactly as ``jsonschema`` would apply it. For speed the
  loaded schema is compiled at start-up into plain Python checks
  (``schema_compiler``), so the verdict is always the one whole-list
  ``jsonschema`` validation gives;
* extra rules the schema cannot express: file encoding, one compact object per
  line, ... (``check_file``, as it reads each line), then meta first, real
  timestamps, tool-call links, ... (``RECORD_RULES`` and ``SESSION_RULES``, one
  small function each), each with a stable rule id; see ``RULES``.

Each rule says where it comes from (``RULE_ORIGINS``): the schema, Lerim's
rules for custom trace folders (the seed), or Letta's runtime validator
(``validateTranscript``). Whatever Letta's validator rejects is an error here;
``BEYOND_LETTA`` names the rules that can also fail a file Letta accepts.
"""

import datetime as _dt
import functools
import hashlib
import json
import numbers
import os
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:  # optional: parses tool arguments faster; json decides whatever orjson rejects
    import orjson
except ImportError:
    orjson = None

from .schema_compiler import LazyValidator, Unsupported, compile_schema

__all__ = [
    "BUNDLED_SCHEMA",
    "RULES",
    "WARNING_RULES",
    "Problem",
    "SchemaError",
    "TrajectoryValidator",
    "check_file",
    "find_schema",
    "load_schema",
]

SCHEMA_FILENAME = "trajectory-v1.schema.json"
BUNDLED_SCHEMA = Path(__file__).with_name(SCHEMA_FILENAME)
LERIM_SCHEMA_SUBPATH = ("node", "node_modules", "@letta-ai", "trajectory", "schema", SCHEMA_FILENAME)

#: Every rule id this module reports, with what it guards.
RULES: dict[str, str] = {
    "unreadable": "the file can be read at all",
    "bom": "UTF-8 without a byte order mark",
    "utf8": "the bytes are valid UTF-8",
    "blank-line": "no empty lines (warning: Letta's reader and JSON-lines readers skip them)",
    "json": "each line is one complete JSON value (no NaN/Infinity)",
    "duplicate-key": "no object repeats a key",
    "line-break": "no carriage return inside a line (warning: JSON and Letta take it for whitespace, but "
                  "Python's text readers end the line there)",
    "compact-line": "compact lines: no whitespace outside strings, LF line endings (warning: readers accept it)",
    "empty-file": "the file holds at least one record",
    "schema": "the trajectory-v1 JSON Schema, applied to the whole file as a list",
    "meta-first": "line 1 is the meta record",
    "meta-once": "no other line is a meta record",
    "meta-source": "the meta record names its source: a non-empty string that is not only whitespace",
    "timestamp": "every non-meta record has a real ISO-8601 instant with a zone, ASCII digits only",
    "timestamp-order": "timestamps never go backwards (warning)",
    "assistant-content": "assistant content is null exactly when tool_calls is present, else non-empty text",
    "args-object": "tool_calls[].args is a string holding a JSON object",
    "duplicate-call-id": "tool call ids are unique within the file",
    "tool-link": "each tool record answers an earlier tool call",
    "duplicate-result": "each tool call has at most one result (warning)",
    "no-user": "the session has a user record (Letta's runtime validator rejects a session without one)",
    "no-assistant": "the session has an assistant record (Letta's runtime validator rejects a session without one)",
}
#: Rules reported as warnings (they fail a file only under --strict).
#: On line ends and whitespace outside strings Letta's validator is the authority (docs/security.md,
#: "Validation authority"): what it accepts (CRLF, spaces, empty lines, a CR between tokens) is at most
#: a warning here; a line of only whitespace, which it rejects, is a ``json`` error.
WARNING_RULES = frozenset({"blank-line", "line-break", "compact-line", "timestamp-order", "duplicate-result"})
#: Rules that Letta's runtime validator does not require of a partial transcript (its
#: ``validateTranscript(records, {partial: true})``): warnings when a validator is made with ``partial=True``.
PARTIAL_RULES = frozenset({"no-user", "no-assistant"})

#: Where each rule comes from:
#: ``schema``: the trajectory-v1 JSON Schema; ``seed``: Lerim's rules for custom trace folders (one
#: compact JSON object per line, record 0 is the only meta, a named source, ISO-8601 timestamps, tool
#: results after their calls, ...); ``Letta``: Letta's runtime validator (``validateTranscript`` in
#: @letta-ai/trajectory, which its normaliser runs on every transcript it writes); ``JSON``: RFC 8259;
#: ``cleaner``: advice of trajectory-cleaner's own, reported as a warning only.
RULE_ORIGINS: dict[str, tuple[str, ...]] = {
    "unreadable": ("seed",),
    "bom": ("seed", "JSON"),
    "utf8": ("seed", "JSON"),
    "blank-line": ("seed",),
    "json": ("seed", "JSON"),
    "duplicate-key": ("JSON",),
    "line-break": ("seed",),
    "compact-line": ("seed",),
    "empty-file": ("schema", "Letta"),
    "schema": ("schema", "Letta"),
    "meta-first": ("seed", "Letta"),
    "meta-once": ("seed", "Letta"),
    "meta-source": ("schema", "seed", "Letta"),
    "timestamp": ("schema", "seed", "Letta"),
    "timestamp-order": ("seed",),
    "assistant-content": ("schema", "seed", "Letta"),
    "args-object": ("seed", "Letta"),
    "duplicate-call-id": ("Letta",),
    "tool-link": ("seed", "Letta"),
    "duplicate-result": ("cleaner",),
    "no-user": ("Letta",),
    "no-assistant": ("Letta",),
}
#: The rules that can fail a file Letta's validator accepts (reading each non-empty line as JSON,
#: then ``validateTranscript``): all or part of what they check comes from the seed or JSON alone.
#: Every other rule only ever fails files that Letta's validator rejects as well.
BEYOND_LETTA = frozenset({
    "unreadable",       # Letta never sees a file that cannot be read
    "utf8",             # its reader replaces undecodable bytes with U+FFFD
    "blank-line",       # (a warning: its reader skips empty lines)
    "duplicate-key",    # JSON.parse keeps the last value of a repeated key
    "line-break",       # (a warning: JSON.parse takes a carriage return for whitespace)
    "compact-line",     # (a warning)
    "meta-first",       # it accepts a transcript without a meta record (one elsewhere it rejects)
    "meta-source",      # it accepts a source of only whitespace (an empty one it rejects)
    "timestamp",        # it checks the pattern only: it accepts 2026-02-30T25:00:00Z
    "timestamp-order",  # (a warning)
    "tool-link",        # it accepts a result that comes before its call in the file (an orphan it rejects)
    "duplicate-result",  # (a warning)
})
_LETTA = "Letta's runtime validator (validateTranscript)"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a file. ``line`` is 1-based, None for the whole file."""

    line: int | None
    rule: str
    message: str
    severity: str = "error"


class SchemaError(Exception):
    """The schema (or the Lerim config that points at it) cannot be used."""


# --------------------------------------------------------------------------
# Finding and loading the schema
# --------------------------------------------------------------------------


def _expand_user(text: str, env: Mapping[str, str]) -> Path:
    if text == "~" or text.startswith(("~/", "~" + os.sep)):
        home = env.get("HOME") or str(Path.home())
        return Path(home + text[1:])
    return Path(os.path.expanduser(text))


def find_schema(
    explicit: "str | os.PathLike[str] | None" = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[Path, str]:
    """Locate the trajectory-v1 schema the way Lerim finds its data dir.

    An explicit path (``--schema``) wins and must exist. Otherwise the Lerim
    config file (``$LERIM_CONFIG``, else ``~/.lerim/config.toml``) may name the
    data dir under ``[data] dir`` (default ``~/.lerim``); the normalizer's copy
    under that dir is used when present, else the copy bundled next to this
    module. Returns ``(path, origin)``.
    """
    env = os.environ if environ is None else environ
    if explicit is not None:
        path = _expand_user(os.fspath(explicit), env)
        if not path.exists():
            raise SchemaError(f"{os.fspath(explicit)}: schema file not found (given with --schema)")
        if not path.is_file():
            raise SchemaError(f"{os.fspath(explicit)}: not a file (--schema needs a JSON Schema file)")
        return path, "--schema"

    config_text = env.get("LERIM_CONFIG") or "~/.lerim/config.toml"
    config = _expand_user(config_text, env)
    data_dir_text = "~/.lerim"
    if config.is_file():
        import tomllib  # only with a Lerim config: importing it costs a start ~8M instructions

        try:
            with config.open("rb") as handle:
                settings = tomllib.load(handle)
        except tomllib.TOMLDecodeError as exc:
            raise SchemaError(
                f"{config_text}: Lerim config is not valid TOML ({exc}); fix it or pass --schema FILE"
            ) from None
        except OSError as exc:
            raise SchemaError(
                f"{config_text}: cannot read the Lerim config ({exc.strerror or exc}); fix it or pass --schema FILE"
            ) from None
        data = settings.get("data")
        if isinstance(data, dict) and "dir" in data:
            if not isinstance(data["dir"], str) or not data["dir"]:
                raise SchemaError(
                    f"{config_text}: [data] dir must be a non-empty string path; fix it or pass --schema FILE"
                )
            data_dir_text = data["dir"]
    candidate = _expand_user(data_dir_text, env).joinpath(*LERIM_SCHEMA_SUBPATH)
    if candidate.is_file():
        return candidate, f"Lerim data dir ({data_dir_text})"
    return BUNDLED_SCHEMA, "bundled copy"


def load_schema(path: "str | os.PathLike[str]") -> dict:
    """Read and check a JSON Schema file; raise SchemaError naming the file."""
    name = os.fspath(path)
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise SchemaError(f"{name}: schema file not found") from None
    except IsADirectoryError:
        raise SchemaError(f"{name}: is a directory, not a schema file") from None
    except OSError as exc:
        raise SchemaError(f"{name}: cannot read the schema ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{name}: the schema is not UTF-8 text (byte {exc.start + 1})") from None
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchemaError(
            f"{name}:{exc.lineno}: the schema is not valid JSON ({exc.msg} at column {exc.colno})"
        ) from None
    except RecursionError:
        raise SchemaError(f"{name}: the schema is nested too deeply to read") from None
    if not isinstance(schema, dict):
        raise SchemaError(f"{name}: a trajectory schema must be a JSON object, not {_kind(schema)}")
    _check_schema(schema, name)
    return schema


_CHECKED: set[str] = set()  # schemas (as canonical JSON) already found valid in this process
#: The sha256 of the canonical JSON (``_schema_key``) of the schemas known to be valid JSON Schemas
#: that jsonschema applies without error: the bundled trajectory-v1 schema as shipped (proven by
#: tests/validation/test_lazy_jsonschema.py, which fails when the bundled schema changes). Checking
#: one of these with jsonschema would import it (~110 ms of a cleaner's start) to learn nothing.
_KNOWN_GOOD = frozenset({"dbf02d720bdf0321e1c80dba04fc2e4e0e67bdcce48f2e8120d67252fb768d21"})


def _schema_key(schema: Any) -> str | None:
    try:
        return json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return None


def _known_good(key: str | None) -> bool:
    return key is not None and hashlib.sha256(key.encode("utf-8")).hexdigest() in _KNOWN_GOOD


def _check_schema(schema: Any, name: str) -> None:
    """Raise SchemaError unless ``schema`` is a valid JSON Schema. A run loads its schema and then
    compiles it, and each step checks it; the meta-schema check (~20 ms) runs once per schema, and
    never for a schema known good (``_KNOWN_GOOD``)."""
    key = _schema_key(schema)
    if key is not None and (key in _CHECKED or _known_good(key)):
        return
    import jsonschema.exceptions
    import jsonschema.validators

    try:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        raise SchemaError(
            f"{name}: not a valid JSON Schema{' at ' + where if where else ''}: {_one_line(exc.message)}"
        ) from None
    except RecursionError:
        raise SchemaError(f"{name}: the schema is nested too deeply") from None
    if key is not None:
        _CHECKED.add(key)


# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------

_MISSING = object()


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, numbers.Number):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_path(path: Sequence[Any]) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(part)):
            out += ("." if out else "") + str(part)
        else:
            out += f"[{json.dumps(part)}]"
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _load_json(text: str) -> Any:
    """``json.loads`` rejecting NaN and Infinity. orjson, when installed, is tried first: it accepts
    only text json accepts too, and parses it to the same kind of value, so a verdict that depends
    on what the text holds is the same; json then decides (and explains) everything orjson rejects
    (lone surrogate escapes, numbers too large for a float)."""
    if orjson is not None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text, parse_constant=_reject_constant)


# --------------------------------------------------------------------------
# Schema equivalence (for "differs from the bundled copy")
# --------------------------------------------------------------------------

_SCHEMA_MAP_KEYS = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
_SCHEMA_ONE_KEYS = {"items", "additionalProperties", "not", "if", "then", "else", "contains",
                    "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"}
_SCHEMA_LIST_KEYS = {"allOf", "anyOf", "oneOf", "prefixItems"}
_DROP_FOR_EQUIVALENCE = {"title", "description", "$comment", "examples", "default", "deprecated",
                         "readOnly", "writeOnly"}


def _canonical(node: Any, is_root: bool = True) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROP_FOR_EQUIVALENCE or (is_root and key == "$id"):
            continue
        if key in _SCHEMA_MAP_KEYS and isinstance(value, dict):
            out[key] = {k: _canonical(v, False) for k, v in value.items()}
        elif key in _SCHEMA_ONE_KEYS:
            out[key] = _canonical(value, False)
        elif key in _SCHEMA_LIST_KEYS and isinstance(value, list):
            out[key] = [_canonical(v, False) for v in value]
        elif key == "required" and isinstance(value, list):
            out[key] = sorted(set(map(str, value)))
        elif key == "type" and isinstance(value, list) and len(value) == 1:
            out[key] = value[0]
        else:
            out[key] = value
    return out


def _schemas_equivalent(one: Any, two: Any) -> bool:
    return json.dumps(_canonical(one), sort_keys=True) == json.dumps(_canonical(two), sort_keys=True)


# --------------------------------------------------------------------------
# Timestamps
# --------------------------------------------------------------------------

_TS_RE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):?(\d{2}))",
    re.ASCII,
)
_TS_NO_ZONE_RE = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?", re.ASCII)
_TS_EXAMPLE = "2026-05-16T09:00:00Z or 2026-05-16T11:00:00+02:00"


_DAYS_IN_MONTH = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


@functools.lru_cache(maxsize=4096)
def _month_start(year: int, month: int) -> int:
    return _dt.date(year, month, 1).toordinal() - 1


# The form cleaners write (UTC, "Z", an optional fraction), read without a regular expression (whose
# call alone costs more than the rest): the minute is checked, and its start computed, once per minute
# (most timestamps of a session fall in a few thousand minutes), the seconds looked up, the fraction
# tested with str methods. Exactly the strings _TS_UTC_RE matches take this path.
_TS_UTC_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-5][0-9](?:\.[0-9]+)?Z")
_TS_MINUTE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}")
_TS_SECONDS = {f":{second:02d}": second for second in range(60)}


@functools.lru_cache(maxsize=4096)
def _minute_key(minute: str) -> int | None:
    """The seconds ``_parse_timestamp`` counts to the start of ``minute`` ("2026-05-16T09:00"),
    or None when that is not a minute that exists, written in ASCII digits."""
    if _TS_MINUTE_RE.fullmatch(minute) is None:
        return None
    year, month, day = int(minute[0:4]), int(minute[5:7]), int(minute[8:10])
    hour, mins = int(minute[11:13]), int(minute[14:16])
    if not 1 <= month <= 12 or year < 1 or not 1 <= day <= _DAYS_IN_MONTH[month] + (
        month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    ):
        return None
    if hour > 23 or mins > 59:
        return None
    return (_month_start(year, month) + day) * 86400 + hour * 3600 + mins * 60


def _utc_instant(value: str) -> tuple[int, str] | None:
    """``_parse_timestamp``'s sort key for a real instant written in the UTC form cleaners write
    (``_TS_UTC_RE``); None for anything else (an offset, no real instant, ...), which the full
    parser then judges."""
    if len(value) < 20 or value[-1] != "Z" or not value.isascii():
        return None
    second = _TS_SECONDS.get(value[16:19])
    if second is None:
        return None
    start = _minute_key(value[:16])
    if start is None:
        return None
    if len(value) == 20:
        return start + second, ""
    fraction = value[20:-1]
    if value[19] != "." or not fraction.isdigit():  # ASCII: isdigit() is [0-9]+
        return None
    return start + second, fraction.rstrip("0")


def _parse_timestamp(value: str) -> tuple[tuple[int, str] | None, str]:
    """Return (sort key, "") for a real instant, else (None, what is wrong)."""
    key = _utc_instant(value)
    if key is not None:
        return key, ""
    return _parse_any_timestamp(value)


def _parse_any_timestamp(value: str) -> tuple[tuple[int, str] | None, str]:
    """``_parse_timestamp`` for every form (offsets, no real instant, ...), explaining a bad one."""
    m = _TS_RE.fullmatch(value)
    if m is None:
        return None, _timestamp_problem(value)
    # the pattern fixes the positions of the date and time digits (ASCII only)
    year, month, day = int(value[0:4]), int(value[5:7]), int(value[8:10])
    hour, minute, second = int(value[11:13]), int(value[14:16]), int(value[17:19])
    frac, zulu, sign, off_h, off_m = m.group(7, 8, 9, 10, 11)
    if not 1 <= month <= 12 or year < 1 or not 1 <= day <= _DAYS_IN_MONTH[month] + (
        month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    ):
        return None, f"timestamp {_short(value)} is not a real date ({year:04d}-{month:02d}-{day:02d} does not exist)"
    if hour > 23 or minute > 59 or second > 59:
        return None, f"timestamp {_short(value)} is not a real time of day (hours 00-23, minutes and seconds 00-59)"
    offset = 0
    if not zulu:
        oh, om = int(off_h), int(off_m)
        if oh > 23 or om > 59:
            return None, f"timestamp {_short(value)} has an impossible zone offset {sign}{off_h}:{off_m}"
        offset = (oh * 3600 + om * 60) * (1 if sign == "+" else -1)
    seconds = (_month_start(year, month) + day) * 86400 + hour * 3600 + minute * 60 + second - offset
    return (seconds, frac.rstrip("0") if frac else ""), ""


def _timestamp_problem(value: str) -> str:
    if any(ch.isdigit() and not ("0" <= ch <= "9") for ch in value):
        return f"timestamp {_short(value)} uses non-ASCII digits; write ASCII digits 0-9, e.g. {_TS_EXAMPLE}"
    if value.rstrip("\r\n") != value and _TS_RE.fullmatch(value.rstrip("\r\n")):
        return f"timestamp {_short(value)} ends with a line break; strip it"
    if value.strip() != value and _TS_RE.fullmatch(value.strip()):
        return f"timestamp {_short(value)} has surrounding whitespace; strip it"
    if _TS_NO_ZONE_RE.fullmatch(value):
        return f"timestamp {_short(value)} has no time zone; add Z (UTC) or an offset like +02:00, e.g. {_TS_EXAMPLE}"
    return f"timestamp {_short(value)} is not an ISO-8601 date and time; write e.g. {_TS_EXAMPLE}"


# --------------------------------------------------------------------------
# The validator
# --------------------------------------------------------------------------

_bundled_cache: dict[str, Any] = {}


def _bundled_schema() -> Any:
    if "schema" not in _bundled_cache:
        try:
            _bundled_cache["schema"] = json.loads(BUNDLED_SCHEMA.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            _bundled_cache["schema"] = None
    return _bundled_cache["schema"]


class TrajectoryValidator:
    """Checks records against one loaded schema plus the extra trajectory rules.

    ``mode`` says how the schema verdict is computed: "compiled" (the fast
    path; ``fallback_nodes`` counts subschemas handed to jsonschema per record)
    or "whole-list jsonschema" (the schema uses something the compiler cannot
    take apart safely). ``partial`` accepts a session without a user or an
    assistant record with a warning, as Letta's ``validateTranscript(records,
    {partial: true})`` does; by default, as Letta's runtime checks a whole
    transcript, each is an error.
    """

    def __init__(self, schema: dict, partial: bool = False):
        _check_schema(schema, "schema")
        self.schema = schema
        self.partial = partial
        self._known_good = _known_good(_schema_key(schema))
        self._jsv: Any = LazyValidator(functools.partial(_jsonschema_validator, schema))
        bundled = _bundled_schema()
        self.differs_from_bundled: bool = bundled is None or not _schemas_equivalent(schema, bundled)
        self.mode = "whole-list jsonschema"
        self.fallback_nodes = 0
        self._list_fn: Callable[[Any], bool] | None = None
        self._item_fn: Callable[[Any], bool] | None = None
        self._items_schema: Any = None
        self._discriminator: tuple[str, dict[str, Any]] | None = None
        self._judges = False  # whether judge() can judge this schema's records one at a time
        try:
            compiled = compile_schema(schema, self._jsv)
        except (Unsupported, RecursionError, re.error):
            pass  # whole-list jsonschema it is
        else:
            self._list_fn, self._item_fn = compiled.list_fn, compiled.item_fn
            self._items_schema = compiled.items_schema
            self._discriminator = compiled.discriminator
            self._judges = all(value in _LIST_BY_LENGTH.get(key, ()) for key, value in compiled.list_part.items())
            self.fallback_nodes = compiled.fallback_nodes
            self.mode = "compiled"
        self._trial_run()

    def _trial_run(self) -> None:
        """Apply the schema to a few records now, so a schema that cannot be applied
        (a $ref nothing resolves, say) fails here with a clear error, not mid-report. jsonschema
        is tried too unless the schema is known good (``_KNOWN_GOOD``): it explains failures later."""
        samples: list[list] = [
            [{"role": "meta", "source": "a"}, {"role": "user", "content": "q", "timestamp": "2026-05-16T09:00:00Z"},
             {"role": "assistant", "content": None, "timestamp": "2026-05-16T09:00:00Z",
              "tool_calls": [{"id": "c", "name": "n", "args": "{}"}]},
             {"role": "tool", "tool_call_id": "c", "content": "r", "ok": True, "timestamp": "2026-05-16T09:00:00Z"},
             {"role": "assistant", "content": "a", "timestamp": "2026-05-16T09:00:00Z"}],
            [{}, [], "x", 1, None, {"role": "other"}],
        ]
        try:
            for sample in samples:
                if not self._known_good:
                    self._jsv.is_valid(sample)
                self.is_schema_valid(sample)
        except Exception as exc:  # noqa: BLE001 - whatever jsonschema raises, say it in one line
            raise SchemaError(f"the schema cannot be applied: {_one_line(str(exc), 200)}") from None

    # -- schema verdict --------------------------------------------------------------
    def is_schema_valid(self, records: list) -> bool:
        """The schema's verdict on the whole list (same as jsonschema's)."""
        if self._item_fn is None:
            return self._jsv.is_valid(records)
        if not self._list_fn(records):
            return False
        item_fn = self._item_fn
        for record in records:
            if not item_fn(record):
                return False
        return True

    def _schema_problems(self, records: list, lines: Sequence[int]) -> list[Problem]:
        problems: list[Problem] = []
        if self._item_fn is None:
            try:
                errors = list(self._jsv.iter_errors(records))
            except Exception as exc:  # noqa: BLE001 - an unresolvable $ref must not crash a report
                return [Problem(None, "schema", f"the schema could not be applied: {_one_line(str(exc))}")]
            by_line: dict[int | None, list] = {}
            for error in errors:
                path = list(error.path)
                index = path[0] if path and isinstance(path[0], int) else None
                by_line.setdefault(index, []).append(error)
            for index in sorted(by_line, key=lambda i: -1 if i is None else i):
                errs = by_line[index]
                if index is None:
                    if not records:
                        continue  # empty-file says it
                    text = "; ".join(_format_error(e) for e in errs[:3])
                    problems.append(Problem(None, "schema", f"the file as a whole fails the schema: {text}"))
                else:
                    text = "; ".join(_format_error(e, skip=1) for e in errs[:3])
                    problems.append(Problem(lines[index], "schema", text))
            return problems
        if records and not self._list_fn(records):
            list_schema = {k: v for k, v in self.schema.items() if k != "items"}
            errs = [e for e in self._jsv.evolve(schema=list_schema).iter_errors(records)]
            text = "; ".join(_format_error(e) for e in errs[:3]) or "rejected"
            problems.append(Problem(None, "schema", f"the file as a whole fails the schema: {text}"))
        item_fn = self._item_fn
        try:
            for index, record in enumerate(records):
                if not item_fn(record):
                    problems.append(Problem(lines[index], "schema", self._explain(record)))
        except Exception as exc:  # noqa: BLE001 - an unresolvable $ref must not crash a report
            problems.append(Problem(None, "schema", f"the schema could not be applied: {_one_line(str(exc))}"))
        return problems

    def _explain(self, record: Any) -> str:
        if not isinstance(record, dict):
            return f"the line holds a JSON {_kind(record)}, not an object; write one JSON object per line"
        try:
            if self._discriminator is not None:
                key, branches = self._discriminator
                names = ", ".join(branches)
                value = record.get(key, _MISSING)
                if value is _MISSING:
                    return f"missing {key!r}; every record needs {key} set to one of: {names}"
                if not isinstance(value, str) or value not in branches:
                    return f"unknown {key} {_short(value)}; use one of: {names}"
                errors = list(self._jsv.evolve(schema=branches[value]).iter_errors(record))
            else:
                errors = list(self._jsv.evolve(schema=self._items_schema).iter_errors(record))
        except Exception as exc:  # noqa: BLE001 - never let an odd schema crash a report
            return f"fails the schema ({_one_line(str(exc), 120)})"
        if not errors:
            return "fails the schema"
        errors.sort(key=lambda e: (len(e.path), _ERROR_ORDER.get(e.validator, 9)))
        return "; ".join(dict.fromkeys(_format_error(e) for e in errors[:3]))

    # -- a file a record at a time -------------------------------------------------------
    def judge(self) -> "Judge | None":
        """A ``Judge``: ``check_records``' verdict on records handed a few at a time, none of them
        held; None when this schema needs the whole list at once (see ``Judge``)."""
        return Judge(self) if self._judges else None

    # -- all rules -----------------------------------------------------------------------
    def check_records(self, records: list[dict]) -> list[Problem]:
        """Schema verdict plus the extra rules; ``line`` is index + 1."""
        return self._check(records, range(1, len(records) + 1))

    def _check(self, records: list, lines: Sequence[int], complete: bool = True) -> list[Problem]:
        """``complete`` is False when some lines could not be read: session-wide rules stay quiet."""
        if not records:
            return [Problem(None, "empty-file",
                            "the file has no records; a trajectory needs at least the meta record "
                            '{"role":"meta","source":"<agent>"} on line 1')]
        problems = self._schema_problems(records, lines)
        problems.extend(_extra_rules(records, lines, complete, self.partial))
        return _sorted(problems)


#: The keywords about the list (a compiled schema's ``list_part``) that ``Judge`` can judge without
#: it: with these values they hold of every list of at least one item (a session has its meta record).
_LIST_BY_LENGTH: dict[str, tuple] = {"type": ("array", ["array"]), "minItems": (0, 1)}


class Judge:
    """``check_records``' problems for a session whose records come a few at a time, in line order,
    and are let go once judged: the schema's compiled check of each record and the rules beyond it
    (``_Rules``) as it comes, the list as a whole at the end.

    Only for a schema that says nothing of the list but that it is an array with at least one item
    (``TrajectoryValidator.judge``; the trajectory-v1 schema, bundled or Lerim's, is such), which
    holds of every session (it has its meta record) and needs no list; any other schema's verdict
    is taken on the whole list by ``check_records``.

    The meta record is the one record judged apart: a cleaner knows its role and source when the
    session starts, which is all the rules read of it (``add_rules``), and the rest of it only at
    the end (``add_schema``)."""

    __slots__ = ("_item_fn", "_validator", "broken", "rules", "schema_problems")

    def __init__(self, validator: TrajectoryValidator):
        self._validator = validator
        self._item_fn = validator._item_fn
        self.rules = _Rules(validator.partial)
        self.schema_problems: list[Problem] = []
        self.broken = False  # the schema could not be applied to a record: no record is checked after it

    def add(self, record: Any, line: int) -> None:
        """Judge the record on ``line`` by the schema and the rules beyond it."""
        try:
            if not self._item_fn(record):
                self.add_schema(record, line)  # says why
        except Exception:  # noqa: BLE001 - add_schema says what
            self.add_schema(record, line)
        self.rules.add(record, line)

    def add_rules(self, record: Any, line: int) -> None:
        self.rules.add(record, line)

    def add_schema(self, record: Any, line: int) -> None:
        if self.broken:
            return
        validator = self._validator
        try:
            if self._item_fn(record):
                return
        except Exception as exc:  # noqa: BLE001 - an unresolvable $ref must not crash a report
            self.broken = True
            self.schema_problems.append(
                Problem(None, "schema", f"the schema could not be applied: {_one_line(str(exc))}"))
            return
        self.schema_problems.append(Problem(line, "schema", validator._explain(record)))

    def end(self, complete: bool = True) -> list[Problem]:
        """Every problem, sorted as ``check_records`` sorts them; ``complete`` is False when some
        lines could not be read (the session-wide rules stay quiet, as in ``_check``)."""
        return _sorted(self.schema_problems + self.rules.end(complete))


def _jsonschema_validator(schema: dict) -> Any:
    """jsonschema's validator for ``schema``, made on first use (``TrajectoryValidator._jsv``): the
    compiled checks judge valid records alone, jsonschema only explains a failure (or judges what
    the compiler does not know), and importing it costs a cleaner's start ~110 ms."""
    import jsonschema.validators

    return jsonschema.validators.validator_for(schema)(schema)


_ERROR_ORDER = {"required": 0, "additionalProperties": 1, "type": 2, "const": 3}


def _format_error(error: Any, skip: int = 0) -> str:
    if error.context and error.validator in ("oneOf", "anyOf"):
        import jsonschema.exceptions  # an error exists, so jsonschema is loaded already

        best = jsonschema.exceptions.best_match(error.context)
        if best is not None:
            error = best
    path = list(error.path)[skip:]
    where = _json_path(path)
    subject = where or "the record"
    kw = error.validator
    value = error.validator_value
    inst = error.instance
    if kw == "required" and isinstance(inst, dict):
        missing = [p for p in value if p not in inst]
        keys = ", ".join(repr(p) for p in missing) or "?"
        return f"missing required key {keys}{' in ' + where if where else ''}; add it"
    if kw == "additionalProperties" and value is False and isinstance(inst, dict):
        allowed = list(error.schema.get("properties", {}))
        extras = [k for k in inst if k not in allowed]
        return (f"unknown key {', '.join(repr(k) for k in extras)}{' in ' + where if where else ''}; "
                f"remove it (allowed: {', '.join(allowed)})")
    if kw == "type":
        wanted = " or ".join([value] if isinstance(value, str) else list(value))
        hint = ""
        if path and path[-1] == "content" and isinstance(inst, list):
            hint = "; flatten the content blocks into one string"
        elif path and path[-1] == "args" and isinstance(inst, dict):
            hint = "; serialize it with json.dumps"
        return f"{subject} must be {wanted}, not {_kind(inst)}{hint}"
    if kw == "const":
        return f"{subject} must be {_short(value)}, not {_short(inst)}"
    if kw == "enum":
        return f"{subject} must be one of {', '.join(_short(v) for v in value)}, not {_short(inst)}"
    if kw == "minLength":
        return f"{subject} must not be empty" if value == 1 else f"{subject} must be at least {value} characters"
    if kw == "minItems":
        return f"{subject} must not be empty" if value == 1 else f"{subject} must have at least {value} items"
    if kw == "pattern":
        return f"{subject} {_short(inst)} does not match the pattern {value}"
    return f"{subject}: {_one_line(error.message, 160)}"


def _sorted(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.line is None, p.line or 0))


# --------------------------------------------------------------------------
# Rules beyond the schema
# --------------------------------------------------------------------------

_META_EXAMPLE = '{"role":"meta","source":"<agent>"}'


class _Rules:
    """The rules beyond the schema, judged in one pass over a file's records in line order: ``add``
    judges one record as it comes, ``end`` what only the whole file can say. Problems are collected
    in ``problems``; the caller sorts them by line with a stable sort, so one line's problems come
    in the order of ``RECORD_RULES``.

    Nothing the pass keeps grows with the records that pass the rules: it keeps the line of each
    tool call id's first call (``call_lines``) and of each call's first result (``answered``), the
    last real instant and its line, what the file-wide rules ask (a meta, a user and an assistant
    record), and the results whose call has not come yet (``unlinked``). So a file is judged in the
    memory of its call ids, however long it is, and a caller can hand the records one at a time.
    """

    __slots__ = ("answered", "call_lines", "has_assistant", "has_user", "last_key", "last_line", "last_ts",
                 "line_one", "metas", "partial", "problems", "unlinked")

    def __init__(self, partial: bool = False) -> None:
        self.partial = partial
        self.problems: list[Problem] = []
        self.metas = 0
        self.line_one = False  # line 1 holds a record that is not the meta record
        self.has_user = self.has_assistant = False
        self.call_lines: dict[str, int] = {}
        self.answered: dict[str, int] = {}
        self.unlinked: list[tuple[int, str]] = []  # (line, call id) of results whose call has not come yet
        self.last_key: tuple[int, str] | None = None  # the last real instant, its string and line
        self.last_ts: str | None = None
        self.last_line = 0

    def add(self, record: Any, line: int) -> None:
        """Judge the record on ``line`` (lines only grow from one call to the next)."""
        if not isinstance(record, dict):
            return  # the schema's to say
        role = record.get("role")
        if line == 1 and role != "meta":
            _line_one(self, record)
        if role == "meta":
            _meta_first(self, record, line)
            _meta_once(self, record, line)
            _meta_source(self, record, line)
            self.metas += 1
            return
        if not isinstance(role, str):
            return
        _timestamp(self, record, line)
        if role == "user":
            self.has_user = True
        elif role == "assistant":
            self.has_assistant = True
            _assistant_content(self, record, line)
            _tool_calls(self, record, line)
        elif role == "tool":
            _tool_link(self, record, line)
            _duplicate_result(self, record, line)

    def end(self, complete: bool = True) -> list[Problem]:
        """The problems, with what needed the whole file: results whose call came later or never,
        and (when every line could be read: ``complete``) ``SESSION_RULES``."""
        _late_calls(self)
        if complete:
            for rule in SESSION_RULES:
                rule(self)
        return self.problems


def _line_one(rules: _Rules, record: dict) -> None:
    """``meta-first`` (seed, Letta): line 1 is the meta record. Said at the record on line 1 when it
    is another (``_meta_first`` says it at a later meta record, ``_meta_missing`` of a file without
    any)."""
    rules.line_one = True
    role = record.get("role")
    what = f"a {_short(role, 30)} record" if isinstance(role, str) else "a record without a role"
    rules.problems.append(
        Problem(1, "meta-first", f"line 1 is {what}; the first line must be the meta record, e.g. {_META_EXAMPLE}"))


def _meta_first(rules: _Rules, record: dict, line: int) -> None:
    """``meta-first`` (seed, Letta): the first meta record is on line 1; said at it when it is later."""
    if not rules.metas and line != 1:
        rules.problems.append(
            Problem(line, "meta-first", f"the meta record is on line {line}; it must be the first line of the file"))


def _meta_once(rules: _Rules, record: dict, line: int) -> None:
    """``meta-once`` (seed, Letta): no record after the first meta record is a meta record."""
    if rules.metas:
        rules.problems.append(Problem(line, "meta-once",
                                      "a second meta record; only line 1 may be meta — drop this one or "
                                      "split the file into one file per session"))


def _meta_source(rules: _Rules, record: dict, line: int) -> None:
    """``meta-source`` (schema, seed, Letta): the meta record names its source. The schema and Letta
    reject a missing or empty one, the seed (Lerim's trace-folder rules) one of only whitespace."""
    source = record.get("source", _MISSING)
    if source is _MISSING or source is None or source == "":
        rules.problems.append(
            Problem(line, "meta-source", "the meta record needs a non-empty source (your agent or workflow name)"))
    elif isinstance(source, str) and not source.strip():
        rules.problems.append(Problem(line, "meta-source",
                                      "the meta record's source is only whitespace; it must name your agent or "
                                      "workflow (Lerim's trace-folder rules), e.g. \"support-agent\""))


def _timestamp(rules: _Rules, record: dict, line: int) -> None:
    """``timestamp`` (schema, seed, Letta): every record but the meta record has a timestamp that is
    a real ISO-8601 instant with a zone, in ASCII digits. The schema and Letta check its pattern;
    the seed asks for an instant that exists (no February 30th, no hour 25).
    ``timestamp-order`` (seed), a warning: timestamps never go backwards. Instants are compared, not
    strings, so zone offsets count; a record without a real instant is passed over. One function
    for both: the order is judged on the instant the first reads."""
    ts = record.get("timestamp", _MISSING)
    if ts.__class__ is str and ts == rules.last_ts:  # records of one raw event share its time, and its verdict
        rules.last_line = line
        return
    if ts is _MISSING:
        rules.problems.append(
            Problem(line, "timestamp", f"missing timestamp; every non-meta record needs one, e.g. {_TS_EXAMPLE}"))
    elif ts is None:
        rules.problems.append(
            Problem(line, "timestamp", "timestamp is null; derive a real ISO-8601 time from the surrounding records"))
    elif not isinstance(ts, str):
        rules.problems.append(
            Problem(line, "timestamp", f"timestamp must be a string such as {_TS_EXAMPLE}, not {_kind(ts)}"))
    else:
        key, wrong = _parse_timestamp(ts)
        if key is None:
            rules.problems.append(Problem(line, "timestamp", wrong))
            return
        if rules.last_key is not None and key < rules.last_key:
            rules.problems.append(Problem(
                line, "timestamp-order",
                f"timestamp {ts} is earlier than {rules.last_ts} on line {rules.last_line}; keep records in "
                "chronological order (or check the zone offsets)", "warning"))
        rules.last_key, rules.last_ts, rules.last_line = key, ts, line


def _assistant_content(rules: _Rules, record: dict, line: int) -> None:
    """``assistant-content`` (schema, seed, Letta): an assistant record's content is null exactly when
    it has tool_calls (a non-empty list), else non-empty text."""
    content = record.get("content", _MISSING)
    calls = record.get("tool_calls", _MISSING)
    add = rules.problems.append
    if calls is not _MISSING:
        if content is not None and content is not _MISSING:
            add(Problem(line, "assistant-content",
                        "an assistant record with tool_calls must have content null; move the text "
                        "into its own assistant record"))
        elif content is _MISSING:
            add(Problem(line, "assistant-content",
                        'content is missing; an assistant record with tool_calls needs "content":null'))
        if isinstance(calls, list) and not calls:
            add(Problem(line, "assistant-content",
                        "tool_calls is an empty list; drop the key (and give the reply text in content) "
                        "or list the calls"))
    elif content is None:
        add(Problem(line, "assistant-content",
                    "content is null but there are no tool_calls; null content is only for tool-call "
                    "steps — give the reply text or add the calls"))
    elif content == "":
        add(Problem(line, "assistant-content",
                    "content is empty; an assistant reply needs non-empty text — fill it or drop the record"))


def _tool_calls(rules: _Rules, record: dict, line: int) -> None:
    """``duplicate-call-id`` (Letta): tool call ids are unique within the file; ``args-object`` (seed,
    Letta): a call's args is a string holding a JSON object. One function for both: they are
    judged call by call, and each call's problems are reported together, in call order. Each id's
    first call is kept for the results (``call_lines``)."""
    calls = record.get("tool_calls")
    if not isinstance(calls, list):
        return
    seen = rules.call_lines
    add = rules.problems.append
    for position, call in enumerate(calls):
        if not isinstance(call, dict):
            continue
        call_id = call.get("id")
        if isinstance(call_id, str) and call_id:
            if call_id in seen:
                add(Problem(line, "duplicate-call-id",
                            f"tool_calls[{position}].id {_short(call_id)} is already used on line "
                            f"{seen[call_id]}; tool call ids must be unique within a file (e.g. add a suffix "
                            "like __2)"))
            else:
                seen[call_id] = line
        if "args" not in call:
            continue
        args = call["args"]
        if isinstance(args, str):
            try:
                parsed = _load_json(args)
            except (ValueError, RecursionError) as exc:
                reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc) or "too deep"
                add(Problem(line, "args-object",
                            f"tool_calls[{position}].args is not valid JSON ({_one_line(reason, 80)}); "
                            "serialize the arguments object with json.dumps, e.g. {\"_raw\": \"...\"} for raw "
                            "text"))
                continue
            if not isinstance(parsed, dict):
                add(Problem(line, "args-object",
                            f"tool_calls[{position}].args holds a JSON {_kind(parsed)}, not an object; wrap it "
                            "in an object, e.g. {\"input\": ...}"))
        elif isinstance(args, dict):
            add(Problem(line, "args-object",
                        f"tool_calls[{position}].args is a nested object; serialize it to a string with "
                        "json.dumps(args)"))
        else:
            add(Problem(line, "args-object",
                        f"tool_calls[{position}].args must be a string holding a JSON object, not {_kind(args)}"))


def _tool_link(rules: _Rules, record: dict, line: int) -> None:
    """``tool-link`` (seed, Letta): each tool record answers a tool call made earlier in the file.
    Letta rejects a result whose call is nowhere; the seed also one that comes before its call. A
    result whose call has not come yet is judged at the end of the file (``_late_calls``)."""
    call_id = record.get("tool_call_id")
    if call_id == "":
        rules.problems.append(
            Problem(line, "tool-link", "tool_call_id is empty; set it to the id of the tool call this result answers"))
    elif isinstance(call_id, str) and call_id not in rules.call_lines:
        rules.unlinked.append((line, call_id))


def _late_calls(rules: _Rules) -> None:
    """``tool-link`` (seed, Letta), for the results whose call had not come when they did: their call
    comes later in the file, or nowhere. Said after every other problem of their line, which is
    their place in ``RECORD_RULES``' order: no rule after ``tool-link`` judges such a result."""
    for line, call_id in rules.unlinked:
        first = rules.call_lines.get(call_id)
        if first is None:
            rules.problems.append(Problem(line, "tool-link",
                                          f"tool result for {_short(call_id)} matches no earlier tool call; "
                                          "fix the id or drop the orphan result"))
        else:
            rules.problems.append(Problem(line, "tool-link",
                                          f"tool result for {_short(call_id)} comes before its call on line {first}; "
                                          "a result must follow the assistant record that made the call"))


def _duplicate_result(rules: _Rules, record: dict, line: int) -> None:
    """``duplicate-result`` (cleaner), a warning: each tool call has at most one result. Neither the
    schema nor Letta forbids a second; trajectory-cleaner advises against it."""
    call_id = record.get("tool_call_id")
    if not isinstance(call_id, str) or call_id not in rules.call_lines:
        return  # no call before this result: tool-link's to say
    first = rules.answered.setdefault(call_id, line)
    if first != line:
        rules.problems.append(Problem(line, "duplicate-result",
                                      f"a second result for tool call {_short(call_id)} (the first is on line "
                                      f"{first}); keep one result per call", "warning"))


def _meta_missing(rules: _Rules) -> None:
    """``meta-first`` (seed, Letta), of the file as a whole: it has a meta record at all (when line 1
    holds another record, ``_line_one`` has said so there)."""
    if not rules.metas and not rules.line_one:
        rules.problems.append(Problem(None, "meta-first", f"the file has no meta record; put {_META_EXAMPLE} on line 1"))


def _no_user(rules: _Rules) -> None:
    """``no-user`` (Letta): the session has a user record; a warning with ``partial``, as Letta's
    ``validateTranscript(records, {partial: true})`` accepts a session without one."""
    if not rules.has_user:
        _missing_role(rules, "no-user", "user", "the request or trigger that started the run")


def _no_assistant(rules: _Rules) -> None:
    """``no-assistant`` (Letta): the session has an assistant record; a warning with ``partial``, as
    Letta's ``validateTranscript(records, {partial: true})`` accepts a session without one."""
    if not rules.has_assistant:
        _missing_role(rules, "no-assistant", "assistant", "the agent's reply or tool calls")


def _missing_role(rules: _Rules, rule: str, role: str, what: str) -> None:
    rules.problems.append(Problem(
        None, rule,
        f"the session has no {role} record, which {_LETTA} rejects (\"Transcript must contain at least one "
        f"{role} record\"); add {what}",
        "warning" if rules.partial else "error"))


#: The rules about records, in the order their problems on one line are reported (``_Rules.add``
#: calls them in this order, each on the records of its role).
RECORD_RULES: tuple[Callable[..., None], ...] = (
    _line_one,
    _meta_first,
    _meta_once,
    _meta_source,
    _timestamp,
    _assistant_content,
    _tool_calls,
    _tool_link,
    _late_calls,
    _duplicate_result,
)
#: The rules about the session as a whole, reported after every line's, in this order. They stay
#: quiet when a line could not be read: it may hold what looks missing.
SESSION_RULES: tuple[Callable[[_Rules], None], ...] = (
    _meta_missing,
    _no_user,
    _no_assistant,
)


def _extra_rules(records: list, lines: Sequence[int], complete: bool = True, partial: bool = False) -> list[Problem]:
    """The rules the schema cannot express, over a file's records (on ``lines``). With ``partial``
    (Letta's ``{partial: true}``), a session without a user or an assistant record is only a
    warning."""
    rules = _Rules(partial)
    add = rules.add
    for record, line in zip(records, lines):
        add(record, line)
    return rules.end(complete)


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------

_STRING_RE = re.compile(r'"(?:[^"\\]+|\\.)*"', re.DOTALL)
_JSON_WS = (" ", "\t", "\r", "\n")


def _is_compact(text: str) -> bool:
    if " " not in text and "\t" not in text and "\r" not in text:
        return True
    rest = _STRING_RE.sub("", text)
    return not any(ch in rest for ch in _JSON_WS)


def _parse_line(text: str) -> tuple[Any, list[str]]:
    duplicates: list[str] = []

    def hook(pairs: list[tuple[str, Any]]) -> dict:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    duplicates.append(key)
                seen.add(key)
        return obj

    return json.loads(text, object_pairs_hook=hook, parse_constant=_reject_constant), duplicates


#: The largest file ``check_file`` reads (``validate --max-size`` changes it): past it a file is one
#: ``unreadable`` problem, not read. A session file of a gibibyte is far beyond any real one.
MAX_FILE_BYTES = 1 << 30
#: The longest line ``check_file`` reads; a longer one is an ``unreadable`` problem on its line and
#: the lines after it are still read. Memory stays a few times this, whatever the file holds.
MAX_LINE_BYTES = 64 << 20

_NOT_REGULAR = (
    (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
)


def size_text(count: int) -> str:
    """``1 GiB``, ``64 MiB``, ``900 bytes``: a limit as people read it."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit}"
    return f"{count} bytes"


def not_regular(mode: int) -> str | None:
    """What a file is when it is not a regular file (``a FIFO``, ``a character device``), else None:
    reading a FIFO blocks forever and reading /dev/zero never ends, so only regular files are read."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in _NOT_REGULAR:
        if test(mode):
            return kind
    return "not a regular file"


def _unreadable(message: str) -> list[Problem]:
    return [Problem(None, "unreadable", message)]


def _open_regular(path: "str | os.PathLike[str]", max_bytes: int) -> tuple[Any, list[Problem]]:
    """(binary stream, []) for a regular file within ``max_bytes``, else (None, the one problem).
    The path is stat'ed before it is opened (opening a device can have effects) and the open file
    again (it may have been swapped meanwhile); O_NONBLOCK makes opening a FIFO return at once."""
    try:
        kind = not_regular(os.stat(path).st_mode)
        if kind is None:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
            info = os.fstat(fd)
            kind = not_regular(info.st_mode)
            if kind is not None:
                os.close(fd)
    except OSError as exc:
        return None, _unreadable(f"cannot read the file ({exc.strerror or exc}); check the path and permissions")
    if kind is not None:
        return None, _unreadable(f"not a regular file ({kind}); give a .jsonl file")
    if info.st_size > max_bytes:
        os.close(fd)
        return None, _unreadable(_too_big(info.st_size, max_bytes))
    return os.fdopen(fd, "rb"), []


def _too_big(size: "int | str", max_bytes: int) -> str:
    return (f"the file is {size} bytes, over the {max_bytes}-byte limit ({size_text(max_bytes)}); it was not "
            "read: split the session, or raise the limit (validate --max-size)")


def _raw_lines(stream: Any, max_line: int, max_bytes: int) -> Any:
    """(line number, bytes without the newline, or None when the line is over ``max_line``) for each
    line of ``stream``, reading at most ``max_line`` + 1 bytes at a time. Raises _TooBig past
    ``max_bytes`` (a file that grew after it was measured)."""
    total = 0
    number = 0
    while True:
        raw = stream.readline(max_line + 1)
        if not raw:
            return
        number += 1
        total += len(raw)
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        elif len(raw) > max_line:
            while raw and not raw.endswith(b"\n"):  # the rest of the line, a piece at a time
                raw = stream.readline(1 << 20)
                total += len(raw)
                if total > max_bytes:
                    raise _TooBig(total)
            raw = None
        if total > max_bytes:
            raise _TooBig(total)
        yield number, raw


class _TooBig(Exception):
    """The file grew past the size limit while it was read."""


def check_file(path: "str | os.PathLike[str]", validator: TrajectoryValidator, *,
               max_bytes: int = MAX_FILE_BYTES, max_line: int = MAX_LINE_BYTES) -> list[Problem]:
    """Check one trajectory-v1 JSONL file. Never raises on bad content, never blocks: only a regular
    file within ``max_bytes`` is read, a line at a time (a line over ``max_line`` is a problem on its
    line), and with a schema judged record by record (``TrajectoryValidator.judge``) no record is
    held once judged, so memory stays a few lines' worth, whatever the file holds."""
    stream, problems = _open_regular(path, max_bytes)
    if stream is None:
        return problems
    reading = _Reading(validator)
    try:
        with stream:
            if stream.peek(2)[:2] == _GZIP_MAGIC:
                return _unreadable("the file is gzip-compressed; Lerim reads plain .jsonl files: decompress it "
                                   "(gunzip -k FILE.jsonl.gz) and validate the .jsonl")
            for number, raw in _raw_lines(stream, max_line, max_bytes):
                reading.line(number, raw, max_line)
    except _TooBig as exc:
        return _unreadable(_too_big(f"over {exc.args[0]}", max_bytes))
    except OSError as exc:
        return _unreadable(f"cannot read the file ({exc.strerror or exc}); check the path and permissions")
    return reading.end()


_GZIP_MAGIC = b"\x1f\x8b"


class _Reading:
    """One file's lines as they come: the problems of each line, and its record handed to the
    validator's ``Judge`` (or kept for ``_check`` when the schema needs the whole list)."""

    def __init__(self, validator: TrajectoryValidator) -> None:
        self.validator = validator
        self.judge = validator.judge()
        self.records: list[Any] = []
        self.lines: list[int] = []
        self.problems: list[Problem] = []
        self.non_blank = 0
        self.unreadable_lines = 0

    def line(self, number: int, raw: "bytes | None", max_line: int) -> None:
        problems = self.problems
        if number == 1 and raw is not None and raw.startswith(b"\xef\xbb\xbf"):
            problems.append(Problem(1, "bom",
                                    "the file starts with a byte order mark (BOM); write UTF-8 without one "
                                    "(Python: encoding=\"utf-8\", not \"utf-8-sig\")"))
            raw = raw[3:]
        if raw is None:
            self.non_blank += 1
            self.unreadable_lines += 1
            problems.append(Problem(number, "unreadable",
                                    f"the line is longer than the {max_line}-byte limit ({size_text(max_line)}); "
                                    "it was not read: a record this long is not one a reader can use — "
                                    "truncate the long field (a cleaner's privacy.truncate)"))
            return
        record = _read_line(number, raw, problems)
        if record is _BLANK:
            return
        if record is _WHITESPACE:
            self.unreadable_lines += 1
            return
        self.non_blank += 1
        if record is _UNREADABLE:
            self.unreadable_lines += 1
            return
        if self.judge is not None:
            self.judge.add(record, number)
        else:
            self.records.append(record)
        self.lines.append(number)

    def end(self) -> list[Problem]:
        problems = self.problems
        if self.non_blank == 0:
            problems.append(Problem(None, "empty-file",
                                    "the file has no records; a trajectory needs at least the meta record "
                                    f"{_META_EXAMPLE} on line 1"))
            return _sorted(problems)
        complete = self.unreadable_lines == 0
        if self.judge is not None:
            if self.lines:
                problems.extend(self.judge.end(complete))
        elif self.records:
            problems.extend(self.validator._check(self.records, self.lines, complete=complete))
        return _sorted(problems)


_BLANK = object()
_UNREADABLE = object()
_WHITESPACE = object()  # a line of only whitespace: unreadable, yet no record (the file may be empty)


def _read_line(number: int, raw: bytes, problems: list[Problem]) -> Any:
    """The record on one line (its problems appended), or _BLANK, _WHITESPACE or _UNREADABLE."""
    if not raw:
        problems.append(Problem(number, "blank-line",
                                "an empty line; Letta's reader skips it, but remove it (one record per line, "
                                "no padding lines)", "warning"))
        return _BLANK
    if not raw.strip(b" \t\r"):
        what = "a lone carriage return: a CRLF file's blank line" if raw == b"\r" else "spaces or tabs"
        problems.append(Problem(number, "json",
                                f"a line of only whitespace is not JSON (here {what}); JSON-lines readers that "
                                "skip only empty lines fail on it, Letta's validator among them: remove the line"))
        return _WHITESPACE
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(number, "utf8",
                                f"byte {exc.start + 1} of this line ({raw[exc.start:exc.start + 1]!r}) is not "
                                "valid UTF-8; write the file as UTF-8"))
        return _UNREADABLE
    try:
        record, duplicates = _parse_line(text)
    except json.JSONDecodeError as exc:
        hint = ""
        if text.strip() in ("{", "[") or text.rstrip().endswith(","):
            hint = "; the file looks pretty-printed — write one compact object per line"
        elif exc.msg == "Extra data" and text.lstrip().startswith("{"):
            hint = "; only one JSON object may be on a line"
        problems.append(Problem(number, "json", f"not valid JSON ({exc.msg} at column {exc.colno}){hint}"))
        return _UNREADABLE
    except ValueError as exc:  # NaN / Infinity
        problems.append(Problem(number, "json", f"not valid JSON ({exc}); JSON has no NaN or Infinity"))
        return _UNREADABLE
    except RecursionError:
        problems.append(Problem(number, "json", "the JSON is nested too deeply to read"))
        return _UNREADABLE
    if duplicates:
        names = ", ".join(repr(k) for k in dict.fromkeys(duplicates))
        problems.append(Problem(number, "duplicate-key",
                                f"key {names} appears twice in one object; keep only one"))
    if not _is_compact(text):
        problems.append(_not_compact(number, text))
    return record


def _not_compact(number: int, text: str) -> Problem:
    if "\r" in text[:-1]:  # JSON strings cannot hold a raw CR: this one is outside them
        return Problem(number, "line-break",
                       "a carriage return inside the line; JSON takes it for whitespace (Letta's validator "
                       "accepts it), but Python's text readers end the line there, so the record is no "
                       "longer on one line (Lerim cites evidence by line number) — write compact JSON with "
                       "\\n line endings only", "warning")
    if text.endswith("\r"):
        return Problem(number, "compact-line",
                       "the line ends with a carriage return (CRLF); JSON-lines readers accept it, "
                       "but write \\n line endings (open the output with newline=\"\\n\")",
                       "warning")
    return Problem(number, "compact-line",
                   "whitespace outside strings (JSON-lines readers accept it, but Lerim asks "
                   "for one compact object per line); write e.g. json.dumps(record, "
                   "separators=(\",\", \":\"), ensure_ascii=False)", "warning")
