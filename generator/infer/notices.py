"""Notices the platform writes from a template: a member joined, the topic changed, a call began.

Why: chat exports interleave people's messages with lines the platform generates
(``<@U07MAYA> has joined the channel``, ``Maria changed the topic``). They carry text and a user
field, so they look like the person's messages, but nobody wrote them: written as user records
they would put words in the user's mouth. What gives them away is that every such record says the
same thing but for the ids it names.

Contract: ``templated_notices(draft)``: a kind whose role is an unsure guess (a question), with
two or more records whose text values differ, but are all equal once every token holding a
digit or markup (``<@U07MAYA>``, ``#general``, ``12:30``) is masked, is skipped and counted.
"""

from __future__ import annotations

import re

from generator.infer.draft import Draft
from generator.inspect import dotted, get

TOKEN = re.compile(r"\S*[\d<>@#:/_|\[\]]\S*")


def template(text: str) -> str:
    return TOKEN.sub("<>", text.strip())


def is_templated(texts: list[str]) -> bool:
    return len(texts) >= 2 and len(set(texts)) > 1 and len({template(t) for t in texts}) == 1


def templated_notices(draft: Draft) -> None:
    for plan in draft.plans:
        if plan.role not in ("user", "assistant") or draft.role_decision(plan) is None or draft.sure(plan):
            continue
        path = next((p for p in plan.content if isinstance(p, tuple)), None)
        texts = [get(rec.data, path) for rec in plan.kind.recs] if path else []
        if not all(isinstance(t, str) for t in texts) or not is_templated(texts):
            continue
        draft.skip(plan, f"{plan.kind.count} record(s) whose `{dotted(path)}` says the same but for the ids it "
                      f"names (\"{template(texts[0])[:60]}\"): notices the platform writes, not messages")
