"""Where the records are in a JSON value: the record list of a document (lists that define the run
give way), the records readable from the head of a document too big to parse (``Partial``), and
record lists whose elements each hold their own records (``nested_path``, ``node_map``).

Contract: functions of parsed JSON (or of text, for ``Partial``); nothing here reads a file.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from cleaner_runtime.shapes import node_map
from generator.inspect.vocab import ROLE_FIELD_NAMES, words

DEFINITIONS_ONLY = ("(lists that define the run)",)  # a choice that stands for the lists given way
# Lists in a request or export document that define the run rather than record it.
DEFINITION_LISTS = {"tools", "functions", "tool_definitions", "system", "stop", "stop_sequences", "schemas",
                    "plugins", "agents", "models", "parameters", "settings", "permissions", "labels", "tags",
                    # ... or judge and describe it afterwards (a trace's scores, a ticket's custom fields)
                    "scores", "evaluations", "feedback", "ratings", "custom_fields", "fields", "metrics"}


def records_in_document(document: Any) -> tuple[list | None, tuple | None, list]:
    """The record list of a JSON document, its path, and the other lists that could be it."""
    if isinstance(document, list):
        return document, None, []
    if not isinstance(document, dict):
        return None, None, []
    found: list[tuple[tuple, list]] = []

    def visit(node: dict, path: tuple, depth: int) -> None:
        for key, value in node.items():
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                found.append(((*path, key), value))
            elif isinstance(value, dict) and depth < 3:
                visit(value, (*path, key), depth + 1)

    visit(document, (), 0)
    if not found:  # no list: an object of records by their id (a node map), as the cleaner reads it
        found = [((key,), list(value.values())) for key, value in document.items() if node_map(value)]
    if not found:
        return None, None, []
    found.sort(key=lambda item: (-len(item[1]), len(item[0])))
    # lists that define rather than record (a request's tool schemas, its system prompt) give way
    recorded = [item for item in found if "_".join(words(str(item[0][-1]))) not in DEFINITION_LISTS]
    best_path, best = (recorded or found)[0]
    if len(recorded) == 1 and len(found) > 1:
        # the one list that records something: no choice to make, but the path must be named
        return best, best_path, [best_path, DEFINITIONS_ONLY]
    return best, best_path, [p for p, _ in found]


class Partial:
    """Records from the first bytes of a JSON document too big to read whole."""

    def __init__(self, text: str):
        self.text = text
        self.decoder = json.JSONDecoder()

    def skip(self, i: int) -> int:
        while i < len(self.text) and self.text[i] in " \t\r\n,":
            i += 1
        return i

    def array(self, i: int) -> tuple[list, int]:
        items: list = []
        i = self.skip(i + 1)
        while i < len(self.text) and self.text[i] != "]":
            try:
                value, i = self.decoder.raw_decode(self.text, i)
            except ValueError:
                break
            items.append(value)
            i = self.skip(i)
        return items, i

    def find(self) -> tuple[list, tuple | None]:
        i = self.skip(0)
        if i < len(self.text) and self.text[i] == "[":
            return self.array(i)[0], None
        return self.object(i, ())

    def object(self, i: int, path: tuple) -> tuple[list, tuple | None]:
        i = self.skip(i + 1)
        while i < len(self.text) and self.text[i] == '"':
            try:
                key, i = self.decoder.raw_decode(self.text, i)
            except ValueError:
                break
            i = self.skip(i)
            if i >= len(self.text) or self.text[i] != ":":
                break
            i = self.skip(i + 1)
            if i >= len(self.text):
                break
            start = self.text[i]
            try:
                value, end = self.decoder.raw_decode(self.text, i)
            except ValueError:
                if start == "[":
                    items, _ = self.array(i)
                    return [v for v in items if isinstance(v, dict)], (*path, key)
                if start == "{":
                    return self.object(i, (*path, key))
                break
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                return value, (*path, key)
            i = self.skip(end)
        return [], None


NESTED_LIST_NAMES = {"messages", "turns", "events", "records", "entries", "steps", "history", "chat_messages",
                     "conversation", "transcript", "utterances", "exchanges", "interactions", "dialog", "dialogue",
                     "log", "logs", "trajectory", "spans", "items", "chat", "thread", "chat_history", "message_list"}


REPLY_KEYS = {"response", "choices", "completion", "output", "outputs", "answer", "reply", "result", "generation"}


def nested_path(elements: list) -> tuple | None:
    """The path under which every element of a record list holds its own records (an array of
    conversations, each with its ``messages``; an Open WebUI chat's ``chat.history.messages`` node map);
    None when the elements are records themselves."""
    dicts = [e for e in elements if isinstance(e, dict)]
    if not dicts or len(dicts) < 0.9 * len(elements):
        return None
    counts: Counter = Counter()
    maps: Counter = Counter()
    for element in dicts:
        for key, value in element.items():
            name = "_".join(words(str(key)))
            if name in REPLY_KEYS and value not in (None, "", [], {}):
                return None  # a request with its response (an LLM call log): the history repeats per line
            if isinstance(value, str) and (name in ROLE_FIELD_NAMES or (
                    name in ("text", "content", "body", "message") and value.strip())):
                return None  # a message: the elements are the records
            if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
                counts[(key,)] += 1
        maps.update(_node_maps(element, (), 0))
    path, n = counts.most_common(1)[0] if counts else (None, 0)
    if path is not None and n >= 0.8 * len(dicts) and "_".join(words(str(path[-1]))) in NESTED_LIST_NAMES:
        return path
    path, n = maps.most_common(1)[0] if maps else (None, 0)
    return path if path is not None and n >= 0.8 * len(dicts) else None


def _node_maps(node: dict, path: tuple, depth: int) -> list[tuple]:
    """Paths of the node maps (``shapes.node_map``) in an element, objects at most ``MAP_DEPTH`` deep:
    a map of records keyed by their own ids is records whatever its name."""
    found = []
    for key, value in node.items():
        if node_map(value):
            found.append((*path, key))
        elif isinstance(value, dict) and depth < MAP_DEPTH:
            found.extend(_node_maps(value, (*path, key), depth + 1))
    return found


MAP_DEPTH = 2


def _container_key(elements: list) -> str | None:
    """The one key under which every element of a list holds a list of objects, when the elements
    are nothing but that list and at most one scalar besides (a version, a schema URL): groupings of
    records, not records. None otherwise."""
    if not elements or not all(isinstance(e, dict) for e in elements):
        return None
    keys = set()
    for element in elements:
        lists = [k for k, v in element.items() if isinstance(v, list) and all(isinstance(i, dict) for i in v)
                 and v]
        scalars = [k for k, v in element.items() if not isinstance(v, (dict, list))]
        if len(lists) != 1 or len(scalars) > 1:
            return None
        keys.add(lists[0])
    return keys.pop() if len(keys) == 1 else None


def grouped_records(elements: list) -> tuple[tuple, list[tuple[str, list]]] | None:
    """Records nested in lists of lists: when the elements of a record list, and the elements of
    their lists in turn, are only groupings (``_container_key``), the records are the objects of
    the innermost lists (an OTLP export's ``resourceSpans[*].scopeSpans[*].spans``). Returns the
    steps below the list (``(0, "scopeSpans", "*", "spans")``: a list of one element is stepped
    into by its position, the one list of several by ``*``) and the records of each innermost
    grouping with its label; None unless two levels of groupings lead to the records, or when the
    path would need a second ``*``."""
    steps: tuple = ()
    groups: list[tuple[str, Any]] = [("", elements)]  # (label, the list of elements at this level)
    levels = 0
    while True:
        level = [e for _, items in groups for e in items]
        key = _container_key(level)
        if key is None:
            break
        levels += 1
        label, items = groups[0]
        if len(items) == 1:
            steps += (0, key)
            groups = [(label, items[0][key])]
            continue
        steps += ("*", key)
        groups = [(str(n), item[key]) for n, item in enumerate(items, start=1)]
        if _container_key([e for _, inner in groups for e in inner]) is not None:
            return None  # a second `*` would be needed (a path holds at most one)
        break
    if levels < 2 or not all(isinstance(r, dict) for _, inner in groups for r in inner):
        return None
    return steps, groups
