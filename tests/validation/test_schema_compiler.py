"""The schema compiler's own pieces; its verdicts against jsonschema are in test_validate_equivalence.py."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def compiler():
    from cleaner_runtime import schema_compiler

    return schema_compiler


def test_equal_follows_json_semantics(compiler):
    assert compiler._equal(1, 1.0)
    assert not compiler._equal(True, 1)
    assert not compiler._equal([False], [0])
    assert compiler._equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not compiler._equal({"a": 1}, {"a": 1, "b": 2})
    assert not compiler._equal("1", 1)


def test_unsupported_schemas_are_refused_not_guessed(compiler):
    """What the compiler cannot take apart with certainty raises Unsupported (the validator then
    applies jsonschema to the whole list)."""
    for schema in (True, {"$schema": "http://json-schema.org/draft-07/schema#", "type": "array"},
                   {"type": "array", "items": {"$dynamicRef": "#x"}}, {"type": "array", "contains": {}}):
        with pytest.raises(compiler.Unsupported):
            compiler.compile_schema(schema, None)
