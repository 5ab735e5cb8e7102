"""steps.py, timing.py, links.parent_links and the level outcome, on a small synthetic trace export
(observations with start/end times, parent ids, the model's calls in its generations, the tools'
own observations, a group span and platform events): the input and the decision expected."""

from __future__ import annotations

import json

from generator.infer import CONFIDENT, infer
from generator.infer.calls import norm
from generator.infer.outcomes import error_text, outcome
from generator.infer.timing import _end_name

T = "2026-05-16T14:03:{:06.3f}Z"


def obs(ident: str, kind: str, name: str, start: float, end: float, parent: str | None, **fields) -> dict:
    return {"id": ident, "type": kind, "name": name, "startTime": T.format(start), "endTime": T.format(end),
            "parentObservationId": parent, "level": fields.pop("level", "DEFAULT"), **fields}


def call(ident: str, name: str, args: dict) -> dict:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def trace(n: int) -> dict:
    run = f"run-{n}"
    observations = [  # in export order: children before their parents, the run last
        obs(f"g1-{n}", "GENERATION", "chat", 1.0, 2.0, run, model="m-1", output={
            "content": "Let me look that order up for you right away.",
            "tool_calls": [call(f"c1-{n}", "lookup_order", {"order": n})]}),
        obs(f"e1-{n}", "EVENT", "guardrail.scan", 0.5, 0.5, run, input={"chars": 40}, output={"flagged": False}),
        obs(f"t1-{n}", "TOOL", "lookup_order", 2.1, 2.4, run, input={"order": n}, output="in transit since Monday"),
        obs(f"g2-{n}", "GENERATION", "chat", 2.5, 3.0, run, model="m-1", output={
            "content": None, "tool_calls": [call(f"c2-{n}", "track", {"order": n}),
                                            call(f"c3-{n}", "policy", {"topic": "late"})]}),
        obs(f"t3-{n}", "TOOL", "policy", 3.3, 3.6, f"group-{n}", input={"topic": "late"},
            output="Late parcels can be refunded after five days."),
        obs(f"t2-{n}", "TOOL", "track", 3.2, 3.5, f"group-{n}", input={"order": n}, output=None, level="ERROR",
            statusMessage="carrier API returned 503"),
        obs(f"group-{n}", "SPAN", "run-tools", 3.1, 3.7, run, input={"calls": 2}, output={"done": 1, "failed": 1}),
        obs(f"g3-{n}", "GENERATION", "chat", 3.8, 4.5, run, model="m-1", output={
            "content": "Your parcel counts as late; I can refund it now.", "tool_calls": []}),
        obs(run, "SPAN", "agent", 0.1, 4.6, None, input={"message": f"Where is my order {n}? It is late."},
            output={"reply": "Your parcel counts as late; I can refund it now."}),
    ]
    return {"id": f"trace-{n}", "timestamp": T.format(0.0), "input": {"message": f"Where is my order {n}? It is late."},
            "observations": observations}


def inferred(tmp_path):
    for n in (1, 2):
        (tmp_path / f"trace-{n}.json").write_text(json.dumps(trace(n), indent=1), encoding="utf-8")
    return infer([str(tmp_path)])


def decision(inf, key):
    found = [d for d in inf.decisions if d.key == key]
    return found[-1] if found else None


def test_tool_observations_repeating_the_models_calls_are_their_results(tmp_path):
    inf = inferred(tmp_path)
    role = decision(inf, "kinds[type=TOOL].role")
    assert role.value == "tool_result" and role.confidence >= CONFIDENT
    rule = next(k for k in inf.mapping["kinds"] if k.get("match") == {"type": "TOOL"})
    assert rule["tool_name"] == "name" and "call_id" not in rule and "result_link" not in rule
    assert rule["ok"] == {"path": "level", "values": ["DEFAULT"]}
    assert rule["content"] == ["output", "statusMessage"]  # the status line where a failed tool has no output


def test_a_span_that_groups_tool_observations_and_events_never_called_are_skipped(tmp_path):
    inf = inferred(tmp_path)
    assert decision(inf, "kinds[type=SPAN,name=run-tools].role").value == "skip"
    assert decision(inf, "kinds[type=EVENT].role").value == "skip"
    assert not inf.questions


def test_parent_ids_make_a_tree_and_out_of_order_starts_an_order(tmp_path):
    session = inferred(tmp_path).mapping["session"]
    assert session["tree"] == {"id": "id", "parent": "parentObservationId"}
    assert session["order_by"] == ["startTime"]


def test_outputs_are_stamped_when_their_span_ends(tmp_path):
    inf = inferred(tmp_path)
    kinds = {k["name"]: k for k in inf.mapping["kinds"]}
    assert kinds["GENERATION (assistant)"]["timestamp"] == ["endTime"]
    assert inf.mapping["session"]["opening"][0]["timestamp"] == "document.timestamp"


def test_end_name_follows_the_start_names_spelling():
    assert _end_name("startTime") == "endTime" and _end_name("start_time") == "end_time"
    assert _end_name("startTimeUnixNano") == "endTimeUnixNano" and _end_name("START_TS") == "END_TS"
    assert _end_name("timestamp") is None and _end_name("restarted") is None


def test_a_log_level_tells_a_failed_step():
    records = [{"level": "DEFAULT"}, {"level": "ERROR", "statusMessage": "timeout", "output": None}]
    assert outcome(records) == {"path": "level", "values": ["DEFAULT"]}
    assert outcome([{"level": "DEBUG"}, {"level": "INFO"}]) is None  # no failure seen: it says nothing
    assert error_text(records, ("output",)) == "statusMessage"


def test_norm_keeps_upper_case_letters():
    assert norm("ERROR") == "error" and norm("toolCallId") == "tool_call_id" and norm("TOOL-CALL") == "tool_call"
