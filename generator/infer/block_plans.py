"""How each content block type (``content[].type``, ``parts[].kind``) is written.

Why: formats that hold a message's parts as typed blocks put text, reasoning, calls, results and
media side by side in one list; each block type gets its own rule (``blocks`` in the mapping), and
a block type nothing writes is dropped from the mapping rather than kept as dead weight.

Contract: ``blocks_section(draft)`` returns the mapping's ``blocks`` and records which kinds and
keys hold calls (``draft.call_sites``); ``drop_unread_blocks`` removes rules no kept kind reads.
"""

from __future__ import annotations

from typing import Any

from generator.infer.draft import Draft, KindPlan
from generator.infer.fields import (
    ARGS_NAMES,
    CALL_ID_NAMES,
    TOOL_NAME_NAMES,
    FieldFact,
    field_facts,
    id_link,
    inner_content,
    media_word,
    norm,
    only_string,
    pick,
)
from generator.infer.planning import ok_field
from generator.inspect import MEDIA_WORDS, dotted, mapping_path, name_roles, strong_roles, words


def blocks_section(draft: Draft) -> dict:
    b = draft.p.blocks
    by_key = blocks_by_key(draft)
    if not b.type_field:
        out = {"type_field": "type", "types": {}, "unknown": "fail"}
        return {**out, "by_key": by_key} if by_key else out
    draft.decide("blocks.type_field", mapping_path(b.type_field), 0.9,
                 f"lists of objects at {', '.join('`' + dotted(p) + '`' for p in b.paths)} carry "
                 f"`{dotted(b.type_field)}`")
    types = {}
    for name, bt in b.types.items():
        spec, conf, evidence, cands = plan_block(draft, name, bt)
        chosen = draft.decide(f"blocks.types[{name}].as", spec["as"], conf, evidence, cands)
        if chosen != spec["as"]:
            spec = block_spec_as(draft, name, bt, chosen)
        types[name] = spec
        draft.block_plans[name] = spec
        if spec["as"] in ("tool_call", "tool_exchange"):
            draft.call_sites.add(f"block:{name}")
    if draft.native_rules and b.type_field == ("type",):
        for name, spec in draft.native_rules.get("blocks", {}).items():
            if name not in types:
                types[name] = dict(spec)
                draft.decide(f"blocks.types[{name}].as", spec["as"], 0.9,
                             f"not in the samples; {draft.native.source} sessions use it")
    out = {"type_field": mapping_path(b.type_field), "types": types, "unknown": "fail"}
    return {**out, "by_key": by_key} if by_key else out


def blocks_by_key(draft: Draft) -> dict:
    """Blocks without a type field, typed by the key they hold, in the order they are checked."""
    b = draft.p.blocks
    if not b.by_key:
        return {}
    draft.decide("blocks.by_key", list(b.by_key), 0.9,
                 f"lists at {', '.join('`' + dotted(p) + '`' for p in b.key_paths)} hold objects with no type "
                 f"field, told apart by the key they hold ({', '.join(b.by_key)})")
    out = {}
    for name, bt in b.by_key.items():
        spec, conf, evidence, cands = plan_block(draft, name, bt, "key")
        chosen = draft.decide(f"blocks.by_key[{name}].as", spec["as"], conf, evidence, cands)
        if chosen != spec["as"]:
            spec = block_spec_as(draft, name, bt, chosen, "key")
        out[name] = spec
        draft.key_plans[name] = spec
        if spec["as"] in ("tool_call", "tool_exchange"):
            draft.call_sites.add(f"key:{name}")
    return out


def plan_block(draft: Draft, name: str, bt, site: str = "block") -> tuple[dict, float, str, list]:
    facts = field_facts(bt.stats, bt.count, [])
    facts = [f for f in facts if f.path != draft.p.blocks.type_field]
    roles = name_roles(name)
    ws = set(words(name))
    tname = pick(facts, TOOL_NAME_NAMES, types=("string",), min_fill=0.8)
    args = pick(facts, ARGS_NAMES, types=("object", "string"), min_fill=0.5,
                exclude={tname.path} if tname else set())
    text_names = ["text", "content", "value", "thinking", "reasoning", "output", "result", "summary", "logs",
                  "log", "stdout"]
    text = pick(facts, text_names, types=("string", "array"), min_fill=0.5) or pick(
        facts, text_names, types=("object",), min_fill=0.5) or only_string(facts)
    linked_to = [lk for lk in draft.p.links if lk.target == f"{site}:{name}" and id_link(lk)]
    n = f"{bt.count} `{name}` block(s)"
    output = block_output(facts, {tname.path if tname else None, args.path if args else None})
    if tname and args and output:
        spec = block_spec_as(draft, name, bt, "tool_exchange", site)
        return spec, 0.9, (f"{n} each holding a call (`{dotted(tname.path)}`, `{dotted(args.path)}`) together "
                           f"with its output `{dotted(output.path)}`"), ["tool_call", "skip"]
    if not tname and args and output and site == "block" and len(args.path) > 1 and args.path[0] == name:
        # `{"type": "code_interpreter", "code_interpreter": {"input", "outputs"}}`: the type names the tool
        spec = block_spec_as(draft, name, bt, "tool_exchange", site)
        return spec, 0.85, (f"{n} each holding an input `{dotted(args.path)}` and its output "
                            f"`{dotted(output.path)}` under its own type name: a `{name}` call"), ["skip"]
    if tname and (args or "tool_call" in roles):
        spec = block_spec_as(draft, name, bt, "tool_call", site)
        return spec, 0.95, f"{n} with a tool name `{dotted(tname.path)}`" + (
            f" and arguments `{dotted(args.path)}`" if args else ""), ["skip"]
    if linked_to:
        spec = block_spec_as(draft, name, bt, "tool_result", site)
        return spec, 0.95, f"{n} whose `{dotted(linked_to[0].target_path)}` values are ids of earlier calls", [
            "skip"]
    if "reasoning" in roles[:1]:
        spec = block_spec_as(draft, name, bt, "reasoning", site)
        if spec["as"] == "reasoning":
            return spec, 0.9, f"{n} named like reasoning, text in `{spec['field']}`", ["skip"]
        return spec, 0.85, f"{n} named like reasoning but with no readable text (opaque data)", ["reasoning"]
    if "tool_result" in strong_roles(name):
        spec = block_spec_as(draft, name, bt, "tool_result", site)
        if "tool_name" in spec:
            return spec, 0.9, (f"{n} named like a tool result, no ids linking them: the oldest waiting call of "
                               f"the tool named in `{dotted(tuple(str(spec['tool_name']).split('.')))}`"), ["skip"]
        return spec, 0.9, f"{n} named like a tool result, no ids linking them: the oldest waiting call", ["skip"]
    if text and text.type == "string" and (text.prose > 0.1 or "text" in ws or text.name in ("text", norm(name))):
        return block_spec_as(draft, name, bt, "text"), 0.9, f"{n} with text in `{dotted(text.path)}`", ["skip"]
    if ws & MEDIA_WORDS or norm(name) in MEDIA_WORDS:
        word = next((w for w in ("image", "audio", "video", "file", "document") if w in ws or w in name.lower()),
                    None) or media_word(bt) or "attachment"
        return {"as": "placeholder", "text": f"[{word}]"}, 0.9, f"{n}: media, kept as a `[{word}]` placeholder", [
            "skip"]
    if text and text.type == "string":
        return block_spec_as(draft, name, bt, "text"), 0.7, f"{n}: text in `{dotted(text.path)}`?", ["skip"]
    return {"as": "skip"}, 0.7, f"{n} with no text and no tool fields", ["text", "placeholder"]


def block_output(facts: list[FieldFact], taken: set) -> FieldFact | None:
    """A block field holding the output of the call beside it (``function.output``)."""
    outs = [f for f in facts if f.path not in taken and f.fill >= 0.3 and f.type in ("string", "object", "array")
            and f.name in ("output", "outputs", "result", "results", "tool_output", "return_value", "response")]
    outs.sort(key=lambda f: (-f.fill, len(f.path)))
    return outs[0] if outs else None


def block_spec_as(draft: Draft, name: str, bt, role: str, site: str = "block") -> dict:
    facts = [f for f in field_facts(bt.stats, bt.count, []) if f.path != draft.p.blocks.type_field]
    if role == "tool_exchange":
        spec = block_spec_as(draft, name, bt, "tool_call", site)
        spec["as"] = "tool_exchange"
        taken = {tuple(v) if isinstance(v, list) else tuple(v.split(".")) for v in (
            spec.get(k) for k in ("tool_name", "args", "call_id")) if v}
        output = block_output(facts, taken)
        spec["content"] = mapping_path(output.path if output else ("output",))
        ok = ok_field(facts, bt.stats)
        if ok:
            spec["ok"] = ok
        return spec
    if role == "tool_call":
        tname = pick(facts, TOOL_NAME_NAMES, types=("string",), min_fill=0.5)
        args = pick(facts, ARGS_NAMES, types=("object", "string"), min_fill=0.3,
                    exclude={tname.path} if tname else set())
        cid = pick(facts, CALL_ID_NAMES, types=("string", "int"), min_fill=0.5)
        spec: dict[str, Any] = {"as": "tool_call"}
        if cid:
            spec["call_id"] = mapping_path(cid.path)
        if tname:
            spec["tool_name"] = mapping_path(tname.path)
        elif site == "block" and draft.p.blocks.type_field and args and args.path[0] == name:
            spec["tool_name"] = mapping_path(draft.p.blocks.type_field)  # the block's type names the tool
        else:
            spec["tool_name"] = mapping_path(next((f.path for f in facts if f.type == "string"), ("name",)))
        if args:
            spec["args"] = mapping_path(args.path)
            if args.type == "string" and args.json_object < 0.5 and args.name not in ("args", "arguments"):
                spec["args_key"] = str(args.path[-1])
        return spec
    if role == "tool_result":
        content = pick(facts, ["content", "output", "result", "text", "results", "value", "data", "body",
                               "response"], types=("string", "array", "object"), min_fill=0.3)
        spec = {"as": "tool_result", "content": mapping_path(content.path if content else ("content",))}
        links = [lk for lk in draft.p.links if lk.target == f"{site}:{name}" and id_link(lk)]
        link = links[0].target_path if links else None
        if link is None:
            ref = pick(facts, ["tool_use_id", "tool_call_id", "call_id", "toolcallid", "id"],
                       types=("string", "int"), min_fill=0.5)
            link = ref.path if ref else None
        if link:
            spec["result_link"] = mapping_path(link)
        else:
            tool = pick(facts, ["tool_name", "name", "function_name", "tool"], types=("string",), min_fill=0.8)
            if tool and draft.p.blocks and (not content or tool.path[: len(content.path)] != content.path):
                spec["tool_name"] = mapping_path(tool.path)  # no ids: answers the oldest call of that tool
        ok = ok_field(facts, bt.stats)
        if ok:
            spec["ok"] = ok
        held = [p for p in (link, ok and tuple(str(ok["path"]).split("."))) if p]
        if content and any(p[: len(content.path)] == content.path for p in held):
            inner = inner_content(facts, content.path, set(held))
            spec["content"] = mapping_path(inner.path) if inner else spec["content"]
        return spec
    if role in ("reasoning", "text"):
        names = ["thinking", "reasoning", "text", "content", "summary", "value"] if role == "reasoning" else [
            "text", "content", "value", "output", "result", "logs", "log", "stdout"]
        text = pick(facts, names, types=("string", "array"), min_fill=0.3) or only_string(facts)
        if text is None or (role == "reasoning" and text.type == "string" and text.prose < 0.05
                            and text.tokenish):
            return {"as": "skip"}
        return {"as": role, "field": mapping_path(text.path)}
    if role == "placeholder":
        return {"as": "placeholder", "text": f"[{norm(name) or 'block'}]"}
    return {"as": "skip"}


def drop_unread_blocks(draft: Draft) -> None:
    """Block types in lists no kind reads (Slack's ``blocks`` beside the ``text`` a message is read
    from) decide nothing: no entry, and no question about them."""
    types = draft.blocks_section.get("types") or {}
    if not types or not draft.p.blocks.types:
        return
    read: list[tuple] = []
    for plan in draft.plans:
        if plan.role in ("skip", "meta"):
            continue
        read.extend(p for p in plan.content if isinstance(p, tuple))
        read.extend(tuple(str(e.get(k)).split(".")) for e in plan.emit for k in ("field", "each", "content")
                    if isinstance(e.get(k), str))
    for name in list(types):
        block = draft.p.blocks.types.get(name)
        if block is None:
            continue
        if not any(tuple(c[: len(r)]) == r for c in block.containers for r in read if r):
            del types[name]
            draft.forget(f"blocks.types[{name}].")


def holds_call_blocks(draft: Draft, plan: KindPlan) -> bool:
    """Whether the kind's block list holds tool calls (and no results)."""
    path = plan.text_fields[0][1] if plan.text_fields else None
    if path not in draft.p.blocks.all_paths:
        return False
    kinds = {spec["as"] for name, spec in draft.block_plans.items()
             if path in draft.p.blocks.types[name].containers} if draft.p.blocks.types else set()
    kinds |= {spec["as"] for name, spec in draft.key_plans.items() if path in draft.p.blocks.by_key[name].containers}
    return bool(kinds & {"tool_call", "tool_exchange"}) and "tool_result" not in kinds
