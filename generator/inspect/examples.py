"""Redacted examples: the short rendering of a value that a report may show.

Contract: values pass through the cleaner runtime's own redaction (loaded once; shapes only when it
is unavailable); prose is hidden unless asked for; a field whose name says it holds a secret never
shows its values.
"""

from __future__ import annotations

import json
import re
from typing import Any

from cleaner_runtime.redaction import Redactor
from generator.inspect.values import str_len

_REDACTOR: Any = None


def redact(text: str) -> str:
    """The runtime's own secret redaction (what a rendered cleaner would do to the value)."""
    global _REDACTOR
    if _REDACTOR is None:
        try:
            _REDACTOR = Redactor()
        except Exception:  # noqa: BLE001 - redaction unavailable: show shapes only
            _REDACTOR = False
    if _REDACTOR is False:
        return f"<{len(text)} chars>"
    return _REDACTOR.redact(text)


SECRET_NAME = re.compile(
    r"(pass(word|wd|phrase)?|secret|token|api[_-]?key|apikey|auth(orization)?|cookie|session[_-]?id|"
    r"private[_-]?key|credentials?|access[_-]?key|client[_-]?secret|signature|sig)$",
    re.IGNORECASE,
)


def secret_named(path: tuple | None) -> bool:
    """A field whose name says it holds a secret: its values are never shown, whatever they look like."""
    if not path:
        return False
    last = str(path[-1])
    return bool(SECRET_NAME.search(last.replace("-", "_")))


def example(value: Any, show_values: bool = False, path: tuple | None = None) -> str:
    """A short, redacted rendering of one value; prose is hidden unless show_values."""
    if secret_named(path) and value is not None and not isinstance(value, bool):
        return f"<redacted, {len(str(value))} chars>"
    if isinstance(value, str):
        n = str_len(value)
        if not show_values and (any(c.isspace() for c in value[:200]) or n > 40):
            return f"<text, {n} chars>"
        limit = 80 if show_values else 40
        text = redact(value[: limit * 2])
        return text if len(text) <= limit and n <= limit else text[: limit - 1] + "…"
    return json.dumps(value)[:40]

