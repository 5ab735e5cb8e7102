"""Render the coding-agent prompt from prompts/, standalone or embedded in a rendered project."""

from __future__ import annotations

from typing import Any

import jinja2

from cleaner_runtime.shapes import Shaping
from generator.answers import dump_mapping
from generator.paths import prompts_dir


def resolved_schema() -> tuple[str, str]:
    """The schema file a cleaner on this machine would use, and where it was found."""
    from cleaner_runtime.validate import find_schema

    path, origin = find_schema(None)
    return str(path), origin


def render_prompt(
    *,
    source: str,
    source_profile: str = "generic",
    mapping: dict | None = None,
    inspection: str | None = None,
    questions: list[str] | None = None,
    samples: list[str] | None = None,
    embedded: bool = False,
    schema: tuple[str, str] | None = None,
) -> str:
    schema_path, schema_origin = schema or resolved_schema()
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(prompts_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    context: dict[str, Any] = {
        "source": source,
        "source_profile": source_profile,
        "schema_path": schema_path,
        "schema_origin": schema_origin,
        "mapping": mapping,
        "mapping_yaml": dump_mapping(mapping) if mapping else "",
        "inspection": inspection,
        "questions": questions or [],
        "samples": samples or [],
        "embedded": embedded,
    }
    return env.get_template("agent_prompt.md.jinja").render(**context)


def structure_summary(inference) -> str:
    """The privacy-safe part of the inspection report: structure, counts, decisions."""
    from generator.inspect import report_text

    return report_text(inference.profile, show_values=False).rstrip()


SAMPLE_STRING = 120  # characters of one string value shown in a sample
SAMPLE_KEYS = 12  # keys of one object shown
SAMPLE_ITEMS = 3  # items of one list shown
SAMPLE_DEPTH = 4  # nesting shown
SAMPLE_RECORDS_PER_FILE = 2000  # records read from one file while looking for kinds


def redacted_samples(paths: list[str], n: int = 4, limit: int = 400, mapping: dict | None = None) -> list[str]:
    """A few raw records, one of each kind first, for the prompt: read the way the cleaner reads them
    (the mapping's container and record path: JSONL, a JSON array, a document's record list, one
    list per element of an array of conversations, CSV), each redacted whole (so that a key still
    names its value, ``"password": ...``) and then shortened value by value (long strings, lists and
    objects cut with a marker), so that every sample shows values, not just a document's head."""
    import json

    records = _records_as_read(paths, mapping, n) if mapping else []
    if not records:
        from generator.inspect import sample_records

        records = sample_records(list(paths), n)
    from cleaner_runtime.redaction import Redactor

    redactor = Redactor()
    out = []
    for record in records[:n]:
        text = redactor.redact(json.dumps(record, ensure_ascii=False))
        try:
            text = json.dumps(_shorten(json.loads(text)), ensure_ascii=False)
        except ValueError:
            pass
        out.append(text if len(text) <= limit else text[: limit - 1] + "…")
    return out


def _shorten(value, depth: int = 0):
    if isinstance(value, str):
        return value if len(value) <= SAMPLE_STRING else value[: SAMPLE_STRING - 1] + "…"
    if isinstance(value, (list, dict)) and depth >= SAMPLE_DEPTH:
        return "[…]" if isinstance(value, list) else "{…}"
    if isinstance(value, list):
        items = [_shorten(item, depth + 1) for item in value[:SAMPLE_ITEMS]]
        if len(value) > SAMPLE_ITEMS:
            items.append(f"… {len(value) - SAMPLE_ITEMS} more")
        return items
    if isinstance(value, dict):
        out = {}
        for i, (key, item) in enumerate(value.items()):
            if i == SAMPLE_KEYS:
                out["…"] = f"{len(value) - SAMPLE_KEYS} more keys"
                break
            out[key] = _shorten(item, depth + 1)
        return out
    return value


def _records_as_read(paths: list[str], mapping: dict, n: int) -> list[dict]:
    """Up to ``n`` raw records as the rendered cleaner would read them with ``mapping``, one of each
    kind it tells apart first; [] when the mapping cannot read the samples."""
    from cleaner_runtime import mapping as maps
    from cleaner_runtime import readers
    from cleaner_runtime.convert import Converter
    from cleaner_runtime.trees import flatten_children as flatten

    try:
        full = maps.with_defaults(mapping)
        settings = full["input"]
        records_path = maps.compile_path(settings["records_path"]) if settings.get("records_path") else None
        children = maps.compile_paths(settings.get("children"))
        files = []
        for given in paths:
            files += readers.discover(given, settings["include"])
    except Exception:  # noqa: BLE001 - a mapping that cannot read the samples: fall back
        return []
    try:
        converter = Converter(full)
    except Exception:  # noqa: BLE001 - samples without kinds still help
        converter = None
    document_key = settings.get("document_key")
    limits = readers.Limits(line_bytes=16 << 20, document_bytes=16 << 20)  # prompt stays quick: larger documents fall back
    first: dict = {}  # kind -> its first record
    rest: list[dict] = []
    for item in files[:50]:
        try:
            read = 0
            for entry in readers.read_records(item, settings["container"], records_path, limits, document_key,
                                              shaping=Shaping.from_input(settings)):
                if isinstance(entry, readers.BadLine):
                    continue
                for record in flatten(entry[1], children) if children else (entry[1],):
                    if document_key and document_key in record:
                        record = {key: value for key, value in record.items() if key != document_key}
                    kind = converter.classify(record) if converter is not None else None
                    key = kind.name if kind is not None else None
                    if key not in first:
                        first[key] = record
                    elif len(rest) < n:
                        rest.append(record)
                read += 1
                if read >= SAMPLE_RECORDS_PER_FILE or (len(first) >= n and len(rest) >= n):
                    break
        except Exception:  # noqa: BLE001, S112 - an unreadable file gives no samples; the others still do
            continue
        if len(first) >= n and len(rest) >= n:
            break
    return (list(first.values()) + rest)[:n]


def question_lines(inference) -> list[str]:
    return [f"{q.key}: best guess {q.value!r} ({q.confidence:.2f}; {q.evidence}); alternatives: {q.candidates[1:]!r}"
            for q in inference.questions]


def prompt_from_inference(inference, paths, *, source_profile: str | None = None, include_samples: bool = False,
                          embedded: bool = False) -> str:
    mapping = dict(inference.mapping)
    if source_profile:
        mapping["source_profile"] = source_profile
    return render_prompt(
        source=mapping["source"],
        source_profile=mapping.get("source_profile", "generic"),
        mapping=mapping,
        inspection=structure_summary(inference),
        questions=question_lines(inference),
        samples=redacted_samples(paths, mapping=mapping) if include_samples else [],
        embedded=embedded,
    )
