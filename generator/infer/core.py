"""Propose a complete mapping (docs/mapping.md) from the profile of sample raw traces.

Why: the promise is a correct cleaner for a format nobody has described, without writing a
mapping by hand. Names are one signal (role and kind names are recognised in the many ways formats
spell them), but structure decides: which fields a kind carries (text, a tool name with arguments,
an output), which ids reappear in which other kind (tool linkage by value overlap), which record
opens every session (a header), and what has no content at all (noise).

How: ``infer_profile`` is the pipeline, read top to bottom: each step is a function of the draft
(``draft.Draft``) in a module named for the part of the mapping it decides; ``CROSS_RULES`` then
revise the kind-by-kind reading with what the kinds say together. ``infer`` profiles the samples
and hands the result to the search (``search``), which scores whole mappings on what their
cleaners write and settles what the structure alone could not.
"""

from __future__ import annotations

import copy
from typing import Any

from cleaner_runtime.mapping import DEFAULTS
from generator.infer.addressed import addressed_calls
from generator.infer.block_plans import blocks_section, drop_unread_blocks
from generator.infer.compose import compose
from generator.infer.content import finish_role
from generator.infer.crosscheck import (
    prose_in_skipped_kinds,
    repeats_as_skip,
    streamed_messages,
    streamed_results,
    textless_messages,
    trigger_as_user,
)
from generator.infer.decisions import CONFIDENT, Decision, Inference
from generator.infer.document import document_key, meta_section
from generator.infer.draft import Draft
from generator.infer.embedded import adopt_call_lists
from generator.infer.fields import norm
from generator.infer.hidden import hidden_kinds
from generator.infer.input_session import input_section, session_section
from generator.infer.linking import finish_result, resolve_tools, tools_section
from generator.infer.naming import source_name, source_profile
from generator.infer.notices import templated_notices
from generator.infer.opening import document_opening
from generator.infer.planning import start
from generator.infer.rules import kinds_section
from generator.infer.speakers import people_beside_bots, split_by_speaker
from generator.infer.steps import group_spans, steps_answering_calls, uncalled_steps
from generator.infer.superseded import undone_rule
from generator.infer.times import timestamps_section
from generator.infer.timing import block_times, end_times, session_order
from generator.inspect import MAX_BYTES, Profile, profile_paths

__all__ = ["CONFIDENT", "Decision", "Draft", "Inference", "infer", "infer_profile"]

CROSS_RULES = (
    adopt_call_lists,        # embedded: call lists anywhere in a record
    steps_answering_calls,   # steps: tool observations repeating a listed call are its result
    group_spans,             # steps: spans that only group others
    uncalled_steps,          # steps: platform events the model never calls
    hidden_kinds,            # hidden: kinds the format hides from the conversation
    addressed_calls,         # addressed: messages addressed to a tool are its calls
    split_by_speaker,        # speakers: the user's values of a speaker field
    templated_notices,       # notices: platform notices written from a template
    people_beside_bots,      # speakers: messages no bot posted
    trigger_as_user,         # crosscheck: the opening record as the user's request
    streamed_results,        # crosscheck: streamed deltas of a result
    streamed_messages,       # crosscheck: streamed chunks of a message
    repeats_as_skip,         # crosscheck: kinds repeating what others write
    textless_messages,       # crosscheck: message envelopes without text
    prose_in_skipped_kinds,  # crosscheck: a skip that would lose prose
)


def infer_profile(profile: Profile, *, source: str | None = None, answers: dict | None = None) -> Inference:
    """Inference from an existing profile; ``answers`` (decision key -> value) settle questions."""
    draft = start(profile, source, answers)
    p = draft.p
    mapping: dict[str, Any] = {"mapping_version": 1}
    mapping["source"] = source_name(draft)
    mapping["input"] = input_section(draft)
    mapping["session"] = session_section(draft)
    draft.blocks_section = blocks_section(draft)
    resolve_tools(draft)
    for plan in draft.plans:
        finish_role(draft, plan)
    for rule in CROSS_RULES:
        rule(draft)
    for plan in draft.plans:
        if plan.role == "tool_result" and not plan.emit:
            finish_result(draft, plan)
        streams = [p for p in plan.content if len(p) == 1 and norm(p[0]) == "stdout"]
        if plan.role in ("user", "assistant", "reasoning", "tool_result") and not plan.emit and not plan.joined \
                and (len(plan.content) == 1 or streams):
            joined = compose([rec.data for rec in plan.kind.recs], (streams or plan.content)[0])
            if joined:
                plan.joined = draft.redecide(f"kinds[{plan.kind.key}].content", joined, 0.85,
                                             "the text, then what the records keep beside it "
                                             + ", ".join(f"`{p.get('path') or p.get('text')}`" for p in joined["join"][1:]))
    opening = document_opening(draft)
    if opening:
        mapping["session"]["opening"] = opening
    mapping["timestamps"] = timestamps_section(draft)
    end_times(draft, mapping["timestamps"]["fields"])
    block_times(draft, mapping["timestamps"])
    session_order(draft, mapping["session"], mapping["timestamps"]["fields"])
    mapping["meta"] = meta_section(draft)
    if draft.document_used:
        mapping["input"]["document_key"] = draft.decide(
            "input.document_key", document_key(draft), 0.9,
            f"{', '.join(draft.document_used)} sit beside the record list, not in the records; every record "
            "reaches them under this key")
    mapping["kinds"] = undone_rule(draft, kinds_section(draft))
    mapping["unknown_kinds"] = draft.decide("unknown_kinds", "fail", 0.9,
                                            "kinds not seen in the samples fail loudly rather than vanish")
    drop_unread_blocks(draft)
    mapping["blocks"] = draft.blocks_section
    mapping["tools"] = tools_section(draft)
    mapping["sessions"] = copy.deepcopy(DEFAULTS["sessions"])  # the runtime's defaults, written out
    injected = (draft.native_rules or {}).get("harness_noise")
    if injected:
        mapping["sessions"]["harness_noise"] = draft.decide(
            "sessions.harness_noise", [*mapping["sessions"]["harness_noise"], *injected], 0.9,
            f"Letta's {draft.native.source} adapter drops the user texts the harness injects")
    mapping["privacy"] = copy.deepcopy(DEFAULTS["privacy"])
    mapping["source_profile"] = source_profile(draft, mapping)
    ordered = {k: mapping[k] for k in ("mapping_version", "source", "source_profile", "input", "session",
                                       "timestamps", "meta", "kinds", "unknown_kinds", "blocks", "tools",
                                       "sessions", "privacy")}
    questions = [d for d in draft.decisions if d.confidence < CONFIDENT]
    return Inference(ordered, draft.decisions, questions, p, draft.native.source if draft.native else None)


def infer(paths: list[str], *, source: str | None = None, max_bytes: int = MAX_BYTES,
          answers: dict | None = None, progress: bool = False) -> Inference:
    """Profile the samples and propose a complete mapping with per-decision confidence."""
    from generator.infer.search import search

    profile = profile_paths(paths, max_bytes=max_bytes, progress=progress)
    return search(profile, paths, source=source, answers=answers, progress=progress).inference
