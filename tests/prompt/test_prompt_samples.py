"""`prompt --include-samples` shows shortened, redacted sample records for every container the
cleaner reads: JSONL, JSON arrays (plain, pretty-printed, gzipped), arrays of conversations whose
records sit one level down, JSON objects holding a record list, and CSV. The samples are records
with their values, read as the rendered cleaner would read them, never a document's head."""

from __future__ import annotations

import csv
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOKEN = "ghp_" + "R8d2kXq7Lm4Np9Vt3Yz6Bc1Wf5Hj0Ks8Ue2A"  # synthetic, in GitHub's format
PHRASE = "the nightly export failed at step"


def messages(run: int, n: int = 6, pad: int = 0) -> list[dict]:
    out = []
    for i in range(n):
        text = (f"{PHRASE} {i} of run {run}, my token is {TOKEN}" if i == 0 else
                f"Looking at run {run}, step {i}. " + "The log says the disk was full. " * pad)
        out.append({"role": "user" if i % 2 == 0 else "assistant", "content": text,
                    "created_at": f"2026-05-16T09:{i:02d}:00Z"})
    return out


def write(folder: Path, container: str) -> None:
    folder.mkdir(parents=True)
    for run in range(3):
        if container == "jsonl":
            (folder / f"run-{run}.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages(run)))
        elif container == "json-array":
            (folder / f"run-{run}.json").write_text(json.dumps(messages(run)))
        elif container == "json-array-pretty-long":
            (folder / f"run-{run}.json").write_text(json.dumps(messages(run, 40, pad=30), indent=2))
        elif container == "json-array-gz":
            (folder / f"run-{run}.json.gz").write_bytes(gzip.compress(json.dumps(messages(run)).encode()))
        elif container == "conversations":
            convs = [{"id": f"conv-{run}-{j}", "title": "Export", "messages": messages(run * 10 + j)} for j in range(3)]
            (folder / f"export-{run}.json").write_text(json.dumps(convs))
        elif container == "json-object":
            (folder / f"run-{run}.json").write_text(json.dumps({"run": {"id": f"r{run}"}, "messages": messages(run)}))
        elif container == "csv":
            with (folder / f"run-{run}.csv").open("w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, fieldnames=["role", "content", "created_at"])
                writer.writeheader()
                writer.writerows(messages(run))


def samples(folder: Path) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-m", "generator", "prompt", str(folder), "--include-samples"],
                            capture_output=True, text=True, env=env, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert TOKEN[4:12] not in text, "a secret of the samples reached the prompt"
    assert "## Sample records (shortened, secrets redacted)" in text, text[-3000:]
    section = text.split("## Sample records (shortened, secrets redacted)", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in section.splitlines() if line.startswith("    ")]


@pytest.mark.parametrize("container", ["jsonl", "json-array", "json-array-pretty-long", "json-array-gz",
                                       "conversations", "json-object", "csv"])
def test_samples_for_every_container(tmp_path, container):
    folder = tmp_path / container
    write(folder, container)
    shown = samples(folder)
    assert len(shown) >= 2, shown
    assert all(len(line) <= 400 for line in shown), shown
    records = [json.loads(line) for line in shown if not line.endswith("…")]
    assert records, shown
    # records with their values, not a document's head: the message text itself is shown
    assert any(PHRASE in line for line in shown), shown
    assert any("[REDACTED:github-token]" in line for line in shown), shown
    assert {"user", "assistant"} <= {r.get("role") for r in records}, shown  # one of each kind first


def test_long_values_are_shortened_value_by_value(tmp_path):
    folder = tmp_path / "long"
    write(folder, "json-array-pretty-long")
    shown = samples(folder)
    long_ones = [json.loads(line) for line in shown if "The log says" in line]
    assert long_ones, shown
    for record in long_ones:
        assert record["content"].endswith("…") and len(record["content"]) <= 120
        assert record["created_at"].startswith("2026-05-16T09:")  # the fields after it are still shown
