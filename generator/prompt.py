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
