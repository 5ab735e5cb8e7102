"""A run's summary folded as its sessions end (``summary.Summary``) prints what the whole list of
outcomes printed, in any order of folding and across merged workers, and holds no outcome.

The oracle is the summary as it was written before the fold: ``reference`` below is that code,
which kept every session's ``Outcome`` in a list until the end of the run.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import io
import random
import sys
import threading
from collections import Counter
from concurrent.futures import Future
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cleaner_runtime import run, summary
from cleaner_runtime.run import Outcome, write_failure
from cleaner_runtime.summary import Summary
from cleaner_runtime.writer import Held, write_held

REASONS = ["kind 'ping' (skipped by the mapping)", "tool call without a tool name", "user record with no content"]
REPAIRS = ["duplicate call ids renamed", "timestamps derived from neighbouring records"]
KINDS = ["api-key", "aws-access-key", "password"]


def reference(files_read: int, totals: Outcome, outcomes: list[Outcome], quiet: bool) -> int:
    """The summary before the fold (run._summarise and run._print_kept), kept here as the oracle."""
    skipped = Counter(totals.skipped)
    repaired: Counter = Counter()
    redactions: Counter = Counter()
    examples = dict(totals.examples)
    truncated = 0
    for o in outcomes:
        skipped.update(o.skipped)
        repaired.update(o.repaired)
        redactions.update(o.redactions)
        truncated += o.truncated
        for reason, where in o.examples.items():
            examples.setdefault(reason, where)
    written = [o for o in outcomes if o.output]
    failed = [o for o in outcomes if o.error]
    skipped_sessions = [o for o in outcomes if o.skipped_session]
    out = sys.stdout
    print(f"files read:        {files_read}", file=out)
    print(f"sessions written:  {len(written)}", file=out)
    print(f"rows written:      {sum(o.rows for o in written)}", file=out)
    print(f"sessions skipped:  {len(skipped_sessions)}", file=out)
    for o in skipped_sessions:
        print(f"  {o.key}: {o.skipped_session}", file=out)
    print(f"items skipped:     {sum(skipped.values())}", file=out)
    for reason, count in sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {count} x {reason} (first at {examples.get(reason, '?')})", file=out)
    if repaired:
        print("repairs:", file=out)
        for reason, count in sorted(repaired.items()):
            print(f"  {count} x {reason}", file=out)
    seen: Counter = Counter()
    kept: Counter = Counter()
    for o in outcomes:
        seen.update(o.seen)
        kept.update(o.kept)
    parts = [f"{what} {kept[what]}/{seen[what]}" for what in ("calls", "results", "texts") if seen[what]]
    print(f"kept:              {', '.join(parts) or 'nothing read'}", file=out)
    losing = [o for o in outcomes if any(o.kept[w] < o.seen[w] for w in ("calls", "results"))]
    if losing:
        print(f"  sessions losing calls or results: {len(losing)}", file=out)
        for o in losing[:5]:
            shares = ", ".join(f"{w} {o.kept[w]}/{o.seen[w]}" for w in ("calls", "results") if o.seen[w])
            print(f"    {o.key}: {shares}", file=out)
    print(f"redactions:        {sum(redactions.values())}", file=out)
    for kind, count in sorted(redactions.items()):
        print(f"  {count} x {kind}", file=out)
    print(f"truncated strings: {truncated}", file=out)
    warnings = [(o.key, w) for o in outcomes for w in o.warnings]
    if warnings and not quiet:
        print(f"warnings:          {len(warnings)}", file=out)
        for key, warning in warnings[:20]:
            print(f"  {key}: {warning}", file=out)
    if totals.error:
        failed.append(totals)
    print(f"sessions failed:   {len(failed)}", file=out)
    for o in failed:
        print(f"error: {o.error}", file=sys.stderr)
    return 1 if failed else 0


def printed(call) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = call()
    return code, out.getvalue(), err.getvalue()


def counter(rng: random.Random, names: list[str]) -> Counter:
    return Counter({name: rng.randint(1, 3) for name in names if rng.random() < 0.3})


def random_outcome(rng: random.Random, n: int) -> Outcome:
    """Session ``n``: written, failed or skipped, with skips, repairs, redactions, warnings and
    calls or results lost drawn at random (often enough that the first-20 and first-5 cuts and
    the first example of a reason depend on the order)."""
    o = Outcome(f"session-{n}")
    fate = rng.random()
    if fate < 0.7:
        o.output, o.rows = f"{'sub/' if rng.random() < 0.3 else ''}s{n}.jsonl", rng.randint(1, 50)
    elif fate < 0.85:
        o.error = f"session-{n}: fails validation at record line {rng.randint(1, 9)}"
    else:
        o.skipped_session = "no records to write"
    o.skipped = counter(rng, REASONS)
    o.examples = {reason: f"raw/{n}.jsonl:{rng.randint(1, 99)}" for reason in o.skipped}
    o.repaired = counter(rng, REPAIRS)
    o.redactions = counter(rng, KINDS)
    o.truncated = rng.choice([0, 0, 1, 2])
    o.warnings = [f"line {i + 1}: role-order: warning {i}" for i in range(rng.choice([0, 0, 0, 1, 4, 9]))]
    calls = rng.randint(0, 4)
    o.seen = Counter(calls=calls, results=calls, texts=rng.randint(0, 5))
    o.kept = Counter(calls=calls - (rng.random() < 0.2 and calls > 0), results=calls, texts=o.seen["texts"])
    return o


def a_run(seed: int, sessions: int) -> tuple[Outcome, list[tuple[tuple, Outcome]]]:
    """The totals and the outcomes of a run, at their places (in order): a folder not read first,
    then sessions by (file, record)."""
    rng = random.Random(seed)
    totals = Outcome("run")
    if rng.random() < 0.5:
        totals.skipped[REASONS[0]] += 2
        totals.examples[REASONS[0]] = "raw/bad.jsonl:3"
    if rng.random() < 0.2:
        totals.error = "raw/b.jsonl: 5 records where the first pass read 6: the input changed during the run"
    places = [(0, n) for n in range(rng.randint(0, 2))] + [(1, f, p) for f in range(3) for p in range(sessions)]
    places = sorted(rng.sample(places, min(len(places), sessions)))
    return totals, [(at, random_outcome(rng, n)) for n, at in enumerate(places)]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**9), sessions=st.integers(0, 40), workers=st.integers(1, 4),
       quiet=st.booleans(), failing=st.floats(0, 0.3))
def test_folding_in_any_order_prints_what_the_list_printed(seed, sessions, workers, quiet, failing):
    totals, run_outcomes = a_run(seed, sessions)
    rng = random.Random(seed + 1)
    disk_full = OSError(28, "No space left on device")
    # some written sessions fail when put in place (Held.release): the oracle's outcome fails
    # (Outcome.fail_write), the fold is told after the fact (Summary.unwrite)
    fails = [bool(o.output) and rng.random() < failing for _, o in run_outcomes]
    expected_outcomes = copy.deepcopy([o for _, o in run_outcomes])
    for o, fail in zip(expected_outcomes, fails):
        if fail:
            o.fail_write(disk_full)
    expected = printed(lambda: reference(7, totals, expected_outcomes, quiet))

    # the sessions dealt out to workers, each folding its own in any order, merged in any order
    shares: list[list[int]] = [[] for _ in range(workers)]
    for index in range(len(run_outcomes)):
        shares[rng.randrange(workers)].append(index)
    parts = []
    for share in shares:
        rng.shuffle(share)
        part = Summary()
        for index in share:
            at, o = run_outcomes[index]
            part.add(at, o)
            if fails[index]:
                part.unwrite(at, o.rows, write_failure(o.key, o.output, disk_full))
        parts.append(part)
    rng.shuffle(parts)
    whole = Summary()
    for part in parts:
        whole.merge(part)
    assert printed(lambda: whole.report(7, totals, quiet)) == expected


def test_outputs_still_being_renamed_are_folded_once_done_and_a_failed_one_fails_its_session():
    """An outcome whose output is still synced and renamed in the writer's threads is folded once
    that is done; a rename that failed fails its session (as Outcome.settle says)."""
    whole = Summary()
    futures = []
    for n in range(summary.PENDING + 10):
        o = Outcome(f"s{n}", output=f"s{n}.jsonl", rows=1)
        o.pending = Future()
        futures.append(o.pending)
        if n == 3:
            o.pending.set_exception(OSError(5, "Input/output error"))
        elif n < summary.PENDING:
            o.pending.set_result(None)
        whole.add((1, n), o)
    # the first PENDING are done and folded as the later ones came; the rest wait
    assert whole.written == summary.PENDING - 1 and [error for _, error in whole.failed] == [
        "s3: could not write s3.jsonl (Input/output error); nothing written for this session"]
    for future in futures[summary.PENDING:]:
        future.set_result(None)
    whole.settle()
    assert whole.written == summary.PENDING + 9 and whole.rows == summary.PENDING + 9


def test_past_the_pending_limit_the_oldest_is_waited_for():
    """Outcomes queue behind the oldest one still being renamed; one more than ``PENDING`` waits
    for it (here, until another thread finishes it)."""
    whole = Summary()
    late = Future()
    first = Outcome("s0", output="s0.jsonl", rows=2)
    first.pending = late
    whole.add((1, 0), first)
    for n in range(1, summary.PENDING):
        whole.add((1, n), Outcome(f"s{n}", output=f"s{n}.jsonl", rows=1))
    assert whole.written == 0  # behind the oldest, still being renamed
    threading.Timer(0.2, late.set_result, [None]).start()
    whole.add((1, summary.PENDING), Outcome("last", output="last.jsonl", rows=1))
    assert late.done() and whole.written == summary.PENDING + 1 and whole.rows == summary.PENDING + 2


def test_a_worker_summary_is_sent_only_once_settled():
    part = Summary()
    o = Outcome("s", output="s.jsonl", rows=1)
    o.pending = Future()
    part.add((1, 0), o)
    with pytest.raises(AssertionError):
        part.__getstate__()
    o.pending.set_result(None)
    part.settle()
    assert part.__getstate__()["written"] == 1


def test_kept_outcomes_come_in_the_order_of_their_places():
    whole = Summary(keep=True)
    outcomes = {n: Outcome(f"s{n}", output=f"s{n}.jsonl", rows=n) for n in range(6)}
    for n in (4, 1, 5, 0, 3, 2):
        whole.add((1, n), outcomes[n])
    assert [o.key for o in whole.outcomes] == [f"s{n}" for n in range(6)]
    assert Summary().outcomes == []


def test_a_held_output_lets_go_of_its_sync_and_keeps_its_failure(tmp_path: Path):
    """Held.settle: the future is let go once done; a sync that failed still fails the release,
    and the temporary file is removed."""
    from cleaner_runtime.writer import Committer

    committer = Committer(threads=1)
    held: list[Held] = []
    write_held(tmp_path / "a.jsonl", b'{"role":"meta"}\n', held, committer)
    while not held[0].settle():
        pass
    assert held[0].synced is None and held[0].failure is None
    held[0].release()
    assert (tmp_path / "a.jsonl").read_bytes() == b'{"role":"meta"}\n'

    failed = Future()
    failed.set_exception(OSError(5, "Input/output error"))
    tmp = tmp_path / ".b.jsonl.tmp"
    tmp.write_bytes(b"x")
    one = Held(str(tmp), tmp_path / "b.jsonl", failed, 0)
    assert one.settle() and one.synced is None
    with pytest.raises(OSError, match="Input/output error"):
        one.release()
    assert not tmp.exists() and not (tmp_path / "b.jsonl").exists()
    committer.close()


def flat_runs(raw: Path, runs: int) -> dict:
    """``runs`` sessions of 12 records in files of 50 (benchmarks/corpus.py's flat format, grouped
    by their run field) written to ``raw``; the mapping that cleans them."""
    import yaml

    benchmarks = Path(__file__).resolve().parents[2] / "benchmarks"
    if str(benchmarks) not in sys.path:
        sys.path.insert(0, str(benchmarks))
    from corpus import Options, write_corpus

    write_corpus(Options("flat", runs, 12), raw)
    return yaml.safe_load((benchmarks / "flat.yml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("by", ["file", "field"])
def test_a_run_holds_no_outcome_of_a_finished_session(tmp_path: Path, monkeypatch, by: str):
    """Counted when the summary is printed: of 300 sessions, only the run's totals and the
    sessions whose output is still being renamed (at most summary.PENDING) may still be held."""
    import yaml

    repo = Path(__file__).resolve().parents[2]
    raw = tmp_path / "raw"
    if by == "file":
        mapping = yaml.safe_load((repo / "examples" / "answers" / "support-desk.yml").read_text(encoding="utf-8"))
        raw.mkdir()
        ticket = (repo / "examples" / "support-desk" / "raw" / "ticket-4502.json").read_text(encoding="utf-8")
        for n in range(300):
            (raw / f"ticket-{n:03d}.json").write_text(ticket, encoding="utf-8")
    else:  # 300 runs in 6 files of the flat benchmark format, grouped by their run field
        mapping = flat_runs(raw, 300)
    live = []
    report = Summary.report

    def counting(self, *args, **kwargs):
        gc.collect()
        live.append(sum(1 for obj in gc.get_objects() if type(obj) is Outcome))
        return report(self, *args, **kwargs)

    monkeypatch.setattr(Summary, "report", counting)
    code = run.main(mapping, None, ["--input", str(raw), "--output", str(tmp_path / "out"), "--jobs", "1", "--quiet"])
    assert code == 0 and len(list((tmp_path / "out").rglob("*.jsonl"))) == 300
    assert live and live[0] <= summary.PENDING + 1


def test_a_session_held_to_its_file_end_whose_rename_fails_is_counted_failed(tmp_path: Path, monkeypatch, capsys):
    """Sessions grouped by field are folded as they end but put in place at their file's end
    (``run._put_in_place``): one whose rename then fails is a failure in the summary, not a write."""
    from cleaner_runtime import writer

    mapping = flat_runs(tmp_path / "raw", 60)
    replace = writer.os.replace

    def refusing(src, dst):
        if str(dst).endswith("run-007-000007.jsonl"):
            raise PermissionError(13, "Permission denied")
        return replace(src, dst)

    monkeypatch.setattr(writer.os, "replace", refusing)
    code = run.main(mapping, None, ["--input", str(tmp_path / "raw"), "--output", str(tmp_path / "out"), "--jobs", "1"])
    out, err = capsys.readouterr()
    written = len(list((tmp_path / "out").rglob("*.jsonl")))
    assert code == 1 and f"sessions written:  {written}\n" in out and "sessions failed:   1\n" in out
    assert "could not write run-007-000007.jsonl (Permission denied); nothing written for this session" in err
