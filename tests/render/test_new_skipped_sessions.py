"""`new` says which sample sessions write nothing (issue 35, defect 7: `new` exited 0 and said nothing
when a sample session wrote nothing; the cleaner skips and counts it, and so does the render's report)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from generator.new_cmd import skipped_sessions

REPO = Path(__file__).resolve().parents[2]


def test_the_summary_lines_of_skipped_sessions():
    summary = ("files read:        4\nsessions written:  3\nsessions skipped:  1\n  runs/chat9.jsonl: no records to "
               "write\nitems skipped:     1\n  1 x kind 'heartbeat (skip)'\n")
    assert skipped_sessions(summary) == ["runs/chat9.jsonl: no records to write"]
    assert skipped_sessions("sessions written:  3\nsessions skipped:  0\nitems skipped: 0\n") == []


def test_new_names_a_sample_session_that_writes_nothing(tmp_path):
    samples = tmp_path / "runs"
    samples.mkdir()
    for n in range(3):
        records = [{"type": "message", "role": "user", "text": f"Please reset router number {n} now.",
                    "ts": "2026-05-16T09:00:00Z"},
                   {"type": "message", "role": "assistant", "text": f"Router {n} has been reset for you.",
                    "ts": "2026-05-16T09:00:05Z"}]
        (samples / f"chat{n}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (samples / "chat9.jsonl").write_text(json.dumps({"type": "heartbeat", "ts": "2026-05-16T09:00:00Z"}) + "\n",
                                         encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "generator", "new", str(samples), "--yes", "-o",
                           str(tmp_path / "p")], cwd=REPO, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "notice: a sample session writes nothing" in done.stderr
    assert f"{samples / 'chat9.jsonl'}: no records to write" in done.stderr
