"""The privacy boundary holds around the hooks: whatever cleaner_hooks.py adds or changes is
redacted, truncated and counted like the mapping's own records, and what the cleaner already
made private is not counted twice.

Each test renders one small project (``trajectory-cleaner new --answers``), replaces its
user-owned cleaner_hooks.py, runs the cleaner as a user does and reads the files and summary.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redaction_support import MAKERS, leaks

REPO = Path(__file__).resolve().parents[2]
RNG = random.Random(1818)
# synthetic values in real formats (never real credentials)
GITHUB = MAKERS["github-token"](RNG)
AWS_ID = MAKERS["aws-access-key-id"](RNG)
SECRET_IN_RAW = MAKERS["openai-api-key"](RNG)

MAPPING = {
    "mapping_version": 1, "source": "hook-agent", "source_profile": "generic",
    "session": {"by": "file"}, "timestamps": {"fields": ["ts"], "format": "auto"},
    "kinds": [
        {"name": "user", "match": {"type": "user"}, "role": "user", "content": "text"},
        {"name": "assistant", "match": {"type": "assistant"}, "role": "assistant", "content": "text"},
        {"name": "call", "match": {"type": "call"}, "role": "tool_call", "call_id": "id", "tool_name": "name",
         "args": "args"},
        {"name": "result", "match": {"type": "result"}, "role": "tool_result", "content": "output",
         "result_link": "call_id"},
    ],
}
RAW = [
    {"type": "user", "input": {"GITHUB_TOKEN": GITHUB}, "text": "Deploy with the key " + SECRET_IN_RAW,
     "ts": "2026-05-16T09:00:00Z"},
    {"type": "call", "id": "c1", "name": "shell", "args": {"cmd": "ls"}, "ts": "2026-05-16T09:00:01Z"},
    {"type": "result", "call_id": "c1", "output": "a.txt", "ts": "2026-05-16T09:00:02Z"},
    {"type": "assistant", "text": "Done.", "ts": "2026-05-16T09:00:03Z"},
]

# A hook that adds the run's input (read from the raw file, secrets and all) as a system record, a
# call whose args hold a key, a result far over the truncation limit, and changes a mapped record
# in place; the mapped user record (already redacted once) is returned untouched.
SESSION_HOOK = '''import json

HOOKS_API = 1


def transform_session(records, info):
    with open(info["files"][0], encoding="utf-8") as fh:
        first = json.loads(fh.readline())
    ts = records[1]["timestamp"]
    added = [
        {"role": "system", "content": "run input: " + json.dumps(first["input"]), "timestamp": ts},
        {"role": "assistant", "content": None, "timestamp": ts,
         "tool_calls": [{"id": "h1", "name": "env", "args": json.dumps({"AWS_ACCESS_KEY_ID": "%s"})}]},
        {"role": "tool", "tool_call_id": "h1", "content": "x" * 30000, "timestamp": ts},
    ]
    records[-1]["content"] = records[-1]["content"] + " token: %s"
    return records[:2] + added + records[2:]
'''

RECORD_HOOK = '''HOOKS_API = 1


def transform_record(record, where):
    if record.get("type") == "assistant":
        record = dict(record, text=record["text"] + " (deployed with %s)")
    return record
'''

IDENTITY_HOOK = '''HOOKS_API = 1


def transform_record(record, where):
    return record


def transform_session(records, info):
    return records
'''


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=180, check=False)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("hooks")
    raw = root / "raw"
    raw.mkdir()
    (raw / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RAW), encoding="utf-8")
    answers = root / "answers.yml"
    answers.write_text(yaml.safe_dump(MAPPING, sort_keys=False), encoding="utf-8")
    dest = root / "project"
    result = _run("-m", "generator", "new", str(raw), "--answers", str(answers), "-o", str(dest))
    assert result.returncode == 0, result.stdout + result.stderr
    return dest, raw


def _clean(project: tuple[Path, Path], hooks: str, out: Path) -> tuple[list[dict], str]:
    dest, raw = project
    (dest / "cleaner_hooks.py").write_text(hooks, encoding="utf-8")
    result = _run(str(dest / "clean_to_trajectory_jsonl.py"), "--input", str(raw), "--output", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    text = (out / "s.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()], result.stdout


def _redactions(summary: str) -> tuple[int, dict[str, int]]:
    """The summary's redaction total and its count per class (``  2 x github-token``)."""
    total = int(re.search(r"^redactions:\s+(\d+)", summary, re.MULTILINE).group(1))
    lines = re.finditer(r"^\s+(\d+) x ([a-z0-9-]+)$", summary, re.MULTILINE)
    return total, {m.group(2): int(m.group(1)) for m in lines}


def _truncated(summary: str) -> int:
    return int(re.search(r"^truncated strings:\s+(\d+)", summary, re.MULTILINE).group(1))


def test_identity_hooks_count_each_secret_once(project, tmp_path):
    records, summary = _clean(project, IDENTITY_HOOK, tmp_path / "out")
    text = json.dumps(records)
    assert not leaks(SECRET_IN_RAW, text)
    assert _redactions(summary)[0] == 1, summary  # the mapped secret, not counted again
    assert _truncated(summary) == 0


def test_records_a_session_hook_adds_or_changes_are_redacted_truncated_and_counted(project, tmp_path):
    hooks = SESSION_HOOK % (AWS_ID, GITHUB)
    records, summary = _clean(project, hooks, tmp_path / "out")
    text = json.dumps(records)
    for secret in (GITHUB, AWS_ID, SECRET_IN_RAW):
        assert not leaks(secret, text), (secret, text[:2000])
    roles = [r["role"] for r in records]
    assert roles == ["meta", "user", "system", "assistant", "tool", "assistant", "tool", "assistant"]
    added = records[2]
    assert added["content"].startswith("run input: ") and "[REDACTED:" in added["content"]
    assert "[REDACTED:" in json.loads(records[3]["tool_calls"][0]["args"])["AWS_ACCESS_KEY_ID"]
    assert "characters truncated" in records[4]["content"] and len(records[4]["content"]) <= 20000
    assert records[-1]["content"].startswith("Done. token: [REDACTED:")
    total, per_class = _redactions(summary)
    # the mapped key once; the added GitHub token, AWS key id and the changed record's token
    assert total == 4, summary
    assert per_class.get("github-token") == 2 and per_class.get("aws-access-key-id") == 1, summary
    assert _truncated(summary) == 1, summary


def test_records_transform_record_returns_are_redacted_and_counted(project, tmp_path):
    records, summary = _clean(project, RECORD_HOOK % GITHUB, tmp_path / "out")
    text = json.dumps(records)
    assert not leaks(GITHUB, text) and not leaks(SECRET_IN_RAW, text)
    assert "(deployed with [REDACTED:github-token])" in records[-1]["content"]
    total, per_class = _redactions(summary)
    assert total == 2 and per_class.get("github-token") == 1, summary


# Version 2 hooks that add records before mapping: each added record holds a planted secret (a
# GitHub token; the run's input from the raw record, an AWS key id), and every one is mapped,
# redacted and counted like the records the file holds.
ADDING_HOOKS = '''HOOKS_API = 2


def transform_document(records, ctx):
    first = records[0]
    note = {"type": "user", "text": "context: " + json.dumps(first["input"]), "ts": first["ts"]}
    return [note] + records


def transform_record(record, ctx):
    if record.get("type") == "call":
        return [record, {"type": "assistant", "text": "calling with %s", "ts": record["ts"]}]
    return record


def transform_kind(record, ctx):
    if ctx.kind == "result":
        return [record, {"type": "assistant", "text": "key id %s seen", "ts": record["ts"]}]
    return record
'''


def test_records_hooks_add_before_mapping_are_redacted_and_counted(project, tmp_path):
    hooks = "import json\n" + ADDING_HOOKS % (GITHUB, AWS_ID)
    records, summary = _clean(project, hooks, tmp_path / "out")
    text = json.dumps(records)
    for secret in (GITHUB, AWS_ID, SECRET_IN_RAW):
        assert not leaks(secret, text), (secret, text[:2000])
    roles = [r["role"] for r in records]
    assert roles == ["meta", "user", "user", "assistant", "assistant", "tool", "assistant", "assistant"]
    assert records[1]["content"].startswith("context: {") and "[REDACTED:github-token]" in records[1]["content"]
    assert records[4]["content"] == "calling with [REDACTED:github-token]"
    assert records[6]["content"].startswith("key id [REDACTED:")
    total, per_class = _redactions(summary)
    # the mapped key once; the GitHub token of the added context and of the split record; the AWS key id
    assert total == 4, summary
    assert per_class.get("github-token") == 2 and per_class.get("aws-access-key-id") == 1, summary
