"""The decisions of an inference (their text, best guess and candidates, in order) are the same
whatever Python's hash seed: a decision's candidates follow the samples, never a set's order (the
search then settles some of them on the samples' outputs; its choice must not follow the seed
either)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUN_TREE = REPO / "tests" / "fixtures" / "langsmith_run_tree" / "agent_run" / "raw"

PROGRAM = ("import json, sys; from generator.infer import infer; "
           "print(json.dumps([[q.to_dict() for q in infer([p], source='x').decisions] for p in sys.argv[1:]]))")


def _lists(n: int, text: str) -> list:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"{text} {i}"} for i in range(n)]


def _several_lists(folder: Path) -> Path:
    """Two JSON objects, each with several lists of objects: `history` is the longest in both,
    `notes` is in both files, `attachments` in one only."""
    folder.mkdir(parents=True)
    documents = {
        "a.json": {"id": "a", "history": _lists(6, "turn"), "attachments": _lists(3, "file"), "notes": _lists(2, "note")},
        "b.json": {"id": "b", "history": _lists(6, "turn"), "notes": _lists(4, "note")},
    }
    for name, document in documents.items():
        (folder / name).write_text(json.dumps(document, indent=2), encoding="utf-8")
    return folder


def _questions_under_seeds(paths: list[Path]) -> list[str]:
    outputs = []
    for seed in ("0", "1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", PROGRAM, *map(str, paths)], capture_output=True, text=True,
                              env=env, cwd=REPO, check=True)
        outputs.append(done.stdout)
    return outputs


def test_the_decisions_and_their_candidates_are_the_same_whatever_the_hash_seed(tmp_path):
    outputs = _questions_under_seeds([RUN_TREE, _several_lists(tmp_path / "several")])
    assert len(set(outputs)) == 1, outputs
    run_tree, several = json.loads(outputs[0])
    records_path = {q["key"]: q for q in run_tree}["input.records_path"]
    # the document's own ranking (the longest list first), not a set's
    offered = list(dict.fromkeys([records_path["value"], *records_path["candidates"]]))
    assert offered == ["outputs.messages", "child_runs", "events", "inputs.messages"]
    records_path = {q["key"]: q for q in several}["input.records_path"]
    # the lists every file offers first, then the others, each file ranking its lists longest first
    offered = list(dict.fromkeys([records_path["value"], *records_path["candidates"]]))
    assert offered == ["history", "notes", "attachments"]
