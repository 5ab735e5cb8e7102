"""A plain text field beside a rich-text rendering of the same message.

Why: chat platforms store a message twice: the plain ``text`` and a rich-text tree (Slack's
``blocks`` of ``rich_text`` sections, Teams' and Discord's formatted bodies) that splits the same
words into styled runs. Read as content blocks, the tree asks a question per container type and
loses the message wherever it is absent (bot posts carry only ``text``); the plain field holds
every word in every record.

Contract: ``plain_over_rich(records, blocks, text)`` is true when the string field ``text`` is
present in every record, and wherever the block list ``blocks`` is, its text runs (strings under a
``text`` key, at any depth) all occur in ``text`` and cover at least 80% of its non-space
characters - the blocks add styling, not words.
"""

from __future__ import annotations

from typing import Any

from generator.inspect import get


def text_runs(node: Any) -> list[str]:
    """Every string under a ``text`` key, depth first."""
    if isinstance(node, dict):
        return [run for key, value in node.items()
                for run in ([value] if key == "text" and isinstance(value, str) else text_runs(value))]
    if isinstance(node, list):
        return [run for item in node for run in text_runs(item)]
    return []


def _covered(text: str, runs: list[str]) -> bool:
    letters = sum(not c.isspace() for c in text)
    run_letters = sum(not c.isspace() for run in runs for c in run)
    return all(run in text for run in runs) and run_letters >= 0.8 * letters


def plain_over_rich(records: list[Any], blocks: tuple, text: tuple) -> bool:
    seen = False
    for record in records:
        plain = get(record, text)
        if not isinstance(plain, str):
            return False
        rich = get(record, blocks)
        if rich in (None, []):
            continue
        runs = text_runs(rich)
        if not runs or not _covered(plain, runs):
            return False
        seen = True
    return seen
