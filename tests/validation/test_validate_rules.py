"""Unit tests of the runtime module: timestamps, schema lookup, file reading, robustness."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from .strategies import record_lists, timestamps
from .support import BUNDLED_SCHEMA, REPO, RUNTIME_FILE

TS_OK = [
    "2026-05-16T09:00:00Z",
    "2026-05-16T11:00:00+02:00",
    "2026-05-16T11:00:00+0200",
    "2026-05-16T03:30:00-05:30",
    "2026-05-16T09:00:00.123456789Z",
    "2024-02-29T00:00:00Z",
    "2000-02-29T23:59:59Z",
]
TS_BAD = {
    "2026-02-30T09:00:00Z": "not a real date",
    "2026-02-29T09:00:00Z": "not a real date",
    "1900-02-29T09:00:00Z": "not a real date",
    "2026-04-31T09:00:00Z": "not a real date",
    "2026-13-01T09:00:00Z": "not a real date",
    "2026-00-10T09:00:00Z": "not a real date",
    "2026-05-16T25:00:00Z": "not a real time of day",
    "2026-05-16T24:00:00Z": "not a real time of day",
    "2026-05-16T09:60:00Z": "not a real time of day",
    "2026-05-16T23:59:60Z": "not a real time of day",
    "2026-05-16T09:00:00+24:00": "impossible zone offset",
    "2026-05-16T09:00:00+02:60": "impossible zone offset",
    "2026-05-16T09:00:00Z\n": "ends with a line break",
    "2026-05-16T09:00:00+02:00\n": "ends with a line break",
    " 2026-05-16T09:00:00Z": "surrounding whitespace",
    "\u0662\u0660\u0662\u0666-05-16T09:00:00Z": "non-ASCII digits",
    "2026-05-16T09:00:\uff10\uff10Z": "non-ASCII digits",
    "2026-05-16T09:00:0\u0e51Z": "non-ASCII digits",
    "2026-05-16T09:00:00": "no time zone",
    "2026-05-16 09:00": "no time zone",
    "2026-05-16": "not an ISO-8601",
    "2026-05-16T09:00:00z": "not an ISO-8601",
    "2026-05-16T09:00:00.Z": "not an ISO-8601",
    "May 16 2026": "not an ISO-8601",
    "": "not an ISO-8601",
}


@pytest.mark.parametrize("value", TS_OK)
def test_real_timestamps_pass(rt, value):
    key, why = rt._parse_timestamp(value)
    assert key is not None and why == ""


@pytest.mark.parametrize(("value", "fragment"), sorted(TS_BAD.items()))
def test_bad_timestamps_are_named(rt, value, fragment):
    key, why = rt._parse_timestamp(value)
    assert key is None
    assert fragment in why and "\n" not in why


def test_timestamp_order_compares_instants(rt):
    order = ["2026-05-16T09:00:00.45Z", "2026-05-16T09:00:00.5Z", "2026-05-16T09:00:00.50Z",
             "2026-05-16T11:00:01+02:00", "2026-05-16T09:00:02Z", "2026-05-16T04:00:03-0500"]
    keys = [rt._parse_timestamp(v)[0] for v in order]
    assert keys == sorted(keys)
    assert keys[1] == keys[2]


def session(*middle):
    return [{"role": "meta", "source": "x"}, {"role": "user", "content": "q", "timestamp": "2026-05-16T09:00:00Z"},
            *middle, {"role": "assistant", "content": "a", "timestamp": "2026-05-16T09:09:00Z"}]


def test_check_records_lines_are_index_plus_one(bundled_validator):
    problems = bundled_validator.check_records(session({"role": "tool", "tool_call_id": "zz", "content": "r",
                                                        "timestamp": "2026-05-16T09:01:00Z"}))
    assert [(p.line, p.rule) for p in problems] == [(3, "tool-link")]


def test_check_records_tolerates_anything(bundled_validator):
    odd = [None, 1, "x", [], {}, {"role": None}, {"role": ["user"]}, {"role": "assistant", "tool_calls": "x"},
           {"role": "assistant", "content": None, "tool_calls": [None, 1, {"id": 5, "args": 3}]},
           {"role": "tool", "tool_call_id": 7}]
    problems = bundled_validator.check_records(odd)
    assert problems and all(isinstance(p.message, str) and "\n" not in p.message for p in problems)
    assert bundled_validator.check_records([]) == [
        bundled_validator.check_records([])[0]
    ] and bundled_validator.check_records([])[0].rule == "empty-file"


def test_problem_is_a_frozen_dataclass(rt):
    problem = rt.Problem(3, "schema", "bad")
    assert problem.severity == "error"
    with pytest.raises(dataclasses.FrozenInstanceError):
        problem.line = 4  # type: ignore[misc]


def test_differs_from_bundled_ignores_annotations(rt, bundled_schema):
    schema = json.loads(json.dumps(bundled_schema))
    schema["title"] = "something else"
    schema["$defs"]["user"]["description"] = "changed words"
    schema["$defs"]["tool"]["required"] = list(reversed(schema["$defs"]["tool"]["required"]))
    assert rt.TrajectoryValidator(schema).differs_from_bundled is False
    schema["$defs"]["user"]["properties"]["content"]["minLength"] = 1
    assert rt.TrajectoryValidator(schema).differs_from_bundled is True


# ---- files ----------------------------------------------------------------------------------


def write(tmp_path, data: bytes):
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    return path


def rules_of(rt, validator, path):
    return [(p.line, p.rule) for p in rt.check_file(path, validator)]


def test_compact_lines(rt):
    assert rt._is_compact('{"a":"x y","b":"\\" z \\\\","c":[1,2]}')
    assert not rt._is_compact('{"a":"x" }')
    assert not rt._is_compact('{"a":"\\\\", "b":1}')
    assert not rt._is_compact('{"a":1}\r')
    assert not rt._is_compact(' {"a":1}')


def test_nested_duplicate_keys_and_nan(rt, bundled_validator, tmp_path):
    lines = [json.dumps(r, separators=(",", ":")) for r in session()]
    lines[1] = '{"role":"user","content":"q","timestamp":"2026-05-16T09:00:00Z","x":{"a":1,"a":2}}'
    lines.insert(2, '{"role":"tool","tool_call_id":"c","content":Infinity,"timestamp":"2026-05-16T09:00:00Z"}')
    got = rules_of(rt, bundled_validator, write(tmp_path, ("\n".join(lines) + "\n").encode()))
    assert (2, "duplicate-key") in got and (2, "schema") in got and (3, "json") in got


def test_bom_is_reported_and_the_rest_still_checked(rt, bundled_validator, tmp_path):
    text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in session())
    got = rules_of(rt, bundled_validator, write(tmp_path, b"\xef\xbb\xbf" + text.encode()))
    assert got == [(1, "bom")]


def test_whitespace_only_file_is_empty(rt, bundled_validator, tmp_path):
    got = rules_of(rt, bundled_validator, write(tmp_path, b"\n \n"))
    assert got == [(1, "blank-line"), (2, "json"), (None, "empty-file")]


def test_args_object_details(rt, bundled_validator):
    def call(args):
        return {"role": "assistant", "content": None, "timestamp": "2026-05-16T09:00:00Z",
                "tool_calls": [{"id": "c", "name": "n", "args": args}]}

    for args, fragment in [("NaN", "not valid JSON"), ('{"a":1} x', "not valid JSON"), ("null", "holds a JSON null"),
                           ("3", "holds a JSON number"), (5, "not number"), ({"a": 1}, "nested object")]:
        problems = [p for p in bundled_validator.check_records(session(call(args))) if p.rule == "args-object"]
        assert len(problems) == 1 and fragment in problems[0].message, (args, problems)
    assert not [p for p in bundled_validator.check_records(session(call('{"a":[1,{"b":null}]}')))
                if p.rule == "args-object"]


def test_repeated_call_ids_and_results_name_the_first_line(rt, bundled_validator, tmp_path):
    """The line named is the first call with the id, and the first result that followed its call
    (an early result, before the call, is reported as such and does not count)."""
    ts = "2026-05-16T09:00:00Z"

    def calls(*ids):
        return {"role": "assistant", "content": None, "timestamp": ts,
                "tool_calls": [{"id": i, "name": "n", "args": "{}"} for i in ids]}

    def result(call_id):
        return {"role": "tool", "tool_call_id": call_id, "content": "ok", "timestamp": ts}

    records = [{"role": "meta", "source": "t"}, {"role": "user", "content": "go", "timestamp": ts},
               result("b"), calls("a", "b"), result("a"), result("b"), calls("c", "a"), result("b"),
               result("a"), calls("b")]

    def found(problems):
        """(rule, line, the line it names) of the link and repeat problems."""
        out = set()
        for p in problems:
            if p.rule in ("tool-link", "duplicate-call-id", "duplicate-result"):
                named = [int(word.strip(");")) for word in p.message.split() if word.strip(");").isdigit()]
                out.add((p.rule, p.line, *named))
        return out

    assert found(bundled_validator.check_records(records)) == {
        ("tool-link", 3, 4), ("duplicate-call-id", 7, 4), ("duplicate-result", 8, 6), ("duplicate-result", 9, 5),
        ("duplicate-call-id", 10, 4)}
    # in a file, with a blank line on top, every line moves down by one
    path = tmp_path / "t.jsonl"
    path.write_text("\n" + "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), encoding="utf-8")
    assert found(rt.check_file(path, bundled_validator)) == {
        ("tool-link", 4, 5), ("duplicate-call-id", 8, 5), ("duplicate-result", 9, 7), ("duplicate-result", 10, 6),
        ("duplicate-call-id", 11, 5)}


@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300) | record_lists.map(
    lambda rs: "\n".join(json.dumps(r, ensure_ascii=False) for r in rs).encode("utf-8", "surrogatepass")))
def test_check_file_never_raises(rt, bundled_validator, tmp_path, data):
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    for problem in rt.check_file(path, bundled_validator):
        assert problem.rule in rt.RULES and problem.severity in ("error", "warning")
        assert "\n" not in problem.message


# ---- finding and loading the schema -----------------------------------------------------------


def lerim_schema(data_dir, content: dict) -> None:
    target = data_dir / "node" / "node_modules" / "@letta-ai" / "trajectory" / "schema"
    target.mkdir(parents=True)
    (target / "trajectory-v1.schema.json").write_text(json.dumps(content))


def test_find_schema_explicit(rt, tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text("{}")
    assert rt.find_schema(str(schema), {}) == (schema, "--schema")
    with pytest.raises(rt.SchemaError, match="nope.json: schema file not found"):
        rt.find_schema(str(tmp_path / "nope.json"), {})
    with pytest.raises(rt.SchemaError, match="not a file"):
        rt.find_schema(tmp_path, {})


def test_find_schema_lerim_default_dir(rt, tmp_path, bundled_schema):
    env = {"HOME": str(tmp_path)}
    assert rt.find_schema(None, env) == (rt.BUNDLED_SCHEMA, "bundled copy")
    lerim_schema(tmp_path / ".lerim", bundled_schema)
    path, origin = rt.find_schema(None, env)
    assert path == tmp_path / ".lerim/node/node_modules/@letta-ai/trajectory/schema/trajectory-v1.schema.json"
    assert origin == "Lerim data dir (~/.lerim)"


def test_find_schema_config_data_dir(rt, tmp_path, bundled_schema):
    (tmp_path / ".lerim").mkdir()
    (tmp_path / ".lerim" / "config.toml").write_text('[data]\ndir = "~/elsewhere"\n')
    env = {"HOME": str(tmp_path)}
    assert rt.find_schema(None, env)[1] == "bundled copy"  # configured dir has no normalizer yet
    lerim_schema(tmp_path / "elsewhere", bundled_schema)
    assert rt.find_schema(None, env)[1] == "Lerim data dir (~/elsewhere)"
    other = tmp_path / "other.toml"
    other.write_text(f'[data]\ndir = "{tmp_path / "third"}"\n')
    lerim_schema(tmp_path / "third", bundled_schema)
    assert rt.find_schema(None, {**env, "LERIM_CONFIG": str(other)}) == (
        tmp_path / "third/node/node_modules/@letta-ai/trajectory/schema/trajectory-v1.schema.json",
        f"Lerim data dir ({tmp_path / 'third'})",
    )
    # a LERIM_CONFIG that does not exist falls back to the default data dir
    assert rt.find_schema(None, {**env, "LERIM_CONFIG": str(tmp_path / "none.toml")})[1] == "bundled copy"


def test_find_schema_bad_config(rt, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[data\ndir = 1\n")
    with pytest.raises(rt.SchemaError, match="not valid TOML"):
        rt.find_schema(None, {"HOME": str(tmp_path), "LERIM_CONFIG": str(config)})
    config.write_text("[data]\ndir = 1\n")
    with pytest.raises(rt.SchemaError, match=r"\[data\] dir must be"):
        rt.find_schema(None, {"HOME": str(tmp_path), "LERIM_CONFIG": str(config)})


def test_load_schema_errors_name_the_file(rt, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "type": "array",\n  oops\n}')
    with pytest.raises(rt.SchemaError, match=r"bad\.json:3: the schema is not valid JSON"):
        rt.load_schema(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(rt.SchemaError, match="must be a JSON object"):
        rt.load_schema(bad)
    bad.write_text('{"type": 5}')
    with pytest.raises(rt.SchemaError, match="not a valid JSON Schema"):
        rt.load_schema(bad)
    with pytest.raises(rt.SchemaError, match="schema file not found"):
        rt.load_schema(tmp_path / "missing.json")
    with pytest.raises(rt.SchemaError, match="not a valid JSON Schema"):
        rt.TrajectoryValidator({"minItems": "one"})
    assert rt.load_schema(BUNDLED_SCHEMA)["type"] == "array"


# ---- the module loads alone and as part of the package -----------------------------------------


def test_runtime_loads_from_anywhere_with_its_schema(tmp_path):
    """A copy of the runtime package, loaded under a private name from another folder, finds
    the schema bundled beside it and compiles it."""
    shutil.copytree(RUNTIME_FILE.parent, tmp_path / "cleaner_runtime", ignore=shutil.ignore_patterns("__pycache__"))
    root = tmp_path / "cleaner_runtime"
    code = (
        "import importlib, importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('lone', {str(root / '__init__.py')!r}, "
        f"submodule_search_locations=[{str(root)!r}])\n"
        "p = importlib.util.module_from_spec(spec); sys.modules['lone'] = p; spec.loader.exec_module(p)\n"
        "m = importlib.import_module('lone.validate')\n"
        f"path, origin = m.find_schema(None, {{'HOME': {str(tmp_path)!r}}})\n"
        "v = m.TrajectoryValidator(m.load_schema(path))\n"
        f"print(path == m.BUNDLED_SCHEMA and str(path.parent) == {str(root)!r}, origin, v.mode, v.differs_from_bundled)\n"
    )
    result = subprocess.run([sys.executable, "-I", "-c", code], check=False, capture_output=True, text=True,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "bundled", "copy", "compiled", "False"]


def test_module_loads_as_package_member():
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import cleaner_runtime.validate as v; "
            "print(v.__name__, v.TrajectoryValidator(v.load_schema(v.BUNDLED_SCHEMA)).mode)")
    result = subprocess.run([sys.executable, "-c", code, str(REPO)], check=False,
                            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["cleaner_runtime.validate", "compiled"]


_utc_like = st.from_regex(r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,4})?Z\Z")
_near_utc = st.builds(lambda t, i, c: t[:i] + c + t[i + 1:], _utc_like, st.integers(0, 25),
                      st.sampled_from(list("09TZz:.-+ \n\u0662\uff10")) | st.just(""))
_DIGITS = "0123456789\u0662\uff10\u00b2"  # with an Arabic-Indic, a fullwidth and a superscript digit
_utc_parts = st.builds(
    lambda minute, second, fraction, zone: minute + second + fraction + zone,
    st.from_regex(r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}\Z") | st.just("2024-02-29T23:59")
    | st.text(alphabet=_DIGITS + "-T:", min_size=16, max_size=16),
    st.sampled_from([":00", ":59", ":60", ":5", "", ":\u00b2\u00b2"]) | st.text(alphabet=_DIGITS + ":", min_size=3, max_size=3),
    st.just("") | st.text(alphabet=_DIGITS + ".Z", max_size=5) | st.text(alphabet=_DIGITS, max_size=4).map(lambda f: "." + f),
    st.sampled_from(["Z", "z", "+02:00", "", " Z", "Z\n", "ZZ", "\u0662Z"]),
)


@settings(max_examples=1500, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_utc_like | _near_utc | _utc_parts | timestamps)
@example("2026-05-16T09:00:00.\u0662Z")
@example("2026-05-16T09:00:\u0662\u0662Z")
@example("2026-05-16T09:0\u0662:00Z")
@example("2026-05-16T09:00:00.Z")
@example("2026-05-16T09:00:00Z\n")
def test_utc_fast_path_agrees_with_the_full_parser(rt, value):
    """The fast path for the UTC form cleaners write either declines or gives the full parser's key;
    so ``_parse_timestamp`` gives the full parser's answer, message included."""
    if not isinstance(value, str):
        return
    full = rt._parse_any_timestamp(value)
    fast = rt._utc_instant(value)
    assert fast is None or fast == full[0]
    # it declines only what is not in its form or not a real instant
    assert (fast is not None) == (rt._TS_UTC_RE.fullmatch(value) is not None and full[0] is not None)
    assert rt._parse_timestamp(value) == full


def test_utc_fast_path_takes_the_usual_form(rt):
    for value in ("2026-05-16T09:00:00Z", "2026-05-28T20:26:47.666Z", "2024-02-29T23:59:59.100Z"):
        assert rt._utc_instant(value) == rt._parse_any_timestamp(value)[0] is not None
    for value in ("2026-02-29T00:00:00Z", "2026-05-16T24:00:00Z", "2026-05-16T09:00:60Z", "2026-05-16T11:00:00+02:00"):
        assert rt._utc_instant(value) is None
