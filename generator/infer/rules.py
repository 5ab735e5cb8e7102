"""The mapping's ``kinds`` rules, written from the kind plans.

Why: each kind becomes one rule (match, role, fields); skipped kinds that differ in one value
merge into one rule, so the mapping stays short enough to read.

Contract: ``kinds_section(draft)`` returns the rules in the order the runtime tries them.
"""

from __future__ import annotations

from typing import Any

from cleaner_runtime.mapping import dotted as match_key  # match keys are always dotted strings
from cleaner_runtime.mapping import paths_notation
from generator.infer.draft import Draft, KindPlan
from generator.infer.fields import kind_name_path
from generator.infer.notes import note_flag
from generator.inspect import Kind, dotted, mapping_path


def rule_name(plan: KindPlan) -> str:
    k = plan.kind
    label = " / ".join(k.names()[::-1]) if k.match else (
        "records with " + ", ".join(dotted(p) for p in k.has) if k.has else
        "records without " + ", ".join(dotted(p) for p in k.lacks) if k.lacks else "every record")
    return f"{label} ({plan.role.replace('_', ' ')})"


def _tool_name(plan: KindPlan) -> object:
    """Where a call's tool name is read. A kind named by its type alone names the tool by that type;
    one whose type says it is a call of something (the OpenAI Responses items `web_search_call`,
    Codex's `tool_search_call`) names that something: a call of `web_search`, as Letta's Codex
    adapter writes it."""
    path = plan.tool_name or kind_name_path(plan)
    value = dict(plan.kind.match).get(path)
    if isinstance(value, str) and value.endswith("_call") and len(value) > len("_call"):
        return {"value": value.removesuffix("_call")}
    return mapping_path(path)


def _beside_main(draft: Draft) -> list[dict]:
    """A native harness's rules for rows kept beside the main conversation (Claude Code's
    `isSidechain` rows): only when a sampled file holds both. A file of nothing but such rows is a
    subagent's own transcript, which Letta's adapter reads as the conversation."""
    out = []
    for rule in (draft.native_rules or {}).get("first_rules", []):
        [(key, value)] = rule["match"].items()
        by_file: dict[str, set] = {}
        for rec in draft.p.recs:
            by_file.setdefault(rec.file, set()).add(rec.data.get(key) == value)
        if any(seen == {True, False} for seen in by_file.values()):
            out.append(rule)
    return out


def collapse_skips(rules: list[dict]) -> list[dict]:
    """A skipped kind split further (``event=typing`` + ``by=bot``) is skipped whatever the finer value."""
    out: list[dict] = []
    for rule in rules:
        match = rule.get("match") or {}
        if rule["role"] == "skip" and len(match) > 1 and not rule.get("has") and not rule.get("lacks"):
            prefix = dict(list(match.items())[:-1])
            siblings = [r for r in rules if r is not rule and all(
                (r.get("match") or {}).get(k) == v for k, v in prefix.items())]
            if all(r["role"] == "skip" for r in siblings):
                merged = {**rule, "match": prefix}
                if any(r.get("match") == prefix for r in out):
                    continue
                out.append(merged)
                continue
        out.append(rule)
    return out


def merge_skips(rules: list[dict]) -> list[dict]:
    """Skipped kinds that differ only in the value of one field become one rule."""
    out: list[dict] = []
    for rule in rules:
        if rule["role"] == "skip" and rule.get("match") and not rule.get("has") and not rule.get("lacks"):
            keys = list(rule["match"])
            for prev in out:
                if prev["role"] != "skip" or prev.get("has") or prev.get("lacks") or list(prev.get("match", {})) != keys:
                    continue
                diff = [k for k in keys if prev["match"][k] != rule["match"][k] and not (
                    isinstance(prev["match"][k], list) and rule["match"][k] in prev["match"][k])]
                if len(diff) == 1:
                    k = diff[0]
                    values = prev["match"][k] if isinstance(prev["match"][k], list) else [prev["match"][k]]
                    prev["match"][k] = [*values, rule["match"][k]]
                    prev["name"] = "bookkeeping and noise (skip)"
                    break
            else:
                out.append(rule)
            continue
        out.append(rule)
    return out


def kind_rule(draft: Draft, plan: KindPlan) -> dict:
    k = plan.kind
    rule: dict[str, Any] = {"name": rule_name(plan)}
    if k.match:
        rule["match"] = {match_key(p): v for p, v in k.match}
    has = [mapping_path(p) for p in k.has]
    if not k.match and not k.has and k.lacks:
        extra = unique_key(draft, k)
        if extra:
            has.append(mapping_path(extra))
    if has:
        rule["has"] = has
    if k.lacks:
        rule["lacks"] = [mapping_path(p) for p in k.lacks]
    rule["role"] = plan.role
    if plan.timestamp and plan.role != "skip":
        rule["timestamp"] = [mapping_path(plan.timestamp)]
    if plan.emit:
        rule["emit"] = plan.emit
        return rule
    if plan.role in ("user", "assistant", "reasoning", "system", "observation", "tool_result", "tool_exchange"):
        rule["content"] = plan.joined or paths_notation(plan.content or [("content",)])
    if plan.role in ("tool_call", "tool_exchange"):
        if plan.call_id:
            rule["call_id"] = mapping_path(plan.call_id)
        rule["tool_name"] = _tool_name(plan)
        if plan.args:
            rule["args"] = mapping_path(plan.args)
            if plan.args_key:
                rule["args_key"] = plan.args_key
        if plan.reasoning:
            rule["reasoning"] = mapping_path(plan.reasoning)
    if plan.role == "tool_result" and plan.result_link:
        rule["result_link"] = mapping_path(plan.result_link)
        if plan.result_name:
            rule["tool_name"] = mapping_path(plan.result_name)
    elif plan.role == "tool_result" and plan.tool_name and plan.tool_name not in plan.content:
        rule["tool_name"] = mapping_path(plan.tool_name)  # no ids: the oldest waiting call of that tool
    if plan.role in ("tool_result", "tool_exchange") and plan.ok:
        rule["ok"] = plan.ok
    return rule


def unique_key(draft: Draft, k: Kind) -> tuple | None:
    mine = [key for key, st in k.stats.items() if len(key) == 1 and st.records == k.count]
    for key in mine:
        if all(not (o.stats.get(key) and o.stats[key].records) for o in draft.p.kinds if o is not k):
            return key
    return None


def kinds_section(draft: Draft) -> list[dict]:
    rules = []
    everything = [rec.data for rec in draft.p.recs]
    for plan in draft.plans:
        rule = kind_rule(draft, plan)
        flag = note_flag([rec.data for rec in plan.kind.recs], everything) \
            if plan.role in ("assistant", "user") and not plan.emit and "content" in rule else None
        if flag:
            key, values = flag
            draft.decide(f"kinds[{plan.kind.key}].notes", {key: values}, 0.85,
                         f"records with `{key}` {' / '.join(map(repr, values))} are internal notes: reasoning")
            match = {**rule.get("match", {}), mapping_path((key,)): values if len(values) > 1 else values[0]}
            rules.append({**rule, "name": f"{rule['name']}: internal note", "match": match, "role": "reasoning"})
        if plan.speaker:
            path, humans = plan.speaker
            match = {**rule.get("match", {}), match_key(path): humans if len(humans) > 1 else humans[0]}
            rules.append({**rule, "name": f"{rule['name']}: the user's", "match": match, "role": "user"})
        rules.append(rule)
    rules = collapse_skips(rules)
    rules = [*draft.opening_rules, *_beside_main(draft), *merge_skips(rules)]
    if draft.native_rules:
        seen = {v for plan in draft.plans for _, v in plan.kind.match}
        unseen = [t for t in draft.native_rules["bookkeeping"] if t not in seen]
        if unseen:
            rules.append({"name": f"{draft.native.source} bookkeeping not in the samples",
                          "match": {"type": unseen}, "role": "skip"})
    if not rules:
        rules = [{"name": "record", "role": "skip"}]
    return rules
