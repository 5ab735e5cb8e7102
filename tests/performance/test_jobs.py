"""``--jobs N`` cleans sessions in parallel and writes exactly the bytes one job writes."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from cleaner_runtime import readers, writer
from cleaner_runtime import run as run_module
from cleaner_runtime.mapping import read_mapping

from .conftest import REPO, make_corpus, run_cleaner, tree_bytes


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


def _same_run(project, src, tmp_path, *extra, jobs=(1, 2, 3)):
    """The exit code, output bytes, stdout and stderr (past the schema line) of the cleaner in
    ``project``, the same for each --jobs value."""
    runs = {}
    for n in jobs:
        out = tmp_path / f"out-{project.parent.name}-{n}-{'-'.join(extra)}"
        result = run_cleaner(project, src, out, "--jobs", str(n), *extra)
        runs[n] = (result.returncode, tree_bytes(out), result.stdout, result.stderr.splitlines()[1:])
    first = runs[jobs[0]]
    for n in jobs[1:]:
        assert runs[n] == first, f"--jobs {n} differs from --jobs {jobs[0]}"
    return first


def test_one_large_session_with_helpers_writes_the_same_bytes(cleaners, tmp_path):
    """One session: with --jobs above 1 the other processes redact its long strings once it passes
    1 MiB (this one is about 3 MiB)."""
    src = make_corpus(tmp_path / "raw", "pi", 1, 3000, secrets=0.05, unicode=0.3)
    code, files, stdout, _ = _same_run(cleaners["pi"], src, tmp_path)
    assert code == 0 and len(files) == 1
    assert "redactions:        0" not in stdout  # the corpus plants secrets: the helpers' counts arrive


def test_sessions_grouped_by_field_in_several_processes_write_the_same_bytes(cleaners, tmp_path):
    """Sessions grouped by field are dealt out to the worker processes, large and small alike."""
    src = make_corpus(tmp_path / "raw", "flat", 12, 200, secrets=0.05, unicode=0.3)
    make_corpus(tmp_path / "raw" / "large", "flat", 2, 3000, seed=8, secrets=0.05, unicode=0.3)
    code, files, _, _ = _same_run(cleaners["flat"], src, tmp_path)
    assert code == 0 and len(files) == 14


def test_one_session_grouped_by_field_with_helpers_writes_the_same_bytes(cleaners, tmp_path):
    """A single session grouped by field is cleaned in the main process, its long strings redacted
    by the others once it passes 1 MiB."""
    src = make_corpus(tmp_path / "raw", "flat", 1, 6000, seed=8, secrets=0.05, unicode=0.3)
    code, files, stdout, _ = _same_run(cleaners["flat"], src, tmp_path)
    assert code == 0 and len(files) == 1
    assert "redactions:        0" not in stdout


def test_sessions_grouped_by_field_keep_every_count_in_several_processes(cleaners, tmp_path):
    """What the run counts itself is counted once, not once per worker (each reads every record):
    lines not read and records without a session id; a session that fails, fails alone, and the
    summary lists the sessions in the order one process lists them."""
    project = tmp_path / "cleaner"
    shutil.copytree(cleaners["flat"], project)
    answers = project / ".copier-answers.yml"
    text = answers.read_text(encoding="utf-8")
    assert '"missing": "fail"' in text
    answers.write_text(text.replace('"missing": "fail"', '"missing": "skip"'), encoding="utf-8")
    src = make_corpus(tmp_path / "raw", "flat", 9, 60, secrets=0.05, unicode=0.3)
    events = sorted(src.rglob("*.jsonl"))
    lines = events[0].read_text(encoding="utf-8").splitlines(keepends=True)
    failing = json.loads(lines[5])["run"]
    lines[3:3] = ["{not json\n", json.dumps({"seq": 1, "actor": "customer", "body": "no run"}) + "\n"]
    lines.insert(9, json.dumps({"run": failing, "at": 1780000000000, "actor": "mystery"}) + "\n")
    events[0].write_text("".join(lines), encoding="utf-8")
    code, files, stdout, stderr = _same_run(project, src, tmp_path)
    assert code == 1 and len(files) == 8
    assert "1 x invalid line" in stdout and "1 x record without a session id" in stdout
    assert any("events-00000.jsonl:10: unknown record kind" in line for line in stderr)


def test_the_first_pass_reads_files_in_several_processes_as_one_process_would(cleaners, tmp_path):
    """With --jobs above 1 the first pass reads the files in the worker processes, and takes their
    findings in file order: the names of sessions whose ids differ only in case (across files)
    and the error that stops the run (the first in file order, here a record without a session
    id in the fifth file of eight, another one in the seventh) are those of one process."""
    src = make_corpus(tmp_path / "raw", "flat", 40, 20, files=8)
    events = sorted(src.rglob("*.jsonl"))
    records = [json.loads(line) for line in events[1].read_text(encoding="utf-8").splitlines()]
    first = records[0]["run"]
    with events[5].open("a", encoding="utf-8") as handle:  # the same session, its id shouted, in a later file
        handle.writelines(json.dumps({**record, "run": first.upper()}) + "\n"
                          for record in records if record["run"] == first)
    code, files, _, _ = _same_run(cleaners["flat"], src, tmp_path)
    assert code == 0 and len(files) == 41
    assert f"{first}.jsonl" in files and f"{first.upper()}.jsonl" not in files
    for broken in (events[4], events[6]):
        lines = broken.read_text(encoding="utf-8").splitlines(keepends=True)
        lines.insert(3, json.dumps({"at": 1780000000000, "actor": "customer", "body": "no run"}) + "\n")
        broken.write_text("".join(lines), encoding="utf-8")
    code, files, _, stderr = _same_run(cleaners["flat"], src, tmp_path / "broken")
    assert code == 1 and files == {}
    assert any(f"{events[4].name}:4: record has no session id" in line for line in stderr)
    assert not any(events[6].name in line for line in stderr)


def test_a_large_file_is_read_in_byte_ranges_by_the_first_pass_as_one_process_would(cleaners, tmp_path,
                                                                                     monkeypatch, capsys):
    """The first pass reads a large plain JSON Lines file in byte ranges, one per process (here
    ranges of at least 20 KB instead of 16 MB, so that a small file splits): the same bytes and
    summary as one process; a record without a session id in the middle of the file stops the run
    with the line number in the whole file, as one process gives it."""
    monkeypatch.setattr(readers, "SPAN_BYTES", 20_000)
    src = make_corpus(tmp_path / "raw", "flat", 60, 20, files=1, secrets=0.05, unicode=0.3)
    (events,) = src.rglob("*.jsonl")
    answers = cleaners["flat"] / ".copier-answers.yml"
    cleaner = run_module.Cleaner(read_mapping(answers), None, None, quiet=True)
    tasks = run_module._scan_tasks(cleaner, [readers.InputFile(events, events.relative_to(src))], 3)
    assert len(tasks) == 3, "the file was not split"

    def clean(jobs, out):
        code = run_module.main(answers, None, argv=["--input", str(src), "--output", str(out), "--jobs", str(jobs)])
        captured = capsys.readouterr()
        return code, tree_bytes(out) if out.exists() else {}, captured.out, captured.err.splitlines()[1:]

    one = clean(1, tmp_path / "one")
    assert one[0] == 0 and len(one[1]) == 60
    assert clean(3, tmp_path / "three") == one
    lines = events.read_text(encoding="utf-8").splitlines(keepends=True)
    middle = len(lines) * 2 // 3  # in the last range
    lines.insert(middle, json.dumps({"at": 1780000000000, "actor": "customer", "body": "no run"}) + "\n")
    events.write_text("".join(lines), encoding="utf-8")
    one = clean(1, tmp_path / "one-broken")
    assert one[0] == 1 and one[1] == {}
    assert any(f"events-00000.jsonl:{middle + 1}: record has no session id" in line for line in one[3])
    assert clean(3, tmp_path / "three-broken") == one


def test_the_session_size_limit_fails_at_the_same_record_with_helpers(cleaners, tmp_path):
    """--max-session-mb is checked after every raw record; with helpers the strings in flight are
    bounded, and near the limit their results are awaited, so the failure (and the counts beside
    it) is the one a single process reports; just above the real size the session is written."""
    src = make_corpus(tmp_path / "raw", "pi", 1, 3000, secrets=0.05, unicode=0.3)
    # the helpers take over at 1 MiB: the limit is passed while they hold strings
    code, _, stdout, stderr = _same_run(cleaners["pi"], src, tmp_path, "--max-session-mb", "1.6")
    assert code == 1 and "passes the 1.6 MiB limit" in "\n".join(stderr) and "sessions failed:   1" in stdout
    code, files, _, _ = _same_run(cleaners["pi"], src, tmp_path, "--max-session-mb", "200")
    assert code == 0
    # just above what the session needs: find it from a single-process run
    low, high = 1.6, 200.0
    for _ in range(12):
        mid = (low + high) / 2
        result = run_cleaner(cleaners["pi"], src, tmp_path / "probe", "--max-session-mb", f"{mid:.6f}")
        low, high = (low, mid) if result.returncode == 0 else (mid, high)
    code, near, _, _ = _same_run(cleaners["pi"], src, tmp_path, "--max-session-mb", f"{high:.6f}")
    assert code == 0 and near == files
    code, _, stdout, stderr = _same_run(cleaners["pi"], src, tmp_path, "--max-session-mb", f"{low:.6f}")
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


def _stopped_run(project, src, out, jobs, pause, ready, stop):
    """The cleaner of ``project`` run with the writer's test pause ``pause`` (``n:stage``) and
    ``stop(proc)`` called once a process waits there; its exit code and stderr (the process group
    killed whatever happens)."""
    env = {**os.environ, writer.PAUSE_ENV: f"{pause}:{ready}"}
    proc = subprocess.Popen(
        [sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", str(src),
         "--output", str(out), "--jobs", str(jobs)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True, text=True)
    try:
        end = time.monotonic() + 120
        while not ready.exists() and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.01)
        assert ready.exists(), f"no process reached the pause {pause}"
        stop(proc)
        _, stderr = proc.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=120)
    return proc.returncode, stderr


def test_sessions_grouped_by_field_in_several_processes_stop_cleanly(cleaners, tmp_path):
    """SIGTERM while a worker is halfway through writing a session (the writer's test pause holds it
    there): exit 130, the workers stopped, every file written complete and exactly what an
    uninterrupted run writes, and no temporary file left. The sessions of the input file being
    read when the run stopped are not put in place (they are only once their file has been read
    to its end as the first pass read it), so that file's sessions are all missing."""
    src = make_corpus(tmp_path / "raw", "flat", 40, 60, files=8, secrets=0.05, unicode=0.3)
    reference = run_cleaner(cleaners["flat"], src, tmp_path / "reference", "--jobs", "1")
    assert reference.returncode == 0, reference.stderr
    ready, out = tmp_path / "ready", tmp_path / "out"

    def stop(proc):
        os.kill(proc.pid, signal.SIGTERM)
        time.sleep(0.2)
        ready.with_name("ready.go").touch()  # the paused worker finishes its write, then stops

    code, stderr = _stopped_run(cleaners["flat"], src, out, 2, "8:partial", ready, stop)
    assert code == 130, stderr
    assert "Traceback" not in stderr and "interrupted: files already written are complete" in stderr
    written, expected = tree_bytes(out), tree_bytes(tmp_path / "reference")
    assert 0 < len(written) < len(expected)
    assert all(data == expected[name] for name, data in written.items())
    assert not [p for p in out.rglob(".*")], "a temporary file was left behind"
    paused = Path(ready.read_text(encoding="utf-8").split(" ", 1)[1].strip())
    assert paused.relative_to(out).as_posix() not in written


def test_a_second_interruption_while_stopping_leaves_no_temporary_file(cleaners, tmp_path):
    """The sessions that end in the file being read are held under temporary names until it has
    been read to its end; a run stopped before removes them all, and a second SIGTERM while it
    does (a review found about a thousand left behind) waits until they are gone."""
    src = make_corpus(tmp_path / "raw", "flat", 1500, 4, files=1)
    out = tmp_path / "out"

    def stop(proc):
        assert len(list(out.glob(".*.tmp"))) > 1000  # held, not yet in place
        os.kill(proc.pid, signal.SIGTERM)
        time.sleep(0.005)
        os.kill(proc.pid, signal.SIGTERM)

    code, stderr = _stopped_run(cleaners["flat"], src, out, 1, "1200:before", tmp_path / "ready", stop)
    assert code == 130, stderr
    assert "Traceback" not in stderr
    assert not list(out.iterdir()), "a session of the file being read was put in place, or a temporary file left"


def test_sessions_whose_ids_differ_only_in_case_never_share_an_output(cleaners, tmp_path):
    """"run-1" and "RUN-1" are two sessions, but one file on a system that ignores case: the later
    one takes its id's hash, as a file whose name clashes does, whatever the number of processes."""
    src = make_corpus(tmp_path / "raw", "flat", 6, 40)
    events = min(src.rglob("*.jsonl"))
    lines = events.read_text(encoding="utf-8").splitlines(keepends=True)
    first = json.loads(lines[0])["run"]
    shouting = [json.dumps({**json.loads(line), "run": first.upper()}) + "\n"
                for line in lines if json.loads(line).get("run") == first]
    events.write_text("".join(lines + shouting), encoding="utf-8")
    code, files, _, _ = _same_run(cleaners["flat"], src, tmp_path)
    assert code == 0 and len(files) == 7
    assert len({name.lower() for name in files}) == 7
    assert f"{first}.jsonl" in files
    hashed = [name for name in files if name.startswith(first.upper() + "-")]
    assert len(hashed) == 1 and hashed[0].endswith(".jsonl")
    assert files[hashed[0]] == files[f"{first}.jsonl"]  # the same records under another id


CHATGPT = REPO / "tests" / "fixtures" / "chatgpt_export" / "conversation_map"


@pytest.fixture(scope="module")
def chatgpt_cleaner(tmp_path_factory):
    """The ChatGPT export fixture's cleaner: one session per conversation of a JSON array."""
    from generator.render import render_new

    dest = tmp_path_factory.mktemp("chatgpt") / "cleaner"
    mapping = yaml.safe_load((CHATGPT / "mapping.yml").read_text(encoding="utf-8"))
    render_new(mapping, [CHATGPT / "raw"], dest)
    return dest


def test_elements_of_one_document_write_the_same_bytes_for_any_jobs(chatgpt_cleaner, tmp_path):
    """One conversation of an export is one session, cleaned one at a time whatever --jobs says
    (helpers redact the strings of one past 1 MiB): the same names (two share an id: the second
    takes its place in its name), bytes and summary for any number of processes; a torn export is
    counted once."""
    (conversation,) = json.loads((CHATGPT / "raw" / "conversations.json").read_text(encoding="utf-8"))
    conversations = []
    for n in range(24):
        copy = json.loads(json.dumps(conversation).replace("Splitting a dinner bill", f"Bill number {n}"))
        copy["id"] = copy["conversation_id"] = f"conv-{n % 23:03d}"  # the last repeats the first id
        conversations.append(copy)
    src = tmp_path / "raw"
    (src / "may").mkdir(parents=True)
    (src / "may" / "conversations.json").write_text(json.dumps(conversations), encoding="utf-8")
    (src / "june").mkdir()
    (src / "june" / "conversations.json").write_text(json.dumps(conversations)[:-40], encoding="utf-8")
    code, files, stdout, _ = _same_run(chatgpt_cleaner, src, tmp_path)
    assert code == 0 and len(files) == 24
    assert "may/conversations/conv-000.jsonl" in files
    assert any(name.startswith("may/conversations/conv-000-") for name in files)
    assert "1 x invalid line: invalid JSON document" in stdout and "sessions written:  24" in stdout


def test_an_error_that_ends_a_document_ends_the_same_session_for_any_jobs(tmp_path):
    """A JSON Lines export, one conversation a line, whose sixth line is not JSON and whose mapping
    says ``invalid_lines: fail``: reading stops there, and the session it stopped in fails with
    that error with any number of processes; the sessions before it are written."""
    from generator.render import render_new

    (conversation,) = json.loads((CHATGPT / "raw" / "conversations.json").read_text(encoding="utf-8"))
    mapping = yaml.safe_load((CHATGPT / "mapping.yml").read_text(encoding="utf-8"))
    mapping["input"].update(container="jsonl", include=["*.jsonl"], invalid_lines="fail")
    lines = []
    for n in range(10):
        copy = dict(conversation, id=f"conv-{n:03d}", conversation_id=f"conv-{n:03d}")
        lines.append("{not json" if n == 5 else json.dumps(copy))
    src = tmp_path / "raw"
    src.mkdir()
    (src / "export.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "export.jsonl").write_text(lines[0] + "\n", encoding="utf-8")
    render_new(mapping, [samples], tmp_path / "cleaner")
    code, files, _, stderr = _same_run(tmp_path / "cleaner", src, tmp_path, jobs=(1, 2))
    assert code == 1 and sorted(files) == [f"export/conv-{n:03d}.jsonl" for n in range(4)]
    assert any("export.jsonl:6" in line and "invalid_lines" in line for line in stderr)


@pytest.mark.parametrize(("sizes", "even"), [
    ({"a": 10, "b": 10}, True),
    ({"a": 10, "b": 5, "c": 5}, True),  # half exactly: the others together take the other half
    ({"a": 11, "b": 5, "c": 5}, False),
    ({"a": 10}, False),
    ({}, False),
])
def test_sessions_grouped_by_field_go_to_workers_only_when_no_one_holds_most_records(sizes, even):
    assert run_module._even_enough(list(sizes.values())) is even


def test_one_dominant_session_grouped_by_field_writes_the_same_bytes(cleaners, tmp_path):
    """A session with most of the records (here 3,000 of 3,400) is not given to one worker while
    the others wait: the sessions are cleaned in the main process, the large one's strings
    redacted by the helpers; the same bytes and summary for any --jobs."""
    src = make_corpus(tmp_path / "raw", "flat", 8, 50, secrets=0.05, unicode=0.3)
    make_corpus(tmp_path / "raw" / "large", "flat", 1, 3000, seed=8, secrets=0.05, unicode=0.3)
    code, files, _, _ = _same_run(cleaners["flat"], src, tmp_path)
    assert code == 0 and len(files) == 9


CHANGING_INPUT_HOOK = '''
import os

HOOKS_API = 2
SEEN = {seen!r}
CHANGE = {change!r}
ENDING = {ending!r}  # a session whose last record is in the file named FILE
FILE = {file!r}


def transform_document(document, ctx):
    """Each file reads as it is once, then changed: an input that changes between the two passes
    of session.by: field."""
    marker = os.path.join(SEEN, os.path.basename(ctx.file) + ".first")
    if not os.path.exists(marker):
        open(marker, "w").close()
        return document
    if CHANGE == "new session":  # a session the first pass did not see, after the third record
        return document[:3] + [dict(record, run="new-" + os.path.basename(ctx.file)) for record in document[:2]] \
            + document[3:]
    if CHANGE == "late record":  # a record of the file's first session at its end
        return document + [dict(document[0])]
    if CHANGE in ("inserted copy", "rewritten record"):  # in FILE, before the last record of ENDING
        if os.path.basename(ctx.file) != FILE:
            return document
        mine = min(i for i, record in enumerate(document) if record.get("run") == ENDING)
        last = max(i for i, record in enumerate(document) if record.get("run") == ENDING)
        if CHANGE == "inserted copy":  # one of its records again: as many records at its last one
            return document[:last] + [dict(document[mine])] + document[last:]
        # one of its records rewritten in place as a copy of the record after its last: every
        # record where it was, the file as long, one session a record short and another one over
        return document[:mine] + [dict(document[last + 1])] + document[mine + 1:]
    if CHANGE == "swapped records":  # a session's last record and the next session's first
        last = {{record.get("run"): i for i, record in enumerate(document)}}
        i = min(i for i in last.values() if i + 1 < len(document))
        return document[:i] + [document[i + 1], document[i]] + document[i + 2:]
    last = max(i for i, record in enumerate(document) if record.get("run") == document[0]["run"])
    return document[:last] + document[last + 1:]  # "lost record": its first session's last one gone
'''


@pytest.mark.parametrize(("change", "says", "fewer"), [
    ("new session", "was not there in the first pass", True),  # stops at its first record
    ("late record", "records where the first pass read", True),  # found at the end of the first file
    ("lost record", "records where the first pass read", True),  # found at the end of that file
    ("swapped records", "did not end where the first pass found its last record", True),  # as many records
    # in the file where a session ends, before its last record: one of its records rewritten as
    # another session's (that session was written one record short, and the other with a record
    # too many, and the run went on) or one inserted again (written with its last record missing)
    ("rewritten record", "reached its last record with", True),
    # (what shows it first depends on which process holds which session: the sessions after it
    # in that file have their last records one place later, too)
    ("inserted copy", ("after the one the first pass found last", "reached its last record with"), True),
])
def test_an_input_that_changes_between_the_passes_stops_the_run(cleaners, tmp_path, change, says, fewer):
    """Sessions grouped by field are written at the record the first pass found last in each, so
    an input that changed in between could cut a session in two or write it with records missing:
    the run stops, saying so, with any --jobs; every file written is complete, exactly what a run
    over the unchanged input writes, and no temporary file is left."""
    project = tmp_path / "cleaner"
    shutil.copytree(cleaners["flat"], project)
    src = make_corpus(tmp_path / "raw", "flat", 20, 30)
    events = min(src.rglob("*.jsonl"))
    lines = events.read_text(encoding="utf-8").splitlines(keepends=True)
    for n in range(1, 4):  # the sessions spread over four files, interleaved
        (src / f"part-{n}.jsonl").write_text("".join(lines[n::4]), encoding="utf-8")
    events.write_text("".join(lines[0::4]), encoding="utf-8")
    ending = json.loads(lines[0])["run"]  # the first session, and the last file read that holds it
    last = max(i % 4 for i, line in enumerate(lines) if json.loads(line)["run"] == ending)
    ends_in = f"part-{last}.jsonl" if last else events.name
    reference = run_cleaner(project, src, tmp_path / "reference", "--jobs", "1")
    assert reference.returncode == 0, reference.stderr
    expected = tree_bytes(tmp_path / "reference")
    for jobs in (1, 2):
        seen = tmp_path / f"seen-{jobs}"
        seen.mkdir()
        hook = CHANGING_INPUT_HOOK.format(seen=str(seen), change=change, ending=ending, file=ends_in)
        (project / "cleaner_hooks.py").write_text(hook, encoding="utf-8")
        out = tmp_path / f"out-{jobs}"
        result = run_cleaner(project, src, out, "--jobs", str(jobs))
        assert result.returncode == 1, result.stderr
        assert "the input changed during the run" in result.stderr
        assert any(what in result.stderr for what in ((says,) if isinstance(says, str) else says))
        written = tree_bytes(out) if out.exists() else {}
        assert (len(written) < len(expected)) is fewer
        assert all(data == expected[name] for name, data in written.items())
        assert not any(out.rglob(".*.tmp")), "a temporary file was left behind"
