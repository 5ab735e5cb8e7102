"""A first reading of each kind, before roles: its text, tool name, arguments, call id and output.

Why: roles follow from what a kind carries (a name with arguments is a call, an output under a
link is a result), so the fields are read first, by name and by shape, and every candidate text
field is kept for the later passes to weigh.

Contract: ``plan_kind(draft, kind)`` returns a ``KindPlan`` and decides nothing; ``ok_field`` says
where a result's outcome is written.
"""

from __future__ import annotations

from generator.infer.draft import Draft, KindPlan
from generator.infer.fields import (
    ARGS_NAMES,
    CALL_ID_NAMES,
    CONTENT_NAMES,
    OK_FALSE,
    OK_TRUE,
    OUTPUT_NAMES,
    TOOL_NAME_NAMES,
    WEAK_TEXT,
    FieldFact,
    discriminators,
    kind_facts,
    label_like,
    pick,
    text_parts,
)
from generator.infer.item_parts import STATUS_KEYS
from generator.infer.outcomes import success_values
from generator.infer.richtext import plain_over_rich
from generator.inspect import LIST, Kind, Profile, mapping_path


def plan_kind(draft: Draft, kind: Kind) -> KindPlan:
    """What each kind's fields are (text, tool name, arguments, id, output), before roles."""
    plan = KindPlan(kind)
    facts = kind_facts(draft, kind)
    taken = discriminators(kind) | ({draft.p.session.path} if draft.p.session.path else set())
    times = {t.path for t in draft.p.times}
    usable = [f for f in facts if f.path not in taken and f.path not in times]
    plan.text_fields = text_candidates(draft, kind, usable)
    name = pick(usable, TOOL_NAME_NAMES, types=("string",), min_fill=0.8)
    label = None  # a display name (`Web Search`): a tool name only beside arguments and an output
    if name and not draft.p.stats[name.path].tokenish:
        label = name if label_like(draft.p.stats[name.path]) else None
        name = None
    plan.tool_name = name.path if name else None
    exclude = {plan.tool_name} if plan.tool_name else set()
    args = pick(usable, ARGS_NAMES, types=("object", "string"), exclude=exclude, min_fill=0.5)
    if args and args.type == "string" and args.json_object < 0.5 and args.name not in (
            "args", "arguments", "input", "tool_input", "parameters", "params", "command", "cmd", "query",
            "code", "script", "url"):
        args = None
    plan.args = args.path if args else None
    if args and args.type == "string" and args.json_object < 0.5:
        plan.args_key = str(args.path[-1]) if args.name not in ("args", "arguments") else None
    exclude |= {plan.args} if plan.args else set()
    cid = pick(usable, CALL_ID_NAMES, types=("string", "int"), exclude=exclude, min_fill=0.8)
    plan.call_id = cid.path if cid else None
    exclude |= {plan.call_id} if plan.call_id else set()
    outs = [f for f in usable if f.fill >= 0.3 and not any(f.path[: len(e)] == e for e in exclude) and any(
        name in OUTPUT_NAMES or name.replace("_", "") in {n.replace("_", "") for n in OUTPUT_NAMES} for name in f.names)
        and f.type in ("string", "object", "array")]
    outs.sort(key=lambda f: (min((OUTPUT_NAMES.index(n) for n in f.names if n in OUTPUT_NAMES), default=99), -f.fill))
    # an object holding one text field is read at that field (outputs.output)
    # an object holding a named output is read at that field (outputs -> outputs.output)
    plan.output = [f.path for f in outs if not any(f.path == o.path[: len(f.path)] and o is not f for o in outs)]
    # ... unless the outer field is text in some records (an error string where results are an object)
    plan.output = [p[:-1] if len(p) > 1 and kind.stats.get(p[:-1]) is not None
                   and kind.stats[p[:-1]].types.get("string") else p for p in plan.output]
    if label and plan.args and plan.output and plan.output[0] != plan.args:
        plan.tool_name = label.path
        plan.output = [o for o in plan.output if o != label.path]
    if plan.tool_name and plan.args:  # arguments are not message text (a JSON string reads as prose)
        plan.text_fields = [t for t in plan.text_fields if t[1][: len(plan.args)] != plan.args]
    plan.ok = ok_field(usable, kind.stats)
    return plan


def text_candidates(draft: Draft, kind: Kind, facts: list[FieldFact]) -> list[tuple[float, tuple, str]]:
    """(score, path, why) for fields that could be the text of a kind, best first."""
    out = []
    blocks = [bp for bp in draft.p.blocks.all_paths if kind.stats.get(bp) and kind.stats[bp].records]
    for bp in blocks:
        fill = kind.stats[bp].records / kind.count
        out.append((2.0 + fill, bp, "a list of typed content blocks"))
    for f in facts:
        prose, tokenish = f.prose, f.tokenish
        if f.type == "array" and f.path not in blocks:
            parts = text_parts(kind.stats.get((*f.path, LIST)))
            if parts is None:
                continue
            prose, tokenish = parts.prose, parts.tokenish
        elif f.type != "string":
            continue
        if f.name in WEAK_TEXT or f.name.rsplit("_", 1)[-1] in WEAK_TEXT or f.fill < 0.2:
            continue  # a name, a title, a status (``agent_name``, ``chat_title``): what labels text, not text
        named = f.name in CONTENT_NAMES or f.name.replace("_", "") in CONTENT_NAMES
        if not named and prose < 0.35:
            continue
        score = f.fill * (1.0 + (0.6 if named else 0.0)) * (0.5 + min(prose, 1.0)) - 0.02 * len(f.path)
        if tokenish and not named:
            continue
        out.append((score, f.path, "named like text" if named else "prose"))
    out.sort(key=lambda t: -t[0])
    plain = [t for t in out if t[1] not in blocks and t[2] == "named like text"]
    if out and out[0][1] in blocks and plain and plain_over_rich([r.data for r in kind.recs], out[0][1],
                                                                 plain[0][1]):
        # the blocks re-render the plain text (Slack's rich_text): the plain field, first
        out = [(out[0][0] + 0.01, plain[0][1], "the plain text its rich-text blocks repeat"),
               *[t for t in out if t is not plain[0]]]
    return out


def ok_field(facts: list[FieldFact], stats: dict | None = None) -> dict | None:
    """A boolean outcome field (``is_error``, ``success``), else a status whose values include a
    success word (``status: success``): the result's structured outcome, never its text."""
    for f in facts:
        if f.type != "bool" or f.fill < 0.5:
            continue
        if f.name in OK_FALSE or f.name.replace("_", "") in {n.replace("_", "") for n in OK_FALSE}:
            return {"path": mapping_path(f.path), "negate": True}
        if f.name in OK_TRUE or f.name.replace("_", "") in {n.replace("_", "") for n in OK_TRUE}:
            return {"path": mapping_path(f.path), "negate": False}
    for f in facts:
        if stats is not None and f.type == "string" and f.fill >= 0.5 and f.name in STATUS_KEYS:
            wins = success_values(getattr(stats.get(f.path), "values", ()) or ())
            if wins:
                return {"path": mapping_path(f.path), "values": wins}
    return None


def start(profile: Profile, source: str | None, answers: dict | None) -> Draft:
    """A draft of the profile's reading, every kind with its first plan (the plans decide nothing)."""
    draft = Draft(profile, source, dict(answers or {}))
    draft.plans = [plan_kind(draft, k) for k in profile.kinds]
    return draft
