"""Tool steps of a trace that repeat the model's calls, and the spans that only group other records.

Why: trace exports (Langfuse, LangSmith, OpenTelemetry) record a tool twice: the model's call in
its generation (``output.tool_calls``: id, name, arguments) and the tool's own observation (name,
the same input, its output). Read alone, the observation looks like a whole tool step (call and
result), so every call would be written twice, the second time under the observation's own id. The
observation is the result of the call it repeats. And a span whose id is the parent of other
records (a tool group, an agent run) groups them: its output sums up theirs, so it is no result
of its own; mapped as one it answers the wrong call.

Contract: ``steps_answering_calls(draft)``: a kind read as a tool step (or call) whose every
record carries a tool name and arguments equal to a call another kind lists becomes that call's
result: content its output, linked to the open call of its tool (no id of its own).
``uncalled_steps(draft)``: when the model's calls are listed, a kind read as a tool step whose tool
the model never calls, named by a generic ``name`` (a guardrail scan, a delivery receipt), is the
platform's own event, not the agent's action: skipped and counted.
``group_spans(draft)``: a kind read as a result without a link whose records are all parents (by a
``parent...`` field) of calls, results or model replies is skipped as a container (a tool span
whose only children are HTTP requests stays a result).
"""

from __future__ import annotations

import json
from typing import Any

from generator.infer.calls import args_value, find_call_lists
from generator.infer.draft import Draft
from generator.infer.fields import generic_tool
from generator.infer.links import parent_links
from generator.inspect import dotted, get, mapping_path


def _listed_calls(draft: Draft, besides: Any) -> set[str]:
    """(tool name, arguments) of every call that kinds other than ``besides`` list, as JSON text."""
    found: set[str] = set()
    for plan in draft.plans:
        if plan is besides or plan.role in ("skip", "meta"):
            continue
        records = [rec.data for rec in plan.kind.recs]
        for calls in find_call_lists(records):
            for record in records:
                for item in get(record, calls.path) or []:
                    if isinstance(item, dict):
                        args = args_value(get(item, calls.args)) if calls.args else {}
                        found.add(json.dumps([get(item, calls.tool_name), args], sort_keys=True, default=str))
    return found


def steps_answering_calls(draft: Draft) -> None:
    for plan in draft.plans:
        if plan.role not in ("tool_exchange", "tool_call") or not (plan.tool_name and plan.args and plan.output):
            continue
        calls = _listed_calls(draft, plan)
        keys = [json.dumps([get(rec.data, plan.tool_name), args_value(get(rec.data, plan.args))], sort_keys=True,
                           default=str) for rec in plan.kind.recs]
        if not calls or not all(key in calls for key in keys):
            continue
        key = f"kinds[{plan.kind.key}]"
        draft.forget(f"{key}.")
        draft.call_sites.discard(f"kind:{plan.kind.key}")
        plan.role, plan.content, plan.call_id, plan.args = "tool_result", list(plan.output), None, None
        plan.result_name, plan.result_link = plan.tool_name, None
        draft.decide(f"{key}.role", "tool_result", 0.85,
                        f"{plan.kind.count} record(s) whose tool `{dotted(plan.tool_name)}` and arguments "
                        "repeat a call another kind lists: its result, answering the open call of that tool")
        draft.decide(f"{key}.content", [mapping_path(p) for p in plan.content], 0.85,
                        f"the output in `{dotted(plan.content[0])}`")


def group_spans(draft: Draft) -> None:
    kept = {f"kind:{p.kind.key}" for p in draft.plans
            if p.role in ("assistant", "tool_result", "tool_call", "tool_exchange") or p.emit}
    kinds = {f"kind:{k.key}": k for k in draft.p.kinds}
    for plan in draft.plans:
        site = f"kind:{plan.kind.key}"
        if plan.role != "tool_result" or plan.result_link or plan.emit:
            continue
        children: set[str] = set()
        path = None
        for parent, ident, child, field in parent_links(draft.p.links):
            if parent == site and child in kept and child != site and child in kinds:
                path = ident
                children |= {str(get(rec.data, field)) for rec in kinds[child].recs}
        if path is None or not all(str(get(rec.data, path)) in children for rec in plan.kind.recs):
            continue
        draft.skip(plan, f"{plan.kind.count} record(s), each the parent of calls, results or replies (by their "
                      f"`{dotted(path)}`): a container whose output sums up theirs, not a result of its own")


def uncalled_steps(draft: Draft) -> None:
    called = set(draft.embedded_call_names)
    if not called:
        return
    for plan in draft.plans:
        if plan.role not in ("tool_exchange", "tool_call") or not plan.tool_name or not generic_tool(plan):
            continue
        names = {str(get(rec.data, plan.tool_name)) for rec in plan.kind.recs}
        if names & called:
            continue
        draft.call_sites.discard(f"kind:{plan.kind.key}")
        draft.skip(plan, f"{plan.kind.count} record(s) named {', '.join(sorted(names)[:3])}: the model lists its "
                      "calls and never calls these, so they are the platform's own events, not the agent's steps")
