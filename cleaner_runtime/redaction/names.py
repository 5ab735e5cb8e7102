"""Input paths as shown to people: a path that leaves the program (summary, error messages,
reports, prompts) passes the same detector as content, so a secret in a file or folder name is
never printed verbatim (#36 item 7); and the verdict that names an output ``redacted-<digest>``
when a session id or input name holds a secret (#36 item 6, ``writer.name_stem``).

A name is read whole, then piece by piece between the separators names use (``-``, ``.``,
``/``, spaces): the detector wants a token to stand on its own, and ``user-ghp_...`` or
``ghp_....1`` would otherwise hide one (a JWT, dots and all, is found whole first). A piece
shorter than ``PIECE`` characters is no token the detector knows, and is not read again: most
names (``run-2026-05-16-000001``) cost one pass of the detector."""

from __future__ import annotations

import os
import re

from .engine import Redactor

_REDACTOR: Redactor | None = None
_SEPARATORS = re.compile(r"([-.\s/\\]+)")
PIECE = 8


def _redactor() -> Redactor:
    global _REDACTOR
    if _REDACTOR is None:
        _REDACTOR = Redactor()
    return _REDACTOR


def _redacted(text: str) -> str:
    """``text`` with every secret found whole, or in a piece between separators, replaced."""
    redactor = _redactor()
    whole, _ = redactor.redact_found(text)
    parts = _SEPARATORS.split(whole)
    if len(parts) == 1:
        return _after_underscores(redactor, whole) if len(whole) >= PIECE else whole
    for index in range(0, len(parts), 2):  # the pieces (odd indexes hold the separators)
        if len(parts[index]) >= PIECE:
            parts[index] = _after_underscores(redactor, redactor.redact_found(parts[index])[0])
    return "".join(parts)


def _after_underscores(redactor: Redactor, piece: str) -> str:
    """``piece`` with a secret that starts after one of its underscores redacted too: ``_`` joins
    words in names (``user_ghp_...``) but is no word boundary to the detector, and it cannot be a
    separator, since tokens hold it themselves (``ghp_``, ``sk_live_``)."""
    start = piece.find("_")
    while 0 <= start < len(piece) - PIECE:
        tail = piece[start + 1:]
        if tail[:1].isalpha():  # tokens start with a letter (ghp_, sk-, xox, AKIA, eyJ); dates do not
            found = redactor.redact_found(tail)[0]
            if found != tail:
                return piece[:start + 1] + found
        start = piece.find("_", start + 1)
    return piece


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` as typed, with any secret in it replaced by ``[REDACTED:<class>]``."""
    return _redacted(os.fspath(path))


def holds_secret(text: str) -> bool:
    """Whether the detector finds a secret in ``text`` (a session id, a file or folder name)."""
    return bool(text) and _redacted(text) != text
