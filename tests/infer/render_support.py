"""`new --yes` on a folder of samples, then the rendered cleaner on them: what the e2e inference tests
check (the output records), with each step's failure shown in full."""

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def render_and_clean(samples: Path, source: str, work: Path) -> dict[str, list[dict]]:
    """The records the cleaner `new --yes` rendered writes for ``samples``, by output file path
    (relative to the output folder: a file of several sessions writes a folder of them)."""
    out = work / "project"
    done = subprocess.run([sys.executable, "-m", "generator", "new", str(samples), "--yes", "--source", source,
                           "-o", str(out)], cwd=REPO, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    clean = work / "clean"
    ran = subprocess.run([sys.executable, str(out / "clean_to_trajectory_jsonl.py"), "--input", str(samples),
                          "--output", str(clean)], capture_output=True, text=True, check=False, timeout=120)
    assert ran.returncode == 0, ran.stderr
    return {path.relative_to(clean).as_posix(): [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            for path in sorted(clean.rglob("*.jsonl"))}
