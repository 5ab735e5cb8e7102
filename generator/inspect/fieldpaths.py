"""Paths into records: tuples of keys, ``LIST`` standing for every element of a list.

Contract: ``dotted`` writes a path for people and ``mapping_path`` as a mapping writes it; ``get``
follows plain keys (None when one is absent), ``values_at`` also fans out over lists, ``walk``
lists every (path, value) of a record. Pure functions; imports nothing from the package.
"""

from __future__ import annotations

from typing import Any

from cleaner_runtime.mapping import MISSING, get_path, path_notation

LIST = "[]"  # path segment standing for "every element of a list"


def dotted(path: tuple) -> str:
    """A path for people: ``message.content[].type``."""
    out = ""
    for part in path:
        if part == LIST:
            out += "[]"
        else:
            out += ("." if out else "") + str(part)
    return out


def mapping_path(path: tuple) -> str | list:
    """A path as the mapping writes it (``cleaner_runtime.mapping.path_notation``)."""
    return path_notation(path)


def get(record: Any, path: tuple) -> Any:
    """The value at ``path`` as the cleaner reads it (``cleaner_runtime.mapping.get_path``: the one
    reader of paths), None where the path leads nowhere."""
    value = get_path(record, path)
    return None if value is MISSING else value


def walk(value: Any, path: tuple, out: list) -> None:
    out.append((path, value))
    if isinstance(value, dict):
        for key, item in value.items():
            walk(item, (*path, key), out)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                walk(item, (*path, LIST), out)
            else:
                out.append(((*path, LIST), item))


def values_at(value: Any, path: tuple) -> list:
    """Every value at a path whose LIST segments stand for each element of a list."""
    nodes = [value]
    for key in path:
        nxt = []
        for node in nodes:
            if key == LIST and isinstance(node, list):
                nxt.extend(node)
            elif isinstance(node, dict) and key in node:
                nxt.append(node[key])
        nodes = nxt
    return nodes

