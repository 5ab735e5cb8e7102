"""The bad-input corpus through rendered cleaners: every case ends exactly as documented.

All cases run once (in parallel, each in its own folder, each a subprocess with a timeout);
the parametrized tests then check each outcome: the exit code, the message naming file and line
and the answer or flag that would fix it, the exact files written, and that the run changed
nothing else (inputs untouched, no temporary file left behind).
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import hooked_copy, unreadable_prefix
from .corpus import CASES, Case
from .support import TIMEOUT, no_traceback, snapshot


@dataclass
class Ran:
    work: Path
    result: subprocess.CompletedProcess | None = None
    before: dict | None = None
    after: dict | None = None
    skip: str | None = None
    error: BaseException | None = None


def run_case(case: Case, work: Path, project: Path, prefix: list[str]) -> Ran:
    work.mkdir(parents=True)
    ran = Ran(work)
    try:
        given = case.build(work)
        ran.before = snapshot(work)
        for rel in case.unreadable:
            (work / rel).chmod(0)
        env = {**os.environ, **case.env}
        cmd = [*prefix, sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", given,
               "--output", case.output, *case.args]
        for _ in range(case.runs):
            ran.result = subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=env, timeout=TIMEOUT,
                                        check=False)
        for rel in case.unreadable:
            (work / rel).chmod(0o755 if (work / rel).is_dir() else 0o644)
        ran.after = snapshot(work)
    except Exception as exc:  # noqa: BLE001 - reported by the case's own test
        ran.error = exc
    return ran


@pytest.fixture(scope="session")
def cleaner_results(projects, tmp_path_factory) -> dict[str, Ran]:
    root = tmp_path_factory.mktemp("corpus")
    prefix, no_block = unreadable_prefix(root)

    def one(case: Case) -> Ran:
        if case.unreadable and no_block:
            return Ran(root / case.id, skip=no_block)
        project = projects[case.mapping]
        if case.hooks:
            project = hooked_copy(project, case.hooks, root / f"{case.id}.project")
        return run_case(case, root / case.id, project, prefix if case.unreadable else [])

    with ThreadPoolExecutor(4) as pool:
        return dict(zip((c.id for c in CASES), pool.map(one, CASES)))


def test_the_corpus_has_at_least_40_distinct_cases():
    ids = [case.id for case in CASES]
    assert len(ids) >= 40 and len(set(ids)) == len(ids)


def output_path(case: Case, work: Path) -> str:
    """The output folder relative to the work folder, however the case spelled it."""
    return os.path.relpath(os.path.normpath(work / case.output), work)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_cleaner_outcome(case: Case, cleaner_results: dict[str, Ran]):
    ran = cleaner_results[case.id]
    if ran.skip:
        pytest.skip(ran.skip)
    if ran.error is not None:
        raise ran.error
    result = ran.result
    assert result is not None
    no_traceback(result)
    shown = f"exit {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    assert result.returncode == case.exit, shown
    for text in case.stdout:
        assert text in result.stdout, shown
    for text in case.stderr:
        assert text in result.stderr, shown
    if case.fix:
        assert case.fix in result.stdout + result.stderr, shown
    if result.returncode != 0:  # every problem is one line starting with "error:" (argparse: "usage:" too)
        errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error:") or ": error:" in ln]
        assert errors, shown

    # The run changed exactly the expected output files, and nothing else: inputs untouched, no
    # temporary file left behind, nothing written after a usage error.
    out = output_path(case, ran.work)
    before, after = dict(ran.before), dict(ran.after)
    prefix = "" if out == "." else out + "/"
    if case.out is None:
        new = {k: v for k, v in after.items() if k.startswith(prefix) and k not in before}
        assert all(isinstance(v, bytes) for v in new.values()), new
        assert not [k for k in new if "/." in "/" + k[len(prefix):]], f"hidden files left: {sorted(new)}"
    else:
        expected = dict(before)
        for rel, data in case.out.items():
            expected[prefix + rel] = data
        if case.out:
            parts = out.split("/")
            for i in range(1, len(parts) + 1):
                expected.setdefault("/".join(parts[:i]), ("dir",))
            for rel in case.out:
                sub = rel.split("/")[:-1]
                for i in range(1, len(sub) + 1):
                    expected.setdefault(prefix + "/".join(sub[:i]), ("dir",))
        elif out not in before and out in after and after[out] == ("dir",):
            expected[out] = ("dir",)  # an empty output folder created before the work found nothing
        changed = sorted(k for k in set(expected) | set(after) if expected.get(k) != after.get(k))
        assert not changed, f"unexpected changes: {changed}\n{shown}"
    if case.check is not None:
        case.check(ran.work / case.output)
