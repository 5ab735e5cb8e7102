"""Paths and helpers shared by the validation tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
UPSTREAM_SCHEMA = SHARED / "reference" / "trajectory-v1.schema.json"
UPSTREAM_FIXTURES = SHARED / "reference" / "upstream-fixtures"
CORPUS = Path(__file__).resolve().parent / "corpus"
RUNTIME_FILE = REPO / "cleaner_runtime" / "validate.py"
BUNDLED_SCHEMA = RUNTIME_FILE.with_name("trajectory-v1.schema.json")

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def load_upstream_schema() -> dict:
    if not UPSTREAM_SCHEMA.is_file():
        pytest.skip("shared/reference/trajectory-v1.schema.json is not beside the repository")
    return json.loads(UPSTREAM_SCHEMA.read_text(encoding="utf-8"))
