"""Propose a complete mapping (docs/mapping.md) from the profile of sample raw traces.

Why: the promise is a correct cleaner for a format nobody has described, without writing a
mapping by hand. Every choice is a ``Decision`` with a confidence and one line of evidence, so
a person (or ``new --yes``) can see what was inferred and why; choices below ``CONFIDENT`` are
the ``questions``, offered with their candidates, never silently guessed.

How: names are one signal (role and kind names are recognised in the many ways formats spell
them), but structure decides: which fields a kind carries (text, a tool name with arguments, an
output), which ids reappear in which other kind (tool linkage by value overlap), which record
opens every session (a header), and what has no content at all (noise).

Source name default: ``source=`` when given; else the harness when the format is one Letta reads
natively (``pi``, ``openclaw``, ``claude-code``, ``codex``); else the nearest file or folder name
of the inputs that is not a generic word (``input``, ``samples``, ``raw-traces``, dates and
ids removed), lower-cased with hyphens; else ``custom-agent``.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from cleaner_runtime.mapping import DEFAULTS, paths_notation
from cleaner_runtime.mapping import dotted as match_key  # match keys are always dotted strings
from generator.infer.addressed import addressed_calls
from generator.infer.calls import ID_KEYS
from generator.infer.compose import compose
from generator.infer.crosscheck import (
    prose_in_skipped_kinds,
    repeats_as_skip,
    streamed_messages,
    streamed_results,
    textless_messages,
    trigger_as_user,
)
from generator.infer.embedded import adopt_call_lists
from generator.infer.hidden import hidden_kinds
from generator.infer.item_parts import STATUS_KEYS, success_values
from generator.infer.links import constant_within_sessions
from generator.infer.notes import note_flag
from generator.infer.notices import templated_notices
from generator.infer.opening import document_opening
from generator.infer.outcomes import error_text, outcome
from generator.infer.reading import reading_settings
from generator.infer.richtext import plain_over_rich
from generator.infer.roles import decide_role
from generator.infer.speakers import people_beside_bots, split_by_speaker
from generator.infer.steps import group_spans, steps_answering_calls, uncalled_steps
from generator.infer.timing import end_times, session_order
from generator.inspect import (
    DEFINITIONS_ONLY,
    LIST,
    MAX_BYTES,
    MEDIA_WORDS,
    Kind,
    Profile,
    dotted,
    find_meta,
    get,
    mapping_path,
    name_roles,
    profile_fields,
    profile_paths,
    session_key,
    strong_roles,
    time_name_rank,
    words,
)
from generator.inspect import values_at as _values_at

CONFIDENT = 0.8

# Field names by what they usually hold (compared as lower_snake words).
CONTENT_NAMES = ["content", "text", "message", "body", "msg", "utterance", "reply", "answer", "response", "output",
                 "completion", "prompt", "question", "query", "input", "comment", "value", "transcript", "markdown",
                 "result", "data", "description", "note", "parts", "contents", "message_text", "final_answer"]
WEAK_TEXT = {"title", "name", "subject", "summary", "label", "status", "custom_type", "display_name", "username",
             "user_name", "email", "url", "path", "file", "filename", "model", "error", "reason", "stop_reason"}
TOOL_NAME_NAMES = ["tool_name", "tool", "function_name", "name", "function", "action", "tool_id", "skill",
                   "operation", "command_name", "api", "endpoint", "step", "step_name", "action_name", "plugin"]
ARGS_NAMES = ["args", "arguments", "tool_input", "input", "inputs", "parameters", "params", "tool_args", "kwargs",
              "action_input", "arg", "payload", "request", "query", "command", "cmd", "code", "script", "url"]
OUTPUT_NAMES = ["output", "tool_output", "result", "results", "observation", "outputs", "response", "stdout",
                "return", "returns", "return_value", "content", "text", "data", "value", "body", "log", "logs",
                "stderr", "answer", "summary"]
CALL_ID_NAMES = ["call_id", "tool_call_id", "tool_use_id", "invocation_id", "action_id", "step_id", "id", "uuid",
                 "request_id", "span_id", "run_id", "use_id"]
OK_TRUE = {"success", "succeeded", "ok", "passed", "is_success"}
OK_FALSE = {"is_error", "error", "failed", "failure", "has_error", "errored"}
PARENTISH = {"parent", "children", "child", "prev", "previous", "reply", "root", "thread", "conversation", "session",
             "trace", "after", "before", "source", "ref"}
GENERIC_NAMES = {"input", "inputs", "data", "raw", "raw-traces", "raw_traces", "traces", "trace", "samples", "sample",
                 "logs", "log", "export", "exports", "dump", "sessions", "session", "records", "output", "events",
                 "transcripts", "transcript", "runs", "run", "files", "jsonl", "json", "tmp", "temp", "fixtures",
                 "fixture", "tests", "test", "examples", "example", "basic", "simple", "default", "case", "cases",
                 "reference", "shared", "work", "home", "users", "user", "src", "var", "downloads", "desktop",
                 "documents", "main", "history", "archive", "all", "new", "old", "chats", "chat", "conversations",
                 "messages", "dataset", "corpus", "upstream-fixtures", "raw-samples", "ndjson", "gz", "part", "day"}
PROFILE_WORDS = {
    "coding": {"cwd", "git", "branch", "repo", "commit", "diff", "patch", "bash", "shell", "exec", "read_file",
               "write_file", "edit", "pytest", "file_path", "filepath", "grep", "apply_patch", "code", "workspace"},
    "support": {"ticket", "customer", "refund", "order", "account", "csat", "escalation", "escalate", "requester",
                "helpdesk", "support", "billing", "subscription", "renewal", "macro", "zendesk", "intercom"},
    "research": {"search", "paper", "papers", "citation", "citations", "arxiv", "browse", "web_search", "sources",
                 "research", "pubmed", "scholar", "fetch_url", "bibliography", "findings", "hypothesis"},
    "ops": {"incident", "deploy", "deployment", "pipeline", "job", "build", "alert", "runbook", "pod", "k8s",
            "kubectl", "ci", "stage", "step", "runner", "oncall", "pager", "rollback", "cluster", "workflow"},
    "compliance": {"audit", "policy", "control", "controls", "evidence", "regulation", "compliance", "gdpr", "sox",
                   "attestation", "risk"},
}
# Harness conventions of Letta's native adapters (their own names, and what they drop).
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
NATIVE_RULES["claude-code"] = {"roles": {}, "bookkeeping": [], "error_prefix": "",
                               "why": "Letta's {source} adapter drops it"}
NATIVE_RULES["codex"] = {"roles": {}, "bookkeeping": [], "why": "Letta's {source} adapter drops it"}


def norm(key: Any) -> str:
    return "_".join(words(str(key)))


@dataclass
class Decision:
    key: str  # e.g. "session.by", "kinds[type=message,message.role=user].role", "timestamps.format"
    value: Any
    confidence: float  # 0..1; >= CONFIDENT (0.8) means 'sure'
    evidence: str  # one line, privacy-safe
    candidates: list = field(default_factory=list)  # alternatives for questions (values), best first

    @property
    def sure(self) -> bool:
        return self.confidence >= CONFIDENT

    def to_dict(self) -> dict:
        return {"key": self.key, "value": self.value, "confidence": round(self.confidence, 2),
                "evidence": self.evidence, "candidates": self.candidates}


@dataclass
class Inference:
    mapping: dict  # complete mapping (valid against cleaner_runtime/mapping.schema.json)
    decisions: list[Decision]
    questions: list[Decision]  # the decisions below CONFIDENT; empty when everything is sure
    profile: Profile
    native_source: str | None  # e.g. "pi" when Letta supports the format natively
    # texts and calls the mapping's cleaner writes twice on the samples (measured by the search):
    # an output no reading of the records should have, so `new --yes` refuses it
    doubled: int = 0
    # what the final mapping's output shows no mapping can read right (``actions.actions_in_text``):
    # sentences; `new --yes` refuses while there is one
    doubts: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "mapping": self.mapping,
            "decisions": [d.to_dict() for d in self.decisions],
            "questions": [d.to_dict() for d in self.questions],
            "native_source": self.native_source,
        }


@dataclass
class FieldFact:
    """One path of a kind's (or block type's) records, with what it looks like."""

    path: tuple
    fill: float
    type: str
    prose: float
    tokenish: bool
    avg_len: float
    json_object: float
    name: str

    @property
    def scalar_text(self) -> bool:
        return self.type == "string"


def field_facts(stats: dict, count: int, blocks_paths: list) -> list[FieldFact]:
    out = []
    for path, st in stats.items():
        if LIST in path or not st.records or len(path) > 4:
            continue
        if any(path[: len(bp)] == bp and len(path) > len(bp) for bp in blocks_paths):
            continue
        out.append(FieldFact(path, st.records / max(1, count), st.main_type, st.prose, st.tokenish, st.avg_len,
                             st.str_json_object / st.str_count if st.str_count else 0.0, norm(path[-1])))
    return out


def pick(facts: list[FieldFact], names: list[str], *, types: tuple = (), exclude: set = frozenset(),
         min_fill: float = 0.3) -> FieldFact | None:
    """The field whose own name is earliest in ``names`` (then fuller, then shallower)."""
    best = None
    for f in facts:
        if f.path in exclude or f.fill < min_fill or (types and f.type not in types):
            continue
        flat = f.name.replace("_", "")
        rank = next((i for i, n in enumerate(names) if f.name == n or flat == n.replace("_", "")), None)
        if rank is None:
            continue
        key = (rank, -f.fill, len(f.path))
        if best is None or key < best[0]:
            best = (key, f)
    return best[1] if best else None


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


# Rules that revise the kind-by-kind reading with what the kinds say together, in this order: each
# is a function of the inferrer, in its own module with its own tests (tests/infer/), and changes
# only roles that are guesses or that its evidence overrules. Calls before results before
# speakers: a speaker rule must not turn a tool's message into a person's.
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


class Inferrer:
    """One inference run over a profile; ``answers`` force decisions (key -> value)."""

    def __init__(self, profile: Profile, source: str | None, answers: dict | None):
        self.p = profile
        self.source_arg = source
        self.answers = dict(answers or {})
        self.decisions: list[Decision] = []
        self.native = profile.native
        self.native_rules = NATIVE_RULES.get(self.native.source) if self.native else None
        self.block_plans: dict[str, dict] = {}
        self.document_used: list[str] = []  # fields around the record list the mapping reads
        self.opening_rules: list[dict] = []  # skip rules for records the session's opening already writes
        self.key_plans: dict[str, dict] = {}  # blocks.by_key entries
        self.call_sites: set[str] = set()
        self._tool_links: list | None = None

    # -- decisions -------------------------------------------------------------------------------
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

    # -- whole mapping ---------------------------------------------------------------------------
    def run(self) -> Inference:
        p = self.p
        mapping: dict[str, Any] = {"mapping_version": 1}
        mapping["source"] = self.source()
        mapping["input"] = self.input()
        mapping["session"] = self.session()
        self.plans = [self.plan_kind(k) for k in p.kinds]
        self.blocks_section = self.blocks()
        self.resolve_tools()
        for plan in self.plans:
            self.finish_role(plan)
        for rule in CROSS_RULES:
            rule(self)
        for plan in self.plans:
            if plan.role == "tool_result" and not plan.emit:
                self.finish_result(plan)
            streams = [p for p in plan.content if len(p) == 1 and norm(p[0]) == "stdout"]
            if plan.role in ("user", "assistant", "reasoning", "tool_result") and not plan.emit and not plan.joined \
                    and (len(plan.content) == 1 or streams):
                joined = compose([rec.data for rec in plan.kind.recs], (streams or plan.content)[0])
                if joined:
                    plan.joined = self.redecide(f"kinds[{plan.kind.key}].content", joined, 0.85,
                                                "the text, then what the records keep beside it "
                                                + ", ".join(f"`{p.get('path') or p.get('text')}`" for p in joined["join"][1:]))
        opening = document_opening(self)
        if opening:
            mapping["session"]["opening"] = opening
        mapping["timestamps"] = self.timestamps()
        end_times(self, mapping["timestamps"]["fields"])
        session_order(self, mapping["session"], mapping["timestamps"]["fields"])
        mapping["meta"] = self.meta()
        if self.document_used:
            mapping["input"]["document_key"] = self.decide(
                "input.document_key", self.document_key(), 0.9,
                f"{', '.join(self.document_used)} sit beside the record list, not in the records; every record "
                "reaches them under this key")
        mapping["kinds"] = self.kinds_section()
        mapping["unknown_kinds"] = self.decide("unknown_kinds", "fail", 0.9,
                                               "kinds not seen in the samples fail loudly rather than vanish")
        self.drop_unread_blocks()
        mapping["blocks"] = self.blocks_section
        mapping["tools"] = self.tools()
        mapping["sessions"] = copy.deepcopy(DEFAULTS["sessions"])  # the runtime's defaults, written out
        mapping["privacy"] = copy.deepcopy(DEFAULTS["privacy"])
        mapping["source_profile"] = self.source_profile(mapping)
        ordered = {k: mapping[k] for k in ("mapping_version", "source", "source_profile", "input", "session",
                                           "timestamps", "meta", "kinds", "unknown_kinds", "blocks", "tools",
                                           "sessions", "privacy")}
        questions = [d for d in self.decisions if d.confidence < CONFIDENT]
        return Inference(ordered, self.decisions, questions, p, self.native.source if self.native else None)

    # -- source ----------------------------------------------------------------------------------
    def source(self) -> str:
        if self.source_arg:
            return self.decide("source", self.source_arg, 1.0, "given with --source")
        if self.native:
            return self.decide("source", self.native.source, 0.9, f"a {self.native.source} session format: "
                               f"{self.native.evidence}")
        name, where = derive_source(self.p.inputs)
        if name:
            return self.decide("source", name, 0.85, f"from the {where} name `{name}`; any non-empty name works")
        return self.decide("source", "custom-agent", 0.8, "no telling file or folder name; a placeholder name")

    def source_profile(self, mapping: dict) -> str:
        bag: Counter = Counter()
        for path in self.p.stats:
            for w in words(dotted(path)):
                bag[w] += 1
            bag["_".join(words(str(path[-1])))] += 1
        for kind in self.p.kinds:
            for v in kind.names():
                bag.update(words(v))
                bag["_".join(words(v))] += 1
        for plan in self.plans:
            if plan.tool_name:
                for rec in plan.kind.recs[:200]:
                    value = get(rec.data, plan.tool_name)
                    if isinstance(value, str):
                        bag["_".join(words(value))] += 1
        for bt in self.p.blocks.types.values():
            stat = bt.stats.get(("name",))
            if stat:
                for v in stat.values:
                    if isinstance(v, str):
                        bag["_".join(words(v))] += 1
        bag.update(words(mapping["source"]))
        scores = {name: sum(1 for w in vocab if bag[w]) for name, vocab in PROFILE_WORDS.items()}
        best = max(scores, key=lambda k: scores[k])
        if scores[best] >= 2 and sorted(scores.values())[-2] < scores[best]:
            hits = sorted(w for w in PROFILE_WORDS[best] if bag[w])[:5]
            return self.decide("source_profile", best, 0.85, f"names in the samples: {', '.join(hits)}")
        return self.decide("source_profile", "generic", 0.8, "no clear domain vocabulary; the generic profile")

    # -- input -----------------------------------------------------------------------------------
    def input(self) -> dict:
        files = [f for f in self.p.files if f.container in ("jsonl", "json_array", "json_object", "csv", "tsv")]
        containers = Counter(f.container + (" (gzip)" if f.compressed else "") for f in files)
        out: dict[str, Any] = {"container": "auto", "records_path": None}
        summary = "containers in the samples: " + (", ".join(
            f"{k} x{v}" for k, v in containers.most_common()) or "none readable")
        kinds = {f.container for f in files}
        if any(f.one_line for f in files) and len(kinds) == 1:
            # a document on one line looks like a one-record JSONL file to auto-detection
            out["container"] = self.decide("input.container", files[0].container, 0.9,
                                           summary + "; written on one line, so named explicitly")
        elif any(f.one_line for f in files):
            out["container"] = self.decide("input.container", "auto", 0.6, summary + "; some JSON documents are "
                                           "on one line and would be read as one JSONL record", ["json_object"])
        else:
            self.decide("input.container", "auto", 0.95, summary + "; auto-detected per file")
        objects = [f for f in files if f.container == "json_object"]
        nested = [f for f in files if f.records_path and "*" in f.records_path]
        if nested:
            paths = Counter(f.records_path for f in nested)
            best, _ = paths.most_common(1)[0]
            at = best.index("*")
            conf = 0.9 if len(paths) == 1 and len(nested) == len(files) else 0.6
            out["records_path"] = self.decide(
                "input.records_path", mapping_path(best), conf,
                f"each element of {'`' + dotted(best[:at]) + '`' if at else 'the array'} holds its own list of "
                f"records at `{dotted(best[at + 1:])}`" + ("" if conf >= CONFIDENT else "; not in every file"),
                [mapping_path(c) for c in paths if c != best] or [None])
            objects = []
        if objects:
            paths = Counter(f.records_path for f in objects)
            best, _ = paths.most_common(1)[0]
            # the lists offered, most files first, then in the order the files rank them (longest first);
            # never a set's order, which would follow the hash seed
            offered = Counter(c for f in objects for c in dict.fromkeys(f.records_path_choices))
            choices = [c for c, _ in offered.most_common()]
            auto_ok = len(best) == 1 and all(len(f.records_path_choices) == 1 for f in objects)
            value = None if auto_ok else mapping_path(best)
            definitions = DEFINITIONS_ONLY in choices
            choices = [c for c in choices if c != DEFINITIONS_ONLY]
            if auto_ok:
                conf, evidence = 0.95, f"each JSON object holds one record list (`{dotted(best)}`), found automatically"
            elif len(paths) == 1 and len(choices) == 1:
                conf, evidence = 0.9, f"the record list is at `{dotted(best)}` in every JSON object" + (
                    "; the other lists define the run (tools, system prompt)" if definitions else "")
            else:
                conf = 0.6
                evidence = f"several lists of objects ({', '.join(dotted(c) for c in sorted(choices, key=dotted))}); " \
                           f"`{dotted(best)}` is the longest"
            out["records_path"] = self.decide("input.records_path", value, conf, evidence,
                                              [mapping_path(c) for c in choices if c != best])
        if children := [c for c, _ in Counter(c for f in self.p.files for c in f.children).most_common()]:
            out["children"] = self.decide(
                "input.children", [mapping_path(c) for c in children], 0.85,
                f"records hold their replies in `{dotted(children[0])}` (objects of the same shape): each read "
                "as a record of its own, after its parent")
        out.update(reading_settings(files))  # input.tagged / unflatten / decode, as inspect read the samples
        out["include"] = self.include()
        bad = sum(f.bad_count for f in self.p.files)
        out["invalid_lines"] = self.decide(
            "input.invalid_lines", "skip", 0.9,
            f"{bad} torn or invalid line(s) in the samples; skipped and reported with file and line" if bad
            else "no invalid lines in the samples; a torn line would be skipped and reported")
        return out

    def include(self) -> list:
        default = list(DEFAULTS["input"]["include"])
        extra = []
        for f in self.p.files:
            if f.container not in ("jsonl", "json_array", "json_object", "csv", "tsv"):
                continue
            name = Path(f.path).name.lower()
            if not any(re.fullmatch(pattern.replace(".", r"\.").replace("*", ".*"), name) for pattern in default):
                suffixes = "".join(Path(name).suffixes[-2:]) if name.endswith(".gz") else Path(name).suffix
                pattern = f"*{suffixes}" if suffixes else name
                if pattern not in extra:
                    extra.append(pattern)
        evidence = "the usual JSON file names" if not extra else f"the samples also use {', '.join(extra)}"
        return self.decide("input.include", default + extra, 0.9, evidence)

    # -- sessions --------------------------------------------------------------------------------
    def session(self) -> dict:
        s = self.p.session
        if s.by == "element":
            self.decide("session.by", "element", 0.9, s.evidence + "; each element is one session")
            ident = self.element_id()
            field_value = None
            if ident:
                field_value = self.decide("session.field", self.document_path(ident), 0.9,
                                          f"`{dotted(ident)}` names each element: the output files are named after it")
                self.document_used.append(f"`{dotted(ident)}`")
            return {"by": "element", "field": field_value, "missing": "fail"}
        if s.by == "file":
            self.decide("session.by", "file", 0.9, s.evidence + "; each file is one session")
            return {"by": "file", "field": None, "missing": "fail"}
        grouping = [c for c in s.candidates if (c["per_file_max"] > 1 or c["across_files"]) and c["distinct"] > 1]
        conf = 0.9
        alternatives = [c["path"] for c in grouping[1:]]
        if len(grouping) > 1 and grouping[1]["rank"] == grouping[0]["rank"] and not self._nested(grouping[0],
                                                                                                  grouping[1]):
            conf = 0.6
        self.decide("session.by", "field", 0.9, s.evidence)
        path = self.decide("session.field", mapping_path(s.path), conf, s.evidence,
                           [mapping_path(tuple(a.split("."))) for a in alternatives])
        missing_recs = [r for r in self.p.recs if get(r.data, s.path) is None]
        if not missing_recs:
            missing = self.decide("session.missing", "fail", 0.9, "every sampled record carries the session id")
        else:
            share = len(missing_recs) / max(1, len(self.p.recs))
            missing = self.decide("session.missing", "skip", 0.85 if share < 0.2 else 0.6,
                                  f"{len(missing_recs)} sampled record(s) ({share:.0%}) carry no session id; "
                                  "they are skipped and counted", ["fail"])
        return {"by": "field", "field": path, "missing": missing}

    def _nested(self, a: dict, b: dict) -> bool:
        """Whether one grouping field's values always sit within one value of the other."""
        pa, pb = tuple(a["path"].split(".")), tuple(b["path"].split("."))
        seen: dict = {}
        for rec in self.p.recs:
            va, vb = get(rec.data, pa), get(rec.data, pb)
            if va is None or vb is None:
                continue
            if seen.setdefault(vb, va) != va:
                return False
        return True

    # -- kinds -----------------------------------------------------------------------------------
    def facts(self, kind: Kind) -> list[FieldFact]:
        return field_facts(kind.stats, kind.count, self.p.blocks.all_paths)

    def discriminators(self, kind: Kind) -> set:
        return {path for path, _ in kind.match}

    def plan_kind(self, kind: Kind) -> KindPlan:
        """What each kind's fields are (text, tool name, arguments, id, output), before roles."""
        plan = KindPlan(kind)
        facts = self.facts(kind)
        taken = self.discriminators(kind) | ({self.p.session.path} if self.p.session.path else set())
        times = {t.path for t in self.p.times}
        usable = [f for f in facts if f.path not in taken and f.path not in times]
        plan.text_fields = self.text_candidates(kind, usable)
        name = pick(usable, TOOL_NAME_NAMES, types=("string",), min_fill=0.8)
        label = None  # a display name (`Web Search`): a tool name only beside arguments and an output
        if name and not self.p.stats[name.path].tokenish:
            label = name if label_like(self.p.stats[name.path]) else None
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
        outs = [f for f in usable if f.fill >= 0.3 and not any(f.path[: len(e)] == e for e in exclude) and (
            f.name in OUTPUT_NAMES or f.name.replace("_", "") in {n.replace("_", "") for n in OUTPUT_NAMES})
            and f.type in ("string", "object", "array")]
        outs.sort(key=lambda f: (OUTPUT_NAMES.index(f.name) if f.name in OUTPUT_NAMES else 99, -f.fill))
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
        plan.ok = self.ok_field(usable, kind.stats)
        return plan

    def text_candidates(self, kind: Kind, facts: list[FieldFact]) -> list[tuple[float, tuple, str]]:
        """(score, path, why) for fields that could be the text of a kind, best first."""
        out = []
        blocks = [bp for bp in self.p.blocks.all_paths if kind.stats.get(bp) and kind.stats[bp].records]
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
            if f.name in WEAK_TEXT or f.fill < 0.2:
                continue
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

    def ok_field(self, facts: list[FieldFact], stats: dict | None = None) -> dict | None:
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

    # -- blocks ----------------------------------------------------------------------------------
    def blocks(self) -> dict:
        b = self.p.blocks
        by_key = self.blocks_by_key()
        if not b.type_field:
            out = {"type_field": "type", "types": {}, "unknown": "fail"}
            return {**out, "by_key": by_key} if by_key else out
        self.decide("blocks.type_field", mapping_path(b.type_field), 0.9,
                    f"lists of objects at {', '.join('`' + dotted(p) + '`' for p in b.paths)} carry "
                    f"`{dotted(b.type_field)}`")
        types = {}
        for name, bt in b.types.items():
            spec, conf, evidence, cands = self.plan_block(name, bt)
            chosen = self.decide(f"blocks.types[{name}].as", spec["as"], conf, evidence, cands)
            if chosen != spec["as"]:
                spec = self.block_spec_as(name, bt, chosen)
            types[name] = spec
            self.block_plans[name] = spec
            if spec["as"] in ("tool_call", "tool_exchange"):
                self.call_sites.add(f"block:{name}")
        if self.native_rules and b.type_field == ("type",):
            for name, spec in self.native_rules.get("blocks", {}).items():
                if name not in types:
                    types[name] = dict(spec)
                    self.decide(f"blocks.types[{name}].as", spec["as"], 0.9,
                                f"not in the samples; {self.native.source} sessions use it")
        out = {"type_field": mapping_path(b.type_field), "types": types, "unknown": "fail"}
        return {**out, "by_key": by_key} if by_key else out

    def blocks_by_key(self) -> dict:
        """Blocks without a type field, typed by the key they hold, in the order they are checked."""
        b = self.p.blocks
        if not b.by_key:
            return {}
        self.decide("blocks.by_key", list(b.by_key), 0.9,
                    f"lists at {', '.join('`' + dotted(p) + '`' for p in b.key_paths)} hold objects with no type "
                    f"field, told apart by the key they hold ({', '.join(b.by_key)})")
        out = {}
        for name, bt in b.by_key.items():
            spec, conf, evidence, cands = self.plan_block(name, bt, "key")
            chosen = self.decide(f"blocks.by_key[{name}].as", spec["as"], conf, evidence, cands)
            if chosen != spec["as"]:
                spec = self.block_spec_as(name, bt, chosen, "key")
            out[name] = spec
            self.key_plans[name] = spec
            if spec["as"] in ("tool_call", "tool_exchange"):
                self.call_sites.add(f"key:{name}")
        return out

    def plan_block(self, name: str, bt, site: str = "block") -> tuple[dict, float, str, list]:
        facts = field_facts(bt.stats, bt.count, [])
        facts = [f for f in facts if f.path != self.p.blocks.type_field]
        roles = name_roles(name)
        ws = set(words(name))
        tname = pick(facts, TOOL_NAME_NAMES, types=("string",), min_fill=0.8)
        args = pick(facts, ARGS_NAMES, types=("object", "string"), min_fill=0.5,
                    exclude={tname.path} if tname else set())
        text_names = ["text", "content", "value", "thinking", "reasoning", "output", "result", "summary", "logs",
                      "log", "stdout"]
        text = pick(facts, text_names, types=("string", "array"), min_fill=0.5) or pick(
            facts, text_names, types=("object",), min_fill=0.5) or only_string(facts)
        linked_to = [lk for lk in self.p.links if lk.target == f"{site}:{name}" and self.id_link(lk)]
        n = f"{bt.count} `{name}` block(s)"
        output = self.block_output(facts, {tname.path if tname else None, args.path if args else None})
        if tname and args and output:
            spec = self.block_spec_as(name, bt, "tool_exchange", site)
            return spec, 0.9, (f"{n} each holding a call (`{dotted(tname.path)}`, `{dotted(args.path)}`) together "
                               f"with its output `{dotted(output.path)}`"), ["tool_call", "skip"]
        if not tname and args and output and site == "block" and len(args.path) > 1 and args.path[0] == name:
            # `{"type": "code_interpreter", "code_interpreter": {"input", "outputs"}}`: the type names the tool
            spec = self.block_spec_as(name, bt, "tool_exchange", site)
            return spec, 0.85, (f"{n} each holding an input `{dotted(args.path)}` and its output "
                                f"`{dotted(output.path)}` under its own type name: a `{name}` call"), ["skip"]
        if tname and (args or "tool_call" in roles):
            spec = self.block_spec_as(name, bt, "tool_call", site)
            return spec, 0.95, f"{n} with a tool name `{dotted(tname.path)}`" + (
                f" and arguments `{dotted(args.path)}`" if args else ""), ["skip"]
        if linked_to:
            spec = self.block_spec_as(name, bt, "tool_result", site)
            return spec, 0.95, f"{n} whose `{dotted(linked_to[0].target_path)}` values are ids of earlier calls", [
                "skip"]
        if "reasoning" in roles[:1]:
            spec = self.block_spec_as(name, bt, "reasoning", site)
            if spec["as"] == "reasoning":
                return spec, 0.9, f"{n} named like reasoning, text in `{spec['field']}`", ["skip"]
            return spec, 0.85, f"{n} named like reasoning but with no readable text (opaque data)", ["reasoning"]
        if "tool_result" in strong_roles(name):
            spec = self.block_spec_as(name, bt, "tool_result", site)
            if "tool_name" in spec:
                return spec, 0.9, (f"{n} named like a tool result, no ids linking them: the oldest waiting call of "
                                   f"the tool named in `{dotted(tuple(str(spec['tool_name']).split('.')))}`"), ["skip"]
            return spec, 0.9, f"{n} named like a tool result, no ids linking them: the oldest waiting call", ["skip"]
        if text and text.type == "string" and (text.prose > 0.1 or "text" in ws or text.name in ("text", norm(name))):
            return self.block_spec_as(name, bt, "text"), 0.9, f"{n} with text in `{dotted(text.path)}`", ["skip"]
        if ws & MEDIA_WORDS or norm(name) in MEDIA_WORDS:
            word = next((w for w in ("image", "audio", "video", "file", "document") if w in ws or w in name.lower()),
                        None) or media_word(bt) or "attachment"
            return {"as": "placeholder", "text": f"[{word}]"}, 0.9, f"{n}: media, kept as a `[{word}]` placeholder", [
                "skip"]
        if text and text.type == "string":
            return self.block_spec_as(name, bt, "text"), 0.7, f"{n}: text in `{dotted(text.path)}`?", ["skip"]
        return {"as": "skip"}, 0.7, f"{n} with no text and no tool fields", ["text", "placeholder"]

    def block_output(self, facts: list[FieldFact], taken: set) -> FieldFact | None:
        """A block field holding the output of the call beside it (``function.output``)."""
        outs = [f for f in facts if f.path not in taken and f.fill >= 0.3 and f.type in ("string", "object", "array")
                and f.name in ("output", "outputs", "result", "results", "tool_output", "return_value", "response")]
        outs.sort(key=lambda f: (-f.fill, len(f.path)))
        return outs[0] if outs else None

    def block_spec_as(self, name: str, bt, role: str, site: str = "block") -> dict:
        facts = [f for f in field_facts(bt.stats, bt.count, []) if f.path != self.p.blocks.type_field]
        if role == "tool_exchange":
            spec = self.block_spec_as(name, bt, "tool_call", site)
            spec["as"] = "tool_exchange"
            taken = {tuple(v) if isinstance(v, list) else tuple(v.split(".")) for v in (
                spec.get(k) for k in ("tool_name", "args", "call_id")) if v}
            output = self.block_output(facts, taken)
            spec["content"] = mapping_path(output.path if output else ("output",))
            ok = self.ok_field(facts, bt.stats)
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
            elif site == "block" and self.p.blocks.type_field and args and args.path[0] == name:
                spec["tool_name"] = mapping_path(self.p.blocks.type_field)  # the block's type names the tool
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
            links = [lk for lk in self.p.links if lk.target == f"{site}:{name}" and self.id_link(lk)]
            link = links[0].target_path if links else None
            if link is None:
                ref = pick(facts, ["tool_use_id", "tool_call_id", "call_id", "toolcallid", "id"],
                           types=("string", "int"), min_fill=0.5)
                link = ref.path if ref else None
            if link:
                spec["result_link"] = mapping_path(link)
            else:
                tool = pick(facts, ["tool_name", "name", "function_name", "tool"], types=("string",), min_fill=0.8)
                if tool and self.p.blocks and (not content or tool.path[: len(content.path)] != content.path):
                    spec["tool_name"] = mapping_path(tool.path)  # no ids: answers the oldest call of that tool
            ok = self.ok_field(facts, bt.stats)
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

    # -- roles -----------------------------------------------------------------------------------
    def id_link(self, link) -> bool:
        """A link by call id: not a parent/thread reference, not a tool name repeated by its result."""
        names = {"name", "tool_name", "function_name", "tool", "function"}
        return not self.parentish(link.target_path) and not self.parentish(link.source_path) \
            and norm(link.target_path[-1]) not in names and norm(
            link.source_path[-1]) not in names

    def parentish(self, path: tuple) -> bool:
        """A tree reference (``parent_id``, ``children[]``), named by its last field name."""
        named = [p for p in path if p != LIST]
        ws = set(words(str(named[-1]))) if named else set()
        return bool(ws & PARENTISH) and not ws & {"call", "tool", "use", "invocation", "function"}

    def is_header(self, plan: KindPlan) -> bool:
        k = plan.kind
        sessions = self.p.session.sessions or 1
        return k.per_session_max == 1 and k.first_in_session == k.count and k.count >= min(sessions, 1)

    def named(self, plan: KindPlan) -> list[str]:
        return plan.kind.hints

    def resolve_tools(self) -> None:
        """Kinds that are tool calls (structure), so that links from their ids find results.

        A tool name with arguments or an id makes a call, unless the kind's name says it is a
        message (a text role) and it has text, or its id values refer back to earlier records
        (a result that repeats the tool name).
        """
        for plan in self.plans:
            if (not plan.tool_name and plan.args and plan.call_id and plan.kind.match
                    and "tool_call" in self.named(plan) and not plan.output):
                plan.tool_name = self.kind_name_path(plan)  # the kind's own name names the tool
            if not plan.tool_name or not (plan.args or plan.call_id or "tool_call" in self.named(plan)):
                continue
            if plan.text_fields and plan.text_fields[0][2] == "a list of typed content blocks":
                continue
            names = self.named(plan)
            text_role = next((r for r in names if r in ("user", "assistant", "reasoning", "system")), None)
            if text_role and names[0] == text_role and plan.text_fields and not plan.args:
                continue
            if text_role and names[0] == text_role and plan.text_fields and "tool_call" not in names and not (
                    self.exchange_shaped(plan)):
                continue
            if plan.call_id and any(lk.target == f"kind:{plan.kind.key}" and lk.target_path == plan.call_id
                                    for lk in self.tool_links()):
                continue
            self.call_sites.add(f"kind:{plan.kind.key}")
            # the call id is the field whose values later records refer to
            out = [lk for lk in self.tool_links() if lk.source == f"kind:{plan.kind.key}"
                   and lk.target != lk.source]
            if out:
                best = max(out, key=lambda lk: (lk.source_path == plan.call_id, lk.matched))
                plan.call_id = best.source_path

    def exchange_shaped(self, plan: KindPlan) -> bool:
        """A tool name, arguments and an output in (nearly) every record: a tool step, whatever its
        kind is called (a ReAct ``agent_step`` with ``tool``, ``tool_input`` and ``observation``)."""
        if not (plan.tool_name and plan.args and plan.output) or plan.output[0] == plan.args or self.generic_tool(plan):
            return False  # `name`/`inputs`/`outputs` alone could be any step (an llm run)
        fills = [st.records / plan.kind.count for p in (plan.tool_name, plan.args, plan.output[0])
                 if (st := plan.kind.stats.get(p)) is not None]
        return len(fills) == 3 and min(fills) >= 0.8

    def thought_field(self, plan: KindPlan) -> tuple | None:
        """A call's prose field named like a thought (``log``, ``thought``, ``reasoning``)."""
        used = {plan.tool_name, plan.args, *(plan.output[:1])}
        for _, path, _ in plan.text_fields:
            if path in used or any(path[: len(u)] == u for u in used if u):
                continue
            name = norm(path[-1])
            if name in ("log", "thought", "thoughts") or "reasoning" in name_roles(str(path[-1]))[:1]:
                return path
        return None

    def tool_links(self) -> list:
        """Value links that can be tool linkage: not the session id, not parent/thread references,
        not a value every record of a session repeats (a ticket id)."""
        if self._tool_links is None:
            session = self.p.session.path
            self._tool_links = [lk for lk in self.p.links if lk.source_path != session and lk.target_path != session
                                and self.id_link(lk) and not self.repeats_in_session(lk.source, lk.source_path)
                                and not self.repeats_in_session(lk.target, lk.target_path)]
        return self._tool_links

    def repeats_in_session(self, site: str, path: tuple) -> bool:
        kind = next((k for k in self.p.kinds if f"kind:{k.key}" == site), None)
        if kind is None:
            return False
        values = [(session_key(rec, self.p.session), v) for rec in kind.recs
                  for v in _values_at(rec.data, path) if v is not None]
        return constant_within_sessions(values)

    def result_link(self, plan: KindPlan) -> tuple[tuple, Any] | None:
        """The field of a kind whose values are the ids of earlier calls (the best-matched one)."""
        found = []
        call_ids = {f"kind:{p.kind.key}": p.call_id for p in self.plans}
        for link in self.tool_links():
            if link.target != f"kind:{plan.kind.key}" or link.source not in self.call_sites:
                continue
            if link.source == link.target:
                continue
            if link.source.startswith("kind:") and link.source_path != call_ids.get(link.source):
                continue
            if link.source.startswith("block:") and mapping_path(link.source_path) != self.block_plans.get(
                    link.source[6:], {}).get("call_id"):
                continue
            if link.source.startswith("key:") and mapping_path(link.source_path) != self.key_plans.get(
                    link.source[4:], {}).get("call_id"):
                continue
            found.append(link)
        if not found:
            return None
        best = max(found, key=lambda lk: (lk.overlap, lk.matched))
        return best.target_path, best

    def finish_role(self, plan: KindPlan) -> None:
        """The kind's role from its own records (``infer.roles``), then the fields that role reads."""
        verdict = decide_role(self, plan)
        plan.role, plan.confidence, plan.evidence, plan.candidates = (
            verdict.role, verdict.confidence, verdict.evidence, verdict.candidates)
        self.set_role(plan, f"kinds[{plan.kind.key}].role")

    def drop_unread_blocks(self) -> None:
        """Block types in lists no kind reads (Slack's ``blocks`` beside the ``text`` a message is read
        from) decide nothing: no entry, and no question about them."""
        types = self.blocks_section.get("types") or {}
        if not types or not self.p.blocks.types:
            return
        read: list[tuple] = []
        for plan in self.plans:
            if plan.role in ("skip", "meta"):
                continue
            read.extend(p for p in plan.content if isinstance(p, tuple))
            read.extend(tuple(str(e.get(k)).split(".")) for e in plan.emit for k in ("field", "each", "content")
                        if isinstance(e.get(k), str))
        for name in list(types):
            block = self.p.blocks.types.get(name)
            if block is None:
                continue
            if not any(tuple(c[: len(r)]) == r for c in block.containers for r in read if r):
                del types[name]
                self.forget(f"blocks.types[{name}].")

    def finish_result(self, plan: KindPlan) -> None:
        """A result's outcome (``infer.outcomes``), the error text it holds instead of its output, and
        the tool name it gives, for results that carry no link."""
        key = f"kinds[{plan.kind.key}]"
        records = [rec.data for rec in plan.kind.recs]
        taken = {match_key(p) for p in (*plan.content, plan.result_link) if p}  # outcome's dotted keys
        if not plan.ok:
            plan.ok = outcome(records, taken)
            if plan.ok:
                self.decide(f"{key}.ok", plan.ok, 0.85, f"`{plan.ok['path']}` says whether the tool succeeded")
        if plan.content:
            extra = error_text(records, plan.content[0])
            if extra and (extra,) not in plan.content:
                plan.content = [*plan.content, (extra,)]
                self.redecide(f"{key}.content", [mapping_path(p) for p in plan.content], 0.85,
                              f"output in `{dotted(plan.content[0])}`, the error text in `{extra}` where it is absent")
        names = self.call_names()
        if not names:
            return
        for path, stat in plan.kind.stats.items():
            if len(path) != 1 or path[0] in taken or stat.main_type != "string":
                continue
            values = [rec.data.get(path[0]) for rec in plan.kind.recs if isinstance(rec.data.get(path[0]), str)]
            if values and all(v in names for v in values):
                plan.result_name = path
                self.decide(f"{key}.tool_name", mapping_path(path), 0.85,
                            f"`{dotted(path)}` names the tool a result answers (used where it gives no call id)")
                return

    def call_names(self) -> set[str]:
        """The tool names the samples' calls use (call kinds and calls in lists)."""
        names = set(getattr(self, "embedded_call_names", set()))
        for plan in self.plans:
            if plan.role in ("tool_call", "tool_exchange") and plan.tool_name:
                names.update(v for rec in plan.kind.recs if isinstance(v := get(rec.data, plan.tool_name), str))
        return names

    def calls_in_blocks(self, plan: KindPlan) -> bool:
        """Whether the kind's block list holds tool calls (and no results)."""
        path = plan.text_fields[0][1] if plan.text_fields else None
        if path not in self.p.blocks.all_paths:
            return False
        kinds = {spec["as"] for name, spec in self.block_plans.items()
                 if path in self.p.blocks.types[name].containers} if self.p.blocks.types else set()
        kinds |= {spec["as"] for name, spec in self.key_plans.items() if path in self.p.blocks.by_key[name].containers}
        return bool(kinds & {"tool_call", "tool_exchange"}) and "tool_result" not in kinds

    def quiet_level(self, plan: KindPlan) -> str | None:
        """A log level field that is debug/trace for every record of the kind: diagnostic noise."""
        for path, st in plan.kind.stats.items():
            if (len(path) == 1 and norm(path[0]) in ("level", "severity", "log_level", "levelname", "lvl")
                    and st.records == plan.kind.count and st.values and not st.overflow
                    and all(str(v).lower() in ("debug", "trace", "verbose", "silly") for v in st.values)):
                return dotted(path)
        return None

    def any_payload(self, plan: KindPlan, link: tuple) -> tuple | None:
        """A result's payload when no field is named like one: its one structured or text field."""
        taken = self.discriminators(plan.kind) | {link, self.p.session.path} | {t.path for t in self.p.times}
        found = [f for f in self.facts(plan.kind) if f.path not in taken and f.fill >= 0.8 and len(f.path) <= 2
                 and f.type in ("array", "object", "string") and not f.tokenish
                 and not any(f.path[: len(t)] == t or t[: len(f.path)] == f.path for t in taken if t)]
        found = [f for f in found if not any(o.path == f.path[: len(o.path)] and o is not f for o in found)]
        return found[0].path if len(found) == 1 else None

    def generic_tool(self, plan: KindPlan) -> bool:
        """A call shape whose tool name field is just `name` and whose kind name says nothing of tools."""
        if not plan.tool_name or norm(plan.tool_name[-1]) not in ("name", "step", "api", "endpoint", "operation"):
            return False
        if any(r in ("tool_call", "tool_result") for r in self.named(plan)):
            return False
        return not any("tool" in words(v) or "function" in words(v) for v in plan.kind.names())

    def content_named(self, texts: list) -> bool:
        return any(str(p[-1]).lower() in ("content", "text", "message", "body", "prompt") for _, p, _ in texts[:1])

    def tool_shaped_without_name(self, plan: KindPlan) -> bool:
        return bool(plan.args and plan.output and plan.output[0] != plan.args and plan.kind.match)

    def kind_name_path(self, plan: KindPlan) -> tuple:
        return plan.kind.match[-1][0]

    def guess_text_role(self, plan: KindPlan) -> tuple[str, str]:
        model = any(norm(p[-1]) in ("model", "model_name", "model_id") for p in plan.kind.stats)
        if model:
            return "assistant", "it carries a model name"
        return "user", "cannot tell who wrote it"

    def set_role(self, plan: KindPlan, key: str) -> None:
        role = self.decide(key, plan.role, plan.confidence, plan.evidence, plan.candidates)
        if role != plan.role:
            plan.role = role
            if role == "tool_exchange" and not plan.tool_name:
                plan.tool_name = self.kind_name_path(plan) if plan.kind.match else None
        self.content(plan)

    def content(self, plan: KindPlan) -> None:
        """The content paths of a kind whose role needs them, with the order that loses least."""
        role = plan.role
        k = plan.kind
        if role in ("tool_call", "tool_exchange"):
            plan.reasoning = self.thought_field(plan)
            if plan.reasoning:
                plan.output = [o for o in plan.output if o != plan.reasoning]
                self.decide(f"kinds[{k.key}].reasoning", mapping_path(plan.reasoning), 0.85,
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
            self.decide(f"kinds[{k.key}].content", [mapping_path(p) for p in plan.content], 0.9,
                        f"output in `{dotted(plan.content[0])}`")
            return
        cands = plan.text_fields
        if not cands:
            plan.content = [plan.output[0]] if plan.output else [("content",)]
            self.decide(f"kinds[{k.key}].content", [mapping_path(p) for p in plan.content], 0.6,
                        "no text field found")
            return
        best = cands[0]
        chosen = [best[1]]
        conf = 0.9
        evidence = f"`{dotted(best[1])}`: {best[2]}, in {k.stats[best[1]].records}/{k.count} record(s)"
        others = [c for c in cands[1:] if c[1] != best[1]]
        if others:
            second = others[0]
            both = self.both_filled(k, best[1], second[1])
            fills_gap = self.fills_gap(k, best[1], second[1])
            if both and second[0] >= 0.8 * best[0] and best[2] == second[2]:
                conf = 0.6
                evidence += f"; `{dotted(second[1])}` holds text in the same records"
            elif fills_gap:
                order, lost = self.order_paths(k, best[1], second[1])
                chosen = order
                if lost:
                    conf = 0.6
                    evidence += f"; {lost} record(s) hold both `{dotted(best[1])}` and `{dotted(second[1])}` " \
                                "and would lose one"
                else:
                    evidence += f"; `{dotted(second[1])}` where it is absent"
        plan.content = chosen
        value = self.decide(f"kinds[{k.key}].content", [mapping_path(p) for p in chosen], conf, evidence,
                            [[mapping_path(c[1])] for c in others[:3]])
        plan.content = [tuple(v) if isinstance(v, list) else tuple(str(v).split(".")) for v in value]

    def both_filled(self, k: Kind, a: tuple, b: tuple) -> int:
        return sum(1 for r in k.recs if nonempty(get(r.data, a)) and nonempty(get(r.data, b)))

    def fills_gap(self, k: Kind, a: tuple, b: tuple) -> bool:
        return any(not nonempty(get(r.data, a)) and nonempty(get(r.data, b)) for r in k.recs)

    def order_paths(self, k: Kind, a: tuple, b: tuple) -> tuple[list, int]:
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

    # -- the kinds section -------------------------------------------------------------------------
    def rule(self, plan: KindPlan) -> dict:
        k = plan.kind
        rule: dict[str, Any] = {"name": rule_name(plan)}
        if k.match:
            rule["match"] = {match_key(p): v for p, v in k.match}
        has = [mapping_path(p) for p in k.has]
        if not k.match and not k.has and k.lacks:
            extra = self.unique_key(k)
            if extra:
                has.append(mapping_path(extra))
        if has:
            rule["has"] = has
        if k.lacks:
            rule["lacks"] = [mapping_path(p) for p in k.lacks]
        rule["role"] = plan.role
        if plan.timestamp and plan.role != "skip":
            rule["timestamp"] = [mapping_path(plan.timestamp)]
        if plan.emit:
            rule["emit"] = plan.emit
            return rule
        if plan.role in ("user", "assistant", "reasoning", "system", "observation", "tool_result", "tool_exchange"):
            rule["content"] = plan.joined or paths_notation(plan.content or [("content",)])
        if plan.role in ("tool_call", "tool_exchange"):
            if plan.call_id:
                rule["call_id"] = mapping_path(plan.call_id)
            rule["tool_name"] = mapping_path(plan.tool_name or self.kind_name_path(plan))
            if plan.args:
                rule["args"] = mapping_path(plan.args)
                if plan.args_key:
                    rule["args_key"] = plan.args_key
            if plan.reasoning:
                rule["reasoning"] = mapping_path(plan.reasoning)
        if plan.role == "tool_result" and plan.result_link:
            rule["result_link"] = mapping_path(plan.result_link)
            if plan.result_name:
                rule["tool_name"] = mapping_path(plan.result_name)
        elif plan.role == "tool_result" and plan.tool_name and plan.tool_name not in plan.content:
            rule["tool_name"] = mapping_path(plan.tool_name)  # no ids: the oldest waiting call of that tool
        if plan.role in ("tool_result", "tool_exchange") and plan.ok:
            rule["ok"] = plan.ok
        return rule

    def unique_key(self, k: Kind) -> tuple | None:
        mine = [key for key, st in k.stats.items() if len(key) == 1 and st.records == k.count]
        for key in mine:
            if all(not (o.stats.get(key) and o.stats[key].records) for o in self.p.kinds if o is not k):
                return key
        return None

    def kinds_section(self) -> list[dict]:
        rules = []
        everything = [rec.data for rec in self.p.recs]
        for plan in self.plans:
            rule = self.rule(plan)
            flag = note_flag([rec.data for rec in plan.kind.recs], everything) \
                if plan.role in ("assistant", "user") and not plan.emit and "content" in rule else None
            if flag:
                key, values = flag
                self.decide(f"kinds[{plan.kind.key}].notes", {key: values}, 0.85,
                            f"records with `{key}` {' / '.join(map(repr, values))} are internal notes: reasoning")
                match = {**rule.get("match", {}), mapping_path((key,)): values if len(values) > 1 else values[0]}
                rules.append({**rule, "name": f"{rule['name']}: internal note", "match": match, "role": "reasoning"})
            if plan.speaker:
                path, humans = plan.speaker
                match = {**rule.get("match", {}), match_key(path): humans if len(humans) > 1 else humans[0]}
                rules.append({**rule, "name": f"{rule['name']}: the user's", "match": match, "role": "user"})
            rules.append(rule)
        rules = collapse_skips(rules)
        rules = [*self.opening_rules, *merge_skips(rules)]
        if self.native_rules:
            seen = {v for plan in self.plans for _, v in plan.kind.match}
            unseen = [t for t in self.native_rules["bookkeeping"] if t not in seen]
            if unseen:
                rules.append({"name": f"{self.native.source} bookkeeping not in the samples",
                              "match": {"type": unseen}, "role": "skip"})
        if not rules:
            rules = [{"name": "record", "role": "skip"}]
        return rules

    # -- tools, timestamps, meta -------------------------------------------------------------------
    def tools(self) -> dict:
        oks = [p for p in self.plans if p.ok] or [1 for b in self.block_plans.values() if b.get("ok")]
        prefix = (self.native_rules or {}).get("error_prefix", "Error: ")
        self.decide("tools.error_prefix", prefix, 0.9,
                    (f"as Letta's {self.native.source} adapter writes failed results" if self.native_rules and
                     "error_prefix" in self.native_rules else
                     "failed results are marked the way Letta's Pi/OpenClaw adapters mark them")
                    + ("" if oks else " (no success/error field seen)"))
        results = [p for p in self.plans if p.role == "tool_result"]
        linked = [p for p in results if p.result_link]
        if results and not linked and not any(b.get("as") == "tool_result" for b in self.block_plans.values()):
            self.decide("tools.linkage", "oldest unanswered call", 0.85,
                        "results carry no call ids; each is linked to the oldest call still waiting for one")
        self.decide("tools.orphan_results", "skip", 0.9, "results with no earlier call are dropped and counted")
        return {"error_prefix": prefix, "orphan_results": "skip"}

    def timestamps(self) -> dict:
        p = self.p
        out: dict[str, Any] = {"fields": ["timestamp"], "format": "auto", "layout": None, "timezone": "UTC",
                               "fallback": "none", "fallback_field": None}
        content_recs = [r for plan in self.plans if plan.role not in ("skip", "meta") for r in plan.kind.recs]
        cands = [t for t in p.times if t.name_rank <= 2]
        if not cands:
            cands = [t for t in p.times]
        if not cands:
            self.decide("timestamps.fields", ["timestamp"], 0.9, "no field in the samples holds a time")
            if self.document_fallback(out, f"no field in {p.records} sampled record(s) holds a time"):
                return out
            out["fallback"] = self.decide(
                "timestamps.fallback", "file_mtime", 0.95,
                f"no field in {p.records} sampled record(s) holds a time value; every record gets its file's "
                "modification time", ["none"])
            return out
        primary = cands[0]
        chosen = [primary]
        for other in cands[1:]:
            gap = [r for r in content_recs if all(get(r.data, t.path) is None for t in chosen)
                   and get(r.data, other.path) is not None]
            if gap and other.name_rank <= 2:
                chosen.append(other)
        fill = sum(1 for r in content_recs if any(get(r.data, t.path) is not None for t in chosen))
        total = len(content_recs) or 1
        evidence = f"`{dotted(primary.path)}` ({primary.format}) in {fill}/{total} message record(s)"
        if len(chosen) > 1:
            evidence += "; then " + ", ".join(f"`{dotted(t.path)}` ({t.format})" for t in chosen[1:])
        alt = [mapping_path(t.path) for t in cands if t not in chosen][:3]
        conf = 0.9
        if len(cands) > 1 and cands[1].name_rank == primary.name_rank and cands[1] not in chosen \
                and cands[1].fill >= primary.fill and primary.name_rank > 0:
            conf = 0.65
            evidence += f"; `{dotted(cands[1].path)}` looks as likely"
        out["fields"] = self.decide("timestamps.fields", [mapping_path(t.path) for t in chosen], conf, evidence,
                                    [[a] for a in alt])
        formats = {t.format.removesuffix("_string") for t in chosen}
        base = {"iso_naive": "iso"}
        if len(formats) == 1:
            fmt = formats.pop()
            value = "strptime" if fmt.startswith("strptime:") else base.get(fmt, fmt)
            self.format_decision(out, value, fmt, primary)
        else:
            out["format"] = self.decide("timestamps.format", "auto", 0.9,
                                        f"mixed formats ({', '.join(sorted(t.format for t in chosen))}): each value "
                                        "is read by its own shape")
        naive = any(t.format in ("iso_naive",) or (t.format.startswith("strptime:") and "%z" not in t.format)
                    for t in chosen)
        out["timezone"] = self.timezone(naive)
        if getattr(self, "zone_field", None):
            out["timezone_field"] = [mapping_path(self.zone_field)]
        sessions_without = self.sessions_without_time([t.path for t in chosen])
        if sessions_without and self.document_fallback(out, f"{sessions_without} sampled session(s) have no time "
                                                            "in their records"):
            return out
        if sessions_without:
            out["fallback"] = self.decide("timestamps.fallback", "file_mtime", 0.7,
                                          f"{sessions_without} sampled session(s) have no time at all", ["none"])
        else:
            out["fallback"] = self.decide("timestamps.fallback", "none", 0.9,
                                          "every sampled session has times; records without one take a neighbour's")
        return out

    def format_decision(self, out: dict, value: str, fmt: str, primary) -> None:
        if value != "strptime":
            out["format"] = self.decide("timestamps.format", value, 0.95,
                                        f"every probed value of `{dotted(primary.path)}` reads as {fmt}")
            return
        stat = self.p.stats[primary.path]
        layouts = sorted(stat.layouts_ok or {fmt}, key=lambda x: x)
        layouts = [lay.split(":", 1)[1] for lay in layouts]
        values = [v for v in stat.values if isinstance(v, str)][:200]
        readings = {}
        for lay in layouts:
            try:
                readings[lay] = tuple(datetime.strptime(v.strip(), lay) for v in values)
            except ValueError:
                continue
        distinct = {r for r in readings.values()}
        out["format"] = self.decide("timestamps.format", "strptime", 0.95,
                                    f"`{dotted(primary.path)}` holds human-readable times")
        first = fmt.split(":", 1)[1]
        if len(distinct) > 1:
            others = [lay for lay in readings if lay != first]
            out["layout"] = self.decide("timestamps.layout", first, 0.5,
                                        f"{len(readings)} layouts read every value differently (e.g. day and month "
                                        "both <= 12): which one is right?", others)
        else:
            out["layout"] = self.decide("timestamps.layout", first, 0.9,
                                        f"every probed value of `{dotted(primary.path)}` matches `{first}`")

    def timezone(self, naive: bool) -> str:
        if not naive:
            self.decide("timestamps.timezone", "UTC", 0.95, "times carry their zone (or are epoch numbers)")
            return "UTC"
        from cleaner_runtime.timestamps import zone
        for path, st in self.p.stats.items():
            if LIST in path or norm(path[-1]) not in ("timezone", "tz", "time_zone", "zone", "utc_offset", "tzname"):
                continue
            values = [v for v in st.values if isinstance(v, str)]
            if values:
                try:
                    for value in values:
                        zone(value)
                except ValueError:
                    continue
                self.zone_field = path
                self.decide("timestamps.timezone_field", [mapping_path(path)], 0.85,
                            f"times carry no zone; `{dotted(path)}` names the zone of each session's times")
                return self.decide("timestamps.timezone", values[0], 0.85,
                                   f"the zone where a session names none: {values[0]}, the one the samples name")
        # nothing says which zone naive times are in: reading them as UTC would be a guess
        return self.decide("timestamps.timezone", "UTC", 0.6,
                           "times carry no zone and no field names one: which zone were they written in?",
                           ["Europe/Berlin", "Europe/London", "America/New_York", "+02:00"])

    def sessions_without_time(self, paths: list[tuple]) -> int:
        seen: dict[Any, bool] = {}
        for plan in self.plans:
            if plan.role in ("skip", "meta"):
                continue
            for r in plan.kind.recs:
                key = session_key(r, self.p.session)
                seen[key] = seen.get(key, False) or any(get(r.data, pth) is not None for pth in paths)
        return sum(1 for v in seen.values() if not v)

    # -- fields around the record list (input.document_key) ----------------------------------------
    def document_key(self) -> str:
        used = {k for r in self.p.recs for k in r.data}
        return next(k for k in ("document", "_document", "__document", "_document_fields") if k not in used)

    def envelopes(self) -> list[dict]:
        """The fields around the record list, one per document; empty unless every record has them."""
        if not self.p.recs or any(r.envelope is None for r in self.p.recs):
            return []
        seen: dict[int, dict] = {}
        for r in self.p.recs:
            seen.setdefault(id(r.envelope), r.envelope)
        return list(seen.values())

    def document_path(self, path: tuple) -> Any:
        return mapping_path((self.document_key(), *path))

    def element_id(self) -> tuple | None:
        """A field that names each element of a nested record list (its ``id``), distinct across elements."""
        envs = self.envelopes()
        if len(envs) < 1:
            return None
        stats = profile_fields(envs, times=False)
        names = ["id", "conversation_id", "uuid", "thread_id", "session_id", "chat_id", "conv_id", "key", "name"]
        best = None
        for path, stat in stats.items():
            if LIST in path or len(path) > 2 or stat.records < len(envs) or not stat.tokenish:
                continue
            if stat.cardinality < len(envs) or norm(path[-1]) not in names:
                continue
            rank = (names.index(norm(path[-1])), len(path))
            if best is None or rank < best[0]:
                best = (rank, path)
        return best[1] if best else None

    def document_fallback(self, out: dict, why: str) -> bool:
        """A creation time beside every record list as the session's fallback time."""
        envs = self.envelopes()
        if not envs:
            return False
        stats = profile_fields(envs)
        found = []
        for path, stat in stats.items():
            fmt, share = stat.time_format()
            if LIST in path or stat.records < len(envs) or not fmt or share < 0.8 or time_name_rank(path) > 2:
                continue
            if fmt.startswith("strptime") or (out["format"] != "auto" and fmt.removesuffix("_string").replace(
                    "iso_naive", "iso") != out["format"]):
                continue
            found.append((time_name_rank(path), len(path), path, fmt))
        if not found:
            return False
        _, _, path, fmt = min(found, key=lambda f: f[:2])
        out["fallback"] = self.decide("timestamps.fallback", "field", 0.9,
                                      f"{why}; `{dotted(path)}` beside the records of each of {len(envs)} "
                                      f"document(s) holds a time ({fmt})", ["file_mtime", "none"])
        out["fallback_field"] = self.decide("timestamps.fallback_field", self.document_path(path), 0.9,
                                            f"`{dotted(path)}` outside the record list, reached under "
                                            "input.document_key")
        self.document_used.append(f"`{dotted(path)}`")
        return True

    def meta(self) -> dict:
        out: dict[str, list] = {"cwd": [], "git_branch": [], "model": []}
        envs = self.envelopes()
        around = find_meta(profile_fields(envs, times=False), len(envs)) if envs else {}
        for key, cands in self.p.meta.items():
            outside = around.get(key) or []
            if outside and outside[0]["fill"] >= 1.0 and not (cands and self.sessions_have(cands[0]["path"])):
                best = outside[0]
                paths = [mapping_path(c["path"]) for c in cands[:1]] + [self.document_path(best["path"])]
                out[key] = self.decide(f"meta.{key}", paths, 0.9,
                                       f"`{dotted(best['path'])}` beside the records of every document")
                self.document_used.append(f"`{dotted(best['path'])}`")
                continue
            if not cands:
                continue
            best = cands[0]
            chosen = [best["path"]]
            for other in cands[1:]:
                if any(get(r.data, best["path"]) is None and get(r.data, other["path"]) is not None
                       for r in self.p.recs) and not self.sessions_have(best["path"]):
                    chosen.append(other["path"])
            paths = [mapping_path(c) for c in chosen]
            if outside:  # some documents name it beside their records: where a session's records do not
                paths.append(self.document_path(outside[0]["path"]))
                self.document_used.append(f"`{dotted(outside[0]['path'])}`")
            out[key] = self.decide(f"meta.{key}", paths, 0.9,
                                   f"`{dotted(best['path'])}` (in {best['fill']:.0%} of records)",
                                   [[mapping_path(c["path"])] for c in cands[1:3]])
        return out

    def sessions_have(self, path: tuple) -> bool:
        have: dict[Any, bool] = {}
        for r in self.p.recs:
            key = session_key(r, self.p.session)
            have[key] = have.get(key, False) or get(r.data, path) is not None
        return all(have.values())


# -- helpers -----------------------------------------------------------------------------------
def inner_content(facts: list[FieldFact], holder: tuple, taken: set) -> FieldFact | None:
    """The one field inside ``holder`` that is neither taken (the link) nor an outcome: a result's text
    sits beside its link (``data: {useId, parts, status}``), it never holds it."""
    inside = [f for f in facts if len(f.path) == len(holder) + 1 and f.path[: len(holder)] == holder
              and f.path not in taken and f.name not in STATUS_KEYS and norm(f.name) not in ID_KEYS
              and f.type in ("string", "array", "object") and f.fill >= 0.3]
    return inside[0] if len(inside) == 1 else None


def only_string(facts: list[FieldFact]) -> FieldFact | None:
    """A block's one field, when it is a string under a name that says nothing (``{kind: text, data}``):
    what else could the block hold but its text."""
    return facts[0] if len(facts) == 1 and facts[0].type == "string" and facts[0].fill >= 0.5 else None


def nonempty(value: Any) -> bool:
    return value is not None and value != "" and value != [] and value != {}


def media_word(bt) -> str | None:
    """``image`` for a block whose MIME type field says ``image/png``."""
    for path, stat in bt.stats.items():
        if norm(path[-1]).replace("_", "") in ("mimetype", "mediatype", "contenttype"):
            kinds = {str(v).split("/")[0].lower() for v in stat.values}
            if len(kinds) == 1 and (word := kinds.pop()) in ("image", "audio", "video"):
                return word
    return None


def label_like(stat) -> bool:
    """Short names of a few words, not sentences: display names such as ``Web Search``."""
    values = [v for v in stat.values if isinstance(v, str)]
    return bool(values) and not stat.overflow and stat.str_max <= 48 and all(
        len(v.split()) <= 4 and not v.rstrip().endswith((".", "?", "!", ":")) for v in values)


def rule_name(plan: KindPlan) -> str:
    k = plan.kind
    label = " / ".join(k.names()[::-1]) if k.match else (
        "records with " + ", ".join(dotted(p) for p in k.has) if k.has else
        "records without " + ", ".join(dotted(p) for p in k.lacks) if k.lacks else "every record")
    return f"{label} ({plan.role.replace('_', ' ')})"


def collapse_skips(rules: list[dict]) -> list[dict]:
    """A skipped kind split further (``event=typing`` + ``by=bot``) is skipped whatever the finer value."""
    out: list[dict] = []
    for rule in rules:
        match = rule.get("match") or {}
        if rule["role"] == "skip" and len(match) > 1 and not rule.get("has") and not rule.get("lacks"):
            prefix = dict(list(match.items())[:-1])
            siblings = [r for r in rules if r is not rule and all(
                (r.get("match") or {}).get(k) == v for k, v in prefix.items())]
            if all(r["role"] == "skip" for r in siblings):
                merged = {**rule, "match": prefix}
                if any(r.get("match") == prefix for r in out):
                    continue
                out.append(merged)
                continue
        out.append(rule)
    return out


def merge_skips(rules: list[dict]) -> list[dict]:
    """Skipped kinds that differ only in the value of one field become one rule."""
    out: list[dict] = []
    for rule in rules:
        if rule["role"] == "skip" and rule.get("match") and not rule.get("has") and not rule.get("lacks"):
            keys = list(rule["match"])
            for prev in out:
                if prev["role"] != "skip" or prev.get("has") or prev.get("lacks") or list(prev.get("match", {})) != keys:
                    continue
                diff = [k for k in keys if prev["match"][k] != rule["match"][k] and not (
                    isinstance(prev["match"][k], list) and rule["match"][k] in prev["match"][k])]
                if len(diff) == 1:
                    k = diff[0]
                    values = prev["match"][k] if isinstance(prev["match"][k], list) else [prev["match"][k]]
                    prev["match"][k] = [*values, rule["match"][k]]
                    prev["name"] = "bookkeeping and noise (skip)"
                    break
            else:
                out.append(rule)
            continue
        out.append(rule)
    return out


_DATEISH = re.compile(r"^(\d{4}[-_]?\d{2}[-_]?\d{2}|\d+|[0-9a-f]{8,}(-[0-9a-f]{4,})*)$", re.IGNORECASE)


def derive_source(inputs: list[str]) -> tuple[str | None, str]:
    """The nearest file or folder name of the inputs that is not a generic word."""
    for given in inputs:
        path = Path(given.split("*")[0].rstrip("/") or ".")
        parts: list[tuple[str, str]] = []
        if path.suffix or (path.exists() and path.is_file()):
            stem = path.name
            for suffix in (".gz", ".jsonl", ".ndjson", ".json", ".log", ".txt"):
                stem = stem.removesuffix(suffix)
            parts.append((stem, "file"))
            path = path.parent
        resolved = path.resolve() if str(path) else Path.cwd()
        parts += [(name, "folder") for name in [resolved.name, *[p.name for p in resolved.parents]] if name]
        for name, where in parts:
            tokens = [t for t in re.split(r"[^A-Za-z0-9]+", name) if t and not _DATEISH.match(t)]
            clean = "-".join(t.lower() for t in tokens)
            if len(clean) < 3 or clean in GENERIC_NAMES or all(t.lower() in GENERIC_NAMES for t in tokens):
                continue
            return clean[:40].strip("-"), where
    return None, ""


def infer_profile(profile: Profile, *, source: str | None = None, answers: dict | None = None) -> Inference:
    """Inference from an existing profile; ``answers`` (decision key -> value) settle questions."""
    return Inferrer(profile, source, answers).run()


def infer(paths: list[str], *, source: str | None = None, max_bytes: int = MAX_BYTES,
          answers: dict | None = None, progress: bool = False) -> Inference:
    """Profile the samples and propose a complete mapping with per-decision confidence."""
    from generator.infer.search import search

    profile = profile_paths(paths, max_bytes=max_bytes, progress=progress)
    return search(profile, paths, source=source, answers=answers, progress=progress).inference


def text_parts(items: Any) -> Any:
    """The stat of a list's elements when they are all text (ChatGPT's ``content.parts``: a
    message's paragraphs, which the cleaner joins with newlines), else None."""
    if items is None or not items.str_count or set(items.types) - {"string", "null"}:
        return None
    return items
