"""Does a text of the old output come from this raw string?

The old script may have redacted (with its own markers or the runtime's placeholders),
truncated or re-spaced what it copied, so learning cannot look texts up by equality alone; the
equivalence report asks the same question of the new output.
"""

from __future__ import annotations

import re


class TextMatcher:
    """Does an old output text come from this raw string? Exact, modulo redaction, or truncated."""

    def __init__(self, markers: list[str]):
        alternatives = [re.escape(m) for m in sorted(set(markers), key=len, reverse=True)]
        alternatives.append(r"\[REDACTED(?::[A-Za-z0-9_-]+)?\]")
        self.marker = re.compile("|".join(alternatives))
        self._cache: dict[str, re.Pattern | None] = {}
        self._keys: dict[str, str | None] = {}

    @staticmethod
    def norm(text: str) -> str:
        return " ".join(text.split())

    def pattern(self, old: str) -> re.Pattern | None:
        if old not in self._cache:
            pieces = self.marker.split(self.norm(old))
            self._cache[old] = None if len(pieces) == 1 else re.compile(
                "(.+?)".join(re.escape(p) for p in pieces), re.DOTALL)
            self._keys[old] = max(pieces, key=len) if len(pieces) > 1 else self._prefix(self.norm(old))
        return self._cache[old]

    def key(self, old: str) -> str | None:
        """A literal part of ``old`` any raw text it matches (other than exactly) must contain."""
        self.pattern(old)
        return self._keys[old]

    @staticmethod
    def _prefix(a: str) -> str | None:
        for tail in ("...", "\u2026"):
            if a.endswith(tail) and len(a) > 20:
                return a[: -len(tail)].rstrip()
        if "characters truncated" in a:
            head = a.split("[...", 1)[0].strip()
            if len(head) > 20:
                return head
        return None

    def score(self, old: str, raw: str) -> int:
        """3 identical, 2 identical but where ``old`` has placeholders, 1 ``old`` is a truncation; ``raw`` normalised."""
        a, b = self.norm(old), raw
        if not a:
            return 0
        if a == b:
            return 3
        pattern = self.pattern(old)
        if pattern is not None and pattern.fullmatch(b):
            return 2
        prefix = self._prefix(a)
        if prefix is not None and b.startswith(prefix):
            return 1
        return 0
