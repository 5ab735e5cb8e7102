"""Shared helpers for the rendering tests: the repo, ../shared when present, and a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "reference"
ANSWERS = REPO / "examples" / "answers"


def needs_shared() -> None:
    if not SHARED.is_dir():
        pytest.skip("../shared/reference is not present")


def cli(*args: str, cwd: Path | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    """Run `python -m generator ...` as a user would run `trajectory-cleaner ...`."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout, check=False)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def build_session(mapping: dict, records: list[dict]) -> list[dict]:
    """One session built directly by cleaner_runtime (no rendering): meta first."""
    from cleaner_runtime import convert, readers
    from generator.render import complete

    # the converter alone: a session without a user or an assistant record is still built (the
    # policy that skips it is the run's, tested with the cleaner)
    full = complete({"mapping_version": 1, "source": "t",
                     "sessions": {"without_user": "keep", "without_assistant": "keep"}, **mapping})
    converter = convert.Converter(full, convert.Privacy(full["privacy"]))
    session = converter.session("s")
    for n, record in enumerate(records, 1):
        session.add(readers.Where("f.jsonl", n), record)
    return session.finish()
