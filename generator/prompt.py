"""Render the coding-agent prompt from prompts/, standalone or embedded in a rendered project."""

from __future__ import annotations

from typing import Any

import jinja2

from generator.answers import dump_mapping
from generator.paths import prompts_dir, runtime_module


def resolved_schema() -> tuple[str, str]:
    """The schema file a cleaner on this machine would use, and where it was found."""
    validate = runtime_module("validate")
    path, origin = validate.find_schema(None)
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


def redacted_samples(paths: list[str], n: int = 4, limit: int = 300) -> list[str]:
    """A few raw records, each shortened and passed through the runtime's secret redaction."""
    import json

    from generator.inspect import sample_records

    redactor = runtime_module("redact").Redactor()
    out = []
    for record in sample_records(list(paths), n):
        text = redactor.redact(json.dumps(record, ensure_ascii=False))
        out.append(text if len(text) <= limit else text[: limit - 1] + "…")
    return out


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
        samples=redacted_samples(paths) if include_samples else [],
        embedded=embedded,
    )
