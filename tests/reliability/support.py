"""Shared pieces of the reliability tests: the mappings under test, a base session and runners.

Every run goes through a subprocess with a timeout, exactly as a user (or a cron job) runs a
rendered cleaner or the generator, so a hang fails the test instead of stalling it and a
traceback is seen the way a user would see it.
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import os
import subprocess
import sys
import threading
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 120

# The mappings the corpus runs through. They differ only in the policies the corpus exercises;
# `corpus` is the plain default-policy mapping (unknown kinds fail, bad lines are skipped).
_KINDS = [
    {"name": "user", "match": {"type": "user"}, "role": "user", "content": "text"},
    {"name": "assistant", "match": {"type": "assistant"}, "role": "assistant", "content": "text"},
    {"name": "call", "match": {"type": "call"}, "role": "tool_call", "call_id": "id", "tool_name": "name",
     "args": "args"},
    {"name": "result", "match": {"type": "result"}, "role": "tool_result", "content": "output",
     "result_link": "call_id"},
    {"name": "progress", "match": {"type": "progress"}, "role": "skip"},
]
_BASE = {"mapping_version": 1, "source": "corpus-agent", "source_profile": "generic",
         "session": {"by": "file"}, "timestamps": {"fields": ["ts"], "format": "auto"},
         "kinds": _KINDS, "unknown_kinds": "fail"}

MAPPINGS: dict[str, dict] = {
    "corpus": _BASE,
    "lenient": {**_BASE, "unknown_kinds": "skip", "sessions": {"without_user": "skip", "without_assistant": "skip"}},
    "strict": {**_BASE, "input": {"invalid_lines": "fail"}, "tools": {"orphan_results": "fail"}},
    "field": {**_BASE, "session": {"by": "field", "field": "sid"}},
    "field_skip": {**_BASE, "session": {"by": "field", "field": "sid", "missing": "skip"}},
    "mtime": {**_BASE, "timestamps": {"fields": ["ts"], "format": "auto", "fallback": "file_mtime"}},
    "element": {**_BASE, "input": {"records_path": "*.messages"}, "session": {"by": "element"}},
}

# One well-formed session of every record kind, and exactly what the cleaner must write for it.
T0 = "2026-05-16T09:00:0{}Z"
BASE = [
    {"type": "user", "text": "Please list the files.", "ts": T0.format(0)},
    {"type": "call", "id": "call_1", "name": "list_files", "args": {"path": "."}, "ts": T0.format(1)},
    {"type": "result", "call_id": "call_1", "output": "a.txt b.txt", "ts": T0.format(2)},
    {"type": "assistant", "text": "There are two files.", "ts": T0.format(3)},
]
META = '{"role":"meta","source":"corpus-agent"}\n'
OUT_USER = '{"role":"user","content":"Please list the files.","timestamp":"2026-05-16T09:00:00Z"}\n'
OUT_CALL = ('{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","name":"list_files",'
            '"args":"{\\"path\\":\\".\\"}"}],"timestamp":"2026-05-16T09:00:01Z"}\n')
OUT_RESULT = '{"role":"tool","tool_call_id":"call_1","content":"a.txt b.txt","timestamp":"2026-05-16T09:00:02Z"}\n'
OUT_ASSISTANT = '{"role":"assistant","content":"There are two files.","timestamp":"2026-05-16T09:00:03Z"}\n'
BASE_OUT = (META + OUT_USER + OUT_CALL + OUT_RESULT + OUT_ASSISTANT).encode()


def build_case(case, work: Path):
    """Build a corpus case's input in its own new folder ``work``: (what to pass as input, None), or
    ("", the exception) when building failed, which that case's own test reports."""
    work.mkdir()
    try:
        return case.build(work), None
    except Exception as exc:  # noqa: BLE001 - reported by the case's own test
        return "", exc


def line(record: dict) -> str:
    """One JSONL line; non-ASCII is escaped, so records can carry lone surrogates."""
    return json.dumps(record) + "\n"


def jsonl(records: list[dict]) -> str:
    return "".join(line(r) for r in records)


def write_mapping(name: str, folder: Path) -> Path:
    path = folder / f"{name}.yml"
    path.write_text(yaml.safe_dump(MAPPINGS[name], sort_keys=False), encoding="utf-8")
    return path


def render(name: str, dest: Path, samples: Path) -> Path:
    """A project rendered from MAPPINGS[name] the way `new --answers` renders it."""
    from generator.render import render_new

    rendered = render_new(MAPPINGS[name], [samples], dest)
    assert rendered.cleaner_exit == 0, rendered.cleaner_output
    return dest


def no_traceback(result: subprocess.CompletedProcess) -> None:
    text = (result.stdout or "") + (result.stderr or "")
    assert "Traceback" not in text, text
    assert "error: unexpected" not in result.stderr, result.stderr


def run_cleaner(project: Path, *args: str, cwd: Path | None = None, timeout: float = TIMEOUT,
                env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """Run the rendered cleaner as a user would; a hang fails the test after ``timeout``."""
    result = subprocess.run([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), *args],
                            capture_output=True, text=True, cwd=cwd, timeout=timeout, check=False,
                            env=env, **kwargs)
    no_traceback(result)
    return result


def run_generator(*args: str, cwd: Path | None = None, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True,
                            cwd=cwd, env=env, timeout=timeout, check=False)
    no_traceback(result)
    return result


def run_measured(cmd: list[str], cwd: Path, timeout: float = TIMEOUT) -> tuple[int, int, str, str]:
    """Run ``cmd`` and return (exit code, peak RSS in KiB of that process, stdout, stderr).

    ``os.wait4`` gives the resource usage of exactly this child (``RUSAGE_CHILDREN`` would be the
    maximum over every child the test process ever had).
    """
    out_path, err_path = cwd / ".measured.out", cwd / ".measured.err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    stdout = out_path.read_text(encoding="utf-8", errors="replace")
    stderr = err_path.read_text(encoding="utf-8", errors="replace")
    assert proc.returncode != -9, f"killed after {timeout}s (a hang)"
    assert "Traceback" not in stdout + stderr, stderr
    return proc.returncode, usage.ru_maxrss, stdout, stderr


def visible_files(root: Path) -> dict[str, bytes]:
    """Every file a consumer would see (hidden files and folders excluded), by relative path."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            files[rel.as_posix()] = path.read_bytes()
    return files


def hidden_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob(".*") if p.is_file())


def snapshot(root: Path) -> dict[str, object]:
    """Every entry under ``root`` (hidden ones too) without opening anything but regular files.

    Links are recorded by target (never followed: the corpus has loops) and FIFOs by kind (opening
    one would block), so that a test can prove a run changed exactly what it should.
    """
    entries: dict[str, object] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if rel.startswith(".measured."):
                continue
            if path.is_symlink():
                entries[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                entries[rel] = ("dir",)
            elif path.is_file():
                entries[rel] = path.read_bytes()
            else:
                entries[rel] = ("special",)
    return entries


def _cli_in_worker(work: str, argv: list[str]) -> tuple[int, str, str]:
    """`trajectory-cleaner ARGV` run by generator.cli.main in a forked worker, in ``work``."""
    from generator.cli import main

    out, err = io.StringIO(), io.StringIO()
    os.chdir(work)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _import_generator() -> None:
    import generator.cli
    import generator.infer.core  # the package imports its planner on first use; the workers want it loaded
    import generator.inspect_cmd
    import generator.new_cmd
    import generator.render  # noqa: F401


def run_cli_forked(jobs: list[tuple[Path, list[str]]], timeout: float = TIMEOUT) -> list:
    """Run many `trajectory-cleaner` commands in two forked workers that imported the generator once.

    Most of the cost of a short command is importing copier; each command still runs exactly
    what the command line runs (generator.cli.main), with its output captured. Returns, per job,
    a CompletedProcess or the exception (a hang is a TimeoutError).
    """
    results: list = []
    with multiprocessing.get_context("fork").Pool(2, initializer=_import_generator) as pool:
        waiting = [(argv, pool.apply_async(_cli_in_worker, (str(work), argv))) for work, argv in jobs]
        for argv, job in waiting:
            try:
                code, out, err = job.get(timeout=timeout)
                results.append(subprocess.CompletedProcess(argv, code, out, err))
            except Exception as exc:  # noqa: BLE001 - returned to the caller's test
                results.append(exc)
    return results
