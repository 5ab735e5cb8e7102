"""Native harness formats (Pi/OpenClaw, Claude Code, Codex CLI) that Letta's trajectory normalizer
reads without a custom cleaner, told by their structure.

Contract: ``detect_native`` returns a Native (source, family, evidence) or None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from generator.inspect.records import FileReport, Rec


@dataclass
class Native:
    source: str
    family: list
    evidence: str


def _has(recs: list[Rec], test) -> int:
    return sum(1 for r in recs if test(r.data))


def detect_native(recs: list[Rec], files: list[FileReport]) -> Native | None:
    """Harness formats Letta's trajectory normalizer reads natively, told by their structure."""
    if not recs:
        return None
    n = len(recs)
    names = " ".join(f.path.lower() for f in files)

    def pick(family: list[str]) -> str:
        for name in family:
            if re.search(rf"(^|[^a-z]){re.escape(name)}([^a-z]|$)", names):
                return name
        return family[0]

    pi_header = _has(recs, lambda d: d.get("type") == "session" and "cwd" in d and "version" in d)
    pi_msgs = _has(recs, lambda d: d.get("type") == "message" and isinstance(d.get("message"), dict)
                   and d["message"].get("role") in ("user", "assistant", "toolResult", "bashExecution"))
    if pi_msgs and pi_msgs + pi_header >= 0.5 * n:
        family = ["pi", "openclaw"]
        return Native(pick(family), family, f"{pi_msgs} `type=message` records with `message.role` "
                      "user/assistant/toolResult (the Pi/OpenClaw session format)")
    cc = _has(recs, lambda d: d.get("type") in ("user", "assistant") and isinstance(d.get("message"), dict)
              and d["message"].get("role") == d.get("type") and ("uuid" in d or "sessionId" in d))
    if cc >= 0.5 * n:
        return Native("claude-code", ["claude-code"], f"{cc} records with `type` = `message.role` and a `uuid` "
                      "(Claude Code transcripts)")
    codex = _has(recs, lambda d: d.get("type") in ("response_item", "event_msg", "session_meta", "turn_context")
                 and isinstance(d.get("payload"), dict))
    if codex >= 0.8 * n:
        return Native("codex", ["codex"], f"{codex} `response_item`/`event_msg` records with a `payload` "
                      "(Codex CLI rollouts)")
    return None

