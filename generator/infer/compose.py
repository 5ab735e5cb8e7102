"""Content that a record spreads over several fields: the text and the links or files beside it,
a command's stdout and stderr.

Why: the seed asks to keep source links and evidence; a research answer's ``sources``, a chat
message's ``files`` and a command's ``stderr`` are dropped by a mapping that reads one field.

Contract: ``compose(records, content)`` -> a ``join`` spec (docs/mapping.md) for a kind whose
text is read at ``content``, or None when nothing beside it needs keeping. Beside the text it
keeps, in record order: a list of URLs; a list of objects naming files or links (their name or
URL, one a line); the name of one attached file (``[attachment: name]``, as placeholders are
written); a ``stderr`` beside a ``stdout``. A list is labelled with its field's name
(``sources`` -> ``Sources:``); stderr with ``stderr:``.
"""

from __future__ import annotations

from typing import Any

from generator.infer.calls import norm
from generator.infer.losses import is_link
from generator.inspect import mapping_path

# a field naming one file a message carries
ATTACHMENT_NAMES = {"attachment", "attachment_name", "attachment_file", "attachment_filename", "file_name",
                    "filename", "attached_file"}
ITEM_NAME_KEYS = ("url", "href", "link", "name", "file_name", "filename", "title", "path")


def _label(key: str) -> str:
    words = norm(key).replace("_", " ")
    return words[:1].upper() + words[1:] + ":\n"


def _item_key(items: list[dict]) -> str | None:
    """The key naming each item of a list of files or links (its URL, file name or title)."""
    for key in ITEM_NAME_KEYS:
        if all(isinstance(item.get(key), str) and item[key].strip() for item in items):
            return key
    return None


def _is_link_list(values: list[Any]) -> bool:
    return bool(values) and all(isinstance(v, str) and is_link(v) for v in values)


def compose(records: list[dict], content: tuple) -> dict | None:
    if len(content) != 1:
        return None
    head = content[0]
    pieces: list[Any] = []
    for key in dict.fromkeys(k for record in records for k in record):
        if key == head:
            continue
        lists = [record[key] for record in records if isinstance(record.get(key), list) and record[key]]
        if norm(key) in ATTACHMENT_NAMES and "." not in key and all(
                isinstance(r.get(key), str) for r in records if r.get(key) is not None):
            pieces.append({"text": f"[attachment: {{{key}}}]"})  # left out where the record names none
            continue
        if not lists:
            if norm(head) == "stdout" and norm(key) == "stderr" and any(
                    isinstance(r.get(key), str) and r[key].strip() for r in records):
                pieces.append({"path": key, "prefix": "stderr:\n"})
            continue
        if all(_is_link_list(values) for values in lists):
            pieces.append({"path": key, "prefix": _label(key)})
        elif all(all(isinstance(item, dict) for item in values) for values in lists):
            name = _item_key([item for values in lists for item in values])
            files = {"file", "files", "attachment", "attachments", "link", "links", "source", "sources", "url",
                     "urls", "citation", "citations", "reference", "references", "document", "documents"}
            if name and norm(key) in files:
                pieces.append({"path": key, "each": name, "prefix": _label(key)})
    if not pieces:
        return None
    return {"join": [mapping_path(content), *pieces]}
