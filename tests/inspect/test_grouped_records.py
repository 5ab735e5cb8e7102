"""inspect: records nested in lists of lists (a batch holding groups, each group holding its items,
as an OTLP export holds ``resourceSpans[*].scopeSpans[*].spans``) are the objects of the innermost
lists, found by shape alone (``documents.grouped_records``): the file stays one session, and the
cleaner's reader reads the same records at the inferred path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cleaner_runtime import readers
from cleaner_runtime.mapping import compile_path
from generator.infer import infer
from generator.inspect import profile_paths
from generator.inspect.documents import grouped_records


def item(n: int, parent: int | None = None) -> dict:
    return {"id": f"i{n}", "parent": f"i{parent}" if parent else None, "at": f"2026-05-16T09:00:0{n}Z",
            "name": "step", "props": [{"key": "note", "value": {"text": f"step {n} ran"}}]}


def document(batches: int = 1) -> dict:
    batch = {"origin": {"props": [{"key": "host", "value": {"text": "box-1"}}]},
             "groups": [{"library": {"name": "lib-a"}, "version": "1", "items": [item(1), item(2, 1)]},
                        {"library": {"name": "lib-b"}, "version": "2", "items": [item(3, 1)]}],
             "schema": "v1"}
    return {"batches": [batch] * batches}


def test_a_list_of_one_grouping_of_groupings_leads_to_the_innermost_records():
    steps, groups = grouped_records(document()["batches"])
    assert steps == (0, "groups", "*", "items")
    assert [(label, [r["id"] for r in records]) for label, records in groups] == [
        ("1", ["i1", "i2"]), ("2", ["i3"])]


def test_records_and_single_level_groupings_are_left_alone():
    assert grouped_records([item(1), item(2)]) is None  # records carry scalars: they are the records
    # one level of groupings (conversations with their messages) is nested_key's, not a grouping
    assert grouped_records([{"messages": [item(1)]}, {"messages": [item(2)]}]) is None
    # several groupings at two levels would need two `*` in one path: not offered
    assert grouped_records(document(batches=2)["batches"]) is None


@pytest.mark.parametrize("indent", [None, 2])  # written on one line, or as an indented document
def test_the_innermost_records_are_one_session_per_file_and_read_alike_by_the_cleaner(tmp_path: Path, indent):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document(), indent=indent), encoding="utf-8")
    profile = profile_paths([str(path)])
    assert profile.files[0].records_path == ("batches", 0, "groups", "*", "items")
    assert [r.data["id"] for r in profile.recs] == ["i1", "i2", "i3"]
    assert profile.session.by == "file"
    mapping = infer([str(path)]).mapping
    assert mapping["input"]["records_path"] == "batches.0.groups.*.items"
    assert mapping["session"]["by"] == "file"
    read = [record["id"] for _, record in (
        e for e in readers.read_records(readers.InputFile(path, Path(path.name)), mapping["input"]["container"],
                                        compile_path(mapping["input"]["records_path"]))
        if not isinstance(e, readers.BadLine))]
    assert read == ["i1", "i2", "i3"]
