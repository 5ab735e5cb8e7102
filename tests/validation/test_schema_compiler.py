"""The schema compiler's own pieces; its verdicts against jsonschema are in test_validate_equivalence.py."""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


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


# -- the generated straight-line checks (schema_compiler._Compiler._generate) ----------------------

_DEEP: dict = {"type": "integer"}
for _ in range(12):  # deeper than one generated function writes out
    _DEEP = {"type": "object", "properties": {"a": _DEEP}}

#: Schemas whose root is generated, between them using every keyword the generator writes out, with
#: subschemas it writes out and others it calls.
GENERATED_SCHEMAS = [
    {"type": "object", "required": ["a"], "additionalProperties": False,
     "properties": {"a": {"type": "integer"}, "b": {"type": ["number", "null"]}, "c": {"type": "boolean"}}},
    {"properties": {"a": {"const": 1}, "b": {"const": [1, {"x": None}]}, "c": {"const": None}, "d": {"const": "s"}},
     "additionalProperties": {"type": "boolean"}},
    {"minProperties": 1, "maxProperties": 2,
     "additionalProperties": {"type": "array", "items": {"enum": ["a", ""]}, "minItems": 1, "maxItems": 2}},
    {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^[a-z]"}},
    {"minLength": 2, "pattern": "x", "minItems": 1, "items": {"type": "object"}},
    {"allOf": [{"required": ["a"]}, {"properties": {"a": {"type": "string"}}}],
     "if": {"required": ["b"]}, "then": {"properties": {"a": {"minLength": 2}}}, "else": {"maxProperties": 1}},
    {"if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]}},
    {"if": {"type": "string"}, "else": {"type": "object", "properties": {"a": False, "b": True}}},
    {"$defs": {"s": {"type": "string"}, "n": {"type": "number", "minimum": 0}},
     "type": "object", "properties": {"a": {"$ref": "#/$defs/s"}, "b": {"$ref": "#/$defs/n"},
                                      "c": {"oneOf": [{"type": "string"}, {"minLength": 2}]}, "d": {"enum": [1, "1"]}}},
    {"type": ["object", "array"], "properties": {"a": {"type": "integer"}}, "items": {"type": "null"}},
    {"enum": ["a", "b"], "const": "a"},
    {"type": "object", "required": ["a", "e"], "properties": {"a": {}, "b": {}}, "additionalProperties": False},
    {"type": "object", "required": ["a", "b"], "properties": {"a": {}, "b": {}}, "additionalProperties": False},
    {"type": "object", "if": {"required": ["a", "b"]}, "then": {"required": ["c"]},
     "else": {"properties": {"a": {"type": "string"}}, "additionalProperties": False}},
    _DEEP,
]

_keys = st.sampled_from(["a", "b", "c", "d", "e"])
_values = st.recursive(
    st.none() | st.booleans() | st.sampled_from([0, 1, -1, 1.0, 2.5, "", "a", "s", "ab", "xyz", "abcd", "1", "Ab"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_keys, children, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize("few_keys", [8, 0])  # 0: keys tested as a keys view, not key by key
@pytest.mark.parametrize("index", range(len(GENERATED_SCHEMAS)))
def test_generated_checks_give_jsonschemas_verdicts(compiler, monkeypatch, index, few_keys):
    monkeypatch.setattr(compiler, "_FEW_KEYS", few_keys)
    schema = GENERATED_SCHEMAS[index]
    jsv = jsonschema.Draft202012Validator(schema)
    check = compiler.compile_document(schema, jsv)
    assert hasattr(check, "source"), "the root is meant to be generated"

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(_values)
    def same(value):
        assert check(value) == jsv.is_valid(value), check.source

    same()


def test_checks_that_may_raise_are_not_generated(compiler):
    """A node that calls a jsonschema fallback or refers to itself keeps the closures, which check in
    jsonschema's order: generated code checks in another, which only the verdict may not notice."""
    recursive = {"type": "object", "properties": {"a": {"$ref": "#"}, "b": {"type": "string"}}}
    fallback = {"type": "object", "properties": {"a": {"uniqueItems": True}, "b": {"type": "string"}}}
    for schema in (recursive, fallback):
        check = compiler.compile_document(schema, jsonschema.Draft202012Validator(schema))
        assert not hasattr(check, "source")


def test_pattern_remembers_only_the_last_exact_string_that_matched(compiler):
    class Liar(str):
        def __eq__(self, other):
            return True

        def __ne__(self, other):
            return False

        __hash__ = str.__hash__

    schema = {"type": "object", "properties": {"t": {"type": "string", "pattern": "^[a-z]+$"}}}
    check = compiler.compile_document(schema, jsonschema.Draft202012Validator(schema))
    verdicts = [check({"t": t}) for t in ("ab", "ab", "Ab", "ab", Liar("AB"), "ab", Liar("ab"), "A1", "A1")]
    assert verdicts == [True, True, False, True, False, True, True, False, False]
