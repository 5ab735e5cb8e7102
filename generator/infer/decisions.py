"""What inference decided, and the result it hands on.

Why: every choice of a mapping is a ``Decision`` with a confidence and one line of evidence, so a
person (or ``new --yes``) can see what was inferred and why; choices below ``CONFIDENT`` are the
questions, offered with their candidates, never silently guessed.

Contract: ``Decision`` is one choice (its key names the mapping part it decides); ``Inference`` is
the mapping with all its decisions and the questions among them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.inspect import Profile

CONFIDENT = 0.8


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
