"""Paths into a record, written the way mapping files write them (docs/mapping.md).

Learning works with tuples of keys; the mapping it produces needs dotted strings, or lists of
keys where a key itself holds a dot or looks like an index.
"""

from __future__ import annotations


def dotted(path: tuple) -> str:
    """``("message", "content")`` -> ``"message.content"`` (for names and messages)."""
    return ".".join(str(p) for p in path)


def path_out(path: tuple) -> str | list:
    """A single path in the mapping's notation (a list of keys when a key contains a dot)."""
    if any(isinstance(p, str) and (("." in p) or p.isdigit()) for p in path):
        return list(path)
    return dotted(path)


def paths_out(paths: list[tuple]) -> str | list:
    """Several paths (the first present wins) in the mapping's notation."""
    if len(paths) == 1:
        single = path_out(paths[0])
        return single if isinstance(single, str) else [single]
    return [path_out(p) for p in paths]
