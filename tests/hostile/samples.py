"""Inputs several hostile tests share: a valid trajectory file and a minimal answers file."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MINIMAL = (REPO / "tests" / "validation" / "corpus" / "valid" / "minimal.jsonl").read_bytes()
ANSWERS = """mapping_version: 1
source: demo
kinds:
  - {name: user, match: {role: user}, role: user, content: text}
  - {name: assistant, match: {role: assistant}, role: assistant, content: text}
"""
