"""Head+tail truncation: what a cleaner keeps of a string longer than its limit.

``truncate_head_tail(text, limit) -> str`` keeps roughly 2/3 head and 1/3 tail with a
``"\\n[... N characters truncated ...]\\n"`` marker, result length <= limit.

Callers redact *before* truncating, so a truncation boundary can never cut a secret in half and
leave the other half readable; and a cut never splits the ``[REDACTED:...]`` placeholder a
redaction left, nor a surrogate pair.
"""

from __future__ import annotations

from .redaction.patterns import PLACEHOLDER_RE

__all__ = ["truncate_head_tail"]


def _is_high(ch: str) -> bool:
    return "\ud800" <= ch <= "\udbff"


def _is_low(ch: str) -> bool:
    return "\udc00" <= ch <= "\udfff"


def _marker(removed: int) -> str:
    return f"\n[... {removed} characters truncated ...]\n"


def _cut_points(text: str, head: int, tail: int) -> tuple[int, int]:
    """Head end / tail start, moved (only ever shrinking what is kept) so
    that neither a surrogate pair nor a ``[REDACTED:...]`` placeholder is split."""
    n = len(text)
    h, t = head, n - tail
    if 0 < h < n and _is_high(text[h - 1]) and _is_low(text[h]):
        h -= 1
    for pm in PLACEHOLDER_RE.finditer(text, max(0, h - 60), min(n, h + 60)):
        if pm.start() < h < pm.end():
            h = pm.start()
    for pm in PLACEHOLDER_RE.finditer(text, max(0, t - 60), min(n, t + 60)):
        if pm.start() < t < pm.end():
            t = pm.end()
    if 0 < t < n and _is_low(text[t]) and _is_high(text[t - 1]):
        t += 1
    return h, max(t, h)


def truncate_head_tail(text: str, limit: int) -> str:
    """Keep ~2/3 head and ~1/3 tail of ``text`` within ``limit`` characters.

    The cut is marked with ``"\\n[... N characters truncated ...]\\n"``, N the
    exact number of characters removed; the result is never longer than
    ``limit``.  Surrogate pairs and ``[REDACTED:...]`` placeholders are never
    split.  Limits too small for that marker (below ~50) get a single ``…``.
    Apply it after ``Redactor.redact`` so a cut can never expose half a secret.
    """
    if limit <= 0:
        return ""
    n = len(text)
    if n <= limit:
        return text
    full = len(_marker(n))  # the longest marker this text can need
    if limit >= full + 10:
        keep = limit - full
        h, t = _cut_points(text, (keep * 2 + 2) // 3, keep - (keep * 2 + 2) // 3)
        return text[:h] + _marker(n - h - (n - t)) + text[t:]
    keep = limit - 1
    if keep <= 0:
        return "\u2026"
    h, t = _cut_points(text, (keep * 2 + 2) // 3, keep - (keep * 2 + 2) // 3)
    return text[:h] + "\u2026" + text[t:]
