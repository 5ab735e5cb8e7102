"""Open questions asked in the data's terms, not in mapping notation.

Why: a person who owns the traces knows what a record is ("the customer's message", "a tool's
result") and which zone their times were written in; they should not have to know that the
answer is spelt ``kinds[type=x].role: tool_result``. Each decision key names a kind of question;
this module words it, and words each candidate as the outcome it has. With samples to try them on,
the survey shows each candidate as what it writes instead (generator/choices.py); these words
remain the question's title and the options when there are no samples.

Contract: ``phrase(decision, examples)`` -> ``Phrased(question, options)``, where ``options`` are
``(label, value)`` in the decision's order (best guess first) and ``examples`` maps a field path
to an example value from the samples, for options that name a field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

ROLE_OUTCOMES = {
    "user": "the user's message (the request, the customer, the trigger)",
    "assistant": "the assistant's reply (the agent, the bot, the automation)",
    "reasoning": "the assistant's private reasoning or notes",
    "system": "a system prompt",
    "observation": "environment feedback that answers no particular call",
    "tool_call": "a tool call (a tool name and its arguments)",
    "tool_result": "a tool's result",
    "tool_exchange": "a tool call together with its result",
    "meta": "a session header: read for metadata, not written",
    "skip": "noise: skip these records (counted in the summary)",
}
QUESTIONS = [
    (re.compile(r"kinds\[.*\]\.role$"), "What are these records?"),
    (re.compile(r"kinds\[.*\]\.content$"), "Where is the text of these records?"),
    (re.compile(r"kinds\[.*\]\.emit$"), "What do these records hold, in order?"),
    (re.compile(r"timestamps\.timezone$"), "These times carry no zone. Which time zone were they written in?"),
    (re.compile(r"timestamps\.fields$"), "Which field holds each record's time?"),
    (re.compile(r"timestamps\.format$"), "How are the times written?"),
    (re.compile(r"input\.records_path$"), "Which list in each file holds the records?"),
    (re.compile(r"session\.field$"), "Which field says which session (run, ticket, conversation) a record is in?"),
    (re.compile(r"session\.by$"), "What is one session?"),
    (re.compile(r"blocks\.types\[.*\]\.as$"), "What are these content blocks?"),
    (re.compile(r"input\.container$"), "How are these files written?"),
    (re.compile(r"^kinds\.undone$"), "Some records are marked as undone or replaced. Are they part of the session?"),
    (re.compile(r"^meta\.model$"), "Which field names the model that wrote the session?"),
    (re.compile(r"^meta\.cwd$"), "Which field names the session's working directory?"),
    (re.compile(r"^meta\.git_branch$"), "Which field names the session's git branch?"),
]
UNPHRASED = "Which of these is right?"  # never the mapping key: a person reads outputs, not keys


@dataclass
class Phrased:
    question: str
    options: list[tuple[str, Any]]


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _field_label(value: Any, examples: dict[str, Any]) -> str:
    if value is None or value == []:
        return "(none: each line or document is a record)"
    paths = value if isinstance(value, list) else [value]
    shown = " then ".join(f"`{p if isinstance(p, str) else '.'.join(map(str, p))}`" for p in paths)
    first = paths[0] if paths else None
    key = first if isinstance(first, str) else ".".join(map(str, first)) if isinstance(first, list) else None
    if key in examples:
        return f"{shown}, e.g. {_short(examples[key])}"
    return shown or "(none)"


PART_WORDS = {"text": "text", "reasoning": "reasoning", "tool_call": "tool calls", "tool_result": "tool results",
              "tool_exchange": "tool calls with their results"}


def _emit_label(parts: list) -> str:
    """An emit list as what one record is written as: "reasoning from `thought`, then text from `content`"."""
    words = []
    for part in parts:
        if not isinstance(part, dict):
            words.append(_short(part, 30))
            continue
        where = part.get("field") or part.get("each")
        shown = PART_WORDS.get(part.get("as"), str(part.get("as")))
        words.append(f"{shown} from `{where}`" if isinstance(where, str) else shown)
    return ", then ".join(words) or "nothing"


def phrase(decision: Any, examples: dict[str, Any] | None = None) -> Phrased:
    examples = examples or {}
    key = decision.key
    question = next((text for pattern, text in QUESTIONS if pattern.search(key)), UNPHRASED)
    values = [decision.value, *[c for c in decision.candidates if c != decision.value]]
    options: list[tuple[str, Any]] = []
    for value in values:
        if key.endswith(".role") and isinstance(value, str):
            label = ROLE_OUTCOMES.get(value, value)
        elif key == "kinds.undone":
            label = {"keep": "yes: write them as the rest", "skip": "no: skip them and count them"}.get(value, value)
        elif key.startswith("meta.") and value == []:
            label = "(none: leave it out)"
        elif key.endswith((".content", "timestamps.fields", "input.records_path", "session.field")) \
                or key.startswith("meta."):
            label = _field_label(value, examples)
        elif key.endswith(".emit") and isinstance(value, list):
            label = _emit_label(value)
        elif key.endswith(".as") and isinstance(value, str):
            label = {"text": "text of the message", "reasoning": "reasoning", "tool_call": "a tool call",
                     "tool_result": "a tool's result", "tool_exchange": "a tool call with its result",
                     "placeholder": "an image or file: a placeholder", "skip": "noise: skip"}.get(value, value)
        else:
            label = _short(value)
        options.append((label, value))
    return Phrased(question, options)


TOPICS = {
    "source": "source name", "source_profile": "Lerim source profile", "input.container": "file format",
    "input.records_path": "where the records are", "input.include": "files read", "input.invalid_lines":
    "unreadable lines", "input.document_key": "the document's own fields", "session.by": "one session is",
    "session.field": "session field", "timestamps.fields": "time field", "timestamps.format": "time format",
    "timestamps.timezone": "time zone", "timestamps.fallback": "records with no time",
    "unknown_kinds": "records of a kind not seen in the samples", "tools.error_prefix": "a failed tool's result starts with",
    "tools.linkage": "results linked to calls", "tools.orphan_results": "a result with no earlier call",
    "blocks.type_field": "content block type field",
}
_KIND = re.compile(r"^kinds\[(?P<match>.*)\]\.(?P<part>\w+)$")
_BLOCK = re.compile(r"^blocks\.types\[(?P<type>.*)\]\.as$")
_META = re.compile(r"^meta\.(?P<field>\w+)$")


def subject(key: str) -> str:
    """What a decision is about, in the data's words: the records it concerns, not its mapping key."""
    if key in TOPICS:
        return TOPICS[key]
    if match := _KIND.match(key):
        part = {"role": "are", "content": "text in", "emit": "hold"}.get(match["part"], match["part"])
        return f"records with {match['match'] or 'any kind'}: {part}"
    if match := _BLOCK.match(key):
        return f"content blocks of type {match['type']}"
    if match := _META.match(key):
        return f"session {match['field'].replace('_', ' ')} from"
    return key


def summary_line(decision: Any, examples: dict[str, Any] | None = None) -> str:
    """One decision for the survey's summary: its subject and its value as the outcome it has."""
    label = phrase(decision, examples).options[0][0]
    return f"{subject(decision.key)} {_short(label, 70)}" if subject(decision.key).endswith(
        (" are", " in", " hold", " from")) else f"{subject(decision.key)}: {_short(label, 70)}"
