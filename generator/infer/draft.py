"""A mapping being read from one profile: the kind plans every pass refines, and the decisions taken.

Why: inference is a pipeline of passes (core.infer_profile), each a function in a module named for
what it reads. They share one record of the reading so far, ``Draft``, passed to each explicitly:
the kinds' plans (``KindPlan``), what the blocks and the call sites are, and the decisions. The
plans exist from the start (``start``), so no pass finds a part missing; passes only refine them.

Contract: ``planning.start(profile, source, answers)`` returns a draft whose every kind has its first plan.
``Draft.decide`` records a decision (an answer given for its key wins, at confidence 1);
``redecide`` replaces an earlier one of the same key; ``skip`` turns a kind to skip, dropping what
was decided of it; ``sure`` says whether a kind's role is decided with confidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.infer.decisions import CONFIDENT, Decision
from generator.inspect import Kind, Profile

NATIVE_RULES = {
    "pi": {
        "roles": {"bashExecution": "skip", "custom_message": "skip", "custom": "skip"},
        "bookkeeping": ["session_info", "model_change", "thinking_level_change", "custom_message", "custom", "label",
                        "compaction", "branch_summary"],
        "why": "Letta's {source} adapter drops it (bookkeeping or a user shell command not sent to the model)",
        "blocks": {"text": {"as": "text", "field": "text"}, "thinking": {"as": "reasoning", "field": "thinking"},
                   "toolCall": {"as": "tool_call", "call_id": "id", "tool_name": "name", "args": "arguments"},
                   "image": {"as": "placeholder", "text": "[image]"}},
    },
}
NATIVE_RULES["openclaw"] = NATIVE_RULES["pi"]
# Claude Code's transport and UI rows, which Letta's adapter skips (its README: "progress, summary,
# system, file-history-snapshot, title/mode bookkeeping, and similar"); a row marked as a subagent's
# (`isSidechain`) beside the main conversation is dropped too (`sidechain_record_dropped`).
CLAUDE_CODE_TRANSPORT = ["progress", "queue-operation", "file-history-snapshot", "summary", "system", "pr-link",
                         "last-prompt", "custom-title", "ai-title", "agent-name", "permission-mode", "attachment",
                         "mode"]
NATIVE_RULES["claude-code"] = {
    "roles": {**dict.fromkeys(CLAUDE_CODE_TRANSPORT, "skip"), "user": "user", "assistant": "assistant"},
    "bookkeeping": CLAUDE_CODE_TRANSPORT, "error_prefix": "",
    "first_rules": [{"name": "a subagent's row beside the main conversation (Letta's claude-code adapter drops it)",
                     "match": {"isSidechain": True}, "role": "skip"}],
    "why": "Letta's {source} adapter drops it"}
# Codex: `session_meta` and `turn_context` are read for the meta record only; of `event_msg` (the UI's
# copy of the conversation) only `agent_reasoning` is read, as the reasoning (Letta's adapter reads no
# `response_item` reasoning: its summary repeats that text). The user texts Codex injects (its README:
# `injected_context_dropped`) are dropped with the core's harness noise.
NATIVE_RULES["codex"] = {
    "roles": {"session_meta": "skip", "turn_context": "skip", "agent_reasoning": "reasoning", "reasoning": "skip",
              "event_msg": "skip"},
    "bookkeeping": ["session_meta", "turn_context", "event_msg"],
    "harness_noise": ["<environment_context>", "<user_instructions>", "<permissions instructions>", "<turn_context>"],
    "why": "Letta's {source} adapter reads it for the session's context only, or drops it"}


@dataclass
class KindPlan:
    kind: Kind
    role: str = "skip"
    confidence: float = 0.5
    evidence: str = ""
    candidates: list = field(default_factory=list)
    content: list = field(default_factory=list)
    content_conf: float = 0.9
    content_evidence: str = ""
    content_candidates: list = field(default_factory=list)
    tool_name: tuple | None = None
    args: tuple | None = None
    args_key: str | None = None
    call_id: tuple | None = None
    output: list = field(default_factory=list)
    result_link: tuple | None = None
    ok: dict | None = None
    reasoning: tuple | None = None  # a call's thought (ReAct `log`)
    emit: list = field(default_factory=list)  # several records from one raw record (calls in a list)
    result_name: tuple | None = None  # a result's tool name, for results that carry no link
    joined: dict | None = None  # content composed of the text and what is kept beside it (`join`)
    has_extra: list = field(default_factory=list)
    text_fields: list = field(default_factory=list)
    speaker: tuple | None = None  # (path, values naming the user): those records are the user's
    timestamp: tuple | None = None  # the kind's own time field (an output's end time)


@dataclass
class Draft:
    """The reading of one profile so far; ``answers`` force decisions (key -> value)."""

    p: Profile
    source_arg: str | None
    answers: dict
    plans: list[KindPlan] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    blocks_section: dict = field(default_factory=dict)  # the mapping's ``blocks``, once planned
    block_plans: dict[str, dict] = field(default_factory=dict)
    key_plans: dict[str, dict] = field(default_factory=dict)  # blocks.by_key entries
    call_sites: set[str] = field(default_factory=set)  # ``kind:<key>`` / ``block:<type>`` holding calls
    embedded_call_names: set[str] = field(default_factory=set)  # tool names of calls in lists anywhere
    document_used: list[str] = field(default_factory=list)  # fields around the record list the mapping reads
    opening_rules: list[dict] = field(default_factory=list)  # skip rules for what the opening already writes
    zone_field: tuple | None = None  # the field naming the records' time zone
    link_cache: list | None = None  # linking.tool_links, computed once

    @property
    def native(self) -> Any:
        return self.p.native

    @property
    def native_rules(self) -> dict | None:
        return NATIVE_RULES.get(self.native.source) if self.native else None

    def redecide(self, key: str, value: Any, confidence: float, evidence: str, candidates: list | None = None) -> Any:
        """A decision that replaces what was decided for the same key (a later rule knows better)."""
        self.decisions = [d for d in self.decisions if d.key != key]
        return self.decide(key, value, confidence, evidence, candidates)

    def skip(self, plan: KindPlan, evidence: str, confidence: float = 0.85) -> None:
        """A later rule's finding that a kind is skipped: its earlier decisions go, this one stays."""
        key = f"kinds[{plan.kind.key}]"
        plan.role = "skip"
        self.forget(f"{key}.")
        self.decide(f"{key}.role", "skip", confidence, evidence)

    def role_decision(self, plan: KindPlan) -> Decision | None:
        """The latest decision on a kind's role (a later rule's replaces an earlier one's)."""
        key = f"kinds[{plan.kind.key}].role"
        return next((d for d in reversed(self.decisions) if d.key == key), None)

    def sure(self, plan: KindPlan) -> bool:
        """Whether a kind's role is decided with confidence (no question): later rules change only guesses."""
        decision = self.role_decision(plan)
        return decision is not None and decision.confidence >= CONFIDENT

    def forget(self, prefix: str) -> None:
        """Drop the decisions under ``prefix`` (a kind whose reading a later rule replaced)."""
        self.decisions = [d for d in self.decisions if not d.key.startswith(prefix)]

    def decide(self, key: str, value: Any, confidence: float, evidence: str, candidates: list | None = None) -> Any:
        if key in self.answers:
            value = self.answers[key]
            confidence, evidence = 1.0, f"answered ({evidence})" if evidence else "answered"
        cands = [c for c in (candidates or []) if c != value]
        if confidence < CONFIDENT:
            cands = [value, *cands]
        self.decisions.append(Decision(key, value, round(confidence, 2), evidence, cands))
        return value
