"""The compiled fast path gives exactly whole-list jsonschema's verdicts, for any schema loaded."""

from __future__ import annotations

import copy

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .strategies import mostly_valid_lists, record_lists, records
from .support import load_upstream_schema

SETTINGS = settings(max_examples=700, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
NEAR_SETTINGS = settings(max_examples=400, deadline=None, derandomize=True, database=None,
                         suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
VARIANT_SETTINGS = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def assert_same_verdicts(validator, jsv, records: list) -> None:
    errors = list(jsv.iter_errors(records))
    expected = not errors
    assert validator.is_schema_valid(records) == expected
    if not records:
        return
    problems = validator.check_records(records)
    schema_lines = {p.line for p in problems if p.rule == "schema"}
    assert bool(schema_lines) == (not expected)
    if validator.mode == "compiled":
        assert schema_lines == {e.path[0] + 1 for e in errors if e.path}


@pytest.fixture(scope="module")
def pairs(rt, bundled_schema):
    """(fast validator, jsonschema validator) for the bundled schema and, when present, upstream's."""
    schemas = [bundled_schema]
    try:
        schemas.append(load_upstream_schema())
    except pytest.skip.Exception:
        pass
    return [(rt.TrajectoryValidator(s), jsonschema.Draft202012Validator(s)) for s in schemas]


@pytest.mark.parametrize("name", ["upstream", "bundled"])
def test_fast_path_is_compiled_without_fallbacks(rt, bundled_schema, name):
    schema = load_upstream_schema() if name == "upstream" else bundled_schema
    validator = rt.TrajectoryValidator(schema)
    assert validator.mode == "compiled"
    assert validator.fallback_nodes == 0


def test_random_lists_match_jsonschema(pairs):
    @SETTINGS
    @given(record_lists)
    def check(records):
        for validator, jsv in pairs:
            assert_same_verdicts(validator, jsv, records)

    check()


def test_near_valid_sessions_match_jsonschema(pairs):
    @NEAR_SETTINGS
    @given(mostly_valid_lists())
    def check(records):
        for validator, jsv in pairs:
            assert_same_verdicts(validator, jsv, records)

    check()


# ---- schema variants: extra properties, keywords the compiler does not know, other shapes ----


def _variant(base: dict, name: str) -> dict:
    schema = copy.deepcopy(base)
    defs = schema["$defs"]
    if name == "extra-optional-property":
        defs["meta"]["properties"]["team"] = {"type": "string"}
    elif name == "unknown-keyword-in-branch":
        defs["assistant"]["properties"]["tool_calls"]["uniqueItems"] = True
    elif name == "vendor-keyword":
        defs["tool_call"]["x-letta-note"] = {"anything": [1, 2]}
    elif name == "pattern-properties":
        defs["tool"]["patternProperties"] = {"^x-": {"type": "string"}}
    elif name == "root-contains":
        schema["contains"] = {"type": "object", "required": ["role"], "properties": {"role": {"const": "user"}}}
    elif name == "draft-07":
        schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    elif name == "enum-roles":
        for branch in ("user", "system"):
            defs[branch]["properties"]["role"] = {"enum": [branch]}
    elif name == "any-of":
        defs["record"] = {"anyOf": defs["record"]["oneOf"]}
    elif name == "recursive-args":
        defs["tool_call"]["properties"]["args"] = {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/tool_call"}]}
    elif name == "numbers":
        defs["tool"]["properties"]["ok"] = {"type": "integer", "minimum": 0, "exclusiveMaximum": 2}
    elif name == "no-type-on-branch":
        del defs["user"]["type"]
    elif name == "overlapping-branches":
        defs["record"]["oneOf"].append({"type": "object", "required": ["role"],
                                        "properties": {"role": {"const": "user"}}})
    elif name == "nested-id":
        defs["meta"]["$id"] = "https://example.invalid/meta.json"
    else:  # pragma: no cover
        raise AssertionError(name)
    return schema


VARIANTS = {
    "extra-optional-property": ("compiled", 0),
    "unknown-keyword-in-branch": ("compiled", 1),
    "vendor-keyword": ("compiled", 1),
    "pattern-properties": ("compiled", 1),
    "root-contains": ("whole-list jsonschema", 0),
    "draft-07": ("whole-list jsonschema", 0),
    "enum-roles": ("compiled", 0),
    "any-of": ("compiled", 0),
    "recursive-args": ("compiled", 0),
    "numbers": ("compiled", 0),
    "no-type-on-branch": ("compiled", 0),
    "overlapping-branches": ("compiled", 0),
    "nested-id": ("whole-list jsonschema", 0),
}

variant_records = st.lists(
    records() | st.fixed_dictionaries({"role": st.just("meta"), "source": st.just("a"), "team": st.sampled_from(["x", 1])})
    | st.fixed_dictionaries({"role": st.just("tool"), "tool_call_id": st.just("c"), "content": st.just(""),
                             "timestamp": st.just("2026-05-16T09:00:00Z"),
                             "ok": st.sampled_from([0, 1, 1.0, 2, True, False, -1, 1.5, 0.0])},
                            optional={"x-trace": st.sampled_from(["s", 1])}),
    max_size=5,
) | mostly_valid_lists()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_schema_variant_modes(rt, upstream_schema, variant):
    validator = rt.TrajectoryValidator(_variant(upstream_schema, variant))
    mode, min_fallbacks = VARIANTS[variant]
    assert validator.mode == mode
    assert validator.fallback_nodes >= min_fallbacks
    assert validator.differs_from_bundled is True


def test_schema_variants_match_jsonschema(rt, upstream_schema):
    checks = []
    for variant in sorted(VARIANTS):
        schema = _variant(upstream_schema, variant)
        checks.append((variant, rt.TrajectoryValidator(schema), jsonschema.validators.validator_for(schema)(schema)))

    @VARIANT_SETTINGS
    @given(variant_records)
    def check(records):
        for variant, validator, jsv in checks:
            try:
                assert_same_verdicts(validator, jsv, records)
            except AssertionError as exc:
                raise AssertionError(f"variant {variant}") from exc

    check()


def test_variant_verdicts_really_differ(rt, upstream_schema):
    """The variants are not vacuous: the extra property is accepted only where the schema says so."""
    record = [{"role": "meta", "source": "a", "team": "ops"}]
    assert rt.TrajectoryValidator(upstream_schema).is_schema_valid(record) is False
    assert rt.TrajectoryValidator(_variant(upstream_schema, "extra-optional-property")).is_schema_valid(record)
    twice = [{"role": "assistant", "content": None, "timestamp": "2026-05-16T09:00:00Z",
              "tool_calls": [{"id": "a", "name": "n", "args": "{}"}, {"id": "a", "name": "n", "args": "{}"}]}]
    assert rt.TrajectoryValidator(upstream_schema).is_schema_valid(twice) is True
    assert rt.TrajectoryValidator(_variant(upstream_schema, "unknown-keyword-in-branch")).is_schema_valid(twice) is False
    user = [{"role": "user", "content": "q", "timestamp": "2026-05-16T09:00:00Z"}]
    assert rt.TrajectoryValidator(upstream_schema).is_schema_valid(user) is True
    assert rt.TrajectoryValidator(_variant(upstream_schema, "overlapping-branches")).is_schema_valid(user) is False
    numbers = rt.TrajectoryValidator(_variant(upstream_schema, "numbers"))
    tool = {"role": "tool", "tool_call_id": "c", "content": "", "timestamp": "2026-05-16T09:00:00Z"}
    assert [numbers.is_schema_valid([{**tool, "ok": ok}]) for ok in (0, 1.0, True, 2, -1)] == [
        True, True, False, False, False]


def test_boolean_and_trivial_schemas(rt):
    for schema in ({}, {"type": "array"}, {"items": False}, {"not": {}}):
        validator = rt.TrajectoryValidator(schema)
        jsv = jsonschema.Draft202012Validator(schema)
        for sample in ([], [{}], [1, "x"], [{"role": "meta", "source": "a"}]):
            assert validator.is_schema_valid(sample) == jsv.is_valid(sample), (schema, sample)
