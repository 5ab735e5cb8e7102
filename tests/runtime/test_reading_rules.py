"""The reading rules of cleaner_runtime/shapes.py, through the reader every cleaner uses
(readers.read_records): input.tagged, input.unflatten, input.decode, input.more_records, and a
record list written as a map of records by id."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cleaner_runtime import mapping_check, readers, shapes
from cleaner_runtime.mapping import compile_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "reading_rules"


def read(path: Path, records_path=None, **settings):
    item = readers.InputFile(path, Path(path.name))
    shaping = shapes.Shaping.from_input(settings)
    path_ = compile_path(records_path) if records_path else None
    return list(readers.read_records(item, "auto", path_, shaping=shaping))


def records(entries):
    return [entry[1] for entry in entries if not isinstance(entry, readers.BadLine)]


def bad(entries):
    return [entry for entry in entries if isinstance(entry, readers.BadLine)]


# -- input.tagged ------------------------------------------------------------------------------------

def test_tagged_lines_are_records_with_their_name():
    got = read(FIXTURES / "tagged" / "s1.jsonl", tagged={"tag": "tag"})
    assert not bad(got)
    assert [r["tag"] for r in records(got)] == ["session.start", "event", "event"]
    assert records(got)[1]["text"] == "Please summarise the quarterly report for me."


def test_tagged_lines_without_the_setting_are_bad_lines_that_name_it():
    got = read(FIXTURES / "tagged" / "s1.jsonl")
    assert not records(got)
    assert len(bad(got)) == 3
    assert "input.tagged" in bad(got)[0].reason and bad(got)[0].where.line == 1


def test_tagged_array_payload_goes_under_value_and_a_clash_is_reported(tmp_path):
    path = tmp_path / "calls.jsonl"
    path.write_text('["send", ["s1", {"x": 1}]]\n["named", {"tag": "mine"}]\n["ok", {"a": 1}]\n', encoding="utf-8")
    got = read(path, tagged={"tag": "tag", "value": "payload"})
    assert records(got) == [{"tag": "send", "payload": ["s1", {"x": 1}]}, {"tag": "ok", "a": 1}]
    (clash,) = bad(got)
    assert clash.where.line == 2 and "input.tagged.tag" in clash.reason


def test_tagged_elements_of_a_json_array(tmp_path):
    path = tmp_path / "calls.json"
    path.write_text(json.dumps([["a", {"n": 1}], ["b", {"n": 2}], 3], indent=1), encoding="utf-8")
    got = read(path, tagged={"tag": "method"})
    assert records(got) == [{"method": "a", "n": 1}, {"method": "b", "n": 2}]
    assert len(bad(got)) == 1  # the 3 is still not a record, and says so


# -- input.unflatten ---------------------------------------------------------------------------------

def test_flattened_keys_are_rebuilt_in_numeric_order():
    flat = {f"m.{i}.text": f"t{i}" for i in (0, 10, 2, 9, 1)}
    assert shapes.unflatten(flat) == {"m": [{"text": t} for t in ("t0", "t1", "t2", "t9", "t10")]}


def test_a_wrapper_shared_by_every_element_is_unwrapped_and_mixed_ones_kept():
    assert shapes.unflatten({"m.0.message.role": "user", "m.1.message.role": "tool"}) == {
        "m": [{"role": "user"}, {"role": "tool"}]}
    assert shapes.unflatten({"m.0.a.k": 1, "m.1.b.k": 2}) == {"m": [{"a": {"k": 1}}, {"b": {"k": 2}}]}


def test_a_clash_leaves_the_object_as_written():
    flat = {"a": 1, "a.0.b": 2}
    assert shapes.unflatten(flat) == flat
    assert shapes.unflatten({"a.0.b": 2, "a": 1}) == {"a.0.b": 2, "a": 1}


def test_unflatten_is_bounded():
    deep = {".".join(["k"] * (shapes.MAX_SEGMENTS + 1)) + ".0": 1}
    assert shapes.unflatten(deep) == deep  # a key too long to be a path stays flat
    huge = {"m.99999999999999999999.x": 1, "m.0.x": 2}  # an index is sorted, never allocated
    assert shapes.unflatten(huge) == {"m": [{"x": 2}, {"x": 1}]}
    wide = {f"m.{i}.text": "x" for i in range(50_000)}
    started = time.monotonic()
    assert len(shapes.unflatten(wide)["m"]) == 50_000
    assert time.monotonic() - started < 5


def test_flattened_document_read_by_the_reader():
    got = read(FIXTURES / "flattened" / "s1.json", records_path="messages", unflatten=True)
    assert [r["role"] for r in records(got)] == ["user", "assistant"]
    without = read(FIXTURES / "flattened" / "s1.json", records_path="messages")
    assert not records(without) and "not found" in bad(without)[0].reason


# -- input.decode --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ['{"a": [1', "[not json]", "123", '"a string"', "plain words"])
def test_a_string_that_is_no_json_object_or_array_stays_a_string(text):
    assert shapes.decoded(text) is text


def test_json_strings_decoded_where_records_are_looked_for():
    got = read(FIXTURES / "json_strings" / "s1.json", decode=["messages"])
    assert [r["content"] for r in records(got)] == ["Please summarise the quarterly report for me.",
                                                     "The report shows revenue grew by ten percent."]
    without = read(FIXTURES / "json_strings" / "s1.json")
    assert not records(without) and "no list of records" in bad(without)[0].reason


def test_decodable_keys_name_only_strings_that_hold_records():
    record = {"a": json.dumps([{"x": 1}]), "b": json.dumps({"y": 2}), "c": json.dumps({"list": [{"z": 3}]}),
              "d": "[broken", "e": 5}
    assert shapes.decodable_keys(record) == ["a", "c"]


# -- input.more_records, node maps --------------------------------------------------------------------

def test_more_records_are_read_after_the_records_path_list(tmp_path):
    path = tmp_path / "span.json"
    path.write_text(json.dumps({"input": [{"n": 1}, {"n": 2}], "output": [{"n": 3}]}), encoding="utf-8")
    assert records(read(path, "input", more_records=["output"])) == [{"n": 1}, {"n": 2}, {"n": 3}]
    missing = read(path, "input", more_records=["reply"])
    assert records(missing) == [{"n": 1}, {"n": 2}] and "input.more_records" in bad(missing)[0].reason


def test_a_map_of_records_by_id_is_the_record_list_when_no_list_is(tmp_path):
    path = tmp_path / "conversation.json"
    nodes = {"a": {"id": "a", "text": "x"}, "b": {"id": "b", "text": "y"}}
    path.write_text(json.dumps({"title": "t", "mapping": nodes}, indent=1), encoding="utf-8")
    assert records(read(path)) == list(nodes.values())
    path.write_text(json.dumps({"mapping": nodes, "list": [{"k": 1}]}, indent=1), encoding="utf-8")
    assert records(read(path)) == [{"k": 1}]  # a real list wins: what read before still reads the same


# -- the mapping schema -----------------------------------------------------------------------------------

def _mapping(**input_settings):
    return {"mapping_version": 1, "source": "x", "input": input_settings,
            "kinds": [{"name": "any", "match": {}, "role": "user", "content": "text"}]}


def test_the_schema_accepts_the_rules_and_names_a_wrong_key():
    mapping_check.check_mapping(_mapping(tagged={"tag": "t", "value": "v"}, unflatten=True, decode=["a.b"],
                                         more_records=["out"]), "m")
    for wrong, words in (({"tagged": {"tog": "t"}}, "did you mean 'tag'"), ({"unflatten": "yes"}, "boolean"),
                         ({"decode": "a"}, "array")):
        with pytest.raises(mapping_check.MappingError, match=words):
            mapping_check.check_mapping(_mapping(**wrong), "m")
