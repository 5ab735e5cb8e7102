"""Records the format itself marks as hidden from the conversation.

Why: chat exports keep what the app sent the model but never showed the person - ChatGPT's
custom instructions (``metadata.is_visually_hidden_from_conversation: true``), a platform's hidden
system notices (``hidden: true``). They are context, not turns: written as user messages they
would put words in the user's mouth. The flag is the format's own statement, so no question is
needed.

Contract: ``hidden_kinds(draft)``: a kind (not already skipped) whose every record carries a
boolean field named like hidden (``hidden``, ``is_hidden``, ``visually_hidden...``) set to true is
skipped, with the flag as evidence. A flag true in only some records of a kind decides nothing.
"""

from __future__ import annotations

from typing import Any

from generator.infer.draft import Draft
from generator.inspect import LIST, dotted, get, words

HIDDEN_WORDS = {"hidden", "invisible"}


def hidden_flag(plan: Any) -> tuple | None:
    """The path of a boolean hidden flag that is true in every record of the kind, or None."""
    for path, stat in plan.kind.stats.items():
        if LIST in path or stat.main_type != "bool" or not set(words(str(path[-1]))) & HIDDEN_WORDS:
            continue
        if all(get(rec.data, path) is True for rec in plan.kind.recs):
            return path
    return None


def hidden_kinds(draft: Draft) -> None:
    for plan in draft.plans:
        if plan.role in ("skip", "meta"):
            continue
        path = hidden_flag(plan)
        if path:
            draft.call_sites.discard(f"kind:{plan.kind.key}")
            draft.skip(plan, f"{plan.kind.count} record(s) whose `{dotted(path)}` is true: the format hides them "
                          "from the conversation (context the app added, not a turn), so they are skipped and counted")
