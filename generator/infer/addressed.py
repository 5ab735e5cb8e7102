"""Messages addressed to a tool: the model's call, answered by the tool's own message.

Why: some chat formats have no call objects at all. ChatGPT's export writes a code-interpreter
step as an assistant message whose ``recipient`` is ``python`` (every other message goes to
``all``), holding the code as its text, and the tool answers with a message whose author is
``python``. Read by role alone, the first is assistant prose and the second a tool step of its
own, so the call is written twice (once as text) and linked to nothing. The addressing field is
the format's own statement of who the message is for.

Contract: ``addressed_calls(draft)``: for a kind read as a tool step or result whose tool name
field holds names N, a string field F of another (not user-named) kind whose every value is in N,
while F holds only values outside N in the kinds that carry it besides (``all``), makes that kind
the call: ``tool_name`` F, ``args`` its text (under ``args_key``: the text field's own name, or
the kind's type value when the name is generic, like ``text``). The tool's kind becomes the result,
answering the open call of its tool (no ids in such formats).
"""

from __future__ import annotations

from typing import Any

from generator.infer.draft import Draft
from generator.infer.fields import kind_names
from generator.inspect import LIST, dotted, get, mapping_path, name_roles

GENERIC_TEXT = {"text", "content", "contents", "parts", "body", "message", "value", "data"}


def _values(plan: Any, path: tuple) -> list:
    """The value at ``path`` in each record of the kind (None where it has none)."""
    return [get(rec.data, path) for rec in plan.kind.recs]


def _addressing_field(draft: Draft, plan: Any, tool: Any, names: set) -> tuple | None:
    taken = {p for p, _ in plan.kind.match}
    for path, stat in plan.kind.stats.items():
        if LIST in path or path in taken or stat.main_type != "string" or stat.records != plan.kind.count:
            continue
        if not all(v in names for v in _values(plan, path)):
            continue
        elsewhere = [v for other in draft.plans if other is not plan and other is not tool
                     for v in _values(other, path) if isinstance(v, str)]  # a list or object names no tool
        if elsewhere and not any(v in names for v in elsewhere):
            return path
    return None


def _args_key(plan: Any, text: tuple) -> str:
    name = str(text[-1] if text[-1] != LIST else text[-2])
    if name.lower() not in GENERIC_TEXT:
        return name
    typed = [str(v) for _, v in plan.kind.match if isinstance(v, str) and not name_roles(str(v))]
    return typed[-1] if typed else "input"


def addressed_calls(draft: Draft) -> None:
    for tool in draft.plans:
        if tool.role not in ("tool_exchange", "tool_result") or not tool.tool_name:
            continue
        names = {v for v in _values(tool, tool.tool_name) if isinstance(v, str)}
        for plan in draft.plans:
            if plan is tool or plan.role in ("skip", "meta", "tool_call") or "user" in kind_names(plan)[:1]:
                continue
            field = _addressing_field(draft, plan, tool, names) if names else None
            text = (plan.content or [p for _, p, _ in plan.text_fields[:1]] or [None])[0]
            if not field or not text:
                continue
            _make_call(draft, plan, field, text)
            _make_result(draft, tool, field)
            return


def _make_call(draft: Draft, plan: Any, field: tuple, text: tuple) -> None:
    key = f"kinds[{plan.kind.key}]"
    draft.forget(f"{key}.")
    draft.call_sites.add(f"kind:{plan.kind.key}")
    plan.role, plan.content, plan.output, plan.joined = "tool_call", [], [], None
    plan.tool_name, plan.args, plan.args_key, plan.call_id = field, text, _args_key(plan, text), None
    draft.decide(f"{key}.role", "tool_call", 0.85,
                    f"{plan.kind.count} record(s) addressed by `{dotted(field)}` to a tool that answers as its own "
                    "speaker: the model's call, its text the arguments")
    draft.decide(f"{key}.tool_name", mapping_path(field), 0.85, f"`{dotted(field)}` names the tool addressed")
    draft.decide(f"{key}.args", mapping_path(text), 0.85,
                    f"the text `{dotted(text)}`, under the key `{plan.args_key}`")


def _make_result(draft: Draft, tool: Any, field: tuple) -> None:
    key = f"kinds[{tool.kind.key}]"
    draft.forget(f"{key}.")
    draft.call_sites.discard(f"kind:{tool.kind.key}")
    tool.role, tool.args, tool.args_key, tool.call_id, tool.result_link = "tool_result", None, None, None, None
    tool.content = list(tool.content or tool.output[:1] or [p for _, p, _ in tool.text_fields[:1]])
    draft.decide(f"{key}.role", "tool_result", 0.85,
                    f"{tool.kind.count} record(s) spoken by the tool that `{dotted(field)}` addresses: its result, "
                    "answering the open call of that tool (the format has no call ids)")
    draft.decide(f"{key}.content", [mapping_path(p) for p in tool.content], 0.85,
                    f"the output in `{dotted(tool.content[0])}`")
    draft.decide(f"{key}.tool_name", mapping_path(tool.tool_name), 0.85,
                    f"`{dotted(tool.tool_name)}` names the tool answering")
