"""Put a session's raw records in the order they happened: sorted by a field, nested trees
flattened, trees by reference walked depth first.

Formats store a conversation as a tree (a run with ``child_runs``, spans pointing to a parent
span, a chat export's node map) or out of order (spans are written when they end). These
functions only reorder; they never drop a record: one a walk cannot reach (a cycle of parents)
is kept, after the others, in the order it came.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .mapping import MISSING, Path, get_path


def _get(record: Any, path: Path) -> Any:
    value = get_path(record, path)
    return MISSING if value is None else value


def _first(record: Any, paths: tuple[Path, ...]) -> Any:
    for path in paths:
        value = _get(record, path)
        if value is not MISSING:
            return value
    return MISSING


def flatten_children(record: dict, paths: tuple[Path, ...]) -> list[dict]:
    """The record followed by its nested child records, depth first in list order, each child list
    taken out of its parent (``input.children``). Iterative: any depth, no recursion limit."""
    out: list[dict] = []
    stack = [record]
    while stack:
        node = stack.pop()
        out.append(node)
        kids: list[dict] = []
        for path in paths:
            value = _pop(node, path)
            if isinstance(value, list):
                kids.extend(kid for kid in value if isinstance(kid, dict))
        stack.extend(reversed(kids))
    return out


def _pop(record: dict, path: Path) -> Any:
    parent: Any = record
    for key in path[:-1]:
        parent = parent.get(key) if isinstance(parent, dict) else None
    if isinstance(parent, dict):
        return parent.pop(path[-1], None)
    return None


def ordered(items: list[tuple[Any, dict]], paths: tuple[Path, ...], key: Callable[[Any], tuple]) -> list:
    """``(where, record)`` pairs sorted stably by the first present value of ``paths``, compared by
    ``key``; a record without one keeps its place right after the record before it."""
    keys: list[tuple] = []
    previous: tuple = (-1, 0.0, "")
    for _, record in items:
        value = _first(record, paths)
        if value is not MISSING:
            previous = key(value)
        keys.append(previous)
    order = sorted(range(len(items)), key=keys.__getitem__)
    return [items[i] for i in order]


def _ident(value: Any) -> Any:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    return MISSING


def depth_first(items: list[tuple[Any, dict]], id_path: Path, parent_path: Path) -> list:
    """``(where, record)`` pairs written depth first from the roots, each record followed by its
    children; siblings and roots keep their order in ``items``. A record whose parent is not among
    them is a root; records no walk reaches (parents in a cycle) follow, in their order."""
    index: dict[str, int] = {}
    for position, (_, record) in enumerate(items):
        ident = _ident(_get(record, id_path))
        if ident is not MISSING and ident not in index:
            index[ident] = position
    children: dict[int, list[int]] = {}
    roots: list[int] = []
    for position, (_, record) in enumerate(items):
        parent = index.get(_ident(_get(record, parent_path)))
        if parent is None or parent == position:
            roots.append(position)
        else:
            children.setdefault(parent, []).append(position)
    out: list[int] = []
    seen: set[int] = set()
    for start in (*roots, *range(len(items))):
        if start in seen:
            continue
        stack = [start]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            out.append(node)
            stack.extend(reversed(children.get(node, ())))
    return [items[i] for i in out]
