"""Commands an agent wrote inside its text: a doubt no mapping can remove, so `new --yes` refuses.

Why: some agents have no structured tool calls. Their action is a fenced block inside the
assistant's text (```` ```bash ````, ```` ```mswea_bash_command ````) and the result comes back as
the next message, in a shape a program writes (``<returncode>0</returncode>``, ``OBSERVATION:``).
A mapping reads that as assistant prose and user messages: every text is kept, so no score sees a
loss, yet the output says a person wrote the observations and no call was ever made. That is a
wrong trajectory, and a cleaner cannot read calls out of text, so the honest answer is to say so.

The rule, on the records a candidate's cleaner wrote: at least ``MIN_TURNS`` assistant texts, of
which at least ``SHARE`` hold exactly one fenced block, nearly all with the same info string; and
at least ``SHARE`` of the records right after those are user records opening with the same
characters (a program's reply, not a person's). A coding chat whose every reply holds a
``python`` block has a person answering in their own words, so it is not flagged.

Contract: ``actions_in_text(outputs)`` returns ``None``, or one sentence naming the fence, the
reply's opening and how many turns hold them.
"""

from __future__ import annotations

import re
from collections import Counter

MIN_TURNS = 3
SHARE = 0.8
OPENING = 5  # characters of the reply's start that must agree (`<retu`, `OBSER`)
SHOWN = 24  # at most this much of the common start is named
_FENCE = re.compile(r"^```([^\s`]*)[^\n]*\n.*?^```\s*$", re.MULTILINE | re.DOTALL)


def _fence(text: str) -> str | None:
    """The info string of the one fenced block in ``text`` ("" when it has none), else None."""
    blocks = _FENCE.findall(text)
    return blocks[0] if len(blocks) == 1 else None


def _common_start(texts: list[str]) -> str:
    """The start all ``texts`` share (``<returncode>`` of ``<returncode>0`` and ``<returncode>1``)."""
    first, last = min(texts), max(texts)
    end = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), min(len(first), len(last)))
    return first[:end]


def _turns(records: list[dict]) -> list[tuple[str, dict | None]]:
    """Each assistant text holding one fenced block, with the record after it."""
    found = []
    for index, record in enumerate(records):
        text = record.get("content")
        if record.get("role") != "assistant" or not isinstance(text, str):
            continue
        fence = _fence(text)
        if fence is not None:
            found.append((fence, records[index + 1] if index + 1 < len(records) else None))
    return found


def actions_in_text(outputs: dict[str, list[dict]]) -> str | None:
    texts = sum(1 for records in outputs.values() for r in records
                if r.get("role") == "assistant" and isinstance(r.get("content"), str))
    turns = [turn for records in outputs.values() for turn in _turns(records)]
    if texts < MIN_TURNS or len(turns) < max(MIN_TURNS, SHARE * texts):
        return None
    fence, same = Counter(fence for fence, _ in turns).most_common(1)[0]
    if same < SHARE * len(turns):
        return None
    replies = [after["content"].lstrip()[:SHOWN] for _, after in turns
               if after is not None and after.get("role") == "user" and isinstance(after.get("content"), str)]
    answered = [r[:OPENING] for r in replies if len(r) >= OPENING]
    if not answered:
        return None
    opening, alike = Counter(answered).most_common(1)[0]
    if alike < SHARE * len(turns):
        return None
    shown = f"```{fence}" if fence else "```"
    opening = _common_start([r for r in replies if r.startswith(opening)])
    return (f"{len(turns)} of {texts} assistant texts each hold one fenced {shown} block, and the user message "
            f"after {alike} of them opens with {opening!r}: commands the agent ran and their results, which "
            "this cleaner would write as prose and as a person's messages (no call, no tool result); a cleaner "
            "cannot read calls out of text: hand the format to a coding agent (`trajectory-cleaner prompt "
            "SAMPLES`), or render with --answers and read the calls in cleaner_hooks.py")
