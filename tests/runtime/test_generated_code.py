"""The generated adapter means what the mapping means.

A rendered ``clean_to_trajectory_jsonl.py`` classifies and writes records with code generated from
the mapping (``kind_of`` and one function per kind); ``convert.Kind`` interprets the same mapping.
For random valid mappings over random records, both build the same session: the same records,
skips, repairs and counts, or the same failure. Keys are drawn with quotes, dots, braces and
unicode in them, so the generated literals and names are exercised as well.
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cleaner_runtime.convert import Converter, Privacy, SessionFailed, SessionSkipped
from cleaner_runtime.mapping import MappingError
from cleaner_runtime.mapping_check import check_mapping
from cleaner_runtime.readers import Where
from cleaner_runtime.writer import plain_json
from generator.adapter_code import load_source, script_source
from generator.render import complete

KEYS = ["type", "role", "content", "text", "id", "name", "args", "ts", "out", 'q"k', "{{k}}", "é", "list", "if"]
MATCHED = ["user", "assistant", "tool", "x", 1, 1.0, True, False, None, "1"]
ROLES = ["user", "assistant", "reasoning", "system", "tool_call", "tool_result", "tool_exchange", "skip", "meta"]
BLOCKS = {"type_field": "type", "unknown": "skip", "types": {
    "text": {"as": "text", "field": "text"},
    "call": {"as": "tool_call", "call_id": "id", "tool_name": "name", "args": "args"},
    "res": {"as": "tool_result", "content": "text", "result_link": "id", "timestamp": "ts"},
    "pic": {"as": "placeholder", "text": "[image]"},
}}
BLOCK_NAMES = ["text", "call", "res", "pic", "odd", 'q"t', "{{b}}", "émoji"]

key = st.sampled_from(KEYS)
path = st.one_of(key, st.builds(lambda a, b: f"{a}.{b}", key, key), st.just(["a.b"]))
paths = st.one_of(path.filter(lambda p: isinstance(p, str)), st.lists(path, min_size=1, max_size=2))
scalar = st.one_of(st.sampled_from(MATCHED), st.text(max_size=8), st.integers(-3, 2_000_000_000))
block = st.fixed_dictionaries({"type": st.sampled_from(BLOCK_NAMES)},
                              optional={"text": st.text(max_size=6), "id": st.sampled_from(["c1", "c2", 3]),
                                        "ts": st.sampled_from(["2026-01-01T00:00:05Z", "not a time", 17]),
                                        "name": st.sampled_from(["ls", "", "grep"]),
                                        "args": st.one_of(st.dictionaries(key, scalar, max_size=2), st.text(max_size=8))})
value = st.recursive(st.one_of(scalar, st.lists(block, max_size=3)),
                     lambda inner: st.one_of(st.lists(inner, max_size=2), st.dictionaries(key, inner, max_size=3)),
                     max_leaves=8)
record = st.dictionaries(key, value, max_size=6).map(lambda r: {**r, **({"a.b": r["text"]} if "text" in r else {})})
ok = st.one_of(path.filter(lambda p: isinstance(p, str)),
               st.fixed_dictionaries({"path": path.filter(lambda p: isinstance(p, str))},
                                     optional={"negate": st.booleans(), "values": st.lists(scalar, min_size=1, max_size=2),
                                               "presence": st.booleans()}))
join = st.fixed_dictionaries({"join": st.lists(st.one_of(
    path.filter(lambda p: isinstance(p, str)),
    st.fixed_dictionaries({"path": path.filter(lambda p: isinstance(p, str))},
                          optional={"each": key, "prefix": st.sampled_from(["Files:\n", "", "'\"{{"])}),
    st.fixed_dictionaries({"text": st.sampled_from(["Sent {name}", "{{literal}} {id}", "fixed"])})), min_size=1, max_size=3)},
    optional={"sep": st.sampled_from(["\n", " | "])})
emit = st.lists(st.one_of(
    st.fixed_dictionaries({"as": st.sampled_from(["text", "reasoning"]), "field": path.filter(lambda p: isinstance(p, str))}),
    st.fixed_dictionaries({"as": st.just("tool_call"), "each": key, "call_id": st.just("id"), "tool_name": st.just("name"),
                           "args": st.just("args")}),
    st.fixed_dictionaries({"as": st.just("tool_exchange"), "each": key, "call_id": st.just("id"),
                           "tool_name": st.just("name"), "args": st.just("args"), "content": st.just("text")})),
    min_size=1, max_size=3)
kind = st.fixed_dictionaries(
    {"role": st.sampled_from(ROLES), "content": st.one_of(paths, join), "tool_name": paths,
     "match": st.dictionaries(st.builds(lambda p: p, key) | st.just("out.type"),
                              st.one_of(st.sampled_from(MATCHED), st.lists(st.sampled_from(MATCHED), min_size=1, max_size=3)),
                              max_size=2)},
    optional={"name": st.sampled_from(["user message", "user message", "tool's \"result\"", "{{ kind }}", "kind_of", "if",
                                       "émoji ✓", "123", "ruff\nnewline", "main"]),
              "has": st.lists(key, max_size=1), "lacks": st.lists(key, max_size=1),
              "timestamp": paths, "call_id": paths, "args": paths,
              "args_key": st.sampled_from(["input", "_raw"]), "result_link": paths, "ok": ok, "reasoning": paths,
              "result_timestamp": paths, "emit": emit, "same": st.just({"text": "content"})})
block_field = st.one_of(st.sampled_from(["text", "id", "name", "args", "content", "text.0"]),
                        st.lists(st.sampled_from(["text", "content", "id"]), min_size=2, max_size=2, unique=True))
block_rule = st.fixed_dictionaries(
    {"as": st.sampled_from(["text", "reasoning", "placeholder", "tool_call", "tool_exchange", "tool_result", "skip"])},
    optional={"field": block_field, "text": st.sampled_from(["[image]", "'\"{{ x }}"]), "call_id": block_field,
              "tool_name": block_field, "args": block_field, "args_key": st.sampled_from(["input", "_raw"]),
              "result_link": block_field, "ok": ok})
blocks = st.one_of(st.just(BLOCKS), st.fixed_dictionaries(
    {"type_field": st.just("type"), "unknown": st.sampled_from(["skip", "fail"]),
     "types": st.dictionaries(st.sampled_from(BLOCK_NAMES), block_rule, max_size=4)},
    optional={"by_key": st.dictionaries(st.sampled_from(["text", "id", "tool_use"]), block_rule, max_size=2)}))
mapping = st.fixed_dictionaries({
    "blocks": blocks,
    "kinds": st.lists(kind, min_size=1, max_size=4),
    "unknown_kinds": st.sampled_from(["skip", "fail"]),
    "timestamps": st.fixed_dictionaries({"fields": st.sampled_from([["ts"], ["ts", "out.ts"], ["when"]])},
                                        optional={"fallback": st.just("file_mtime")}),
})


def valid(candidate: dict) -> dict | None:
    full = {"mapping_version": 1, "source": "t", "blocks": BLOCKS,
            "sessions": {"without_user": "keep", "without_assistant": "keep"}, **candidate}
    try:
        return complete(check_mapping(full, "mapping"))
    except MappingError:
        return None


def build(full: dict, records: list[dict], adapter) -> tuple:
    converter = Converter(full, Privacy(full["privacy"]), adapter=adapter)
    session = converter.session("s")
    session.mtime = 1778922000.0
    stopped = None
    try:
        for n, raw in enumerate(records, 1):
            session.add(Where("f.jsonl", n), copy.deepcopy(raw))
        session.finish()
    except (SessionFailed, SessionSkipped) as exc:
        stopped = f"{exc.__class__.__name__}: {exc}"
    # what was written up to a failure counts too: a failure must not hide a difference before it
    return (session.records, stopped, dict(session.stats.skipped), dict(session.stats.repaired), session.seen,
            session.written, session.unreadable_times)


def put(record: dict, where: str | list, value) -> None:
    """Set a path of the mapping's notation in a record (creating the objects on the way)."""
    keys = where if isinstance(where, list) else where.split(".")
    for key in keys[:-1]:
        if not isinstance(record.get(key), dict):
            record[key] = {}
        record = record[key]
    record[keys[-1]] = value


def listed(spec) -> list:
    if spec is None or isinstance(spec, dict):
        return []
    return [spec] if isinstance(spec, str) or (isinstance(spec, list) and spec and not isinstance(spec[0], (str, list))) \
        else [p for p in spec]


def aimed(data, full: dict) -> dict:
    """A record aimed at one of the mapping's kinds: its match values (or near misses: 1 for true,
    "1" for 1), and each field the kind reads holding text, blocks, a structure or nothing much."""
    raw = data.draw(record)
    spec = data.draw(st.sampled_from(full["kinds"]))
    names = [*full["blocks"]["types"], "odd"]  # blocks of the mapping's types, mostly
    typed = block.flatmap(lambda b: st.sampled_from(names).map(lambda name: {**b, "type": name}))
    for where, expected in (spec.get("match") or {}).items():
        options = expected if isinstance(expected, list) else [expected]
        near = data.draw(st.sampled_from([1, True, "1", None])) if data.draw(st.integers(0, 4)) == 0 else None
        put(raw, where, near if near is not None else data.draw(st.sampled_from(options)))
    for name in ("content", "timestamp", "call_id", "tool_name", "args", "result_link", "reasoning", "result_timestamp"):
        for where in listed(spec.get(name)):
            if not isinstance(where, (str, list)) or (isinstance(where, list) and not all(isinstance(k, str) for k in where)):
                continue
            put(raw, where, data.draw(st.one_of(st.sampled_from(["", [], {}, None, "2026-05-16T09:00:00Z", "later", 1778922000]),
                                                st.text(min_size=1, max_size=6), st.lists(typed, min_size=1, max_size=4),
                                                value)))
    return raw


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(mapping, st.data())
def test_generated_code_builds_what_the_mapping_means(candidate, data):
    full = valid(candidate)
    assume(full is not None)
    records = [aimed(data, full) for _ in range(data.draw(st.integers(1, 6)))]
    generated = load_source(script_source(full))
    built = build(full, records, generated)
    assert built == build(full, records, None)
    # plain JSON (no floats, string keys), whatever the raw values: the writer relies on it (Lines' plain)
    assert all(plain_json(r) for r in built[0])


def both(kinds: list[dict], records: list[dict], **extra) -> list[tuple]:
    """The records both ways build (asserted equal), as (role, content or calls) pairs."""
    full = valid({"kinds": kinds, "unknown_kinds": "skip", "timestamps": {"fields": ["ts"], "fallback": "file_mtime"},
                  **extra})
    assert full is not None
    generated = build(full, records, load_source(script_source(full)))
    assert generated == build(full, records, None)
    return [(r["role"], r.get("content") if r.get("content") is not None else r.get("tool_calls"))
            for r in generated[0] if r["role"] != "meta"]


def test_true_is_not_1_and_null_is_not_absent():
    kinds = [{"name": "flagged", "match": {"flag": True}, "role": "user", "content": "text"},
             {"name": "nulled", "match": {"x": None}, "role": "assistant", "content": "text"}]
    records = [{"flag": 1, "text": "one"}, {"flag": True, "text": "true"}, {"text": "absent"}, {"x": None, "text": "null"}]
    assert both(kinds, records) == [("user", "true"), ("assistant", "null")]


def test_an_empty_content_gives_way_to_the_next_path():
    kinds = [{"match": {"role": "user"}, "role": "user", "content": ["text", "parts"]}]
    assert both(kinds, [{"role": "user", "text": "", "parts": "hi"}]) == [("user", "hi")]


def test_arguments_that_are_not_an_object_are_wrapped_under_args_key():
    kinds = [{"match": {"role": "user"}, "role": "user", "content": "text"},
             {"match": {"role": "shell"}, "role": "tool_call", "content": "cmd", "tool_name": {"value": "bash"},
              "args": "cmd", "args_key": "command", "reasoning": "why"}]
    records = [{"role": "user", "text": "list"}, {"role": "shell", "cmd": "ls -la", "why": "to see"}]
    assert both(kinds, records) == [("user", "list"), ("reasoning", "to see"),
                                    ("assistant", [{"id": "call_1", "name": "bash", "args": '{"command":"ls -la"}'}])]


def test_an_exchange_writes_its_result_at_its_own_time_with_its_outcome():
    kinds = [{"match": {"role": "user"}, "role": "user", "content": "text"},
             {"match": {"role": "step"}, "role": "tool_exchange", "content": "output", "tool_name": "tool",
              "call_id": "id", "args": "args", "ok": {"path": "exit", "values": [0]}, "result_timestamp": "done"}]
    full = valid({"kinds": kinds, "timestamps": {"fields": ["ts"]}})
    records = [{"role": "user", "text": "go", "ts": "2026-05-16T09:00:00Z"},
               {"role": "step", "tool": "run", "id": "s1", "args": {"n": 1}, "output": "ok", "exit": "0",
                "ts": "2026-05-16T09:00:01Z", "done": "2026-05-16T09:00:05Z"}]
    generated = build(full, records, load_source(script_source(full)))
    assert generated == build(full, records, None)
    result = generated[0][-1]
    assert (result["role"], result["tool_call_id"], result["ok"], result["timestamp"]) == \
        ("tool", "s1", True, "2026-05-16T09:00:05Z")


def test_composed_content_rules_that_compare_fields_and_presence():
    kinds = [{"name": "first comment", "match": {}, "same": {"body": "description"}, "role": "skip", "content": "body"},
             {"name": "note", "match": {}, "has": ["note"], "lacks": ["hidden"], "role": "user",
              "content": {"join": ["note", {"path": "files", "each": "name", "prefix": "Files:\n"},
                                   {"text": "{{sent}} by {who}"}]}}]
    records = [{"body": "same", "description": "same"}, {"note": "hello", "files": [{"name": "a.png"}], "who": "ana"},
               {"note": "hidden", "hidden": True}]
    assert both(kinds, records) == [("user", "hello\nFiles:\na.png\n{sent} by ana")]


def test_several_records_from_one_raw_record_in_order():
    kinds = [{"match": {"role": "user"}, "role": "user", "content": "text"},
             {"name": "model output", "match": {"role": "model"}, "role": "assistant", "content": "out.text",
              "emit": [{"as": "reasoning", "field": "out.thinking"}, {"as": "text", "field": "out.text"},
                       {"as": "tool_call", "each": "out.calls", "call_id": "id", "tool_name": "name", "args": "args"}]}]
    records = [{"role": "user", "text": "go"},
               {"role": "model", "out": {"thinking": "hmm", "text": "two calls",
                                         "calls": [{"id": "a", "name": "ls", "args": "{}"}, {"id": "b", "name": "pwd"}]}}]
    assert both(kinds, records) == [
        ("user", "go"), ("reasoning", "hmm"), ("assistant", "two calls"),
        ("assistant", [{"id": "a", "name": "ls", "args": "{}"}, {"id": "b", "name": "pwd", "args": "{}"}])]


def test_block_types_read_what_their_rules_say():
    blocks = {"type_field": "type", "unknown": "skip", "types": {
        "text": {"as": "text", "field": ["text", "alt"]},  # the first present, even when empty
        "think": {"as": "reasoning", "field": "thinking"},
        "use": {"as": "tool_call", "call_id": "id", "tool_name": "name", "args": "input", "args_key": "command"},
        "done": {"as": "tool_result", "content": "content", "result_link": "use_id", "ok": {"path": "is_error",
                                                                                             "negate": True}},
        "run": {"as": "tool_exchange", "call_id": "id", "tool_name": "name", "args": "input", "content": "output"},
        "pic": {"as": "placeholder", "text": "[image]"},
        "sig": {"as": "skip"},
    }, "by_key": {"note": {"as": "text", "field": "note"}}}
    kinds = [{"match": {"role": "user"}, "role": "user", "content": "content"},
             {"match": {"role": "assistant"}, "role": "assistant", "content": "content"}]
    records = [
        {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "pic"}, {"note": "keyed"},
                                     {"type": "text", "text": "", "alt": "not read: text is present"}]},
        {"role": "assistant", "content": [{"type": "think", "thinking": "hmm"}, {"type": "sig"},
                                          {"type": "use", "id": "u1", "name": "sh", "input": "ls"},
                                          {"type": "run", "id": "r1", "name": "pwd", "input": {}, "output": "/"}]},
        {"role": "user", "content": [{"type": "done", "use_id": "u1", "content": [{"type": "text", "text": "a.txt"}],
                                      "is_error": False}]},
    ]
    assert both(kinds, records, blocks=blocks) == [
        ("user", "look\n[image]\nkeyed"), ("reasoning", "hmm"),
        ("assistant", [{"id": "u1", "name": "sh", "args": '{"command":"ls"}'}, {"id": "r1", "name": "pwd", "args": "{}"}]),
        ("tool", "/"), ("tool", "a.txt")]


def test_a_path_of_keys_is_not_a_list_of_paths():
    """``first(r, ("a", "b"))`` reads r["a"]["b"]; ``content(r, "a", "b")`` reads r["a"], else r["b"]
    (both remembered compiled: one cache must not answer for the other)."""
    from cleaner_runtime.adapter import content, first

    record = {"a": {"b": 1}, "b": 2, "a.b": 3}
    assert first(record, ("a", "b")) == 1
    assert content(record, "a", "b") == {"b": 1}
    assert first(record, ("a.b",)) == 3 and first(record, "a.b") == 1
    assert content(record, ("a", "b")) == 1
    assert content(record, "x", "b") == 2
