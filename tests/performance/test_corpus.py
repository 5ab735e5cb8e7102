"""The benchmark corpora are deterministic and have exactly the sizes asked for."""

from __future__ import annotations

import json

from .conftest import Options, write_corpus


def test_same_options_same_bytes(tmp_path):
    for fmt in ("pi", "flat"):
        a = write_corpus(Options(fmt, 4, 25), tmp_path / f"{fmt}-a")
        b = write_corpus(Options(fmt, 4, 25), tmp_path / f"{fmt}-b")
        assert a == b
        files_a = sorted(p.relative_to(tmp_path / f"{fmt}-a") for p in (tmp_path / f"{fmt}-a").rglob("*.jsonl"))
        files_b = sorted(p.relative_to(tmp_path / f"{fmt}-b") for p in (tmp_path / f"{fmt}-b").rglob("*.jsonl"))
        assert files_a == files_b
        for rel in files_a:
            assert (tmp_path / f"{fmt}-a" / rel).read_bytes() == (tmp_path / f"{fmt}-b" / rel).read_bytes()


def test_exact_record_counts_and_one_object_per_line(tmp_path):
    info = write_corpus(Options("pi", 3, 57), tmp_path / "pi")
    files = sorted((tmp_path / "pi").rglob("*.jsonl"))
    assert info["records"] == 171 and len(files) == 3
    for path in files:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 57 and rows[0]["type"] == "session"
    info = write_corpus(Options("flat", 5, 33, files=2), tmp_path / "flat")
    rows = [json.loads(line) for p in sorted((tmp_path / "flat").glob("*.jsonl"))
            for line in p.read_text(encoding="utf-8").splitlines()]
    assert info["files"] == 2 and len(rows) == 165
    assert {r["run"] for r in rows} == {f"run-007-{i:06d}" for i in range(5)}
