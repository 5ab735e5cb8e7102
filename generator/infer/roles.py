"""A kind's role from its own records: the first of an ordered list of named rules that applies.

Why: a kind's role follows from several kinds of evidence - a harness's own convention, a debug
log level, a tool name with arguments and an output, a value link to earlier calls, a role word
in its name, the session's header position - and the order they are weighed in is itself a
decision. Each rule here is one such piece of evidence with its confidence, so that a rule can be
read, tested and reordered on its own, and the order is the table at the bottom.

Contract: ``decide_role(draft, plan)`` -> a ``Verdict`` (role, confidence, evidence, the roles
to offer instead): a native harness's convention when it has one for the kind, else the first rule
of ``ROLE_RULES`` that applies; the last rule always
applies (a guess at 0.55, which becomes a question). A rule may fill the plan's fields its role
needs (a linked result's link and output, an unnamed tool step's tool name). Rules that revise
roles with what the kinds say together come later (``core.CROSS_RULES``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.infer.block_plans import holds_call_blocks
from generator.infer.draft import Draft
from generator.infer.fields import (
    any_payload,
    content_named,
    generic_tool,
    guess_text_role,
    is_header,
    kind_name_path,
    kind_names,
    quiet_level,
    tool_shaped_without_name,
)
from generator.infer.linking import result_link, tool_links
from generator.inspect import dotted, strong_roles

TEXT_ROLES = ("user", "assistant", "reasoning")


@dataclass
class Verdict:
    role: str
    confidence: float
    evidence: str
    candidates: list = field(default_factory=list)


@dataclass
class Facts:
    """What the rules read about one kind, worked out once."""

    n: str  # "3 record(s)", for evidence
    names: list  # roles its name sounds like, strongest first
    texts: list  # text candidates, best first
    text_role: str | None  # the text role its name gives, when the name is not a skip/system/meta word
    quiet: str | None  # a debug level every record is logged at
    call_site: bool  # a kind whose ids later records refer to, or that carries a tool name and arguments
    link: Any  # (path, link) when its values are the ids of earlier calls
    generic: bool  # `name`/`inputs`/`outputs` only: could be any step


def facts(draft: Draft, plan: Any) -> Facts:
    k = plan.kind
    names = kind_names(plan)
    text_roles = [r for r in names if r in TEXT_ROLES]
    text_role = text_roles[0] if text_roles else None
    if names and names[0] in ("skip", "system", "meta"):
        text_role = None
    strong = strong_roles(k.names()[0]) if k.names() else []
    if {"user", "assistant"} <= set(text_roles) and not any(r in strong for r in text_roles):
        text_role = None  # llm_request: a name that names both speakers says nothing
    return Facts(f"{k.count} record(s)", names, plan.text_fields, text_role, quiet_level(plan),
                 f"kind:{k.key}" in draft.call_sites, result_link(draft, plan), generic_tool(plan))


def native_convention(draft: Draft, plan: Any) -> Verdict | None:
    """A harness Letta has an adapter for: its own role for the kind's name, before any other rule."""
    if not draft.native_rules:
        return None
    # the innermost value first: codex's `event_msg` is skipped, its `agent_reasoning` is not
    role = next((draft.native_rules["roles"][v] for v in plan.kind.names() if v in draft.native_rules["roles"]), None)
    if not role:
        return None
    return Verdict(role, 0.95, draft.native_rules["why"].format(source=draft.native.source))


def debug_level(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    if f.quiet and not f.call_site and not f.link:
        return Verdict("skip", 0.85, f"{f.n} all logged at debug level (`{f.quiet}`): diagnostics, skipped and counted",
                       ["user", "assistant"])
    return None


def tool_step(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    """A call site that also holds its output: call and result in one record."""
    if not (f.call_site and plan.output and plan.output[0] not in (plan.args,) and not f.link):
        return None
    evidence = (f"{f.n} carry a tool name `{dotted(plan.tool_name)}`"
                + (f", arguments `{dotted(plan.args)}`" if plan.args else "")
                + f" and the output `{dotted(plan.output[0])}` together"
                + ("; but `name`/`inputs`/`outputs` could be any step, and nothing names it a tool"
                   if f.generic else ""))
    return Verdict("tool_exchange", 0.7 if f.generic else 0.9, evidence,
                   ["user", "assistant", "skip"] if f.generic else ["tool_call", "skip"])


def tool_call(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    if not f.call_site:
        return None
    refs = [lk for lk in tool_links(draft) if lk.source == f"kind:{plan.kind.key}"
            and lk.source_path == plan.call_id]
    evidence = f"{f.n} carry a tool name `{dotted(plan.tool_name)}`" + (
        f" and arguments `{dotted(plan.args)}`" if plan.args else "") + (
        f"; their `{dotted(refs[0].source_path)}` values reappear in {refs[0].target}" if refs else "")
    return Verdict("tool_call", 0.9, evidence, ["tool_exchange", "skip"])


def linked_result(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    """Values that are the ids of earlier calls: the strongest evidence of a result."""
    if not (f.link and (plan.output or f.texts or any_payload(draft, plan, f.link[0]))):
        return None
    if not plan.output and not f.texts:
        plan.output = [any_payload(draft, plan, f.link[0])]
    plan.result_link = f.link[0]
    lk = f.link[1]
    return Verdict("tool_result", 0.95, f"{f.n}: {lk.overlap:.0%} of `{dotted(lk.target_path)}` values are ids of "
                   f"earlier {lk.source} `{dotted(lk.source_path)}` tool calls", ["skip"])


def calls_in_blocks(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    if f.texts and holds_call_blocks(draft, plan) and not f.text_role:
        return Verdict("assistant", 0.85, f"{f.n} whose `{dotted(f.texts[0][1])}` holds tool-call blocks: the "
                       "assistant's calls", ["skip"])
    return None


def named_result(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    k = plan.kind
    named = "tool_result" in strong_roles(k.names()[0] if k.names() else "") or f.names == ["tool_result"]
    blocks_of_user = f.texts and f.texts[0][2] == "a list of typed content blocks" and "user" in f.names
    if not (named and (plan.output or f.texts) and not blocks_of_user):
        return None
    return Verdict("tool_result", 0.85, f"{f.n} named like a tool result with output in "
                   f"`{dotted((plan.output or [f.texts[0][1]])[0])}`; no ids: each is linked to the oldest "
                   "unanswered call", ["observation", "skip"])


def session_header(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    if is_header(draft, plan) and ("meta" in f.names or not f.names) and not content_named(f.texts):
        return Verdict("meta", 0.9, f"{f.n}, each the first record of its session, with no message text: a session "
                       "header", ["skip"])
    return None


def bookkeeping(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    if f.texts or plan.output:
        return None
    sounds = f" (named like {f.names[0]})" if f.names and f.names[0] == "skip" else ""
    return Verdict("skip", 0.9 if sounds else 0.85, f"{f.n} with no text or tool fields{sounds}: bookkeeping, "
                   "skipped and counted", ["meta"])


def named_noise(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    if f.names and f.names[0] == "skip":
        return Verdict("skip", 0.85, f"{f.n} named like {', '.join(plan.kind.names()[:1])}: noise, skipped and "
                       "counted", ["user", "assistant", "observation"])
    return None


def system_prompt(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    if f.names and f.names[0] == "system":
        return Verdict("skip", 0.85, f"{f.n} named like a system prompt: omitted, as Letta's normalizer does by "
                       "default", ["system", "user"])
    return None


def named_text(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    if not (f.text_role and (f.texts or plan.output)):
        return None
    k = plan.kind
    others = [r for r in ("user", "assistant", "reasoning", "system", "observation", "skip") if r != f.text_role]
    rival = next(((v, roles[0]) for v in k.names() for roles in [strong_roles(v)]
                  if roles and {roles[0], f.text_role} == {"user", "assistant"}), None)
    if rival:  # `type: assistant` with `userType: human`: two of its values name two speakers
        return Verdict(f.text_role, 0.6, f"{f.n}: `{k.names()[0]}` names {f.text_role} but `{rival[0]}` names "
                       f"{rival[1]}: which one says who wrote them?", [rival[1], *[r for r in others if r != rival[1]]])
    return Verdict(f.text_role, 0.9, f"{f.n} named like {f.text_role} (`{k.names()[0] if k.names() else k.key}`)",
                   others)


def unnamed_tool_step(draft: Draft, plan: Any, f: Facts) -> Verdict | None:
    """An input and an output with no tool name: the kind's own name names the tool."""
    if not (f.texts and tool_shaped_without_name(plan)):
        return None
    plan.tool_name = kind_name_path(plan)
    return Verdict("tool_exchange", 0.82, f"{f.n} hold an input `{dotted(plan.args)}` and an output "
                   f"`{dotted(plan.output[0])}`; the tool is named by `{dotted(plan.tool_name)}`",
                   ["assistant", "skip"])


def guess(draft: Draft, plan: Any, f: Facts) -> Verdict:
    role, why = guess_text_role(plan)
    return Verdict(role, 0.55, f"{f.n} with text in `{dotted(f.texts[0][1]) if f.texts else '?'}` but no role "
                   f"name: {why}", [r for r in ("user", "assistant", "reasoning", "observation", "system", "skip") if r != role])


ROLE_RULES = (
    debug_level,
    tool_step,
    tool_call,
    linked_result,
    calls_in_blocks,
    named_result,
    session_header,
    bookkeeping,
    named_noise,
    system_prompt,
    named_text,
    unnamed_tool_step,
    guess,
)


def decide_role(draft: Draft, plan: Any) -> Verdict:
    verdict = native_convention(draft, plan)
    if verdict:
        return verdict
    f = facts(draft, plan)
    for rule in ROLE_RULES:
        verdict = rule(draft, plan, f)
        if verdict is not None:
            return verdict
    raise AssertionError("the last role rule always applies")
