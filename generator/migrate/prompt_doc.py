"""MIGRATION_PROMPT.md: what a coding agent needs to finish a migration the mapping cannot.

Some old cleaners did things no mapping expresses; rather than ask, ``migrate script`` writes
down the schema, the hard constraints (from the same prompt ``trajectory-cleaner prompt``
renders), the old script itself (redacted), the mapping table and what is still open.
"""

from __future__ import annotations

import re
from pathlib import Path

from generator.migrate.learning import Learned
from generator.migrate.report_doc import mapping_table
from generator.migrate.script_reading import ScriptFacts
from generator.migrate.script_report import ScriptReport
from generator.paths import runtime_module

INTRO = ("Lerim no longer reads the pre-trajectory shape `{\"type\", \"message\": {\"role\", \"content\"}, "
         "\"timestamp\"}` that the old script below writes. trajectory-cleaner has rendered a new cleaner in this "
         "folder (`clean_to_trajectory_jsonl.py`, generated from `.copier-answers.yml`) and compared it with the "
         "old script in `MIGRATION_REPORT.md`. Your job: close the gaps listed there and below, without losing "
         "anything the old script kept.")


def render_migration_prompt(report: ScriptReport, schema: tuple[str, str] | None = None) -> str:
    """MIGRATION_PROMPT.md: what a coding agent needs to finish the migration."""
    from generator.prompt import render_prompt, resolved_schema

    facts, learned = report.facts, report.learned
    schema_path, origin = schema or resolved_schema()
    mapping = learned.mapping if learned else {"source": "custom-agent"}
    agent_prompt = render_prompt(source=mapping["source"], source_profile=mapping.get("source_profile", "generic"),
                                 mapping=mapping, schema=(schema_path, origin))
    constraints = _section(agent_prompt, "Hard constraints")
    out = [f"# Finish migrating `{Path(facts.path).name}` to a trajectory-v1 cleaner", "", INTRO, "",
           "## The schema", "",
           (f"The trajectory-v1 schema on this machine is `{schema_path}` ({origin}). Read it first; it is the "
            "contract. It describes a whole file as an array: load every line into a list and validate the list."), "",
           "## The new hard constraints", "", constraints, ""]
    out += _old_script(facts)
    if learned is not None:
        out += _mapping(learned)
    out += _how_to_work(mapping["source"])
    return "\n".join(out)


def _section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    return match.group(1).strip() if match else ""


def _old_script(facts: ScriptFacts) -> list[str]:
    """Where it wrote the old shape, and its code (redacted), fenced whatever backticks it holds."""
    code = runtime_module("redaction").Redactor().redact(facts.text)
    fence = "```"
    while fence in code:
        fence += "`"
    out = ["## What the old script did", ""]
    out += [f"- `{facts.path}:{s.line}`: {s.what}" for s in facts.sites + facts.message_sites] or [
        "- no old-shape record was found in the code"]
    if facts.patterns:
        out.append("- it redacts with its own patterns, now `privacy.extra_patterns`: "
                   + ", ".join(f"`{c}`" for c in facts.patterns))
    out += ["", f"{fence}python", code.rstrip("\n"), fence, ""]
    return out


def _mapping(learned: Learned) -> list[str]:
    out = ["## The mapping table", ""] + mapping_table(learned.rules)
    out += ["", "## Still open", ""]
    out += [f"- {q}" for q in learned.questions] or ["- nothing"]
    out.append("")
    return out


def _how_to_work(source: str) -> list[str]:
    return ["## How to work", "",
            ("- Keep reasoning and tool calls the old shape flattened away: they are what the new cleaner should now "
             "write (`reasoning`, `assistant` + `tool_calls`, `tool`)."),
            ("- Change the mapping in `.copier-answers.yml` and run `trajectory-cleaner update .`; put logic a "
             "mapping cannot express in `cleaner_hooks.py` (never edit `clean_to_trajectory_jsonl.py`)."),
            ("- Keep `python -m pytest` passing, and every user and assistant message of the old output present, "
             "in order (`MIGRATION_REPORT.md`)."),
            "- Check the output with `trajectory-cleaner validate <output folder>`.",
            ("- Convert folders the old script already wrote with `trajectory-cleaner migrate traces OLD -o NEW "
             f"--source {source}`."), ""]
