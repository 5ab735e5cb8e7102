"""``--jobs N`` cleans sessions in parallel and writes exactly the bytes one job writes."""

from __future__ import annotations

import pytest

from cleaner_runtime import readers
from cleaner_runtime import run as run_module

from .conftest import make_corpus, run_cleaner, tree_bytes


@pytest.mark.parametrize("fmt", ["pi", "flat"])
def test_jobs_write_the_same_bytes_as_one_job(cleaners, tmp_path, fmt):
    src = make_corpus(tmp_path / "raw", fmt, 23, 40, secrets=0.05, unicode=0.3)
    outputs = {}
    for jobs in (1, 3):
        out = tmp_path / f"out-{jobs}"
        result = run_cleaner(cleaners[fmt], src, out, "--jobs", str(jobs))
        assert result.returncode == 0, result.stderr
        outputs[jobs] = (tree_bytes(out), result.stdout)
    one, three = outputs[1], outputs[3]
    assert len(one[0]) == 23
    assert one[0] == three[0]
    assert one[1] == three[1]  # the summary too: counts, redactions, skips and their first places


def test_jobs_keep_failures_and_skips_per_session(cleaners, tmp_path):
    src = make_corpus(tmp_path / "raw", "pi", 6, 30)
    broken = sorted(src.rglob("*.jsonl"))[2]
    broken.write_text(broken.read_text(encoding="utf-8") + '{"type":"mystery"}\n', encoding="utf-8")
    results = [run_cleaner(cleaners["pi"], src, tmp_path / f"out-{jobs}", "--jobs", str(jobs)) for jobs in (1, 2)]
    assert [r.returncode for r in results] == [1, 1]
    assert results[0].stdout == results[1].stdout
    assert results[0].stderr.splitlines()[1:] == results[1].stderr.splitlines()[1:]
    assert tree_bytes(tmp_path / "out-1") == tree_bytes(tmp_path / "out-2")
    assert len(tree_bytes(tmp_path / "out-1")) == 5


def _same_run(cleaners, src, tmp_path, fmt, *extra, jobs=(1, 2, 3)):
    """The cleaner's output bytes, stdout and stderr (past the schema line) for each --jobs value."""
    runs = {}
    for n in jobs:
        out = tmp_path / f"out-{fmt}-{n}-{'-'.join(extra)}"
        result = run_cleaner(cleaners[fmt], src, out, "--jobs", str(n), *extra)
        runs[n] = (result.returncode, tree_bytes(out), result.stdout, result.stderr.splitlines()[1:])
    first = runs[jobs[0]]
    for n in jobs[1:]:
        assert runs[n] == first, f"--jobs {n} differs from --jobs {jobs[0]}"
    return first


def test_one_large_session_with_helpers_writes_the_same_bytes(cleaners, tmp_path):
    """One session: with --jobs above 1 the other processes redact its long strings once it passes
    1 MiB (this one is about 3 MiB)."""
    src = make_corpus(tmp_path / "raw", "pi", 1, 3000, secrets=0.05, unicode=0.3)
    code, files, stdout, _ = _same_run(cleaners, src, tmp_path, "pi")
    assert code == 0 and len(files) == 1
    assert "redactions:        0" not in stdout  # the corpus plants secrets: the helpers' counts arrive


def test_sessions_grouped_by_field_with_helpers_write_the_same_bytes(cleaners, tmp_path):
    # small sessions are never sent to the helpers; the two large ones are, from their first MiB on
    src = make_corpus(tmp_path / "raw", "flat", 12, 200, secrets=0.05, unicode=0.3)
    make_corpus(tmp_path / "raw" / "large", "flat", 2, 3000, seed=8, secrets=0.05, unicode=0.3)
    code, files, _, _ = _same_run(cleaners, src, tmp_path, "flat")
    assert code == 0 and len(files) == 14


def test_the_session_size_limit_fails_at_the_same_record_with_helpers(cleaners, tmp_path):
    """--max-session-mb is checked after every raw record; with helpers the strings in flight are
    bounded, and near the limit their results are awaited, so the failure (and the counts beside
    it) is the one a single process reports; just above the real size the session is written."""
    src = make_corpus(tmp_path / "raw", "pi", 1, 3000, secrets=0.05, unicode=0.3)
    # the helpers take over at 1 MiB: the limit is passed while they hold strings
    code, _, stdout, stderr = _same_run(cleaners, src, tmp_path, "pi", "--max-session-mb", "1.6")
    assert code == 1 and "passes the 1.6 MiB limit" in "\n".join(stderr) and "sessions failed:   1" in stdout
    code, files, _, _ = _same_run(cleaners, src, tmp_path, "pi", "--max-session-mb", "200")
    assert code == 0
    # just above what the session needs: find it from a single-process run
    low, high = 1.6, 200.0
    for _ in range(12):
        mid = (low + high) / 2
        result = run_cleaner(cleaners["pi"], src, tmp_path / "probe", "--max-session-mb", f"{mid:.6f}")
        low, high = (low, mid) if result.returncode == 0 else (mid, high)
    code, near, _, _ = _same_run(cleaners, src, tmp_path, "pi", "--max-session-mb", f"{high:.6f}")
    assert code == 0 and near == files
    code, _, stdout, stderr = _same_run(cleaners, src, tmp_path, "pi", "--max-session-mb", f"{low:.6f}")
    assert code == 1 and "MiB limit" in "\n".join(stderr)


# -- --jobs auto (the default) -------------------------------------------------------------------


def _files(tmp_path, sizes):
    files = []
    for i, size in enumerate(sizes):
        path = tmp_path / f"f{i}.jsonl"
        with open(path, "wb") as stream:
            stream.truncate(size)  # sparse: the size is what counts
        files.append(readers.InputFile(path, path.relative_to(tmp_path)))
    return files


def test_auto_uses_one_process_for_a_small_input(tmp_path):
    small = run_module.AUTO_MIN_MB * 1024 * 1024 - 10
    assert run_module.resolve_jobs("auto", _files(tmp_path, [small // 2, small // 2])) == 1
    assert run_module.resolve_jobs("auto", []) == 1


def test_auto_uses_the_available_cpus_once_the_input_is_large(tmp_path, monkeypatch):
    files = _files(tmp_path, [run_module.AUTO_MIN_MB * 1024 * 1024 // 3] * 3 + [10])
    monkeypatch.setattr(run_module, "available_cpus", lambda: 2)
    assert run_module.resolve_jobs("auto", files) == 2
    monkeypatch.setattr(run_module, "available_cpus", lambda: 64)
    assert run_module.resolve_jobs("auto", files) == run_module.AUTO_MAX_JOBS
    monkeypatch.setattr(run_module, "available_cpus", lambda: 1)
    assert run_module.resolve_jobs("auto", files) == 1
    assert run_module.resolve_jobs(3, files[:1]) == 3  # a number is taken as given


def test_jobs_accepts_a_number_or_auto_and_explains_anything_else(cleaners, tmp_path):
    src = make_corpus(tmp_path / "raw", "pi", 2, 10)
    assert run_cleaner(cleaners["pi"], src, tmp_path / "a", "--jobs", "AUTO").returncode == 0
    assert run_cleaner(cleaners["pi"], src, tmp_path / "b", "--jobs", "2").returncode == 0
    assert tree_bytes(tmp_path / "a") == tree_bytes(tmp_path / "b")
    for bad, why in (("0", "'0' must be greater than 0"), ("two", "'two' is not a number")):
        result = run_cleaner(cleaners["pi"], src, tmp_path / "c", "--jobs", bad)
        assert result.returncode == 2
        assert why in result.stderr and "Traceback" not in result.stderr
