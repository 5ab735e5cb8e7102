"""The reading rules of the mapping's ``input`` section (``input.tagged``, ``input.unflatten``,
``input.decode``, ``input.more_records``), proposed from what inspection needed to read the samples.

Why from the profile: ``inspect`` reads every sample through the runtime's own rules
(``cleaner_runtime.shapes``) and notes in each file's report which it applied; the cleaner must
read with the same rules, or it sees other records than the ones inference planned on.

Contract: ``reading_settings(files)`` returns the ``input`` keys to add (none when no file needed
a rule): a rule any file needed is on for all (each is a no-op on a value it does not fit), the
keys to decode are the union over the files, in the order first seen.
"""

from __future__ import annotations

from typing import Any


def reading_settings(files: list[Any]) -> dict[str, Any]:
    """The ``input.*`` reading rules the sample files needed (see the module docstring)."""
    out: dict[str, Any] = {}
    decode: dict[str, None] = {}
    for report in files:
        shaping = getattr(report, "shaping", None) or {}
        if shaping.get("tagged") and "tagged" not in out:
            out["tagged"] = dict(shaping["tagged"])
        if shaping.get("unflatten"):
            out["unflatten"] = True
        if shaping.get("keyed_lists"):
            out["keyed_lists"] = True
        decode.update(dict.fromkeys(shaping.get("decode") or ()))
        if shaping.get("more_records") and "more_records" not in out:
            out["more_records"] = list(shaping["more_records"])
    if decode:
        out["decode"] = list(decode)
    return out
