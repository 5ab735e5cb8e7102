"""Cross-checks that make a confident decision unsure when the samples contradict it.

Why: calibrated confidence. The planner skips a kind as bookkeeping when it finds no text
field; a kind whose text sits in a list (a plan's ``steps``) or deeper holds prose all the same,
and skipping it loses a structure. A contradicted decision must not pass `--yes`.

Contract: ``prose_in_skipped_kinds(draft)``: for every kind skipped for having no text, if its
records hold prose, the kind is read as the text role its name gives (confidently, with the
prose field as its content), or asked about (the name says nothing).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from generator.infer.calls import norm
from generator.infer.draft import Draft
from generator.infer.fields import kind_names
from generator.infer.losses import _squash, _windows, prose_fields
from generator.inspect import dotted, get, mapping_path

GENERIC_SKIP = "with no text or tool fields"
REPLY_WORDS = {"answer", "answers", "output", "outputs", "response", "reply", "result", "completion", "final"}
# fields whose text explains an event rather than says something (a retry's reason, a status line)
DIAGNOSTIC = {"reason", "status", "status_message", "error", "message_id", "title", "name", "label", "summary",
              "detail", "details", "description", "hint", "level", "warning"}


def _content_path(pattern: str) -> tuple | None:
    """The path to read for a prose field pattern: ``steps.[]`` reads the list ``steps``."""
    parts = pattern.split(".")
    if "[]" in parts[:-1]:
        return None  # text inside a list of objects: no single path reads it
    return tuple(p for p in parts if p != "[]") or None


def _written_paths(plan: Any) -> list[tuple]:
    """The paths a kept kind writes text from: its content, its emit entries' fields (and lists)."""
    paths = [p for p in plan.content if isinstance(p, tuple)]
    for entry in plan.emit:
        field = entry.get("field") or entry.get("content")
        each = entry.get("each")
        if isinstance(each, str):
            paths.append(tuple(each.split(".")))  # calls: their arguments are in the list
        elif isinstance(field, str):
            paths.append(tuple(field.split(".")))
    return paths


def _kept_text(draft: Draft, document_key: str | None, besides: Any = None) -> str:
    """The text that kept kinds (but ``besides``) write, squashed, for repetition checks: read from
    the fields they write, not from everything their records hold (a model call's prompt repeats
    the question without writing it)."""
    texts: list[str] = []
    for plan in draft.plans:
        if plan.role in ("skip", "meta") or plan is besides:
            continue
        paths = _written_paths(plan) if plan.role in ("user", "assistant", "reasoning", "tool_result") else [()]
        for rec in plan.kind.recs:
            for path in paths:
                value = get(rec.data, path) if path else rec.data
                if isinstance(value, str):
                    texts.append(value)
                elif value is not None:
                    texts.extend(text for _, text in prose_fields(value, skip_key=document_key))
    return _squash("\n".join(texts))


def repeats_as_skip(draft: Draft) -> None:
    """A kind whose role is a guess and whose every text repeats what other kinds write (a run's
    closing summary repeating the last answer) is a repeat: skipped, with the reason."""
    for plan in draft.plans:
        if plan.role in ("skip", "meta") or plan.emit or draft.sure(plan):
            continue
        texts = [text for rec in plan.kind.recs for _, text in prose_fields(rec.data)]
        if not texts:
            continue
        kept = _kept_text(draft, None, besides=plan)
        if all(any(window in kept for window in _windows(text)) for text in texts):
            draft.skip(plan, f"{plan.kind.count} record(s) whose text repeats what "
                          "other kinds already write (a closing summary, an echo): skipped and counted")


def prose_in_skipped_kinds(draft: Draft) -> None:
    document_key = getattr(draft, "document_key_name", None)
    kept: str | None = None
    for plan in draft.plans:
        if plan.role != "skip" or GENERIC_SKIP not in plan.evidence:
            continue
        fields: Counter = Counter()
        texts: list[str] = []
        for rec in plan.kind.recs:
            found = [(pattern, text) for pattern, text in prose_fields(rec.data, skip_key=document_key)
                     if norm(pattern.rsplit(".", 1)[-1]) not in DIAGNOSTIC]
            fields.update({pattern for pattern, _ in found})
            texts.extend(text for _, text in found)
        if not fields:
            continue
        kept = _kept_text(draft, document_key) if kept is None else kept
        if all(any(window in kept for window in _windows(text)) for text in texts):
            plan.evidence += "; its text repeats what other kinds already write"
            continue
        pattern, n = fields.most_common(1)[0]
        path = _content_path(pattern)
        key = f"kinds[{plan.kind.key}]"
        names = kind_names(plan)
        role = next((r for r in names if r in ("user", "assistant", "reasoning")), None)
        why = f"{n} of {plan.kind.count} record(s) hold text in `{pattern}`"
        if role and path:
            plan.role, plan.content = role, [path]
            draft.redecide(f"{key}.role", role, 0.85, f"{why}; named like {role}")
            draft.redecide(f"{key}.content", [mapping_path(path)], 0.85, f"`{dotted(path)}` holds the text")
        else:
            draft.redecide(f"{key}.role", "skip", 0.5, f"{why}: skipping it would lose that text",
                              ["user", "assistant", "reasoning"])


def _texts(plan: Any, path: tuple) -> list[tuple[Any, str]]:
    out = []
    for rec in plan.kind.recs:
        value = get(rec.data, path)
        if isinstance(value, str) and value.strip():
            out.append((rec, value))
    return out


def streamed_results(draft: Draft) -> None:
    """A result kind whose every text is part of another result kind's output for the same call
    (streamed output deltas beside the command's end event) repeats it: skipped, with the reason."""
    results = [p for p in draft.plans if p.role == "tool_result" and p.result_link and p.content and not p.emit]
    for piece in results:
        for whole in results:
            if whole is piece:
                continue
            outputs: dict[str, str] = {}
            for rec, text in _texts(whole, whole.content[0]):
                link = get(rec.data, whole.result_link)
                outputs[str(link)] = outputs.get(str(link), "") + text
            pieces = [(get(rec.data, piece.result_link), text) for rec, text in _texts(piece, piece.content[0])]
            if pieces and all(_squash(text) in _squash(outputs.get(str(link), "")) for link, text in pieces):
                draft.skip(piece, f"{piece.kind.count} record(s) whose text is part of the output that "
                              f"{whole.kind.key} records give for the same call (streamed pieces): a repeat")
                break


_ELLIPSIS = ("...", "\u2026")


def _record_ids(plan: Any) -> dict[str, str]:
    """id value -> the text a kept text kind writes for that record (its content field)."""
    out: dict[str, str] = {}
    if plan.role not in ("user", "assistant", "reasoning") or plan.emit or not plan.content:
        return out
    for rec, text in _texts(plan, plan.content[0]):
        for key, value in rec.data.items():
            if isinstance(value, str) and (norm(key) == "id" or norm(key).endswith("_id")):
                out[value] = text
    return out


def streamed_messages(draft: Draft) -> None:
    """A text kind whose every record points (by a field holding a record id) at a message of another
    kind and whose text is a piece of that message's text (streaming chunks beside the final
    message) repeats it: skipped, with the reason. A piece may end in an ellipsis (a shortened
    preview); the rest of it must appear in the message."""
    for piece in draft.plans:
        if piece.role not in ("user", "assistant", "reasoning") or piece.emit or not piece.content \
                or draft.sure(piece):
            continue
        for whole in draft.plans:
            messages = _record_ids(whole) if whole is not piece else {}
            pieces = _texts(piece, piece.content[0])
            if not messages or not pieces:
                continue
            links = [key for key, value in pieces[0][0].data.items()
                     if isinstance(value, str) and value in messages and "id" in norm(key).split("_")]
            link = next((key for key in links if all(rec.data.get(key) in messages for rec, _ in pieces)), None)
            if link is None or not all(
                    _squash(text.rstrip().removesuffix(_ELLIPSIS[0]).removesuffix(_ELLIPSIS[1])) in
                    _squash(messages[rec.data[link]]) for rec, text in pieces):
                continue
            draft.skip(piece, f"{piece.kind.count} record(s) whose `{link}` names a {whole.kind.key} record and whose "
                          "text is a piece of that record's text (streamed chunks): a repeat")
            break


def _prose_paths(plan: Any) -> list[tuple]:
    """The paths (two keys deep, not in lists) that hold prose in the kind's records, in record order."""
    found: dict[tuple, int] = {}
    for rec in plan.kind.recs:
        for pattern, _ in prose_fields(rec.data):
            parts = tuple(pattern.split("."))
            if "[]" not in parts and len(parts) <= 2:
                found[parts] = found.get(parts, 0) + 1
    return list(found)


def trigger_as_user(draft: Draft) -> None:
    """No kind is the user's: the record that opens every session and holds prose (a run's task,
    a workflow's request) is the user record, as the seed's mapping guidance says."""
    if any((p.role == "user" and draft.sure(p)) or p.speaker
           or any(e.get("role") == "user" for e in p.emit) for p in draft.plans):
        return
    sessions = max(1, draft.p.session.sessions or 1)
    # a trigger opens its session once (a run's start event), unlike a speaker who opens and talks on
    openers = [p for p in draft.plans if p.kind.first_in_session >= sessions and p.kind.per_session_max == 1
               and not p.emit and (
        not draft.sure(p) or p.role in ("skip", "tool_call", "meta"))]
    for plan in openers:
        paths = _prose_paths(plan)
        if not paths or any(REPLY_WORDS & set(norm(".".join(p)).split("_")) for p in paths):
            continue  # nothing to say, or a run's request beside its answer: not a trigger alone
        key = f"kinds[{plan.kind.key}]"
        draft.forget(f"{key}.")
        draft.call_sites.discard(f"kind:{plan.kind.key}")
        plan.role, plan.content, plan.emit = "user", [paths[0]], []
        draft.decide(f"{key}.role", "user", 0.85,
                        f"{plan.kind.count} record(s), each opening its session, hold the request in "
                        + ", ".join(f"`{dotted(p)}`" for p in paths) + "; no other kind is the user's")
        if len(paths) > 1:
            plan.joined = draft.decide(f"{key}.content", {"join": [mapping_path(p) for p in paths], "sep": "\n\n"},
                                          0.85, "every text of the request, in order")
        else:
            draft.decide(f"{key}.content", [mapping_path(paths[0])], 0.85, f"the request in `{dotted(paths[0])}`")
        opened = {str(get(rec.data, path)) for rec in plan.kind.recs for path, st in plan.kind.stats.items()
                  if len(path) == 1 and isinstance(get(rec.data, path), str)}
        for other in draft.plans:
            if other.role == "tool_result" and other.result_link and all(
                    str(get(rec.data, other.result_link)) in opened for rec in other.kind.recs):
                other.role = "skip"
                okey = f"kinds[{other.kind.key}]"
                draft.forget(f"{okey}.")
                texts = [text for rec in other.kind.recs for _, text in prose_fields(rec.data)]
                kept = _kept_text(draft, None)
                repeats = all(any(w in kept for w in _windows(text)) for text in texts)
                draft.decide(f"{okey}.role", "skip", 0.85 if repeats else 0.6,
                                f"{other.kind.count} record(s) that refer to the request by "
                                f"`{dotted(other.result_link)}`, not to a tool call: the run's end"
                                + ("; its text repeats what other kinds write" if repeats else ""),
                                ["assistant"])
        return


def textless_messages(draft: Draft) -> None:
    """A kind named like a message whose records hold no text at all (a response's envelope with
    its usage and status) is bookkeeping, not an empty message: skipped, with the reason."""
    for plan in draft.plans:
        key = f"kinds[{plan.kind.key}]"
        content = next((d for d in draft.decisions if d.key == f"{key}.content"), None)
        if plan.role not in ("user", "assistant", "reasoning") or plan.emit or content is None \
                or content.evidence != "no text field found":
            continue
        if any(prose_fields(rec.data) for rec in plan.kind.recs):
            continue
        draft.skip(plan, f"{plan.kind.count} record(s) named like a message but holding "
                      "no text (ids, status, usage): bookkeeping, skipped and counted")
