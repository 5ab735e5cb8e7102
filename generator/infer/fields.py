"""What a kind's fields look like, and the small judgements on one kind read from them.

Why: every later pass asks the same questions of a kind (which of its fields are text, is it named
like a tool, does it carry a payload under a link): answered here once, from the profile alone, so
that no pass re-derives them its own way.

Contract: pure functions of a ``FieldFact`` list, a ``KindPlan`` or the draft's profile; none
decides anything (no entry in the draft's decisions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.infer.calls import ID_KEYS, bare_name
from generator.infer.draft import Draft, KindPlan
from generator.infer.item_parts import STATUS_KEYS
from generator.inspect import LIST, Kind, dotted, words

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


def norm(key: Any) -> str:
    return "_".join(words(str(key)))


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

    @property
    def names(self) -> list[str]:
        """The field's name, then, for a key that is a dotted path of names itself (OpenTelemetry's
        `gen_ai.tool.call.arguments`), the names its shorter endings give (`tool_call_arguments`,
        `call_arguments`, `arguments`), most specific first."""
        key = self.path[-1] if self.path else ""
        if not isinstance(key, str) or "." not in key:
            return [self.name]
        segments = [s for s in key.split(".") if s]
        return [self.name, *(norm("_".join(segments[i:])) for i in range(1, len(segments)))]


# Lists of alternatives a model returned, the first of which is the answer (OpenAI's `choices`,
# Gemini's `candidates`, LangChain's `generations`): a field inside one is read in its first item.
ALTERNATIVES = {"choices", "candidates", "generations", "completions"}


def first_alternative(path: tuple) -> tuple | None:
    """``path`` with each list step after an alternatives list read at its first item
    (``outputs.choices[].message.content`` -> ``outputs.choices.0.message.content``); None when the
    path goes through any other list."""
    out = []
    for i, part in enumerate(path):
        if part == LIST:
            if not i or norm(str(path[i - 1])) not in ALTERNATIVES:
                return None
            part = 0
        out.append(part)
    return tuple(out)


def field_facts(stats: dict, count: int, blocks_paths: list) -> list[FieldFact]:
    """The kind's fields as facts; a field in the first of a list of alternatives is given its
    path in ``stats`` too (``first_alternative``), so that every reader of a fact finds its stats."""
    out = []
    for path, st in list(stats.items()):
        if LIST in path:
            path = first_alternative(path)
            if path is not None:
                stats.setdefault(path, st)
        if path is None or not st.records or len(path) - path.count(0) > 4:
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
        rank = None
        for name in f.names:  # the name, then a dotted key's endings (``gen_ai.tool.name`` -> ``tool_name``)
            flat = name.replace("_", "")
            rank = next((i for i, n in enumerate(names) if name == n or flat == n.replace("_", "")), None)
            if rank is not None:
                break
        bare = bare_name(f.name)
        encoded = rank is None  # named for how it is written (``arguments_json``): after every plain name
        if encoded and bare != f.name:
            rank = next((i for i, n in enumerate(names) if bare == n), None)
        if rank is None:
            continue
        key = (encoded, rank, -f.fill, len(f.path))
        if best is None or key < best[0]:
            best = (key, f)
    return best[1] if best else None


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


def text_parts(items: Any) -> Any:
    """The stat of a list's elements when they are all text (ChatGPT's ``content.parts``: a
    message's paragraphs, which the cleaner joins with newlines), else None."""
    if items is None or not items.str_count or set(items.types) - {"string", "null"}:
        return None
    return items


def kind_facts(draft: Draft, kind: Kind) -> list[FieldFact]:
    return field_facts(kind.stats, kind.count, draft.p.blocks.all_paths)


def discriminators(kind: Kind) -> set:
    return {path for path, _ in kind.match}


def kind_names(plan: KindPlan) -> list[str]:
    return plan.kind.hints


def kind_name_path(plan: KindPlan) -> tuple:
    return plan.kind.match[-1][0]


def content_named(texts: list) -> bool:
    return any(str(p[-1]).lower() in ("content", "text", "message", "body", "prompt") for _, p, _ in texts[:1])


def tool_shaped_without_name(plan: KindPlan) -> bool:
    return bool(plan.args and plan.output and plan.output[0] != plan.args and plan.kind.match)


def guess_text_role(plan: KindPlan) -> tuple[str, str]:
    model = any(norm(p[-1]) in ("model", "model_name", "model_id") for p in plan.kind.stats)
    if model:
        return "assistant", "it carries a model name"
    return "user", "cannot tell who wrote it"


def quiet_level(plan: KindPlan) -> str | None:
    """A log level field that is debug/trace for every record of the kind: diagnostic noise."""
    for path, st in plan.kind.stats.items():
        if (len(path) == 1 and norm(path[0]) in ("level", "severity", "log_level", "levelname", "lvl")
                and st.records == plan.kind.count and st.values and not st.overflow
                and all(str(v).lower() in ("debug", "trace", "verbose", "silly") for v in st.values)):
            return dotted(path)
    return None


def generic_tool(plan: KindPlan) -> bool:
    """A call shape whose tool name field is just `name` and whose kind name says nothing of tools."""
    if not plan.tool_name or norm(plan.tool_name[-1]) not in ("name", "step", "api", "endpoint", "operation"):
        return False
    if any(r in ("tool_call", "tool_result") for r in kind_names(plan)):
        return False
    return not any("tool" in words(v) or "function" in words(v) for v in plan.kind.names())


def is_header(draft: Draft, plan: KindPlan) -> bool:
    k = plan.kind
    sessions = draft.p.session.sessions or 1
    return k.per_session_max == 1 and k.first_in_session == k.count and k.count >= min(sessions, 1)


def any_payload(draft: Draft, plan: KindPlan, link: tuple) -> tuple | None:
    """A result's payload when no field is named like one: its one structured or text field."""
    taken = discriminators(plan.kind) | {link, draft.p.session.path} | {t.path for t in draft.p.times}
    found = [f for f in kind_facts(draft, plan.kind) if f.path not in taken and f.fill >= 0.8 and len(f.path) <= 2
             and f.type in ("array", "object", "string") and not f.tokenish
             and not any(f.path[: len(t)] == t or t[: len(f.path)] == f.path for t in taken if t)]
    found = [f for f in found if not any(o.path == f.path[: len(o.path)] and o is not f for o in found)]
    return found[0].path if len(found) == 1 else None


def parentish(path: tuple) -> bool:
    """A tree reference (``parent_id``, ``children[]``), named by its last field name."""
    named = [p for p in path if p != LIST]
    ws = set(words(str(named[-1]))) if named else set()
    return bool(ws & PARENTISH) and not ws & {"call", "tool", "use", "invocation", "function"}


# Fields that name a category (a call's and its result's `status: completed`), never one call: a
# value they share is no link, however few samples make it look unique.
CATEGORY_NAMES = {"status", "state", "type", "kind", "role", "level", "outcome", "phase", "stage"}


def id_link(link) -> bool:
    """A link by call id: not a parent/thread reference, not a tool name repeated by its result, not
    a category both sides hold."""
    names = {"name", "tool_name", "function_name", "tool", "function"} | CATEGORY_NAMES
    return not parentish(link.target_path) and not parentish(link.source_path) \
        and norm(link.target_path[-1]) not in names and norm(
        link.source_path[-1]) not in names
