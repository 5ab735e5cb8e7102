"""Input paths as shown to people: a path that leaves the program (summary, error messages,
reports, prompts) passes the same detector as content, so a secret in a file or folder name is
never printed verbatim (#36 item 7)."""

from __future__ import annotations

import os

from .engine import Redactor

_REDACTOR: Redactor | None = None


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` as typed, with any secret in it replaced by ``[REDACTED:<class>]``."""
    global _REDACTOR
    if _REDACTOR is None:
        _REDACTOR = Redactor()
    return _REDACTOR.redact(os.fspath(path))
