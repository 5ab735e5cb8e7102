"""Kinds that keep tool calls (or their results) in a list inside each record.

Why: a chat message with ``tool_calls`` beside its text, a model-response event with
``output: {reasoning, text, tool_calls}``, an AutoGen event whose ``content`` is a list of
calls: the planner in ``core`` reads one content field per kind, so on such formats it kept the
text and lost every call (or the reverse). This rule, run after the planner, rewrites those
kinds as ``emit`` rules - reasoning, then text, then the calls - and links the results that
answer those calls by their ids, wherever the results keep them.

Contract: ``adopt_call_lists(draft)`` changes the plans of kinds whose records hold a call list
(``calls.find_call_lists``) into assistant kinds with ``emit``, and the plans of kinds whose
records answer those calls (a field holding their ids, or a list of results) into tool results
linked by id. Each change is a decision with evidence; answered decisions are respected.
"""

from __future__ import annotations

from typing import Any

from generator.infer.calls import CallList, args_value, find_call_lists, find_result_lists, norm
from generator.infer.draft import Draft
from generator.infer.fields import kind_names
from generator.infer.item_parts import item_ok, item_result, item_time, thought_list
from generator.infer.links import constant_within_sessions
from generator.inspect import dotted, get, mapping_path, session_key

REASONING_KEYS = {"reasoning", "reasoning_content", "thinking", "thought", "thoughts", "rationale", "reflection",
                  "scratchpad", "analysis", "chain_of_thought"}
TEXT_KEYS = ("content", "text", "message", "body", "reply", "response", "answer", "output_text", "completion",
             "final_answer", "contents")
SKIPPED_BY_NAME = ("skip", "system", "meta")


def typed_text(value: Any) -> bool:
    """A list of typed content blocks holding text (``[{type: text, text}]``): the emit reads it as blocks."""
    return isinstance(value, list) and bool(value) and all(isinstance(b, dict) and "type" in b for b in value) \
        and any(isinstance(b.get("text"), str) and b["text"].strip() for b in value)


def _siblings(records: list[dict], calls: CallList) -> tuple[tuple | None, tuple | None]:
    """The reasoning and text fields beside the call list (in the object that holds it): a string, or
    a list of typed text blocks (OpenInference's ``contents``)."""
    parent = calls.path[:-1]
    reasoning: dict[str, int] = {}
    text: dict[str, int] = {}
    for record in records:
        holder = get(record, parent) if parent else record
        if not isinstance(holder, dict):
            continue
        for key, value in holder.items():
            if key == calls.path[-1] or not (isinstance(value, str) and value.strip() or typed_text(value)):
                continue
            if norm(key) in REASONING_KEYS:
                reasoning[key] = reasoning.get(key, 0) + 1
            elif norm(key) in TEXT_KEYS:
                text[key] = text.get(key, 0) + 1
    best_reasoning = max(reasoning, key=reasoning.__getitem__) if reasoning else None
    best_text = min(text, key=lambda k: TEXT_KEYS.index(norm(k))) if text else None
    return ((*parent, best_reasoning) if best_reasoning else None), ((*parent, best_text) if best_text else None)


def _same_text(records: list[dict], a: tuple, b: tuple) -> bool:
    """Whether two fields hold the same text in (nearly) every record holding both."""
    pairs = [(get(r, a), get(r, b)) for r in records]
    both = [(x, y) for x, y in pairs if isinstance(x, str) and isinstance(y, str) and x.strip() and y.strip()]
    return bool(both) and sum(x.strip() == y.strip() for x, y in both) >= 0.8 * len(both)


def _calls_entry(records: list[dict], calls: CallList) -> dict:
    """The calls of a list; an exchange when each item also keeps its own result (with the item's
    outcome and time, where it has them)."""
    result = item_result(records, calls.path, tuple(p for p in (calls.tool_name, calls.args, calls.call_id) if p))
    entry: dict[str, Any] = {"as": "tool_exchange" if result else "tool_call", "each": mapping_path(calls.path)}
    if calls.call_id:
        entry["call_id"] = mapping_path(calls.call_id)
    entry["tool_name"] = mapping_path(calls.tool_name)
    if calls.args:
        entry["args"] = mapping_path(calls.args)
    if result:
        entry["content"] = mapping_path(result)
        if (ok := item_ok(records, calls.path)) is not None:
            entry["ok"] = ok
    if (time := item_time(records, calls.path)) is not None:
        entry["timestamp"] = mapping_path(time)
    return entry


def _thoughts_entry(records: list[dict], path: tuple, fields: tuple) -> dict:
    """One reasoning record per thought object, its text fields joined by a newline, at its own time."""
    entry: dict[str, Any] = {"as": "reasoning", "each": mapping_path(path),
                             "field": fields[0] if len(fields) == 1 else {"join": list(fields), "sep": "\n"}}
    if (time := item_time(records, path)) is not None:
        entry["timestamp"] = mapping_path(time)
    return entry


def _emit_for(records: list[dict], lists: list[CallList]) -> tuple[list[dict], str]:
    emit: list[dict] = []
    said: list[str] = []
    for calls in lists:
        reasoning, text = _siblings(records, calls)
        if reasoning and text and _same_text(records, reasoning, text):
            reasoning = None  # SWE-agent's `thought` is its `content`: one text, written once, as the message
        thoughts = None if reasoning else thought_list(records, calls.path[:-1], REASONING_KEYS)
        if reasoning:
            emit.append({"as": "reasoning", "field": mapping_path(reasoning)})
            said.append(f"reasoning `{dotted(reasoning)}`")
        elif thoughts:
            emit.append(_thoughts_entry(records, *thoughts))
            said.append(f"a reasoning record for each of `{dotted(thoughts[0])}`")
        if text:
            emit.append({"as": "text", "field": mapping_path(text)})
            said.append(f"text `{dotted(text)}`")
        emit.append(_calls_entry(records, calls))
        said.append(f"{calls.calls} call(s) in `{dotted(calls.path)}` (name `{dotted(calls.tool_name)}`"
                    + (f", arguments `{dotted(calls.args)}`" if calls.args else "") + ")")
    return emit, ", ".join(said)


def _as_thought(emit: list[dict]) -> list[list[dict]]:
    """The other reading of the text written beside calls: the thought before an action (SWE-agent's
    `thought`, a ReAct step's) is the model's text to some and its reasoning to others (Letta's
    OpenHands adapter writes an action's thought as reasoning). Offered, never searched: both write
    the same words, so no score tells them apart; the person says which their format means."""
    if not any(part.get("as") == "text" and "each" not in part for part in emit):
        return []
    return [[{**part, "as": "reasoning"} if part.get("as") == "text" and "each" not in part else part for part in emit]]


def _ok_of(records: list[dict], item_path: tuple) -> dict | None:
    """An item field that says whether a result failed (``is_error``) or succeeded."""
    for record in records:
        items = get(record, item_path)
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                for key, value in item.items():
                    if isinstance(value, bool) and norm(key) in ("is_error", "error", "failed", "has_error"):
                        return {"path": key, "negate": True}
                    if isinstance(value, bool) and norm(key) in ("success", "ok", "succeeded", "is_success"):
                        return {"path": key}
    return None


def _link_field(draft: Draft, plan: Any, ids: set[str]) -> tuple[tuple, float] | None:
    """The kind's field whose values are ids of the embedded calls (in most of its records)."""
    best = None
    for path, stat in plan.kind.stats.items():
        if any(isinstance(p, str) and p == "[]" for p in path) or len(path) > 3 or not stat.records:
            continue
        values = [(rec, get(rec.data, path)) for rec in plan.kind.recs]
        values = [(rec, v) for rec, v in values if isinstance(v, (str, int)) and not isinstance(v, bool)]
        if len(values) < 0.5 * plan.kind.count:
            continue
        share = sum(str(v) in ids for _, v in values) / len(values)
        if share < 0.8:
            continue
        if constant_within_sessions([(session_key(rec, draft.p.session), v) for rec, v in values]):
            continue
        if best is None or share > best[1]:
            best = (path, share)
    return best


def _arguments(records: list[dict], calls: CallList) -> dict[str, Any]:
    """Call id -> its arguments as an object (parsed when they are JSON text)."""
    out: dict[str, Any] = {}
    for record in records:
        for item in get(record, calls.path) or []:
            if not isinstance(item, dict) or calls.call_id is None:
                continue
            raw = get(item, calls.args) if calls.args else None
            args = args_value(raw)
            if isinstance(raw, str) and isinstance(args, str):
                continue  # text that is not JSON: nothing to compare by
            out[str(get(item, calls.call_id))] = args
    return out


def _repeats_calls(plan: Any, link: tuple, arguments: dict[str, Any]) -> bool:
    """Whether every record of the kind carries, beside a call's id, that call's arguments."""
    for rec in plan.kind.recs:
        wanted = arguments.get(str(get(rec.data, link)))
        if wanted is None or not any(value == wanted for value in rec.data.values()):
            return False
    return True


def _first_seen(plan: Any) -> tuple:
    return min((rec.file, rec.pos) for rec in plan.kind.recs)


def _repeated_by(plan: Any, lists: list[CallList], holders: list) -> str | None:
    """The kind whose records already list every call of ``plan`` (same id, same arguments) and
    come first in the samples: a run's summary event repeating the calls and their results."""
    own = {}
    for calls in lists:
        own.update(_arguments([rec.data for rec in plan.kind.recs], calls))
    if not own:
        return None
    for other, records, other_lists in holders:
        if other is plan or _first_seen(other) >= _first_seen(plan):
            continue
        theirs = {}
        for calls in other_lists:
            theirs.update(_arguments(records, calls))
        if all(key in theirs and theirs[key] == args for key, args in own.items()):
            return other.kind.key
    return None


def adopt_call_lists(draft: Draft) -> None:
    holders = []
    ids: set[str] = set()
    arguments: dict[str, Any] = {}
    for plan in draft.plans:
        names = kind_names(plan)
        if plan.role in ("meta", "tool_call", "tool_exchange") or (plan.role == "skip" and names
                                                                  and names[0] in SKIPPED_BY_NAME):
            continue
        records = [rec.data for rec in plan.kind.recs]
        lists = find_call_lists(records)
        if lists:
            holders.append((plan, records, lists))
            for calls in lists:
                ids |= set(calls.ids)
                arguments.update(_arguments(records, calls))
                draft.embedded_call_names = draft.embedded_call_names | {
                    item[calls.tool_name[0]] if len(calls.tool_name) == 1 else get(item, calls.tool_name)
                    for record in records for item in (get(record, calls.path) or []) if isinstance(item, dict)}
    for plan, records, lists in holders:
        key = f"kinds[{plan.kind.key}]"
        earlier = _repeated_by(plan, lists, holders)
        if earlier is not None:
            plan.role, plan.emit = "skip", []
            draft.forget(f"{key}.")
            draft.decide(f"{key}.role", "skip", 0.85,
                            f"{plan.kind.count} record(s) whose every call repeats one that {earlier} records "
                            "already list (the same id and arguments): a summary, skipped and counted")
            continue
        emit, said = _emit_for(records, lists)
        role = draft.redecide(f"{key}.role", "assistant", 0.9,
                                 f"{plan.kind.count} record(s) hold a list of tool calls: {said}; the assistant's")
        if role != "assistant":
            continue
        draft.forget(f"{key}.content")
        plan.role = "assistant"
        plan.emit = draft.decide(f"{key}.emit", emit, 0.9, f"written in order: {said}", _as_thought(emit))
    if not ids:
        return
    for plan in draft.plans:
        if any(plan is h[0] for h in holders) or plan.role in ("meta", "tool_call", "tool_exchange"):
            continue
        key = f"kinds[{plan.kind.key}]"
        records = [rec.data for rec in plan.kind.recs]
        results = find_result_lists(records, ids)
        if results:
            emit = []
            for found in results:
                entry: dict[str, Any] = {"as": "tool_result", "each": mapping_path(found.path),
                                         "result_link": mapping_path(found.link),
                                         "content": mapping_path(found.content or ("content",))}
                if found.tool_name:
                    entry["tool_name"] = mapping_path(found.tool_name)
                ok = _ok_of(records, found.path)
                if ok:
                    entry["ok"] = ok
                emit.append(entry)
            role = draft.redecide(f"{key}.role", "tool_result", 0.9,
                                     f"{plan.kind.count} record(s) hold a list of results whose "
                                     f"`{dotted(results[0].link)}` values are ids of earlier calls")
            if role == "tool_result":
                draft.forget(f"{key}.content")
                plan.role = "tool_result"
                plan.emit = draft.decide(f"{key}.emit", emit, 0.9, "each result linked to its call by id")
            continue
        if plan.role == "skip" and kind_names(plan) and kind_names(plan)[0] in SKIPPED_BY_NAME:
            continue
        link = _link_field(draft, plan, ids)
        if link is None or (plan.role == "tool_result" and plan.result_link == link[0]):
            continue
        if _repeats_calls(plan, link[0], arguments):
            draft.skip(plan, f"{plan.kind.count} record(s) that repeat calls already written (the same id and "
                          "arguments): skipped and counted")
            continue
        content = plan.content or plan.output or [p for _, p, _ in plan.text_fields[:1]]
        if not content:
            continue
        role = draft.redecide(f"{key}.role", "tool_result", 0.95,
                                 f"{plan.kind.count} record(s): {link[1]:.0%} of `{dotted(link[0])}` values are ids "
                                 "of the calls listed in earlier records")
        if role != "tool_result":
            continue
        plan.role, plan.result_link, plan.content = "tool_result", link[0], list(content)
        draft.redecide(f"{key}.content", [mapping_path(p) for p in plan.content], 0.9,
                          f"output in `{dotted(plan.content[0])}`")
        draft.decide(f"{key}.result_link", mapping_path(link[0]), 0.95, "the id of the call it answers")
