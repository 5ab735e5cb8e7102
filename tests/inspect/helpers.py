"""Shared helpers for the inspect/infer tests: fixture cases, cached inference, rendering checks."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path

import yaml

from generator.infer import Inference, infer_profile
from generator.inspect import Profile, profile_paths
from generator.render import render_new

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
SHARED = REPO / ".." / "shared"
REFERENCE = SHARED / "reference"
NOT_SAMPLES = {"decisions.yml", "answers.yml"}


def cases() -> list[Path]:
    return sorted(p.parent for p in FIXTURES.glob("*/*/decisions.yml"))


def case_id(case: Path) -> str:
    return f"{case.parent.name}/{case.name}"


def spec(case: Path) -> dict:
    return yaml.safe_load((case / "decisions.yml").read_text(encoding="utf-8"))


def answers(case: Path) -> dict:
    path = case / "answers.yml"
    return yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}


def samples(case: Path) -> list[Path]:
    return sorted(p for p in case.rglob("*") if p.is_file() and p.name not in NOT_SAMPLES
                  and "expected" not in p.relative_to(case).parts)


@cache
def profile_of(paths: tuple[str, ...]) -> Profile:
    return profile_paths(list(paths))


def inference(paths: list[Path] | list[str], answers: dict | None = None) -> Inference:
    return infer_profile(profile_of(tuple(str(p) for p in paths)), answers=answers)


def decision(inf: Inference, key: str):
    found = [d for d in inf.decisions if d.key == key]
    return found[-1] if found else None


def render_and_read(mapping: dict, sample_paths: list[Path], dest: Path) -> tuple[int, str, list[list[dict]]]:
    """Render a project with the mapping; the cleaner's exit, its output, and every written session."""
    rendered = render_new(mapping, sample_paths, dest)
    outputs = []
    for path in sorted((dest / "tests" / "expected").rglob("*.jsonl")):
        outputs.append([json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()])
    return rendered.cleaner_exit, rendered.cleaner_output, outputs


def validation_problems(dest: Path) -> list[str]:
    """Errors the runtime validator finds in the rendered project's outputs (warnings ignored)."""
    from cleaner_runtime import validate

    schema_path, _ = validate.find_schema(str(dest / "cleaner_runtime" / "trajectory-v1.schema.json"))
    validator = validate.TrajectoryValidator(validate.load_schema(schema_path))
    problems = []
    for path in sorted((dest / "tests" / "expected").rglob("*.jsonl")):
        for p in validate.check_file(path, validator):
            if p.severity == "error":
                problems.append(f"{path.name}:{p.line}: {p.rule}: {p.message}")
    return problems


def role_counts(sessions: list[list[dict]]) -> dict:
    counts: Counter = Counter()
    for records in sessions:
        for record in records:
            role = record["role"]
            if role == "assistant" and record.get("tool_calls"):
                counts["tool_calls"] += len(record["tool_calls"])
            elif role != "meta":
                counts[role] += 1
    return {"sessions": len(sessions), **{k: counts[k] for k in ("user", "assistant", "reasoning", "tool_calls",
                                                                  "tool")}}
