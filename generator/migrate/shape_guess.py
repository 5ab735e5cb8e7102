"""A raw record the old output did not cover, classified by its shape and the names it uses.

The old script may have dropped whole kinds (tool steps, reasoning) that the new cleaner should
now keep; with nothing to align them with, their kind is guessed from field names (vocabulary.py)
and shapes, and marked as guessed (``Sig.learned`` False) so the report can say so.
"""

from __future__ import annotations

import json
import re
from typing import Any

from generator.migrate.records import RawRec, Sig
from generator.migrate.vocabulary import (
    ARGS_KEYS,
    ASSISTANT_WORDS,
    HEADER_WORDS,
    ID_KEYS,
    LINK_KEYS,
    NAME_KEYS,
    NOISE_WORDS,
    REASONING_WORDS,
    RESULT_KEYS,
    SYSTEM_WORDS,
    TEXT_KEYS,
    USER_WORDS,
)


def guess_sig(rec: RawRec, ts_paths: set) -> Sig:
    """A record the old output did not cover, classified by its shape and the names it uses."""
    name = _first_key(rec, NAME_KEYS, _identifier)
    args = _first_key(rec, ARGS_KEYS, _is_args)
    result = _first_key(rec, RESULT_KEYS, _nonempty)
    link = _first_key(rec, LINK_KEYS, _id_like)
    call_id = _first_key(rec, ID_KEYS, _id_like)
    text = _first_key(rec, TEXT_KEYS, _nonempty)
    if text is None:
        text = _longest_text(rec, ts_paths)
    words = _words(rec, {p for p in (name, text, result) if p})
    if words & NOISE_WORDS:
        return Sig("skip", learned=False)
    if name and args and result:
        return Sig("tool_exchange", content=result, tool_name=name, args=args, call_id=call_id or (), learned=False)
    if name and args:
        return Sig("tool_call", tool_name=name, args=args, call_id=call_id or (), learned=False)
    if link and (result or text):
        return Sig("tool_result", content=result or text, link=link, learned=False)
    if words & REASONING_WORDS and text:
        return Sig("reasoning", content=text, learned=False)
    if words & SYSTEM_WORDS or words & HEADER_WORDS:
        return Sig("skip", learned=False)
    if words & USER_WORDS and text:
        return Sig("user", content=text, learned=False)
    if words & ASSISTANT_WORDS and text:
        return Sig("assistant", content=text, learned=False)
    return Sig("skip", learned=False)


def _longest_text(rec: RawRec, ts_paths: set) -> tuple | None:
    """The longest top-level string over 40 characters: the text when no field is named like one."""
    strings = [(len(v), p) for p, v in rec.leaves if isinstance(v, str) and p not in ts_paths
               and not any(isinstance(x, int) for x in p) and len(v) > 40]
    return max(strings)[1] if strings else None


def _words(rec: RawRec, exclude: set) -> set[str]:
    """The short word-like values of a record (and their parts): what it calls itself."""
    words = set()
    for path, value in rec.leaves:
        if any(isinstance(p, int) for p in path) or path in exclude or len(path) > 3:
            continue
        if isinstance(value, str) and 0 < len(value) <= 40 and re.fullmatch(r"[A-Za-z][\w.:/-]*", value):
            low = value.lower()
            words.add(low)
            words.update(w for w in re.split(r"[_.:/-]", low) if w)
    return words


def _first_key(rec: RawRec, keys: tuple, want) -> tuple | None:
    """The path of the field named earliest in ``keys`` (shallowest first) whose value ``want``s."""
    best = None
    for path, value in rec.leaves:
        if any(isinstance(p, int) for p in path) or not isinstance(path[-1], str):
            continue
        if path[-1].lower() in keys and want(value):
            rank = (keys.index(path[-1].lower()), len(path))
            if best is None or rank < best[0]:
                best = (rank, path)
    return best[1] if best else None


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _id_like(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _is_args(value: Any) -> bool:
    if isinstance(value, dict):
        return True
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            return isinstance(json.loads(value), dict)
        except ValueError:
            return False
    return False


def _identifier(value: Any) -> bool:
    return isinstance(value, str) and bool(re.fullmatch(r"[A-Za-z_][\w.:/-]{0,63}", value))
