"""One rule for what a file is, shared by `inspect` and the cleaner (issue 35, defect 2): a JSON
object alone on the one line of a file not named as JSON Lines, holding a list of objects, is a
document whose records are in that list; a file named `.jsonl`/`.ndjson` is lines, whatever it holds.
Before, `inspect` read such a file as a document and the cleaner (container auto) as one record."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from cleaner_runtime import readers
from generator.inspect.profile import profile_paths

EXPORT = {"title": "Parcel question", "messages": [
    {"role": "user", "content": "Where is my parcel?", "at": "2026-05-16T09:00:00Z"},
    {"role": "assistant", "content": "It ships today.", "at": "2026-05-16T09:00:05Z"},
    {"role": "user", "content": "Thank you!", "at": "2026-05-16T09:01:00Z"}]}


def _cleaner_reads(path: Path) -> list[dict]:
    entries = readers.read_records(readers.InputFile(path, Path(path.name)))
    return [entry[1] for entry in entries if not isinstance(entry, readers.BadLine)]


def _write(path: Path, text: str) -> Path:
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["export.json", "export", "export.json.gz", "export.txt"])
def test_a_document_on_one_line_is_read_as_its_records_by_both(tmp_path, name):
    path = _write(tmp_path / name, json.dumps(EXPORT) + "\n")
    assert [r["content"] for r in _cleaner_reads(path)] == ["Where is my parcel?", "It ships today.", "Thank you!"]
    profile = profile_paths([str(path)])
    assert len(profile.recs) == 3
    assert profile.files[0].container == "json_object"


@pytest.mark.parametrize("name", ["export.jsonl", "export.ndjson", "export.jsonl.gz"])
def test_a_file_named_as_lines_is_lines(tmp_path, name):
    path = _write(tmp_path / name, json.dumps(EXPORT) + "\n")
    assert len(_cleaner_reads(path)) == 1


def test_two_lines_holding_lists_stay_lines(tmp_path):
    path = _write(tmp_path / "export.json", json.dumps(EXPORT) + "\n" + json.dumps(EXPORT) + "\n")
    assert len(_cleaner_reads(path)) == 2


def test_one_record_without_a_list_stays_one_record(tmp_path):
    path = _write(tmp_path / "one.json", json.dumps({"role": "user", "content": "hi"}) + "\n")
    assert len(_cleaner_reads(path)) == 1
