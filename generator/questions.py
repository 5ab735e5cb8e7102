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
]


@dataclass
class Phrased:
    question: str
    options: list[tuple[str, Any]]


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _field_label(value: Any, examples: dict[str, Any]) -> str:
    paths = value if isinstance(value, list) else [value]
    shown = " then ".join(f"`{p if isinstance(p, str) else '.'.join(map(str, p))}`" for p in paths)
    first = paths[0] if paths else None
    key = first if isinstance(first, str) else ".".join(map(str, first)) if isinstance(first, list) else None
    if key in examples:
        return f"{shown}, e.g. {_short(examples[key])}"
    return shown or "(none)"


def phrase(decision: Any, examples: dict[str, Any] | None = None) -> Phrased:
    examples = examples or {}
    key = decision.key
    question = next((text for pattern, text in QUESTIONS if pattern.search(key)), f"{key}?")
    values = [decision.value, *[c for c in decision.candidates if c != decision.value]]
    options: list[tuple[str, Any]] = []
    for value in values:
        if key.endswith(".role") and isinstance(value, str):
            label = ROLE_OUTCOMES.get(value, value)
        elif key.endswith((".content", "timestamps.fields", "input.records_path", "session.field")):
            label = _field_label(value, examples)
        elif key.endswith(".as") and isinstance(value, str):
            label = {"text": "text of the message", "reasoning": "reasoning", "tool_call": "a tool call",
                     "tool_result": "a tool's result", "tool_exchange": "a tool call with its result",
                     "placeholder": "an image or file: a placeholder", "skip": "noise: skip"}.get(value, value)
        else:
            label = _short(value)
        options.append((label, value))
    return Phrased(question, options)
