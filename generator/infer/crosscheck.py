"""Cross-checks that make a confident decision unsure when the samples contradict it.

Why: calibrated confidence. The planner skips a kind as bookkeeping when it finds no text
field; a kind whose text sits in a list (a plan's ``steps``) or deeper holds prose all the same,
and skipping it loses a structure. A contradicted decision must not pass `--yes`.

Contract: ``prose_in_skipped_kinds(inferrer)``: for every kind skipped for having no text, if its
records hold prose, the kind is read as the text role its name gives (confidently, with the
prose field as its content), or asked about (the name says nothing).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from generator.infer.calls import norm
from generator.infer.losses import prose_fields
from generator.inspect import dotted, mapping_path

GENERIC_SKIP = "with no text or tool fields"
# fields whose text explains an event rather than says something (a retry's reason, a status line)
DIAGNOSTIC = {"reason", "status", "status_message", "error", "message_id", "title", "name", "label", "summary",
              "detail", "details", "description", "hint", "level", "warning"}


def _content_path(pattern: str) -> tuple | None:
    """The path to read for a prose field pattern: ``steps.[]`` reads the list ``steps``."""
    parts = pattern.split(".")
    if "[]" in parts[:-1]:
        return None  # text inside a list of objects: no single path reads it
    return tuple(p for p in parts if p != "[]") or None


def prose_in_skipped_kinds(inferrer: Any) -> None:
    document_key = getattr(inferrer, "document_key_name", None)
    for plan in inferrer.plans:
        if plan.role != "skip" or GENERIC_SKIP not in plan.evidence:
            continue
        fields: Counter = Counter()
        for rec in plan.kind.recs:
            fields.update({pattern for pattern, _ in prose_fields(rec.data, skip_key=document_key)
                           if norm(pattern.rsplit(".", 1)[-1]) not in DIAGNOSTIC})
        if not fields:
            continue
        pattern, n = fields.most_common(1)[0]
        path = _content_path(pattern)
        key = f"kinds[{plan.kind.key}]"
        names = inferrer.named(plan)
        role = next((r for r in names if r in ("user", "assistant", "reasoning")), None)
        why = f"{n} of {plan.kind.count} record(s) hold text in `{pattern}`"
        if role and path:
            plan.role, plan.content = role, [path]
            inferrer.redecide(f"{key}.role", role, 0.85, f"{why}; named like {role}")
            inferrer.redecide(f"{key}.content", [mapping_path(path)], 0.85, f"`{dotted(path)}` holds the text")
        else:
            inferrer.redecide(f"{key}.role", "skip", 0.5, f"{why}: skipping it would lose that text",
                              ["user", "assistant", "reasoning"])
