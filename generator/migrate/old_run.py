"""Running the old cleaner on the samples (opt-in: ``--run-old``), kept at arm's length.

Its output is the best evidence of the mapping it embodies, but it is the user's code: it runs
in a subprocess, in a scratch folder, with no stdin and a timeout per sample, through the
``--input``/``--output`` interface the old cleaners shared.
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from generator.migrate.old_shape import OLD_INCLUDE


@dataclass
class OldRun:
    """The old script's run on the samples: its output files, or why there are none."""

    files: list[tuple[Path, str]] = field(default_factory=list)  # (path, name shown in reports)
    error: str | None = None
    log: list[str] = field(default_factory=list)


def run_old_script(script: Path, shown: str, samples: list[Path], timeout: float, work: Path) -> OldRun:
    """Run ``python OLD --input SAMPLE --output DIR`` per sample in a subprocess with a timeout."""
    run = OldRun()
    cwd = work / "cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    for k, sample in enumerate(samples, 1):
        out = work / "old-output" / f"{k}"
        if not _run_on(run, script, shown, sample, out, cwd, env, timeout):
            return run
        for path in _written(out):
            rel = path.relative_to(out).as_posix()
            run.files.append((path, rel if len(samples) == 1 else f"{sample.name}/{rel}"))
    if not run.files:
        run.error = f"{shown}: wrote no .jsonl files to --output for the samples"
    return run


def _run_on(run: OldRun, script: Path, shown: str, sample: Path, out: Path, cwd: Path, env: dict,
            timeout: float) -> bool:
    """One run of the old script, logged; False (``run.error`` set) when it hung, crashed or failed."""
    command = [sys.executable, str(script.resolve()), "--input", str(sample.resolve()), "--output", str(out)]
    try:
        proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                              check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        run.error = f"{shown}: still running after {timeout:g}s on {sample}; raise --timeout or check the script"
        return False
    except OSError as exc:
        run.error = f"{shown}: cannot run ({exc.strerror or exc})"
        return False
    tail = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or [""])[-1]
    run.log.append(f"python {shown} --input {sample} --output OUT: exit {proc.returncode}"
                   + (f" ({tail[:200]})" if tail else ""))
    if proc.returncode != 0:
        run.error = f"{shown}: exited {proc.returncode} on {sample}" + (f": {tail[:300]}" if tail else "")
        return False
    return True


def _written(out: Path) -> list[Path]:
    """The trace files the old script wrote under ``out``, sorted."""
    return sorted(p for p in out.rglob("*") if p.is_file()
                  and any(fnmatch.fnmatch(p.name.lower(), pattern) for pattern in OLD_INCLUDE))
