"""Idempotence and determinism: same input, same bytes; results already there are replaced atomically."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from .support import BASE, BASE_OUT, jsonl, run_cleaner, visible_files


def make_input(root: Path, sessions: int = 40) -> Path:
    """Sessions in nested folders, some with problems so that the summary has reasons to list."""
    for i in range(sessions):
        rows = [{**r, "text": f"run {i}: {r['text']}"} if "text" in r else r for r in BASE]
        extra = "" if i % 5 else '{"type":"progress","ts":"2026-05-16T09:00:09Z"}\n'
        extra += '{"type":"user","te' if i % 7 == 0 else ""  # torn last line
        path = root / f"group{i % 4}" / f"s{i:02d}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(jsonl(rows) + extra, encoding="utf-8")
    return root


def make_field_input(root: Path, sessions: int = 12) -> Path:
    """Interleaved sessions across three files, grouped by a field."""
    root.mkdir(parents=True)
    for part in range(3):
        rows = [{**r, "sid": f"sess-{s}", "text": f"{s}/{part}"} if "text" in r else {**r, "sid": f"sess-{s}"}
                for s in range(sessions) for r in BASE[part:part + 2]]
        (root / f"part{part}.jsonl").write_text(jsonl(rows), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    return make_input(tmp_path_factory.mktemp("idem") / "raw")


def clean(project: Path, raw: Path, out: Path, *extra: str, env: dict | None = None):
    result = run_cleaner(project, "--input", str(raw), "--output", str(out), *extra,
                         env={**os.environ, **(env or {})})
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_two_runs_write_identical_bytes_and_summaries(projects, raw, tmp_path):
    first = clean(projects["corpus"], raw, tmp_path / "a")
    second = clean(projects["corpus"], raw, tmp_path / "b")
    files = visible_files(tmp_path / "a")
    assert len(files) == 40 and files == visible_files(tmp_path / "b")
    assert first.stdout.replace(str(tmp_path / "a"), "") == second.stdout.replace(str(tmp_path / "b"), "")
    assert "6 x invalid line: torn last line (no newline)" in first.stdout


def test_jobs_give_the_same_bytes_as_one_job(projects, raw, tmp_path):
    one = clean(projects["corpus"], raw, tmp_path / "one")
    many = clean(projects["corpus"], raw, tmp_path / "many", "--jobs", "3")
    assert visible_files(tmp_path / "one") == visible_files(tmp_path / "many")
    assert one.stdout.replace(str(tmp_path / "one"), "") == many.stdout.replace(str(tmp_path / "many"), "")


@pytest.mark.parametrize("mapping", ["corpus", "field"])
def test_hash_seed_does_not_change_anything(projects, raw, tmp_path, mapping):
    source = raw if mapping == "corpus" else make_field_input(tmp_path / "raw")
    runs = [clean(projects[mapping], source, tmp_path / seed, env={"PYTHONHASHSEED": seed}) for seed in ("1", "2")]
    assert visible_files(tmp_path / "1") == visible_files(tmp_path / "2")
    assert len(visible_files(tmp_path / "1")) == (40 if mapping == "corpus" else 12)
    assert runs[0].stdout.replace(str(tmp_path / "1"), "") == runs[1].stdout.replace(str(tmp_path / "2"), "")


def test_rerun_replaces_results_atomically(projects, raw, tmp_path):
    """A reader holding an old file keeps reading the whole old file; the path gets a new file."""
    out = tmp_path / "out"
    clean(projects["corpus"], raw, out)
    target = out / "group0" / "s00.jsonl"
    target.write_bytes(b"previous results\n")  # as if written by an older cleaner
    before = target.stat().st_ino
    with open(target, "rb") as reader:
        clean(projects["corpus"], raw, out)
        assert reader.read() == b"previous results\n"
    assert target.stat().st_ino != before
    assert target.read_bytes().startswith(b'{"role":"meta","source":"corpus-agent"}\n')
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask, "outputs get the usual file mode"
    assert not [p for p in out.rglob(".*")], "no temporary file is left"


def test_failed_session_keeps_its_earlier_output_and_others_are_left_alone(projects, tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.jsonl").write_text(jsonl(BASE), encoding="utf-8")
    (raw / "b.jsonl").write_text(jsonl(BASE), encoding="utf-8")
    out = tmp_path / "out"
    clean(projects["corpus"], raw, out)
    (out / "gone.jsonl").write_bytes(b"from a session no longer in the input\n")
    (raw / "b.jsonl").write_text(jsonl([*BASE, {"type": "mystery", "ts": "2026-05-16T09:00:09Z"}]), encoding="utf-8")
    (raw / "a.jsonl").write_text(jsonl(BASE[:1] + BASE[3:]), encoding="utf-8")
    result = run_cleaner(projects["corpus"], "--input", str(raw), "--output", str(out))
    assert result.returncode == 1 and "b.jsonl:5: unknown record kind" in result.stderr
    assert (out / "b.jsonl").read_bytes() == BASE_OUT, "the failed session's earlier output is untouched"
    assert (out / "a.jsonl").read_bytes() != BASE_OUT, "the other session was rewritten"
    assert (out / "gone.jsonl").read_bytes() == b"from a session no longer in the input\n"
