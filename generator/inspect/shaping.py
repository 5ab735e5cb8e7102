"""Which reading rules of ``cleaner_runtime.shapes`` a sample needs, applied as the cleaner will.

Contract: ``shape_document(report, document)`` returns the document as the cleaner reads it with
the rules it needs (``input.tagged`` / ``input.unflatten`` / ``input.decode``), and writes those
settings in ``report.shaping``; ``shape_line`` does the same for one JSON Lines value. The rules
are the runtime's own functions, so what ``inspect`` profiles is what the rendered cleaner reads.
"""

from __future__ import annotations

from typing import Any

from cleaner_runtime.shapes import (
    ShapeError,
    count_keyed_lists,
    decodable_keys,
    decode_keys,
    flattened,
    is_tagged,
    unflatten,
    untag,
)
from generator.inspect.documents import records_in_document

TAG = "tag"  # the key a tagged record's name is read into (input.tagged.tag)
VALUE = "value"  # ... and an array payload (input.tagged.value)
TAGGED = {"tag": TAG, "value": VALUE}


def shape_document(report: Any, document: Any) -> Any:
    """A whole JSON document with the rules it needs applied (an array of ``[name, payload]``
    pairs, an object with flattened keys, one whose records are only in strings of JSON).

    Strings are decoded only when the structure itself holds no record list: a string of JSON
    beside real records is a payload (a raw request kept verbatim, a copy of the records)."""
    if isinstance(document, list):
        pairs = sum(1 for item in document if is_tagged(item))
        if pairs and pairs * 2 >= len(document):
            report.shaping["tagged"] = dict(TAGGED)
            return [_untagged(item) for item in document]
        return document
    if not isinstance(document, dict):
        return document
    document, turned = count_keyed_lists(document)
    if turned:
        report.shaping["keyed_lists"] = True
    rebuilt = unflatten(document) if flattened(document) else document
    if rebuilt is not document:
        report.shaping["unflatten"] = True
    if records_in_document(rebuilt)[0] is not None:
        return rebuilt  # records in the structure itself: strings holding JSON are payloads, kept as written
    keys = decodable_keys(document)
    if not keys:
        return rebuilt
    report.shaping["decode"] = keys
    document = decode_keys(document, tuple(keys))  # the cleaner's order: decode, then unflatten
    return unflatten(document) if report.shaping.get("unflatten") else document


def shape_line(report: Any, value: Any) -> Any:
    """One JSON Lines value: a ``[name, payload]`` pair is one record (``input.tagged``); a
    payload that already holds the tag key raises ShapeError, as in the cleaner."""
    if is_tagged(value):
        report.shaping["tagged"] = dict(TAGGED)
        return untag(value, TAG, VALUE)
    value, turned = count_keyed_lists(value)
    if turned:
        report.shaping["keyed_lists"] = True
    return value


def _untagged(item: Any) -> Any:
    try:
        return untag(item, TAG, VALUE) if is_tagged(item) else item
    except ShapeError:
        return item  # reported by the record reader: not an object


def shaping_words(shaping: dict) -> list[str]:
    """The reading rules a file needed, in words, each naming its setting (for the report)."""
    out = []
    if shaping.get("tagged"):
        out.append(f"[name, payload] pairs, each one record with its name at `{shaping['tagged']['tag']}` "
                   "(input.tagged)")
    if shaping.get("decode"):
        out.append("JSON written as strings, parsed: " + ", ".join(f"`{k}`" for k in shaping["decode"])
                   + " (input.decode)")
    if shaping.get("keyed_lists"):
        out.append("lists of {key, value} objects (OTLP attributes) read as objects (input.keyed_lists)")
    if shaping.get("unflatten"):
        out.append("flattened keys (`a.0.b`) rebuilt as the tree they stand for (input.unflatten)")
    return out


def continued_lists(document: Any, path: tuple | None) -> list[tuple]:
    """The other lists of a JSON object that continue the one at ``path`` (``input.more_records``):
    lists of objects at the same depth whose records' common keys hold the chosen list's, or are
    held by them (a request's
    messages and the reply's, ``input_messages`` / ``output_messages``), in document order, the
    chosen one first; and lists whose records carry the same ids as the chosen list's (a LangSmith
    batch's ``post`` runs and the ``patch`` that completes each by its ``id``). Empty when the chosen
    list stands alone."""
    if not isinstance(document, dict) or not path or "*" in path:
        return []
    lists = _object_lists(document, len(path))
    shapes = {p: _common_keys(items) for p, items in lists}
    shape = shapes.get(tuple(path))
    if not shape:
        return []
    chosen = dict(lists)[tuple(path)]
    return [p for p, items in lists if shapes[p] and (
        shapes[p] <= shape or shape <= shapes[p] or _same_ids(chosen, items))]


def _same_ids(one: list, other: list) -> bool:
    """Whether two lists' records are the same things by their ``id``: every id of each is in the other."""
    ids = [[item.get("id") for item in items] for items in (one, other)]
    if not all(isinstance(i, str) and len(i) >= 8 for i in ids[0] + ids[1]):
        return False  # small numbers (1, 2, 3) or an absent, list or object id say nothing of identity
    return set(ids[0]) == set(ids[1])


def _object_lists(document: dict, depth: int) -> list[tuple[tuple, list]]:
    """The lists of objects ``depth`` keys down, in document order (iterative, each object once)."""
    found: list[tuple[tuple, list]] = []
    level: list[tuple[tuple, dict]] = [((), document)]
    for step in range(depth):
        below: list[tuple[tuple, dict]] = []
        for at, node in level:
            for key, value in node.items():
                if step == depth - 1:
                    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                        found.append(((*at, key), value))
                elif isinstance(value, dict):
                    below.append(((*at, key), value))
        level = below
    return found


def _common_keys(items: list) -> frozenset:
    keys = None
    for item in items:
        keys = set(item) if keys is None else keys & set(item)
    return frozenset(keys or ())
