"""Kinds are told apart by what a record is, never by a value that only describes it (issue 35,
defect 5): the model that wrote a reply, the file a tool touched. A split on them would give each
model its own rule, and the next session's new model would be an unknown kind at clean time."""

from __future__ import annotations

import json
from pathlib import Path

from generator.inspect.profile import profile_paths


def _write(folder: Path, name: str, records: list[dict]) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)



def _session(n: int, model: str, extra: dict) -> list[dict]:
    return [{"type": "user", "text": f"Please check export job number {n} for errors.", "at": f"2026-01-0{n}T00:00:00Z"},
            {"type": "assistant", "model": model, "text": f"Job {n} failed at the upload step.",
             "at": f"2026-01-0{n}T00:00:05Z", **extra}]


def test_replies_of_two_models_are_one_kind(tmp_path):
    paths = [_write(tmp_path, "a.jsonl", _session(1, "model-large-2025", {"usage": {"in": 10, "out": 4}})),
             _write(tmp_path, "b.jsonl", _session(2, "model-small-2024", {"stop": "end", "latency_ms": 80}))]
    kinds = profile_paths(paths).kinds
    assert not any("model" in kind.key for kind in kinds), [kind.key for kind in kinds]


def test_records_about_two_files_are_one_kind(tmp_path):
    records = [{"event": "prompt", "text": "Tidy the two modules, please.", "at": "2026-01-01T00:00:00Z"}]
    for n, (file, extra) in enumerate([("src/app/main.py", {"lines": 40}), ("src/app/util.py", {"bytes": 900}),
                                       ("src/app/main.py", {"lines": 41}), ("src/app/util.py", {"bytes": 901})]):
        records.append({"event": "edit", "file": file, "text": f"edited {file} ({n})", "at": f"2026-01-01T00:00:0{n + 1}Z",
                        **extra})
    kinds = profile_paths([_write(tmp_path, "run.jsonl", records)]).kinds
    assert not any("src/app" in kind.key for kind in kinds), [kind.key for kind in kinds]
