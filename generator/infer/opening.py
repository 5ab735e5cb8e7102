"""The session's opening request, read from the fields of the document around the record list.

Why: a ticket export keeps the customer's request as the ticket's ``subject`` and
``description``, beside its ``comments``; a trace export keeps the user's input as the trace's
``input``, beside its observations. Mapping only the records drops that request (a prose field
the samples hold), and a ticket whose first comment repeats the description would say it twice
if both were written. The seed's guidance: the trigger becomes the first user record.

Contract: ``document_opening(draft)`` -> the ``session.opening`` entries (empty when nothing
applies) and, in ``draft.opening_rules``, a skip rule for records whose text repeats one of the
fields the opening writes. The fields: strings of the document (at most two keys deep, not in a
list) that hold prose in every document, are named like a request (``subject``, ``description``,
``input.message``, ``task``, ``question``; not a title, which names a conversation rather than
saying anything, and not an output), are not a bare link, and do not repeat an earlier field
(``raw_subject``). Several are joined in document order, a blank line apart. The opening's
time is the document's time field of the records' time field's name, else none.
"""

from __future__ import annotations

from typing import Any

from cleaner_runtime.shapes import decoded
from generator.infer.calls import norm
from generator.infer.crosscheck import _kept_text
from generator.infer.document import document_key, envelopes
from generator.infer.draft import Draft
from generator.infer.losses import _squash, _windows, is_prose, prose_fields
from generator.inspect import LIST, dotted, get, mapping_path, profile_fields, time_name_rank

REQUEST_WORDS = {"subject", "description", "question", "task", "prompt", "input", "inputs", "query", "request",
                 "message", "problem", "issue", "instruction", "instructions", "goal", "body", "text"}
NOT_REQUEST_WORDS = {"title", "name", "output", "outputs", "answer", "response", "reply", "result", "summary",
                     "error", "status", "url", "link", "system"}


def _request_named(path: tuple) -> bool:
    names = {w for key in path for w in norm(key).split("_")}
    return bool(names & REQUEST_WORDS) and not names & NOT_REQUEST_WORDS


def _strings(document: dict) -> list[tuple[tuple, str]]:
    """(path, text) of the document's strings, two keys deep at most, in document order."""
    out = []
    for key, value in document.items():
        if isinstance(value, str):
            out.append(((key,), value))
        elif isinstance(value, dict):
            out.extend(((key, inner), text) for inner, text in value.items() if isinstance(text, str))
    return out


def request_fields(documents: list[dict]) -> list[tuple]:
    """The document fields that hold the session's request, in document order (see the contract)."""
    if not documents:
        return []
    chosen: list[tuple] = []
    for path, text in _strings(documents[0]):
        if not _request_named(path):
            continue
        values = [get(doc, path) for doc in documents]
        if not all(isinstance(v, str) and is_prose(v) and not v.strip().startswith(("http://", "https://"))
                   and decoded(v) is v for v in values):  # a string of JSON is a payload, not a request
            continue
        if any(all(_squash(get(doc, path)) == _squash(get(doc, other)) for doc in documents) for other in chosen):
            continue  # the same text under another name (raw_subject beside subject)
        chosen.append(path)
    return chosen


def _opening_time(draft: Draft, documents: list[dict]) -> tuple | None:
    """The document's time: the field named as the records' time field, else the one named most
    like a time of creation (``timestamp``, ``created_at``)."""
    stats = profile_fields(documents)
    names = {norm(t.path[-1]) for t in draft.p.times[:1]}
    found = []
    for path, stat in stats.items():
        fmt, share = stat.time_format()
        if LIST not in path and len(path) == 1 and stat.records == len(documents) and fmt and share >= 0.8:
            found.append((norm(path[-1]) not in names, time_name_rank(path), path))
    return min(found)[2] if found else None


def document_opening(draft: Draft) -> list[dict]:
    documents = envelopes(draft)
    fields = request_fields(documents)
    if not fields:
        return []
    doc = document_key(draft)
    paths = [mapping_path((doc, *f)) for f in fields]
    entry: dict[str, Any] = {"as": "text", "role": "user",
                             "field": paths[0] if len(paths) == 1 else {"join": paths, "sep": "\n\n"}}
    when = _opening_time(draft, documents)
    if when:
        entry["timestamp"] = mapping_path((doc, *when))
    shown = ", ".join(f"`{dotted(f)}`" for f in fields)
    draft.decide("session.opening", [entry], 0.85,
                    f"{shown} beside the records of every document hold the request: the session's first user record")
    draft.document_used.extend(f"`{dotted(f)}`" for f in fields)
    for plan in draft.plans:
        if plan.role in ("skip", "meta") or plan.emit or not plan.content or not isinstance(plan.content[0], tuple):
            continue
        content = plan.content[0]
        for field in fields:
            if all(any(_squash(str(get(rec.data, content) or "")) == _squash(get(document, field))
                       for rec in plan.kind.recs if rec.envelope is document) for document in documents):
                draft.opening_rules.append({
                    "name": f"a record repeating the document's {dotted(field)} (written by the opening)",
                    "same": {mapping_path(content): mapping_path((doc, *field))}, "role": "skip"})
                draft.decide(f"kinds[{plan.kind.key}].same", {dotted(content): dotted((doc, *field))}, 0.85,
                                f"in every document one record's `{dotted(content)}` repeats `{dotted(field)}`, "
                                "which the opening writes: that record is skipped")
                if all(_squash(str(get(rec.data, content) or "")) == _squash(get(rec.envelope, field))
                       for rec in plan.kind.recs):  # every record repeats it (an agent run's input): nothing left
                    draft.skip(plan, f"every record's `{dotted(content)}` repeats `{dotted(field)}`, which the "
                                  "opening writes")
                break
    _repeating_kinds(draft, fields)
    return [entry]


def _repeating_kinds(draft: Draft, fields: list[tuple]) -> None:
    """A kind whose every text repeats the request or what other kinds write (an agent run's span:
    its input the request, its output the last reply) says nothing new once the opening is written."""
    for plan in draft.plans:
        if plan.role in ("skip", "meta") or plan.emit:
            continue
        kept = _kept_text(draft, None, besides=plan)
        texts = [(rec, text) for rec in plan.kind.recs for _, text in prose_fields(rec.data)]
        if not texts or not all(any(_squash(text) == _squash(get(rec.envelope, f)) for f in fields)
                                or all(w in kept for w in _windows(text)) for rec, text in texts):
            continue
        if not any(_squash(text) == _squash(get(rec.envelope, f)) for rec, text in texts for f in fields):
            continue  # repeats alone are crosscheck.repeats_as_skip's to judge
        draft.skip(plan, f"{plan.kind.count} record(s) whose texts repeat the request the opening writes and "
                      "what other kinds write (a run's input and its last reply)")
