"""What a mapping would lose: the structures the raw samples hold that its cleaner does not write.

Why: right or refuse, never wrong. A mapping can run cleanly and still drop a reasoning field
it never read, the calls in a list it read as text, or results it could not link. The cleaner's
own summary counts some of that as skips; this module compares the raw samples with what the
rendered cleaner actually wrote for them, so that `new --yes` refuses such a render and the
survey says it before rendering.

Contract: ``find_losses(mapping, inputs, outputs, summary)`` reads the raw files under
``inputs`` exactly as the cleaner does, the trajectories it wrote under ``outputs`` and its
``summary`` text, and returns one ``Loss`` per place that lost something:
- prose (a string of three words or more) in a record the mapping keeps, found nowhere in the
  output (compared by short windows, so redaction and truncation do not count as loss);
- tool calls: items of call lists (``calls.call_shape``) in kept records beyond the number of
  calls written;
- skips the cleaner counted that drop a result or a call (no earlier call, a repeated answer, no tool
  name, an unknown block type). A record skipped for holding no content lost nothing the first two
  checks would not see.
Records of kinds the mapping skips are deliberate drops, reported by the preview, not losses.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cleaner_runtime.mapping import compile_path, compile_paths
from cleaner_runtime.shapes import Shaping
from generator.infer.calls import args_value, call_shape
from generator.inspect import MEDIA_WORDS, get, words

WINDOW = 24
NOISE_KEYS = {"tools", "functions", "tool_definitions", "schema", "parameters", "metadata", "usage", "extra",
              "headers", "request", "config", "settings", "options", "env", "environment", "replay_config",
              "input_schema", "json_schema", "response_format", "instructions"}
# an image's, a recording's or an attached file's URL (under a key in MEDIA_WORDS) is a binary
# payload's address, which the seed asks to drop (the file's name is kept: FILE_NAME_KEYS)
# the name of a file a message carries is context to keep (what was attached), however short
FILE_NAME_KEYS = {"attachment", "attachment_name", "attachment_file", "attachment_filename", "file_name", "filename",
                  "attached_file"}
SYSTEM_ROLES = {"system", "developer"}
LOSING_SKIPS = ("tool result with no earlier call", "tool result with no link", "duplicate tool result",
                "tool call without a tool name", "unknown block type")
_SPACES = re.compile(r"\s+")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


@dataclass(frozen=True)
class Loss:
    kind: str  # the mapping's rule name (or "records" for summary skips)
    what: str  # the field, or what was lost
    count: int
    example: str  # where, for people

    def __str__(self) -> str:
        return f"{self.kind}: {self.what} ({self.count}x, e.g. {self.example})"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "what": self.what, "count": self.count, "example": self.example}


def is_media_key(key: Any) -> bool:
    """A key naming an image, a file or an icon (``files``, ``image_72``, ``icons``): what it holds is
    a binary payload's address and metadata (a file list's ``{id, name}`` items are no tool calls)."""
    if str(key).lower() in MEDIA_WORDS:
        return True
    return any(w in MEDIA_WORDS or w.rstrip("s") in MEDIA_WORDS for w in words(str(key)))


def _squash(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


_URL = re.compile(r"https?://\S{4,}\Z")


def is_link(text: str) -> bool:
    """A whole value that is one web address (a source, a file's URL)."""
    return bool(_URL.match(text.strip()))


def is_prose(text: str) -> bool:
    """Text to keep: three words or more (not a time), or a link (the seed asks to keep source links)."""
    squashed = _squash(text)
    if _URL.match(squashed):
        return True
    return len(squashed) >= 16 and squashed.count(" ") >= 2 and not _TIME.match(squashed)


# A typed, folded element (`<details type="reasoning">`, `<details type="tool_calls">`): a chat UI's
# rendering of a step its record also holds as structure (Open WebUI's `content` beside `output`);
# its summary line is display chrome, so the text to keep is what lies outside such elements.
_RENDERED_STEP = re.compile(r"<details\s+type=\"[^\"]*\"[^>]*>.*?</details>", re.DOTALL)


def visible_text(text: str) -> str:
    """``text`` without the steps a UI rendered into it (``_RENDERED_STEP``)."""
    return _RENDERED_STEP.sub(" ", text) if "<details" in text else text


def prose_fields(value: Any, path: tuple = (), skip_key: str | None = None) -> list[tuple[str, str]]:
    """(field pattern, text) of every prose string in a record; list positions read as ``[]``.
    A link inside an image, audio or video (by its key or its block's ``type``) is a binary
    payload's address, not text to keep; a step a UI rendered into a text is not either."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[tuple, Any, bool]] = [(path, value, False)]
    while stack:
        where, node, media = stack.pop()
        if isinstance(node, str):
            node = visible_text(node)
            if node.lstrip().startswith(("{", "[")):  # JSON text (arguments, OpenTelemetry attributes)
                try:
                    stack.append((where, json.loads(node), media))
                    continue
                except ValueError:
                    pass
            link = _URL.match(node.strip())
            named = bool(where) and where[-1].lower() in FILE_NAME_KEYS and bool(node.strip())
            if (is_prose(node) or named) and not (link and (media or any(is_media_key(w) for w in where))):
                out.append((".".join(where), node))
        elif isinstance(node, dict):
            if str(node.get("role", "")).lower() in SYSTEM_ROLES:
                continue  # a system prompt in a model call's input: omitted, as Letta's normalizer does
            inside = media or str(node.get("type", "")).lower() in MEDIA_WORDS
            items = [(k, v) for k, v in node.items() if k != skip_key and str(k).lower() not in NOISE_KEYS]
            stack.extend(((*where, str(key)), item, inside) for key, item in reversed(items))  # in order
        elif isinstance(node, list):
            stack.extend(((*where, "[]"), item, media) for item in reversed(node))
    return out


def _windows(text: str) -> list[str]:
    squashed = _squash(text)
    if len(squashed) <= WINDOW:
        return [squashed]
    middle = len(squashed) // 2
    return [squashed[:WINDOW], squashed[middle:middle + WINDOW], squashed[-WINDOW:]]


def _output_text(records: list[dict]) -> str:
    parts: list[str] = []
    for record in records:
        if isinstance(record.get("content"), str):
            parts.append(record["content"])
        for call in record.get("tool_calls") or ():
            parts.append(call["name"])
            try:
                parts.extend(text for _, text in prose_fields(json.loads(call["args"])))
                parts.append(call["args"])
            except ValueError:
                parts.append(call["args"])
    return _squash("\n".join(parts))


_WORD = re.compile(r"[^\s\"'`,;()\[\]{}]+")


def call_words(record: Any) -> set[str]:
    """The words of the tool calls a record lists: each call's name and its arguments' values."""
    out: set[str] = set()
    stack = [record]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            shapes = [call_shape(item) for item in node]
            if node and all(s is not None for s in shapes):
                for item, (_, name, args) in zip(node, shapes, strict=True):
                    out.add(str(get(item, name)).lower())
                    value = args_value(get(item, args)) if args else None
                    values = value.values() if isinstance(value, dict) else [value]
                    out.update(w.lower() for v in values if v is not None for w in _WORD.findall(str(v)))
            else:
                stack.extend(node)
    return out


def restates_calls(text: str, words_of_calls: set[str]) -> bool:
    """A text that is only the record's own calls written as a command line (SWE-agent's `action`
    ``find_file missing_colon.py`` beside the call ``find_file {"file_name": "missing_colon.py"}``):
    every word of it is a call's name or argument, and it names a call. The calls carry it."""
    found = [w.lower() for w in _WORD.findall(text)]
    return bool(found) and found[0] in words_of_calls and all(w in words_of_calls for w in found)


def unwritten_turns(documents: Any, corpus: str) -> list[Loss]:
    """Items of a list beside the records that retell the conversation (most of its items' text
    is in the output) but of which some are written nowhere: turns the records do not hold
    (SWE-agent's `trajectory` ends with the `submit` step its `history` lacks)."""
    missing: Counter = Counter()
    example: dict[str, str] = {}
    for where, document in documents:
        for path, items in _object_lists(document):
            texts = [[t for _, t in prose_fields(item)] for item in items]
            told = [any(any(w in corpus for w in _windows(t)) for t in ts) for ts in texts if ts]
            if len(told) < 2 or sum(told) < 0.5 * len(told):
                continue
            unwritten = len(told) - sum(told)  # items with text, none of it in the output
            if unwritten:
                missing[path] += unwritten
                example.setdefault(path, _file_of(where))
    return [Loss("beside the records", f"{n} item(s) of `{path}` retell turns no record writes", n, example[path])
            for path, n in missing.items()]


def _file_of(where: str) -> str:
    """``a.jsonl:3`` / ``a.json (record 2)`` -> the file."""
    return re.split(r":\d+$| \(record ", where)[0]


def _object_lists(document: dict, depth: int = 3) -> list[tuple[str, list]]:
    """(dotted path, list) of the lists of objects in a document, ``depth`` keys deep."""
    out: list[tuple[str, list]] = []
    stack = [((), document)]
    while stack:
        path, node = stack.pop()
        for key, value in node.items():
            here = (*path, str(key))
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                out.append((".".join(here), value))
            elif isinstance(value, dict) and len(here) < depth:
                stack.append((here, value))
    return out


def _call_items(record: Any) -> list[str | None]:
    """The ids of the tool-call items in the record's lists of objects (any depth); None for an item
    without one. A list of results answering calls (AutoGen's execution results) is call-shaped too:
    counted by id, a call and its result are one call."""
    found: list[str | None] = []
    stack = [record]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(v for k, v in node.items() if str(k).lower() not in NOISE_KEYS and not is_media_key(k))
        elif isinstance(node, list):
            shapes = [call_shape(item) for item in node]
            if node and all(s is not None for s in shapes):
                for item, shape in zip(node, shapes, strict=True):
                    value = get(item, shape[0]) if shape[0] else None
                    found.append(str(value) if isinstance(value, (str, int)) else None)
            else:
                stack.extend(item for item in node if isinstance(item, (dict, list)))
    return found


def _raw_records(mapping: dict, inputs: Path):
    from cleaner_runtime import readers
    from cleaner_runtime.trees import flatten_children as flatten

    settings = mapping["input"]
    records_path = compile_path(settings["records_path"]) if settings.get("records_path") else None
    children = compile_paths(settings.get("children"))
    for item in readers.discover(str(inputs), settings["include"]):
        try:
            for entry in readers.read_records(item, settings["container"], records_path, None,
                                              settings.get("document_key"), shaping=Shaping.from_input(settings)):
                if isinstance(entry, readers.BadLine):
                    continue
                where, record = entry
                for one in flatten_children(record, children, flatten):
                    yield str(where).replace(str(inputs) + "/", ""), one
        except readers.InputError:
            continue


def flatten_children(record: dict, children: tuple, flatten) -> list[dict]:
    return flatten(record, children) if children else [record]


def find_losses(mapping: dict, inputs: Path, outputs: Path, summary: str = "") -> list[Loss]:
    from generator.render import complete

    mapping = complete(mapping)
    from cleaner_runtime.convert import Converter

    converter = Converter(mapping)
    written = [json.loads(line) for path in sorted(outputs.rglob("*.jsonl"))
               for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    corpus = _output_text(written)
    calls_written = sum(len(r.get("tool_calls") or ()) for r in written)
    lost: dict[tuple[str, str], list] = {}
    raw_ids: set[str] = set()
    raw_calls = 0
    document_key = mapping["input"].get("document_key")
    documents: dict[tuple, tuple[str, dict]] = {}
    for where, record in _raw_records(mapping, inputs):
        if document_key and isinstance(record.get(document_key), dict):
            document = record[document_key]  # one per file and document: its scalar fields tell documents apart
            scalars = tuple((k, v) for k, v in document.items() if isinstance(v, (str, int, float, bool)))[:8]
            documents.setdefault((_file_of(where), scalars), (where, document))
        kind = converter.classify(record)
        if kind is None or kind.role in ("skip", "meta"):
            continue
        for call_id in _call_items({k: v for k, v in record.items() if k != document_key}):
            if call_id is None or call_id not in raw_ids:
                raw_calls += 1
                if call_id is not None:
                    raw_ids.add(call_id)
        said = call_words(record)
        for field, text in prose_fields(record, skip_key=document_key):
            if converter.is_harness_noise(kind.role, text):
                continue  # the harness's text, dropped and counted by the rule the mapping states
            if not any(window in corpus for window in _windows(text)) and not restates_calls(text, said):
                entry = lost.setdefault((kind.name, field), [0, where])
                entry[0] += 1
    losses = [Loss(kind, f"the text in `{field}` reaches no output record", n, where)
              for (kind, field), (n, where) in lost.items()]
    losses.extend(unwritten_turns(documents.values(), corpus))
    if raw_calls > calls_written:
        losses.append(Loss("tool calls", f"{raw_calls} tool calls in kept records, {calls_written} written",
                           raw_calls - calls_written, "the samples"))
    skips: Counter = Counter()
    for line in summary.splitlines():
        match = re.match(r"\s+(\d+) x (.+?)(?: \(first at (.+)\))?$", line)
        if match and any(reason in match.group(2) for reason in LOSING_SKIPS):
            skips[(match.group(2), match.group(3) or "")] += int(match.group(1))
    losses.extend(Loss("records", reason, n, where.replace(str(inputs) + "/", "") or "the samples")
                  for (reason, where), n in skips.items())
    return losses
