"""Input shapes the readers take besides JSON lines: CSV/TSV tables, a JSON object of records by
id (a conversation's node map) and a document that is itself the one record (a run tree)."""

from __future__ import annotations

import gzip
import json

from cleaner_runtime import mapping, readers


def read(path, container="auto", records_path=None):
    item = readers.InputFile(path, path.relative_to(path.parent))
    compiled = mapping.compile_path(records_path) if records_path else None
    return list(readers.read_records(item, container, compiled))


def test_csv_rows_are_records_keyed_by_the_header_with_empty_cells_left_out(tmp_path):
    path = tmp_path / "tickets.csv"
    path.write_text('ticket_id,author_type,body,attachment_name\n'
                    'T-1,customer,"Printer says ""offline"",\nsince Monday",\n'
                    '\n'
                    'T-1,agent,Restart it please.,steps.pdf\n', encoding="utf-8")
    rows = read(path)
    assert [(str(w), r) for w, r in rows] == [
        (f"{path}:2", {"ticket_id": "T-1", "author_type": "customer", "body": 'Printer says "offline",\nsince Monday'}),
        (f"{path}:5", {"ticket_id": "T-1", "author_type": "agent", "body": "Restart it please.",
                       "attachment_name": "steps.pdf"}),
    ]


def test_tsv_and_gzipped_tables_are_detected_by_name(tmp_path):
    path = tmp_path / "log.tsv.gz"
    path.write_bytes(gzip.compress(b"a\tb\n1\t2\n"))
    assert [r for _, r in read(path)] == [{"a": "1", "b": "2"}]


def test_a_row_with_more_cells_than_columns_is_a_bad_line_named_by_its_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2,3\n4,5\n", encoding="utf-8")
    out = read(path)
    assert isinstance(out[0], readers.BadLine) and out[0].where.line == 2 and "3 cells" in out[0].reason
    assert out[1][1] == {"a": "4", "b": "5"}


def test_an_object_of_records_by_id_reads_its_values(tmp_path):
    path = tmp_path / "conv.json"
    path.write_text(json.dumps({"title": "t", "mapping": {"n1": {"id": "n1"}, "n2": {"id": "n2", "parent": "n1"}}}))
    assert [r["id"] for _, r in read(path, "json_object", "mapping")] == ["n1", "n2"]


def test_a_document_can_be_its_own_one_record(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"id": "root", "child_runs": [{"id": "c"}]}))
    assert [r["id"] for _, r in read(path, "json_object", "$")] == ["root"]
