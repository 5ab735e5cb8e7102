"""Using trajectory-cleaner's own inference (generator/infer.py) where the old output is silent.

The inference reads the samples as a whole and knows noise and role names better than a guess
from one record's shape; it decides the kinds the old script never wrote, unless the shape guess
keeps structure (a tool step) the inferred reading would flatten or drop. Inference only helps
here: when it is missing or fails, alignment and shapes stand on their own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.migrate.records import RawRec, Sig
from generator.migrate.rules import CONTENT_ROLES, Rule, rule_matches
from generator.paths import runtime_module

STRUCTURE_RANK = {"tool_exchange": 5, "tool_call": 4, "tool_result": 3, "reasoning": 2, "user": 1, "assistant": 1,
                  "system": 1, "observation": 1}


def try_infer(samples: list[Path], notice) -> Any:
    """The lead's inference (generator/infer.py) when this build has it; None otherwise."""
    try:
        from generator import infer  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        return infer.infer([str(s) for s in samples])
    except Exception as exc:  # noqa: BLE001 - inference only helps here; alignment stands on its own
        notice(f"notice: inference failed ({exc.__class__.__name__}: {exc}); using alignment and record shapes only")
        return None


def adopt_inferred(rules: list[Rule], raws: list[RawRec], inference: Any) -> None:
    """Rules the old output said nothing about: the inferred kind, unless the record shape keeps more.

    The inference module (when present) reads the samples as a whole and knows noise and role
    names better; the shape guess wins only where it keeps structure the inferred reading would
    flatten or drop (a tool step read as a result with nothing to link to, a call read as text
    whose content field is not there).
    """
    mapping = getattr(inference, "mapping", None) if inference is not None else None
    if not isinstance(mapping, dict) or not mapping.get("kinds"):
        return
    convert = runtime_module("convert")
    specs = mapping["kinds"]
    try:
        kinds = [convert.Kind.compile(i, spec) for i, spec in enumerate(specs)]
    except (KeyError, TypeError, ValueError):
        return
    linkable = any(r.sig.role in ("tool_call", "tool_exchange") for r in rules)
    for rule in rules:
        if rule.source != "shape":
            continue
        members = [rec for rec in raws if rule_matches(rule, rec.record)]
        if members:
            _adopt(rule, members, kinds, specs, linkable)


def _adopt(rule: Rule, members: list[RawRec], kinds: list, specs: list[dict], linkable: bool) -> None:
    """The first inferred kind matching every member replaces the rule's guess, unless the guess keeps more."""
    for kind, spec in zip(kinds, specs):
        if not all(kind.matches(rec.record) for rec in members):
            continue
        try:
            inferred = _sig_from_spec(spec)
        except (KeyError, TypeError, ValueError):
            return
        if inferred.role not in ("skip", "meta") and not _usable(inferred, members, linkable):
            return
        shape_wins = STRUCTURE_RANK.get(rule.sig.role, 0) >= 2 and _usable(rule.sig, members, linkable) \
            and _weight(rule.sig) > _weight(inferred)
        if not shape_wins:
            rule.sig = inferred
            rule.source = "inference"
        return


def _usable(sig: Sig, members: list[RawRec], linkable: bool) -> bool:
    """Does a candidate reading work on these records (its paths are there; a result can be linked)?"""
    convert = runtime_module("convert")

    def present(path: tuple) -> bool:
        return bool(path) and sum(convert.get_path(r.record, path) not in (convert.MISSING, None)
                                  for r in members) * 2 > len(members)

    if sig.role in CONTENT_ROLES and not present(sig.content):
        return False
    if sig.role in ("tool_call", "tool_exchange") and not present(sig.tool_name):
        return False
    return not (sig.role == "tool_result" and not sig.link and not linkable)


def _weight(sig: Sig) -> tuple:
    return (STRUCTURE_RANK.get(sig.role, 0),
            sum(1 for p in (sig.content, sig.tool_name, sig.args, sig.call_id, sig.link) if p))


def _sig_from_spec(spec: dict) -> Sig:
    compile_paths = runtime_module("mapping").compile_paths

    def first(key):
        paths = compile_paths(spec.get(key))
        return paths[0] if paths else ()

    return Sig(spec["role"], content=first("content"), tool_name=first("tool_name"), args=first("args"),
               call_id=first("call_id"), link=first("result_link"), learned=False)


def decision_text(decision: Any) -> str:
    """One of the inference module's open decisions, as a line for the report."""
    key, value = getattr(decision, "key", None), getattr(decision, "value", None)
    if key is None:
        return f"inference: {decision}"
    text = f"inference is unsure of {key}: {value}"
    evidence = getattr(decision, "evidence", None)
    candidates = getattr(decision, "candidates", None)
    if evidence:
        text += f" ({evidence})"
    if candidates:
        text += f"; candidates: {', '.join(map(str, candidates))}"
    return text


def kept_structure(rules: list[Rule], raws: list[RawRec], inference: Any) -> tuple[list[dict], list[str]]:
    """The inferred kinds that keep calls and results the learned rules drop, to put first.

    The old script may have dropped every tool call and result (it wrote only the conversation's
    text); the new cleaner keeps them, as the inference reads them (calls in a list beside the
    text, results linked by id). Such a kind comes before the learned rules only where, for the
    records it matches, the learned rule skips them or reads text only. Returns (kinds, notes).
    """
    mapping = getattr(inference, "mapping", None) if inference is not None else None
    if not isinstance(mapping, dict):
        return [], []
    convert = runtime_module("convert")
    kinds, notes = [], []
    for index, spec in enumerate(mapping.get("kinds") or []):
        entries = spec.get("emit") or []
        structured = spec.get("role") in ("tool_call", "tool_exchange") or (
            spec.get("role") == "tool_result" and spec.get("result_link")) or any(
            e.get("as") in ("tool_call", "tool_result", "tool_exchange") for e in entries)
        if not structured:
            continue
        try:
            kind = convert.Kind.compile(index, spec)
        except (KeyError, TypeError, ValueError):
            continue
        members = [rec for rec in raws if kind.matches(rec.record)]
        dropped = [rec for rec in members if (learned := next((r for r in rules if rule_matches(r, rec.record)), None))
                   is None or learned.sig.role not in ("tool_call", "tool_result", "tool_exchange")]
        if not dropped:
            continue
        kinds.append({**spec, "name": f"{spec.get('name', 'kind')} (calls and results the old script dropped)"})
        notes.append(f"{spec.get('name', 'a kind')}: {len(dropped)} record(s) whose tool calls or results the old "
                     "script dropped; the new cleaner keeps them, as inference reads them")
    return kinds, notes
