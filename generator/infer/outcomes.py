"""How a tool result says it failed, and where its text is when it failed.

Why: formats state a tool's outcome in many ways - a boolean (``is_error``, ``success``), a
status word (``status: success``), an exit code, an HTTP status, or only by carrying an
``error`` field - and a failed result often has its text in that error field instead of the
usual output. A mapping that reads only the output drops those texts; one that ignores the
outcome loses the ``ok`` that Letta's consumers use.

Contract: ``outcome(records, taken)`` -> the ``ok`` spec (docs/mapping.md) the records support,
or None; ``error_text(records, content)`` -> a field holding text where the content field is
absent (to read after it), or None. ``records`` are the raw records of one result kind; fields
are found by their values (bool, status words, codes) and confirmed by their names, a record's own
fields first, then fields of nested objects (up to four deep); error-presence fields only at the top.
"""

from __future__ import annotations

from typing import Any

from generator.infer.calls import norm

BOOL_FAILED = {"is_error", "error", "failed", "failure", "has_error", "errored"}
BOOL_OK = {"success", "succeeded", "ok", "passed", "is_success"}
STATUS_KEYS = {"status", "state", "outcome", "result_status", "conclusion"}
OK_WORDS = {"success", "succeeded", "ok", "done", "completed", "complete", "passed", "pass"}
# words that say a step ended, not how: success only where the same field also says failure
# (`completed` beside `failed`); a field that only ever says `completed` (a Responses item, a codex
# call) records no outcome, as Letta's adapters read it
LIFECYCLE_WORDS = {"done", "completed", "complete", "finished"}
FAILED_WORDS = {"error", "failed", "failure", "fail", "errored", "timeout", "timed_out", "cancelled", "canceled",
                "aborted", "denied", "rejected"}
EXIT_KEYS = {"exit_code", "exitcode", "return_code", "returncode", "rc", "exit_status"}
HTTP_KEYS = {"status", "status_code", "http_status", "http_code", "response_status", "code"}
ERROR_KEYS = {"error", "error_message", "err", "exception", "failure", "error_text"}
# a span's status line (Langfuse's statusMessage): the error text where the output is absent
ERROR_TEXT_KEYS = ERROR_KEYS | {"status_message", "status_description"}
LEVEL_KEYS = {"level", "severity", "log_level", "levelname"}
LEVEL_FAILED = {"error", "fatal", "critical", "err"}


def success_values(values) -> list[str]:
    """The values of a status field that say the call succeeded, sorted; [] when none does, or when
    every value only says the step ended (``LIFECYCLE_WORDS``)."""
    seen = {v for v in values if isinstance(v, str)}
    wins = sorted(v for v in seen if norm(v) in OK_WORDS)
    said = {norm(v) for v in seen}
    if not wins or (said & OK_WORDS <= LIFECYCLE_WORDS and not said & FAILED_WORDS):
        return []
    return wins


def _fields(record: dict, prefix: str = "", depth: int = 4) -> dict[str, Any]:
    """Every field of a record by dotted path, objects entered (lists not), up to ``depth`` deep:
    a status may sit in a nested object (ChatGPT's ``metadata.aggregate_result.status``)."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        path = f"{prefix}{key}"
        out[path] = value
        if isinstance(value, dict) and depth > 1:
            out.update(_fields(value, f"{path}.", depth - 1))
    return out


def _values(records: list[dict], key: str) -> list[Any]:
    return [record[key] for record in records if key in record and record[key] is not None]


def outcome(records: list[dict], taken: set[str] = frozenset()) -> dict | None:
    records = [_fields(record) for record in records]
    keys = [k for k in dict.fromkeys(k for record in records for k in record)
            if not any(k == t or k.startswith(f"{t}.") for t in taken)]
    keys.sort(key=lambda k: k.count("."))  # a record's own fields before nested ones
    for key in keys:
        values = _values(records, key)
        name = norm(key.rsplit(".", 1)[-1])
        if not values:
            continue
        if all(isinstance(v, bool) for v in values):
            if name in BOOL_FAILED:
                return {"path": key, "negate": True}
            if name in BOOL_OK:
                return {"path": key}
        if name in STATUS_KEYS and all(isinstance(v, str) for v in values):
            wins = success_values(values)
            if wins and {norm(v) for v in values} <= OK_WORDS | FAILED_WORDS:
                return {"path": key, "values": wins}
        if name in LEVEL_KEYS and all(isinstance(v, str) for v in values):
            failed = {v for v in values if norm(v) in LEVEL_FAILED}
            if failed and len(failed) < len(set(values)):  # a failed step logged at error level
                return {"path": key, "values": sorted(set(values) - failed)}
        if name in EXIT_KEYS and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return {"path": key, "values": [0]}
        if name in HTTP_KEYS and all(isinstance(v, int) and not isinstance(v, bool) and 100 <= v <= 599
                                     for v in values):
            return {"path": key, "range": [200, 399]}
    for key in keys:
        if "." not in key and norm(key) in ERROR_KEYS:
            held = [record.get(key) for record in records]
            if any(v not in (None, "", False) for v in held) and any(v in (None, "", False) for v in held):
                return {"path": key, "presence": True, "negate": True}
    return None


def error_text(records: list[dict], content: tuple) -> str | None:
    """A top-level error field (or status line) holding text in records whose content field holds nothing."""
    head = content[0] if content else None
    for key in dict.fromkeys(k for record in records for k in record):
        if norm(key) not in ERROR_TEXT_KEYS or key == head:
            continue
        if any(isinstance(record.get(key), str) and record[key].strip() and record.get(head) in (None, "", [], {})
               for record in records):
            return key
    return None
