"""Shared fixtures for the validation tests: the runtime module, the schemas, the corpus."""

from __future__ import annotations

import json

import pytest

from .support import BUNDLED_SCHEMA, CORPUS, load_upstream_schema


@pytest.fixture(scope="session")
def rt():
    """The template's validate.py, loaded the way the validate command loads it."""
    from generator.validate_cmd import load_runtime

    return load_runtime()


@pytest.fixture(scope="session")
def bundled_schema() -> dict:
    return json.loads(BUNDLED_SCHEMA.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def upstream_schema() -> dict:
    return load_upstream_schema()


@pytest.fixture(scope="session")
def bundled_validator(rt, bundled_schema):
    return rt.TrajectoryValidator(bundled_schema)


@pytest.fixture(scope="session")
def expected() -> dict:
    return json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
