"""Shared helpers for the migration tests: fixtures, ../shared when present, and the CLI in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.cli import main

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "reference"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SCRIPTS = FIXTURES / "scripts"


def needs_shared() -> None:
    if not (SHARED / "old-shape").is_dir():
        pytest.skip("../shared/reference/old-shape is not present")


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    """`trajectory-cleaner ARGS` in this process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
