"""Content blocks: lists of objects carrying a short type name (``content[].type``), or told apart by
the key they hold (Gemini ``parts``); where they are and the fields of each type.

Contract: ``find_blocks`` returns a ``Blocks`` (empty when there are none); the media types of
attached files are not block types.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from generator.inspect.fieldpaths import LIST, dotted, values_at
from generator.inspect.fields import FieldStat, profile_fields
from generator.inspect.records import Rec
from generator.inspect.vocab import ROLE_FIELD_NAMES, TIME_WORDS, words


@dataclass
class BlockType:
    name: str
    count: int
    stats: dict = field(default_factory=dict, repr=False)
    containers: Counter = field(default_factory=Counter)  # content path -> count

    def to_dict(self) -> dict:
        fields = {dotted(p): s.main_type for p, s in self.stats.items() if LIST not in p and len(p) <= 2}
        return {"type": self.name, "count": self.count, "in": [dotted(p) for p in self.containers],
                "fields": fields}


@dataclass
class Blocks:
    """Lists of typed content blocks: where they are, the type field and each type's fields.

    Lists whose items have no type field but are told apart by the key they hold (Gemini
    ``parts``: ``{"text"}``, ``{"functionCall"}``, ``{"thought": true, "text"}``) are ``by_key``
    types, in the order a block is checked (flags such as ``thought`` first), at ``key_paths``.
    """

    type_field: tuple | None = None
    paths: list = field(default_factory=list)
    types: dict = field(default_factory=dict)
    key_paths: list = field(default_factory=list)
    by_key: dict = field(default_factory=dict)

    @property
    def all_paths(self) -> list:
        return [*self.paths, *self.key_paths]

    def to_dict(self) -> dict:
        return {"type_field": dotted(self.type_field) if self.type_field else None,
                "paths": [dotted(p) for p in self.paths],
                "types": [b.to_dict() for b in self.types.values()],
                "key_paths": [dotted(p) for p in self.key_paths],
                "by_key": [b.to_dict() for b in self.by_key.values()]}


BLOCK_KEYS = {"text", "thought", "thinking", "reasoning", "function_call", "function_response", "tool_call",
              "tool_use", "tool_result", "tool_response", "inline_data", "file_data", "executable_code",
              "code_execution_result", "image", "image_url", "audio", "video", "file", "document", "refusal"}
NOT_BLOCK_KEYS = ROLE_FIELD_NAMES | TIME_WORDS | {"type", "kind", "id", "uuid"}


def _key_typed(items: list[dict]) -> list[str] | None:
    """The keys that tell untyped blocks apart, in the order to check them; None if not blocks."""
    if not items or any(not isinstance(i, dict) for i in items):
        return None
    held: dict[str, list] = {}
    for item in items:
        if len(item) > 5 or any("_".join(words(str(k))) in NOT_BLOCK_KEYS - {"text"} for k in item):
            return None
        for key, value in item.items():
            if "_".join(words(str(key))) in BLOCK_KEYS and value is not None and value is not False and value != "":
                held.setdefault(key, []).append(value)
    if not held:
        return None
    covered = sum(1 for item in items if any(k in held and item[k] not in (None, False, "") for k in item))
    if covered < len(items):
        return None
    flags = [k for k, values in held.items() if all(isinstance(v, bool) for v in values)]
    return flags + [k for k in held if k not in flags]


_MEDIA_TYPE = re.compile(r"[a-z]+/[\w.+-]+(;.*)?\Z")


def _media_types(stat: FieldStat) -> bool:
    """Values such as ``text/plain`` and ``image/png``: the media types of attached files (a ticket's
    ``attachments``, a message's ``files``), not the type names of content blocks."""
    return bool(stat.values) and all(isinstance(v, str) and _MEDIA_TYPE.match(v) for v in stat.values)


def find_blocks(recs: list[Rec], stats: dict[tuple, FieldStat]) -> Blocks:
    """Lists whose items are objects carrying a short type name: typed content blocks.

    Lists whose items carry no type name but hold one of the keys content blocks are known by
    (``text``, ``functionCall``, ``inlineData`` ...) are blocks typed by that key.
    """
    found = Blocks()
    lists = [p for p, s in stats.items() if s.types.get("array") and (*p, LIST) in stats
             and stats[(*p, LIST)].types.get("object")]
    type_names = Counter()
    untyped = []
    for path in lists:
        for key in ("type", "kind", "block_type", "content_type", "object"):
            stat = stats.get((*path, LIST, key))
            item = stats.get((*path, LIST))
            if stat and item and stat.records and stat.tokenish and stat.occurrences >= 0.9 * item.occurrences \
                    and not _media_types(stat):
                type_names[key] += stat.occurrences
                found.paths.append(path)
                break
        else:
            untyped.append(path)
    if untyped:
        _find_key_blocks(recs, untyped, found)
    if not type_names:
        return found
    type_field = type_names.most_common(1)[0][0]
    found.type_field = (type_field,)
    items_by_type: dict[str, list] = defaultdict(list)
    containers: dict[str, Counter] = defaultdict(Counter)

    def collect(node: Any, path: tuple) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                collect(v, (*path, k))
        elif isinstance(node, list):
            if path in found.paths:
                for item in node:
                    if isinstance(item, dict) and isinstance(item.get(type_field), str):
                        name = item[type_field]
                        if len(items_by_type[name]) < 2000:
                            items_by_type[name].append(item)
                        containers[name][path] += 1
            for item in node:
                if isinstance(item, (dict, list)):
                    collect(item, (*path, LIST))

    for rec in recs:
        collect(rec.data, ())
    for name, items in items_by_type.items():
        found.types[name] = BlockType(name, sum(containers[name].values()), profile_fields(items, times=False),
                                      containers[name])
    return found


def _find_key_blocks(recs: list[Rec], paths: list[tuple], found: Blocks) -> None:
    """Untyped block lists at ``paths`` (LIST segments allowed), typed by the keys they hold."""
    items_at: dict[tuple, list] = defaultdict(list)
    for rec in recs[:5000]:
        for path in paths:
            for value in values_at(rec.data, path):
                if isinstance(value, list) and len(items_at[path]) < 4000:
                    items_at[path].extend(value)
    order: list[str] = []
    for path in paths:
        keys = _key_typed(items_at[path])
        if keys is None:
            continue
        found.key_paths.append(path)
        order += [k for k in keys if k not in order]
    if not found.key_paths:
        return
    flags = [k for k in order if all(isinstance(i.get(k), bool) for p in found.key_paths for i in items_at[p]
                                     if isinstance(i, dict) and i.get(k) is not None)]
    order = flags + [k for k in order if k not in flags]
    by_key: dict[str, list] = defaultdict(list)
    containers: dict[str, Counter] = defaultdict(Counter)
    for path in found.key_paths:
        for item in items_at[path]:
            key = next((k for k in order if item.get(k) not in (None, False, "")), None)
            if key is not None:
                by_key[key].append(item)
                containers[key][path] += 1
    for key in order:
        if by_key[key]:
            found.by_key[key] = BlockType(key, len(by_key[key]), profile_fields(by_key[key][:2000], times=False),
                                          containers[key])

