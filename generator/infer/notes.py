"""Internal notes among a kind's messages: an agent's private note is reasoning, not a reply.

Why: helpdesk exports mark notes the customer never saw with a flag on the message itself
(``internal: yes``, ``public: false``, ``is_private: true``); read as replies, an agent's
deliberation ("refund allowed under policy R-2") would pose as something said to the customer.
The seed asks to keep such deliberation as reasoning.

Contract: ``note_flag(records)`` -> ``(key, values)`` when a top-level flag marks some records of a
kind as internal (the raw values that mean internal, as written: ``"yes"``, ``True``), else None.
A flag marks notes only when both states occur in the kind's records or across the samples.
"""

from __future__ import annotations

from typing import Any

from generator.infer.calls import norm

NOTE_FLAGS = {"internal", "is_internal", "private", "is_private", "internal_note", "is_note", "note"}
PUBLIC_FLAGS = {"public", "is_public", "customer_visible", "visible_to_customer", "is_visible"}
TRUE = {"yes", "y", "true", "1", "x"}
FALSE = {"no", "n", "false", "0", ""}


def _state(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in TRUE:
        return True
    if isinstance(value, str) and value.strip().lower() in FALSE:
        return False
    return None


def note_flag(records: list[dict], all_records: list[dict] | None = None) -> tuple[str, list] | None:
    for key in dict.fromkeys(k for record in records for k in record):
        name = norm(key)
        if name not in NOTE_FLAGS and name not in PUBLIC_FLAGS:
            continue
        states = [(_state(r.get(key)), r.get(key)) for r in records if key in r]
        if not states or any(state is None for state, _ in states):
            continue
        internal = name in NOTE_FLAGS  # the value that marks a note: true for `internal`, false for `public`
        marked = [raw for state, raw in states if state is internal]
        everywhere = [_state(r.get(key)) for r in (all_records or records) if key in r]
        if marked and (not internal) in everywhere:
            return key, sorted(set(marked), key=repr)
    return None
