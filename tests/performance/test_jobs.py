"""``--jobs N`` cleans sessions in parallel and writes exactly the bytes one job writes."""

from __future__ import annotations

import pytest

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
