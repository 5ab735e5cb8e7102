"""`new --yes` on Letta's own fixtures of the harnesses it reads natively (claude-code, codex): the
cleaner writes what Letta's normalizer wrote (`expected.json`), or `new` refuses. Never a different
output with exit 0: before the native rules of generator/infer/draft.py, three of the five cases were
(a `<command-name>` row kept as the person's, an `<environment_context>` row kept, a call output
written as a call).

Two differences are not the cleaner's to remove: Letta synthesises times for records that have none
(these fixtures hold none), where a rendered cleaner takes the file's time, so times are not compared;
and an `ok` the format states (Codex's `status: completed`) that Letta's adapter does not read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..render.conftest import SHARED

REPO = Path(__file__).resolve().parents[2]
CASES = [(s, c) for s in ("claude-code", "codex")
         for c in (sorted(p.name for p in (SHARED / "upstream-fixtures" / s).iterdir())
                   if (SHARED / "upstream-fixtures" / s).is_dir() else ["(absent)"])]


def _comparable(records: list[dict], letta: list[dict]) -> list[dict]:
    out = []
    for record, theirs in zip(records, [*letta, *[{}] * len(records)]):
        kept = {k: v for k, v in record.items() if k != "timestamp"}
        if "ok" in kept and "ok" not in theirs and kept["ok"] is True:
            del kept["ok"]
        out.append(kept)
    return out


@pytest.mark.parametrize(("source", "case"), CASES, ids=[f"{s}/{c}" for s, c in CASES])
def test_new_yes_writes_what_letta_writes_or_refuses(tmp_path, source, case):
    folder = SHARED / "upstream-fixtures" / source / case
    if not folder.is_dir():
        pytest.skip(f"{folder} is not present")
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(folder / "input.jsonl", raw / "input.jsonl")
    os.utime(raw / "input.jsonl", (1767225600, 1767225600))
    done = subprocess.run([sys.executable, "-m", "generator", "new", str(raw), "--yes", "--source", source,
                           "-o", str(tmp_path / "cleaner")], check=False, capture_output=True, text=True, cwd=REPO,
                          timeout=600)
    if done.returncode == 1:
        return  # a refusal is right: it names what it could not decide
    assert done.returncode == 0, done.stderr[-2000:]
    cleaned = subprocess.run([sys.executable, str(tmp_path / "cleaner" / "clean_to_trajectory_jsonl.py"),
                              "--input", str(raw), "--output", str(tmp_path / "out")],
                             check=False, capture_output=True, text=True, timeout=600)
    assert cleaned.returncode == 0, cleaned.stderr[-2000:]
    got = [json.loads(line) for p in sorted((tmp_path / "out").rglob("*.jsonl"))
           for line in p.read_text(encoding="utf-8").splitlines()]
    letta = json.loads((folder / "expected.json").read_text(encoding="utf-8"))["records"]
    want = [{k: v for k, v in r.items() if k != "timestamp"} for r in letta]
    assert _comparable(got, letta) == want
