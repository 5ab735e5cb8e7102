"""Reading rules that give a parsed value the shape of records before they are looked for.

Three shapes that exporters write, each turned on by its own ``input`` setting (the inference
proposes it from what the samples hold; ``inspect`` reads through these same functions):

- ``input.tagged``: a line or list element that is a two-item array ``[name, payload]`` (a recorded
  call: its name, then its object) is one record: the payload object with the name under
  ``tagged.tag``; a payload that is an array goes under ``tagged.value``.
- ``input.unflatten``: an object whose keys are dotted paths with list indices
  (``messages.0.role``) is the flattened form of a tree: it is rebuilt, indices as lists in
  numeric order (``10`` after ``9``), before its records are looked for.
- ``input.more_records``: the conversation goes on in other lists of the document (a request's
  messages, then the reply's): their records are read after those at ``input.records_path``.
- ``input.keyed_lists``: a list of ``{key, value}`` objects (OpenTelemetry's OTLP/JSON attributes,
  ``[{"key": "gen_ai.system", "value": {"stringValue": "openai"}}]``) is the object it spells:
  ``{"gen_ai.system": "openai"}``, each OTLP value read as the value it wraps (``intValue`` strings as
  integers, ``arrayValue`` / ``kvlistValue`` as a list / an object). A list with a repeated key, or
  an item that is not ``{key, <an OTLP value>}`` (a plain ``{key, value: "x"}`` list is a list of
  records), stays as written.
- ``input.decode``: the named keys of a document (or line) hold JSON written as a string
  (``"{\\"messages\\": [...]}"``): each is parsed where it is, before the records are looked for.

Each is bounded (a key is split into at most ``MAX_SEGMENTS`` parts, a decoded string is at most
``MAX_DECODED_BYTES``, no work grows faster than the value's size) and never loses a value: what
does not fit the rule stays as it was (a string that does not parse stays a string, a key that
would clash with another keeps its flat name).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MAX_SEGMENTS = 64  # a longer dotted key is left flat
MAX_DECODED_BYTES = 64 * 1024 * 1024  # a longer JSON string is left a string


class ShapeError(ValueError):
    """A value the rule cannot turn into a record (the reason names the setting to change)."""


@dataclass(frozen=True)
class Shaping:
    """The reading rules of one mapping's ``input`` section (all off: values are read as written)."""

    tag: str | None = None  # input.tagged.tag
    value: str = "value"  # input.tagged.value
    unflatten: bool = False
    decode: tuple[str, ...] = ()
    more: tuple[tuple, ...] = ()  # input.more_records, compiled: lists read after the records_path one
    keyed: bool = False  # input.keyed_lists

    @classmethod
    def from_settings(cls, tagged: Any = None, unflatten: bool = False, decode: Any = None,
                      more: tuple[tuple, ...] = (), keyed: bool = False) -> Shaping | None:
        """The rules of ``input.tagged`` / ``unflatten`` / ``decode`` / ``more_records`` / ``keyed_lists``;
        None when all are off."""
        tag = value = None
        if isinstance(tagged, dict):
            tag, value = tagged.get("tag"), tagged.get("value")
        if not tag and not unflatten and not decode and not more and not keyed:
            return None
        return cls(tag or None, value or "value", bool(unflatten), tuple(decode or ()), tuple(more), bool(keyed))

    @classmethod
    def from_input(cls, settings: dict[str, Any]) -> Shaping | None:
        """The rules of a mapping's ``input`` section as a plain dict (the generator's readers)."""
        from .mapping import compile_paths
        return cls.from_settings(settings.get("tagged"), bool(settings.get("unflatten")), settings.get("decode"),
                                 compile_paths(settings.get("more_records")), bool(settings.get("keyed_lists")))

    def record(self, value: Any) -> Any:
        """``value`` (a line, or the whole document) with the rules applied; raises ShapeError for
        a tagged array that cannot be one record."""
        if self.tag and is_tagged(value):
            value = untag(value, self.tag, self.value)
        if self.keyed:
            value = keyed_lists(value)
        if isinstance(value, dict):
            if self.decode:
                value = decode_keys(value, self.decode)
            if self.unflatten:
                value = unflatten(value)
        return value

    def document(self, value: Any) -> Any:
        """A whole JSON document with the rules applied: an array's tagged elements each become a
        record (an element that cannot stays as it is and is reported by the record reader)."""
        if isinstance(value, list) and self.tag:
            return [self._element(item) for item in value]
        return self.record(value)

    def _element(self, item: Any) -> Any:
        try:
            return self.record(item)
        except ShapeError:
            return item


def is_tagged(value: Any) -> bool:
    """Whether ``value`` is ``[name, object-or-array]``: a named record."""
    return (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)
            and isinstance(value[1], (dict, list)))


def untag(value: list, tag: str, inner: str = "value") -> dict[str, Any]:
    """``[name, payload]`` as one record: the payload object with ``tag: name``, or
    ``{tag: name, inner: payload}`` for an array payload."""
    name, payload = value
    if isinstance(payload, list):
        return {tag: name, inner: payload}
    if tag in payload:
        raise ShapeError(f"the payload already has a key {tag!r}; set input.tagged.tag to a key it lacks")
    return {tag: name, **payload}


OTLP_VALUES = ("stringValue", "boolValue", "intValue", "doubleValue", "bytesValue", "arrayValue", "kvlistValue")


def is_keyed_list(value: Any) -> bool:
    """A non-empty list of ``{key: <string>, value: <an OTLP value>}`` objects whose keys all differ
    (``{"stringValue": "x"}``: one key, one of ``OTLP_VALUES``)."""
    if not isinstance(value, list) or not value:
        return False
    keys = set()
    for item in value:
        if not (isinstance(item, dict) and len(item) == 2 and isinstance(item.get("key"), str)
                and isinstance(item.get("value"), dict) and len(item["value"]) == 1
                and next(iter(item["value"])) in OTLP_VALUES):
            return False
        keys.add(item["key"])
    return len(keys) == len(value)


def keyed_lists(value: Any) -> Any:
    """``value`` with every keyed list in it turned into the object it spells (``input.keyed_lists``),
    in place: the value is the reader's own parse, and a whole trace is not copied to change its
    attribute lists. Iterative, each container once, so a deep value costs no recursion."""
    return count_keyed_lists(value)[0]


def count_keyed_lists(value: Any) -> tuple[Any, int]:
    """``keyed_lists`` and how many lists it turned (``inspect`` proposes the setting on that count,
    in the same walk)."""
    root = [value]
    turned = 0
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, at = stack.pop()
        node = holder[at]
        if is_keyed_list(node):
            node = holder[at] = {item["key"]: _otlp(item["value"]) for item in node}
            turned += 1
        if isinstance(node, dict):
            stack.extend((node, key) for key in node)
        elif isinstance(node, list):
            stack.extend((node, index) for index in range(len(node)))
    return root[0], turned


def _otlp(value: Any) -> Any:
    """An OTLP ``AnyValue`` (``{"stringValue": "x"}``) as the value it wraps; anything else as it is."""
    if not (isinstance(value, dict) and len(value) == 1):
        return value
    [(kind, inner)] = value.items()
    if kind not in OTLP_VALUES:
        return value
    if kind == "intValue" and isinstance(inner, str) and inner.lstrip("-").isdigit() and len(inner) <= 20:
        return int(inner)  # OTLP/JSON writes 64-bit integers as strings
    if kind in ("arrayValue", "kvlistValue") and isinstance(inner, dict):
        values = inner.get("values", [])
        if kind == "kvlistValue" and is_keyed_list(values):
            return values  # turned into an object when the walk reaches it
        return [_otlp(v) for v in values] if isinstance(values, list) else value
    return inner


def _index(segment: str) -> bool:
    return segment.isdigit() and segment.isascii()


def flattened(value: Any) -> bool:
    """Whether an object's keys are a flattened tree: some dotted key has a list-index segment."""
    return isinstance(value, dict) and any(
        "." in key and any(_index(part) for part in key.split(".", MAX_SEGMENTS)[1:]) for key in value
        if isinstance(key, str))


def unflatten(flat: dict[str, Any]) -> dict[str, Any]:
    """The tree a flattened object stands for: ``{"a.0.b": 1}`` -> ``{"a": [{"b": 1}]}``.

    Objects whose keys are all list indices become lists, ordered by number; when every element
    of such a list is wrapped in the same one key (``messages.0.message.role``), the list holds
    what the wrappers hold (``messages[0].role``). A key whose place is
    taken (``a`` holds a value and ``a.b`` another) means the object is no flattened tree: it is
    returned as written, so nothing is lost. One
    pass over the keys and one over the tree built: linear in the object's size."""
    root: dict[str, Any] = {}
    for key, value in flat.items():
        parts = key.split(".") if isinstance(key, str) and "." in key else None
        if not parts or len(parts) > MAX_SEGMENTS or "" in parts:
            parts = [key]
        if not _place(root, parts, value):
            return flat  # two keys claim one place: not a flattened tree, read as written
    return _listed(root)


_BRANCH = type("_Branch", (dict,), {})  # an object built here (a value read from the input is never one)


def _place(root: dict, parts: list[str], value: Any) -> bool:
    """Put ``value`` at ``parts`` under ``root``; False when a value already holds that place."""
    node = root
    for part in parts[:-1]:
        child = node.get(part)
        if child is None and part not in node:
            child = node[part] = _BRANCH()
        elif child.__class__ is not _BRANCH:
            return False
        node = child
    if parts[-1] in node:
        return False
    node[parts[-1]] = value
    return True


def _listed(root: dict) -> dict:
    """The built objects as plain dicts, those keyed by indices only as lists (iteratively)."""
    out: dict = {}
    stack: list[tuple[Any, Any]] = [(root, out)]
    while stack:
        node, target = stack.pop()
        for key, child in node.items():
            if child.__class__ is _BRANCH:
                made: Any = {} if not all(_index(k) for k in child) else []
                if isinstance(target, list):
                    target.append(made)
                else:
                    target[key] = made
                if isinstance(made, list):
                    wrapper = _wrapper(child)  # once a list: asked per element, it would be quadratic
                    ordered = _BRANCH((k, _unwrapped(child[k], wrapper)) for k in sorted(child, key=int))
                    stack.append((ordered, made))
                else:
                    stack.append((child, made))
            elif isinstance(target, list):
                target.append(child)
            else:
                target[key] = child
    return out


def _wrapper(items: dict) -> str | None:
    """The one key every element of a rebuilt list is wrapped in (``messages.0.message.role``:
    ``message``), when there is one: a name the same for every element tells nothing, and the
    list's elements are what it wraps."""
    keys = {next(iter(item)) if item.__class__ is _BRANCH and len(item) == 1 else None for item in items.values()}
    key = keys.pop() if len(keys) == 1 else None
    if key is None or any(items[k][key].__class__ is not _BRANCH for k in items):
        return None
    return key


def _unwrapped(item: Any, key: str | None) -> Any:
    return item[key] if key is not None else item


def decode_keys(record: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``record`` with the JSON strings at ``keys`` parsed (a copy; a value that is no JSON
    object or array stays the string it was)."""
    out = dict(record)
    for key in keys:
        if key in out:
            out[key] = decoded(out[key])
    return out


def decoded(value: Any) -> Any:
    """The object or array a string holds as JSON, else the value itself (never raises)."""
    if not isinstance(value, str) or len(value) > MAX_DECODED_BYTES:
        return value
    text = value.strip()
    if not text.startswith(("{", "[")):
        return value
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return value
    return parsed if isinstance(parsed, (dict, list)) else value


def decodable_keys(record: dict[str, Any]) -> list[str]:
    """The keys of ``record`` whose string values parse as JSON holding a list of objects (the
    strings a reading rule would look inside for records)."""
    out = []
    for key, value in record.items():
        if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
            parsed = decoded(value)
            if parsed is not value and _holds_objects(parsed):
                out.append(key)
    return out


def _holds_objects(value: Any) -> bool:
    """A list of objects, or an object with one such list among its values."""
    if isinstance(value, list):
        return bool(value) and all(isinstance(item, dict) for item in value)
    return isinstance(value, dict) and any(_holds_objects(item) for item in value.values() if isinstance(item, list))


def node_map(value: Any) -> bool:
    """Whether an object is a record list written as a map (a conversation's ``mapping`` of
    message nodes): two or more objects, most of them (80 %) holding their own key as a field."""
    if not isinstance(value, dict) or len(value) < 2 or not all(isinstance(v, dict) for v in value.values()):
        return False
    own = sum(1 for k, v in value.items() if any(inner == k for inner in v.values() if isinstance(inner, str)))
    return own >= 0.8 * len(value)
