"""Calls and their results: which kinds call tools, which answer them, and how a result finds its call.

Why: a result linked to the wrong call is a wrong trace, not a lossy one. A link by id is taken
only when the ids of one kind reappear in another within a session (``links``); otherwise results
are linked by position, and the score says so.

Contract: ``resolve_tools(draft)`` settles call kinds from their tool names; ``result_link`` names
a result's link field and the call site it points to; ``finish_result`` reads its output and
outcome; ``tools_section`` writes the mapping's ``tools``.
"""

from __future__ import annotations

from typing import Any

from cleaner_runtime.mapping import dotted as match_key  # match keys are always dotted strings
from generator.infer.draft import Draft, KindPlan
from generator.infer.fields import generic_tool, id_link, kind_name_path, kind_names, norm
from generator.infer.links import constant_within_sessions
from generator.infer.outcomes import error_text, outcome
from generator.inspect import dotted, get, mapping_path, name_roles, session_key, words
from generator.inspect import values_at as _values_at


def resolve_tools(draft: Draft) -> None:
    """Kinds that are tool calls (structure), so that links from their ids find results.

    A tool name with arguments or an id makes a call, unless the kind's name says it is a
    message (a text role) and it has text, or its id values refer back to earlier records
    (a result that repeats the tool name).
    """
    for plan in draft.plans:
        if (not plan.tool_name and plan.args and plan.call_id and plan.kind.match
                and "tool_call" in kind_names(plan) and not plan.output):
            plan.tool_name = kind_name_path(plan)  # the kind's own name names the tool
        if not plan.tool_name or not (plan.args or plan.call_id or "tool_call" in kind_names(plan)):
            continue
        if plan.text_fields and plan.text_fields[0][2] == "a list of typed content blocks":
            continue
        names = kind_names(plan)
        if plan.kind.match and plan.tool_name == kind_name_path(plan) and _names_an_outcome(plan):
            continue  # `function_call_output` names itself a call's output: its own name names no tool
        text_role = next((r for r in names if r in ("user", "assistant", "reasoning", "system")), None)
        if text_role and names[0] == text_role and plan.text_fields and not plan.args:
            continue
        if text_role and names[0] == text_role and plan.text_fields and "tool_call" not in names and not (
                exchange_shaped(draft, plan)):
            continue
        if plan.call_id and any(lk.target == f"kind:{plan.kind.key}" and lk.target_path == plan.call_id
                                for lk in tool_links(draft)):
            continue
        draft.call_sites.add(f"kind:{plan.kind.key}")
        # the call id is the field whose values later records refer to
        out = [lk for lk in tool_links(draft) if lk.source == f"kind:{plan.kind.key}"
               and lk.target != lk.source]
        if out:
            best = max(out, key=lambda lk: (lk.source_path == plan.call_id, lk.matched))
            plan.call_id = best.source_path


OUTCOME_WORDS = {"output", "outputs", "result", "results", "response", "observation", "return", "returned"}


def _names_an_outcome(plan: KindPlan) -> bool:
    """Whether the kind's own name ends in a word for what a call gave back (`function_call_output`,
    `tool_result`): such a kind answers a call; it is not one."""
    value = dict(plan.kind.match).get(kind_name_path(plan))
    parts = words(value) if isinstance(value, str) else []
    return bool(parts) and parts[-1] in OUTCOME_WORDS


def exchange_shaped(draft: Draft, plan: KindPlan) -> bool:
    """A tool name, arguments and an output in (nearly) every record: a tool step, whatever its
    kind is called (a ReAct ``agent_step`` with ``tool``, ``tool_input`` and ``observation``)."""
    if not (plan.tool_name and plan.args and plan.output) or plan.output[0] == plan.args or generic_tool(plan):
        return False  # `name`/`inputs`/`outputs` alone could be any step (an llm run)
    fills = [st.records / plan.kind.count for p in (plan.tool_name, plan.args, plan.output[0])
             if (st := plan.kind.stats.get(p)) is not None]
    return len(fills) == 3 and min(fills) >= 0.8


def thought_field(plan: KindPlan) -> tuple | None:
    """A call's prose field named like a thought (``log``, ``thought``, ``reasoning``)."""
    used = {plan.tool_name, plan.args, *(plan.output[:1])}
    for _, path, _ in plan.text_fields:
        if path in used or any(path[: len(u)] == u for u in used if u):
            continue
        name = norm(path[-1])
        if name in ("log", "thought", "thoughts") or "reasoning" in name_roles(str(path[-1]))[:1]:
            return path
    return None


def tool_links(draft: Draft) -> list:
    """Value links that can be tool linkage: not the session id, not parent/thread references,
    not a value every record of a session repeats (a ticket id)."""
    if draft.link_cache is None:
        session = draft.p.session.path
        draft.link_cache = [lk for lk in draft.p.links if lk.source_path != session and lk.target_path != session
                            and id_link(lk) and not repeats_in_session(draft, lk.source, lk.source_path)
                            and not repeats_in_session(draft, lk.target, lk.target_path)]
    return draft.link_cache


def repeats_in_session(draft: Draft, site: str, path: tuple) -> bool:
    kind = next((k for k in draft.p.kinds if f"kind:{k.key}" == site), None)
    if kind is None:
        return False
    values = [(session_key(rec, draft.p.session), v) for rec in kind.recs
              for v in _values_at(rec.data, path) if v is not None]
    return constant_within_sessions(values)


def result_link(draft: Draft, plan: KindPlan) -> tuple[tuple, Any] | None:
    """The field of a kind whose values are the ids of earlier calls (the best-matched one)."""
    found = []
    call_ids = {f"kind:{p.kind.key}": p.call_id for p in draft.plans}
    for link in tool_links(draft):
        if link.target != f"kind:{plan.kind.key}" or link.source not in draft.call_sites:
            continue
        if link.source == link.target:
            continue
        if link.source.startswith("kind:") and link.source_path != call_ids.get(link.source):
            continue
        if link.source.startswith("block:") and mapping_path(link.source_path) != draft.block_plans.get(
                link.source[6:], {}).get("call_id"):
            continue
        if link.source.startswith("key:") and mapping_path(link.source_path) != draft.key_plans.get(
                link.source[4:], {}).get("call_id"):
            continue
        found.append(link)
    if not found:
        return None
    best = max(found, key=lambda lk: (lk.overlap, lk.matched))
    return best.target_path, best


def finish_result(draft: Draft, plan: KindPlan) -> None:
    """A result's outcome (``infer.outcomes``), the error text it holds instead of its output, and
    the tool name it gives, for results that carry no link."""
    key = f"kinds[{plan.kind.key}]"
    records = [rec.data for rec in plan.kind.recs]
    taken = {match_key(p) for p in (*plan.content, plan.result_link) if p}  # outcome's dotted keys
    if not plan.ok:
        plan.ok = outcome(records, taken)
        if plan.ok:
            draft.decide(f"{key}.ok", plan.ok, 0.85, f"`{plan.ok['path']}` says whether the tool succeeded")
    if plan.content:
        extra = error_text(records, plan.content[0])
        if extra and (extra,) not in plan.content:
            plan.content = [*plan.content, (extra,)]
            draft.redecide(f"{key}.content", [mapping_path(p) for p in plan.content], 0.85,
                           f"output in `{dotted(plan.content[0])}`, the error text in `{extra}` where it is absent")
    names = call_names(draft)
    if not names:
        return
    for path, stat in plan.kind.stats.items():
        if len(path) != 1 or path[0] in taken or stat.main_type != "string":
            continue
        values = [rec.data.get(path[0]) for rec in plan.kind.recs if isinstance(rec.data.get(path[0]), str)]
        if values and all(v in names for v in values):
            plan.result_name = path
            draft.decide(f"{key}.tool_name", mapping_path(path), 0.85,
                         f"`{dotted(path)}` names the tool a result answers (used where it gives no call id)")
            return


def call_names(draft: Draft) -> set[str]:
    """The tool names the samples' calls use (call kinds and calls in lists)."""
    names = set(getattr(draft, "embedded_call_names", set()))
    for plan in draft.plans:
        if plan.role in ("tool_call", "tool_exchange") and plan.tool_name:
            names.update(v for rec in plan.kind.recs if isinstance(v := get(rec.data, plan.tool_name), str))
    return names


def tools_section(draft: Draft) -> dict:
    oks = [p for p in draft.plans if p.ok] or [1 for b in draft.block_plans.values() if b.get("ok")]
    prefix = (draft.native_rules or {}).get("error_prefix", "Error: ")
    draft.decide("tools.error_prefix", prefix, 0.9,
                 (f"as Letta's {draft.native.source} adapter writes failed results" if draft.native_rules and
                 "error_prefix" in draft.native_rules else
                 "failed results are marked the way Letta's Pi/OpenClaw adapters mark them")
                 + ("" if oks else " (no success/error field seen)"))
    results = [p for p in draft.plans if p.role == "tool_result"]
    linked = [p for p in results if p.result_link]
    if results and not linked and not any(b.get("as") == "tool_result" for b in draft.block_plans.values()):
        draft.decide("tools.linkage", "oldest unanswered call", 0.85,
                     "results carry no call ids; each is linked to the oldest call still waiting for one")
    draft.decide("tools.orphan_results", "skip", 0.9, "results with no earlier call are dropped and counted")
    return {"error_prefix": prefix, "orphan_results": "skip"}
