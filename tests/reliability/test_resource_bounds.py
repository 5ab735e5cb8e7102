"""Resource bounds: huge lines, gzip bombs, huge documents and huge sessions never blow up memory.

The limits (see the rendered README and `--help`): a JSONL line is read up to `--max-line-mb`
(64 MiB) and a longer one is skipped without being loaded; a JSON document up to
`--max-document-mb` (256 MiB, decompressed); the cleaned records of one session up to
`--max-session-mb` (512 MiB). Peak memory is measured for exactly the cleaner process
(`os.wait4`), against a baseline run of the same cleaner on a tiny file.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

import pytest

from .support import BASE, T0, jsonl, run_generator, run_measured

MIB = 1024 * 1024
U, C, R, A = BASE


def cleaner(project: Path, given: str, *extra: str) -> list[str]:
    return [sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", given, "--output", "out", *extra]


@pytest.fixture(scope="module")
def baseline_kib(projects, tmp_path_factory) -> int:
    work = tmp_path_factory.mktemp("baseline")
    (work / "tiny.jsonl").write_text(jsonl(BASE), encoding="utf-8")
    code, rss, _, _ = run_measured(cleaner(projects["corpus"], "tiny.jsonl"), work)
    assert code == 0
    return rss


def write_long_line(path: Path, size: int, compressed: bool = False) -> None:
    """BASE with a user record whose text is ``size`` bytes, written in pieces (never held whole)."""
    with (gzip.open(path, "wb", compresslevel=9) if compressed else open(path, "wb")) as out:
        out.write(jsonl([U]).encode())
        out.write(b'{"type":"user","text":"')
        piece = b"x" * MIB
        for _ in range(size // MIB):
            out.write(piece)
        out.write(b'","ts":"2026-05-16T09:00:00Z"}\n')
        out.write(jsonl([C, R, A]).encode())


def test_a_50_mb_line_is_read_truncated_and_bounded(projects, baseline_kib, tmp_path):
    write_long_line(tmp_path / "big.jsonl", 50 * MIB)
    code, rss, stdout, stderr = run_measured(cleaner(projects["corpus"], "big.jsonl"), tmp_path)
    assert code == 0, stdout + stderr
    rows = [json.loads(line) for line in (tmp_path / "out" / "big.jsonl").read_bytes().split(b"\n")[:-1]]
    assert [r["role"] for r in rows] == ["meta", "user", "user", "assistant", "tool", "assistant"]
    text = rows[2]["content"]
    assert len(text) <= 50_000 and text.startswith("x" * 1000) and text.endswith("x" * 1000)
    removed = int(re.search(r"\[\.\.\. ([0-9]+) characters truncated \.\.\.\]", text).group(1))
    assert 50 * MIB - 50_000 <= removed <= 50 * MIB, "the marker counts what was cut"
    assert "truncated strings: 1" in stdout
    grown = (rss - baseline_kib) / 1024
    assert grown < 4 * 50, f"peak memory grew by {grown:.0f} MiB for a 50 MiB line"


def test_a_50_mb_line_through_the_generator(answers_dir, tmp_path):
    """`new` copies a 50 MB sample and records its cleaned output without trouble."""
    write_long_line(tmp_path / "big.jsonl", 50 * MIB)
    result = run_generator("new", "big.jsonl", "--answers", str(answers_dir / "corpus.yml"), "-o", "proj",
                           cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    expected = (tmp_path / "proj" / "tests" / "expected" / "big.jsonl").read_bytes()
    assert len(expected) < 60_000 and b"characters truncated ...]" in expected


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip-bomb"])
def test_a_line_over_the_default_limit_is_skipped_unloaded(projects, baseline_kib, tmp_path, compressed):
    """65 MiB on one line (or 300 MiB of one line inflated from a 300 KB .gz): skipped, counted, bounded."""
    name = "long.jsonl.gz" if compressed else "long.jsonl"
    size = 300 * MIB if compressed else 65 * MIB
    write_long_line(tmp_path / name, size, compressed)
    code, rss, stdout, stderr = run_measured(cleaner(projects["corpus"], name), tmp_path)
    assert code == 0, stdout + stderr
    assert f"1 x invalid line: line longer than 64 MiB (not loaded; raise --max-line-mb to read it) (first at {name}:2)" \
        in stdout
    assert "rows written:      5" in stdout
    grown = (rss - baseline_kib) / 1024
    assert grown < 2.5 * 64, f"peak memory grew by {grown:.0f} MiB skipping a {size // MIB} MiB line"


def test_a_document_bomb_is_refused_at_the_document_limit(projects, baseline_kib, tmp_path):
    with gzip.open(tmp_path / "doc.json.gz", "wb", compresslevel=9) as out:
        out.write(b"[\n")
        for _ in range(200):
            out.write(b" " * MIB)
        out.write(b"]\n")
    code, rss, stdout, stderr = run_measured(cleaner(projects["corpus"], "doc.json.gz", "--max-document-mb", "16"),
                                             tmp_path)
    assert code == 1, stdout + stderr
    assert ("error: doc.json.gz: a JSON document larger than 16 MiB (not loaded); convert it to JSONL or raise "
            "--max-document-mb") in stderr
    grown = (rss - baseline_kib) / 1024
    assert grown < 3 * 16 + 8, f"peak memory grew by {grown:.0f} MiB for a 16 MiB document limit"


def many_records(path: Path, count: int) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write(jsonl([U]))
        out.writelines(f'{{"type":"assistant","text":"message number {i}","ts":"{T0.format(1)}"}}\n'
                       for i in range(count))


def test_a_huge_session_is_streamed_within_bounds(projects, baseline_kib, tmp_path):
    """60k records: raw records are never kept, so memory is the cleaned records, not the input."""
    many_records(tmp_path / "huge.jsonl", 60_000)
    code, rss, stdout, stderr = run_measured(cleaner(projects["corpus"], "huge.jsonl"), tmp_path)
    assert code == 0, stdout + stderr
    assert "rows written:      60002" in stdout
    grown = (rss - baseline_kib) / 1024
    assert grown < 60, f"peak memory grew by {grown:.0f} MiB for 60k small records"


def test_sessions_grouped_by_field_are_freed_after_their_last_record(projects, baseline_kib, tmp_path):
    """400 sessions of 100 records with 600-character texts, spread over 4 files: each session is
    written and freed right after its last record, so memory holds one session, not all 40k
    cleaned records (about 40 MiB of text alone)."""
    (tmp_path / "in").mkdir()
    text = "lorem ipsum " * 50
    for part in range(4):
        with open(tmp_path / "in" / f"part-{part}.jsonl", "w", encoding="utf-8") as out:
            for n in range(part * 100, part * 100 + 100):
                out.write(jsonl([{**U, "sid": f"s{n:03d}"}]))
                out.writelines(f'{{"type":"assistant","sid":"s{n:03d}","text":"{text}{i}","ts":"{T0.format(1)}"}}\n'
                               for i in range(99))
    code, rss, stdout, stderr = run_measured(cleaner(projects["field"], "in"), tmp_path)
    assert code == 0, stdout + stderr
    assert "sessions written:  400" in stdout and "rows written:      40400" in stdout
    grown = (rss - baseline_kib) / 1024
    assert grown < 20, f"peak memory grew by {grown:.0f} MiB for 400 sessions of 100 records"


def test_a_session_over_the_limit_fails_cleanly(projects, tmp_path):
    many_records(tmp_path / "huge.jsonl", 60_000)
    code, _, stdout, stderr = run_measured(cleaner(projects["corpus"], "huge.jsonl", "--max-session-mb", "8"), tmp_path)
    assert code == 1, stdout + stderr
    assert "the session's cleaned output passes the 8 MiB limit (nothing written)" in stderr
    assert "raise --max-session-mb" in stderr and not (tmp_path / "out" / "huge.jsonl").exists()


def test_limits_are_stated_in_help(projects, tmp_path):
    code, _, stdout, _ = run_measured([sys.executable, str(projects["corpus"] / "clean_to_trajectory_jsonl.py"),
                                       "--help"], tmp_path)
    assert code == 0
    flat = " ".join(stdout.split())
    for text in ("--max-line-mb MB", "(default 64)", "--max-document-mb MB", "(default 256)",
                 "--max-session-mb MB", "(default 512)"):
        assert text in flat, text
