"""Learned kind rules: conditions on raw fields, and what records meeting them become.

A rule is the unit the report shows and the mapping's ``kinds`` list is made of; this module
turns one into its mapping entry, its name and its description in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.migrate.notation import dotted, path_out, paths_out
from generator.migrate.records import Sig
from generator.paths import runtime_module

CONTENT_ROLES = ("user", "assistant", "reasoning", "system", "observation", "tool_result", "tool_exchange")
SOURCE_WORDS = {"alignment": "learned from the old output", "shape": "guessed from the record shape",
                "inference": "from trajectory-cleaner's inference"}
SOURCE_SHORT = {"alignment": "old output", "shape": "record shape", "inference": "inference"}


@dataclass
class Rule:
    """A learned kind rule and the evidence behind it."""

    conds: list  # (path, op, value): op in eq, missing, has, lacks
    sig: Sig
    records: int
    aligned: int
    values: dict = field(default_factory=dict)  # path -> extra values merged into an eq condition
    source: str = "alignment"  # alignment | shape | inference


def _conditions(rule: Rule) -> tuple[dict, list, list]:
    match, has, lacks = {}, [], []
    for path, op, value in rule.conds:
        if op == "eq":
            values = [value, *rule.values.get(path, [])]
            match[dotted(path)] = values if len(values) > 1 else value
        elif op in ("missing", "lacks"):
            lacks.append(path_out(path))
        elif op == "has":
            has.append(path_out(path))
    return match, has, lacks


def rule_name(rule: Rule) -> str:
    """The rule's conditions in words (``type=tool, no who``): its name in the mapping and the report."""
    parts = []
    for path, op, value in rule.conds:
        if op == "eq":
            values = [value, *rule.values.get(path, [])]
            parts.append(f"{dotted(path)}={'|'.join(map(str, values))}")
        elif op in ("missing", "lacks"):
            parts.append(f"no {dotted(path)}")
        else:
            parts.append(f"has {dotted(path)}")
    return ", ".join(parts) or "every record"


def rule_kind(rule: Rule) -> dict:
    """The mapping's ``kinds`` entry for a rule."""
    match, has, lacks = _conditions(rule)
    sig = rule.sig
    kind: dict[str, Any] = {"name": rule_name(rule)}
    if match:
        kind["match"] = match
    if has:
        kind["has"] = has
    if lacks:
        kind["lacks"] = lacks
    kind["role"] = sig.role
    if sig.role in CONTENT_ROLES:
        kind["content"] = paths_out([sig.content])
    if sig.role in ("tool_call", "tool_exchange"):
        kind["tool_name"] = paths_out([sig.tool_name])
        if sig.args:
            kind["args"] = paths_out([sig.args])
        if sig.call_id:
            kind["call_id"] = paths_out([sig.call_id])
    if sig.role == "tool_result" and sig.link:
        kind["result_link"] = paths_out([sig.link])
    if sig.role in ("tool_result", "tool_exchange") and sig.ok:
        kind["ok"] = {"path": path_out(sig.ok[0]), "negate": sig.ok[1]}
    return kind


def rule_matches(rule: Rule, record: dict) -> bool:
    """Does a raw record meet every condition of the rule?"""
    convert = runtime_module("convert")
    for path, op, value in rule.conds:
        actual = convert.get_path(record, path)
        if op == "eq" and not any(convert.same_value(actual, v) for v in [value, *rule.values.get(path, [])]):
            return False
        if op in ("missing", "lacks") and actual not in (convert.MISSING, None):
            return False
        if op == "has" and actual in (convert.MISSING, None):
            return False
    return True


def describe_rule(rule: Rule) -> str:
    """What a rule does, in words, for the report's mapping table."""
    sig = rule.sig
    if sig.role == "skip":
        return "skipped"
    parts = [sig.role]
    if sig.content:
        parts.append(f"content from {dotted(sig.content)}")
    if sig.tool_name:
        parts.append(f"tool name from {dotted(sig.tool_name)}")
    if sig.args:
        parts.append(f"args from {dotted(sig.args)}")
    if sig.call_id:
        parts.append(f"call id from {dotted(sig.call_id)}")
    if sig.link:
        parts.append(f"linked by {dotted(sig.link)}")
    if sig.ok:
        parts.append(f"ok from {'not ' if sig.ok[1] else ''}{dotted(sig.ok[0])}")
    return ", ".join(parts)
