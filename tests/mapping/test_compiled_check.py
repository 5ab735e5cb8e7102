"""The mapping schema compiled into one Python check gives jsonschema's verdict on every mapping the
repository holds, completed or not, on broken variants of them (cleaner_runtime.mapping_check._mapping_checks),
and on hostile mappings hypothesis makes of them: the check a cleaner runs at every start needs jsonschema
(~110 ms to import) only to explain a mapping that fails."""

from __future__ import annotations

import copy
import datetime
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cleaner_runtime.mapping import MappingError, with_defaults
from cleaner_runtime.mapping_check import _mapping_checks, check_mapping, mapping_schema

REPO = Path(__file__).resolve().parents[2]
MAPPINGS = sorted([*REPO.glob("tests/fixtures/*/*/mapping.yml"), *REPO.glob("examples/answers/*.yml")])


def variants(mapping: dict) -> list:
    """The mapping, completed, and broken in ways an author breaks one."""
    out = [mapping, with_defaults(mapping)]
    for change in (lambda m: m["kinds"].append({"role": "user", "contents": "text"}),
                   lambda m: m.update(source=3),
                   lambda m: m.setdefault("privacy", {}).update(redact="yes"),
                   lambda m: m["kinds"][0].update(role="speaker"),
                   lambda m: m.update(kinds=[]),
                   lambda m: m.setdefault("input", {}).update(container="xml"),
                   lambda m: m.pop("source")):
        broken = copy.deepcopy(mapping)
        change(broken)
        out.append(broken)
    return out


@pytest.mark.parametrize("path", MAPPINGS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.stem}")
def test_the_compiled_check_agrees_with_jsonschema(path: Path):
    validator, valid = _mapping_checks()
    assert valid is not None  # the compiler takes the mapping schema
    mapping = yaml.safe_load(path.read_text(encoding="utf-8"))
    verdicts = [(valid(m), validator.is_valid(m)) for m in variants(mapping)]
    assert all(a == b for a, b in verdicts), verdicts
    assert verdicts[0] == (True, True) and not any(b for _, b in verdicts[2:])


# -- hostile mappings: the fixtures with values swapped, keys added or dropped anywhere -----------------

def _schema_words(node, out: set) -> set:
    """Every string of the mapping schema (keys, enum values, consts): the values a mutation must try."""
    if isinstance(node, dict):
        for key, value in node.items():
            out.add(key)
            _schema_words(value, out)
    elif isinstance(node, list):
        for value in node:
            _schema_words(value, out)
    elif isinstance(node, str) and len(node) < 40:
        out.add(node)
    return out


_WORDS = sorted(_schema_words(mapping_schema(), set()))
_FIXTURES = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in MAPPINGS]
_scalars = (st.none() | st.booleans() | st.sampled_from([0, 1, -1, 1.0, 0.5, 2**70, "", " ", "x" * 300])
            | st.integers(-5, 5) | st.floats(allow_nan=False) | st.sampled_from(_WORDS)
            | st.sampled_from(_WORDS).map(lambda w: w + " ") | st.sampled_from(_WORDS).map(str.upper)
            | st.text(max_size=5) | st.just(datetime.date(2026, 5, 16)) | st.just(b"raw"))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.sampled_from(_WORDS) | st.text(max_size=3), inner, max_size=3),
                       max_leaves=8)


def _nodes(value, path=()) -> list:
    """The paths of every value inside ``value``, itself first."""
    out = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            out.extend(_nodes(child, (*path, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out.extend(_nodes(child, (*path, index)))
    return out


def _mutate(mapping: dict, picks: list) -> dict:
    """Replace, drop or add at the chosen places (``picks``: (place, operation, key, value))."""
    mapping = copy.deepcopy(mapping)
    for place, operation, key, value in picks:
        paths = _nodes(mapping)
        path = paths[place % len(paths)]
        parent = mapping
        for step in path[:-1]:
            parent = parent[step]
        node = parent[path[-1]] if path else mapping
        if operation == "add" and isinstance(node, dict):
            node[key] = value
        elif operation == "add" and isinstance(node, list):
            node.append(value)
        elif operation == "drop" and path:
            del parent[path[-1]]
        elif path:
            parent[path[-1]] = value
    return mapping


_hostile = st.builds(_mutate, st.sampled_from(_FIXTURES) | st.sampled_from(_FIXTURES).map(with_defaults),
                     st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(["set", "add", "drop"]),
                                        st.sampled_from(_WORDS) | st.text(max_size=4), _values),
                              min_size=1, max_size=4))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_hostile)
def test_the_compiled_check_agrees_with_jsonschema_on_hostile_mappings(mapping):
    """jsonschema's own validator (not the one ``_mapping_checks`` makes on first use) decides."""
    _, valid = _mapping_checks()
    assert valid(mapping) == jsonschema.Draft202012Validator(mapping_schema()).is_valid(mapping)


@settings(max_examples=100, deadline=None)
@given(_values)
def test_the_compiled_check_agrees_with_jsonschema_on_any_document(document):
    _, valid = _mapping_checks()
    assert valid(document) == jsonschema.Draft202012Validator(mapping_schema()).is_valid(document)


def test_a_hostile_mapping_is_explained_as_before():
    """The validator made on first use is jsonschema's: a failing mapping gets its message."""
    broken = copy.deepcopy(_FIXTURES[0])
    broken["kinds"][0]["contents"] = "text"
    with pytest.raises(MappingError, match=r"^m: kinds\[0\]: unknown key 'contents'"):
        check_mapping(broken, "m")
