"""A kind's role and the text it writes: the role from ``roles.decide_role``, the text fields in order.

Why: a record may hold its text in several fields (``thought`` and ``content``, ``text`` and
``markdown``); which are written, and in which order, decides whether text is lost or doubled.

Contract: ``finish_role(draft, plan)`` decides the role and the content of one kind.
"""

from __future__ import annotations

from cleaner_runtime.mapping import compile_path
from generator.infer.draft import Draft, KindPlan
from generator.infer.fields import kind_name_path, nonempty
from generator.infer.linking import thought_field
from generator.infer.roles import decide_role
from generator.inspect import Kind, dotted, get, mapping_path


def finish_role(draft: Draft, plan: KindPlan) -> None:
    """The kind's role from its own records (``infer.roles``), then the fields that role reads."""
    verdict = decide_role(draft, plan)
    plan.role, plan.confidence, plan.evidence, plan.candidates = (
        verdict.role, verdict.confidence, verdict.evidence, verdict.candidates)
    set_role(draft, plan, f"kinds[{plan.kind.key}].role")


def set_role(draft: Draft, plan: KindPlan, key: str) -> None:
    role = draft.decide(key, plan.role, plan.confidence, plan.evidence, plan.candidates)
    if role != plan.role:
        plan.role = role
        if role == "tool_exchange" and not plan.tool_name:
            plan.tool_name = kind_name_path(plan) if plan.kind.match else None
    plan_content(draft, plan)


def plan_content(draft: Draft, plan: KindPlan) -> None:
    """The content paths of a kind whose role needs them, with the order that loses least."""
    role = plan.role
    k = plan.kind
    if role in ("tool_call", "tool_exchange"):
        plan.reasoning = thought_field(plan)
        if plan.reasoning:
            plan.output = [o for o in plan.output if o != plan.reasoning]
            draft.decide(f"kinds[{k.key}].reasoning", mapping_path(plan.reasoning), 0.85,
                         f"`{dotted(plan.reasoning)}` holds the step's thought beside the call: written as "
                         "reasoning before it")
    if role in ("skip", "meta", "tool_call"):
        return
    if role in ("tool_result", "tool_exchange"):
        paths = list(plan.output) or [p for _, p, _ in plan.text_fields[:1]]
        if role == "tool_result" and not plan.output and plan.text_fields:
            paths = [plan.text_fields[0][1]]
        if not paths:
            paths = [("content",)]
        plan.content = paths[:2]
        draft.decide(f"kinds[{k.key}].content", [mapping_path(p) for p in plan.content], 0.9,
                     f"output in `{dotted(plan.content[0])}`")
        return
    cands = plan.text_fields
    if not cands:
        plan.content = [plan.output[0]] if plan.output else [("content",)]
        draft.decide(f"kinds[{k.key}].content", [mapping_path(p) for p in plan.content], 0.6,
                     "no text field found")
        return
    best = cands[0]
    chosen = [best[1]]
    conf = 0.9
    evidence = f"`{dotted(best[1])}`: {best[2]}, in {k.stats[best[1]].records}/{k.count} record(s)"
    others = [c for c in cands[1:] if c[1] != best[1]]
    # a field inside the best one (`output[].content` of the `output` blocks) is read with it, never
    # instead of it: the alternative that may fill its gaps is the first field outside it
    outside = [c for c in others if c[1][: len(best[1])] != best[1]]
    if outside:
        second = outside[0]
        both = both_filled(k, best[1], second[1])
        gap = fills_gap(k, best[1], second[1])
        if both and second[0] >= 0.8 * best[0] and best[2] == second[2]:
            conf = 0.6
            evidence += f"; `{dotted(second[1])}` holds text in the same records"
        elif gap:
            order, lost = order_paths(k, best[1], second[1])
            chosen = order
            if lost:
                conf = 0.6
                evidence += f"; {lost} record(s) hold both `{dotted(best[1])}` and `{dotted(second[1])}` " \
                            "and would lose one"
            else:
                evidence += f"; `{dotted(second[1])}` where it is absent"
    plan.content = chosen
    value = draft.decide(f"kinds[{k.key}].content", [mapping_path(p) for p in chosen], conf, evidence,
                         [[mapping_path(c[1])] for c in others[:3]])
    plan.content = [compile_path(v) for v in value]  # as the cleaner reads them (`choices.0` an index)


def both_filled(k: Kind, a: tuple, b: tuple) -> int:
    return sum(1 for r in k.recs if nonempty(get(r.data, a)) and nonempty(get(r.data, b)))


def fills_gap(k: Kind, a: tuple, b: tuple) -> bool:
    return any(not nonempty(get(r.data, a)) and nonempty(get(r.data, b)) for r in k.recs)


def order_paths(k: Kind, a: tuple, b: tuple) -> tuple[list, int]:
    """[a, b] or [b, a]: the first-present order that loses the fewest non-empty values."""
    def losses(order: list) -> int:
        lost = 0
        for r in k.recs:
            values = [get(r.data, p) for p in order]
            present = [v for v in values if v is not None]
            if not present:
                continue
            chosen = present[0]
            others = [v for v in values if v is not chosen and nonempty(v)]
            if others and (not nonempty(chosen) or len(others) >= 1):
                lost += 1
        return lost
    la, lb = losses([a, b]), losses([b, a])
    return ([a, b], la) if la <= lb else ([b, a], lb)
