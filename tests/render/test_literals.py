"""User values reach generated Python only as literals that round-trip exactly."""

from __future__ import annotations

import ast
import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.jinja_ext import json_block, md_code, py_block, py_literal

HOSTILE = ["it's", 'q"t', "back\\slash", "trailing\\", "nl\nx", "crlf\r\n", "{{ 7*7 }}", "{% raw %}", "'''", '"""',
           "\x00", "tab\t", "中文", "😀 é", "\u2028", "</script>", "\\N{BULLET}", "x" * 300, "import os", "__class__"]

scalars = st.one_of(st.text(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none())
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(), inner, max_size=4)), max_leaves=20)


@pytest.mark.parametrize("value", HOSTILE + [{v: v for v in HOSTILE}, [HOSTILE, {"n": None, "t": True, "f": 1.5}]])
def test_hostile_values_round_trip(value):
    for render in (py_literal, py_block):
        text = render(value)
        assert ast.literal_eval(text) == value
        namespace: dict = {}
        exec(compile(f"X = {text}\n", "<rendered>", "exec"), namespace)  # noqa: S102 - the point of the test
        assert namespace["X"] == value


@settings(max_examples=300, deadline=None)
@given(values)
def test_any_json_like_value_round_trips_with_its_key_order(value):
    text = py_block(value, indent=4)
    assert ast.literal_eval(text) == value
    if isinstance(value, dict):
        assert list(ast.literal_eval(text)) == list(value)


def test_long_tables_are_spread_over_lines():
    text = py_block({"kinds": [{"name": "n" * 40, "role": "user", "content": "message.content"}] * 3})
    assert text.count("\n") > 5 and max(len(line) for line in text.splitlines()) <= 100


def test_unsupported_values_are_refused():
    with pytest.raises((ValueError, SyntaxError)):
        py_literal(object())
    with pytest.raises(ValueError):
        py_block({"limit": float("inf")})


@pytest.mark.parametrize("value", ["a`b", "`", "a|b", "line\nbreak", ""])
def test_markdown_code_spans_survive_backticks_and_pipes(value):
    text = md_code(value)
    assert "\n" not in text
    fence = len(text) - len(text.lstrip("`"))
    assert "`" * fence not in text[fence:-fence]


@pytest.mark.parametrize("value", HOSTILE + [{v: v for v in HOSTILE}, [HOSTILE, {"n": None, "t": True, "f": 1.5}],
                                             [1e20, -2.5e-07, 10**30, "x\udc80y", "\x85\u2029\ufeff\x7f"]])
def test_hostile_values_round_trip_as_json_that_yaml_reads_the_same(value):
    text = json_block({"v": value}, spread=True)
    assert json.loads(text) == {"v": value}
    assert yaml.load(text, Loader=yaml.SafeLoader) == {"v": value}  # the pure-Python loader, as update reads it
    text.encode("utf-8")  # a lone surrogate is written as its escape


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), values, max_size=4))
def test_any_json_like_mapping_round_trips_as_json_and_yaml_with_its_key_order(value):
    text = json_block(value, spread=True)
    assert list(json.loads(text)) == list(value)
    assert json.loads(text) == value == yaml.load(text, Loader=yaml.SafeLoader)


def test_the_answers_file_leaves_out_only_what_the_defaults_put_back():
    from cleaner_runtime import mapping
    full = mapping.with_defaults({"mapping_version": 1, "source": "s", "kinds": [{"role": "user", "has": []}],
                                  "timestamps": {"fields": []}, "meta": {"model": ["m"]}})
    pruned = mapping.without_empty_defaults(full)
    assert mapping.with_defaults(pruned) == full
    assert "children" not in pruned["input"] and "cwd" not in pruned["meta"] and "blocks" in pruned
    assert pruned["timestamps"]["fields"] == []  # not the default: kept
    assert pruned["kinds"] == [{"role": "user", "has": []}]  # rules are never pruned
