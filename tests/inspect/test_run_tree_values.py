"""#35 defect 6: inspect on run trees whose fields hold lists (or any JSON value) where scalars
are expected must profile and infer, never raise (an unhashable value once stopped it).

Note: at the commit that added this test, the reported TypeError did not reproduce; these are
regression guards over the general rule (any profiled value may be any JSON value)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.infer.search import search
from generator.inspect import profile_paths

FIELDS = ["id", "run_type", "name", "tags", "parent_run_ids", "type", "role", "content", "tool_call_id",
          "session_id", "start_time", "trace_id", "inputs", "outputs"]
_scalar = (st.none() | st.booleans() | st.integers(-10**20, 10**20)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))
_value = st.recursive(_scalar, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["type", "role", "id", "name", "content", "text", "args"]), c, max_size=3), max_leaves=8)
_record = st.fixed_dictionaries({}, optional={f: _value for f in FIELDS})


def _child(i: int) -> dict:
    return {"id": f"c{i}", "run_type": [["llm"], ["tool"]][i % 2], "name": ["tool", i], "tags": ["a", "b"],
            "parent_run_ids": ["r0", "r1"], "inputs": {"messages": [[{"role": "user", "content": "hi"}]]},
            "outputs": {"generations": [[{"text": "x"}]]}, "start_time": "2024-01-01T00:00:00Z",
            "trace_id": ["t"]}


def test_run_tree_with_lists_in_scalar_positions_is_profiled(tmp_path):
    tree = {"id": "r0", "run_type": "chain", "name": "agent", "tags": ["x"], "session_id": ["s"],
            "child_runs": [_child(i) for i in range(6)], "start_time": "2024-01-01T00:00:00Z"}
    (tmp_path / "run.json").write_text(json.dumps(tree), encoding="utf-8")
    profile = profile_paths([str(tmp_path)])
    assert profile.records, "the run tree's runs are read"
    assert search(profile, [str(tmp_path)]).inference is not None


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_record, min_size=1, max_size=8), st.booleans())
def test_inspect_never_raises_on_any_json_value(tmp_path_factory, records, as_tree):
    folder = tmp_path_factory.mktemp("fuzz")
    if as_tree:
        (folder / "run.json").write_text(json.dumps({"id": "r", "run_type": "chain", "child_runs": records}))
    else:
        (folder / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    profile = profile_paths([str(folder)])
    if profile.records:
        search(profile, [str(folder)])


def test_a_session_field_holding_a_list_is_profiled(tmp_path):
    # found by the fuzz test above: session ids '', [] and 0 raised "unhashable type: 'list'" in find_sessions
    records = [{"id": None, "content": None, "role": None, "session_id": ""}, {"id": None, "session_id": []},
               {"id": None, "run_type": None, "session_id": 0}, {"id": None, "role": None, "session_id": 0}]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    profile = profile_paths([str(tmp_path)])
    assert profile.records == 4
    assert search(profile, [str(tmp_path)]).inference is not None
