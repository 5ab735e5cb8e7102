"""The rendered script is its format's adapter: code a person can read, run and change.

What the code means is tested against ``convert.Kind`` in tests/runtime/test_generated_code.py;
here, what a user sees: the code for hostile kind names and fields is valid and ruff-clean, the
script's own functions are what runs (in one process and in worker processes), and an answers file
edited without regenerating is refused.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from generator.adapter_code import condition, fit, identifier, load_source, script_source
from generator.render import complete, render_template

from .conftest import ANSWERS, read_jsonl

HOSTILE = {
    "mapping_version": 1, "source": "t",
    "kinds": [
        {"name": 'say "hi"\nand {{ bye }}', "match": {"type": "user", 'q"k.é': ["a'b'c", 'x"y']}, "role": "user",
         "content": [["a.b", "c"], "text"]},
        {"name": 'say "hi"\nand {{ bye }}', "match": {"type": "bot"}, "role": "assistant", "content": "text"},
        {"name": "kind_of", "match": {"type": "call"}, "role": "tool_call", "content": "x", "tool_name": {"value": "sh"},
         "args": "cmd", "args_key": "command"},
        {"name": "class", "match": {"type": "res"}, "role": "tool_result", "content": "out",
         "ok": {"path": "exit", "range": [0, 0]}},
        {"name": "émoji ✓", "match": {"type": "noise"}, "role": "skip", "content": "x"},
    ],
    "timestamps": {"fields": ["ts"]},
}


def test_names_are_identifiers_that_never_clash():
    taken: set[str] = set()
    names = [identifier(text, taken, f"kind_{i}") for i, text in enumerate(
        ["user message", "user message", "type", "kind_of", "123", "émoji ✓", "class", "model response (reasoning, text)"])]
    assert names == ["user_message", "user_message_2", "type_", "kind_of_", "kind_4", "moji", "class_", "model_response"]


def test_long_calls_and_conditions_are_laid_out_one_part_per_line():
    long = 'out.text("user", content(record, ("attributes", "gen_ai.input.messages", "value", "stringValue", 0, "parts", "text")), at)'
    assert fit(long, 4) == ('out.text(\n        "user",\n        content(record, ("attributes", "gen_ai.input.messages", '
                            '"value", "stringValue", 0, "parts", "text")),\n        at,\n    )')
    assert fit("x = first(record)", 4) == "x = first(record)"
    parts = [f'present(field(record, "{"k" * 50}"))', f'not present(field(record, "{"j" * 50}"))']
    assert condition(parts, 4) == f"if (\n        {parts[0]}\n        and {parts[1]}\n    ):"


def test_hostile_names_and_values_give_valid_clean_code(tmp_path):
    source = script_source(HOSTILE)
    module = load_source(source)  # compiles, and runs its definitions
    assert module.kind_of({"type": "user", 'q"k': {"é": "a'b'c"}}).name == 'say "hi"\nand {{ bye }}'
    assert module.kind_of({"type": "bot"}).name == 'say "hi"\nand {{ bye }}'
    assert module.kind_of({"type": "call"}).__name__ == "kind_of_"
    assert module.kind_of({"type": "other"}) is None
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    (tmp_path / "script.py").write_text(source, encoding="utf-8")
    result = subprocess.run([ruff, "check", "--no-cache", "--select", "E,F,W,I,B,UP", "--line-length", "120",
                             str(tmp_path / "script.py")], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout


@pytest.fixture
def project(tmp_path) -> Path:
    mapping = complete(yaml.safe_load((ANSWERS / "role-content.yml").read_text(encoding="utf-8")))
    render_template(mapping, tmp_path / "cleaner")
    return tmp_path / "cleaner"


def raw_sessions(folder: Path, count: int) -> Path:
    folder.mkdir()
    for n in range(count):
        lines = [{"role": "user", "content": f"question {n}", "timestamp": "2026-05-16T09:00:00Z"},
                 {"role": "assistant", "content": f"answer {n}", "timestamp": "2026-05-16T09:00:01Z"}]
        (folder / f"s{n}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return folder


def run(project: Path, raw: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", str(raw),
                           "--output", str(out), *extra], capture_output=True, text=True, check=False, timeout=300)


def test_the_script_s_own_functions_are_what_runs_in_every_process(project, tmp_path):
    script = project / "clean_to_trajectory_jsonl.py"
    text = script.read_text(encoding="utf-8")
    head, _, body = text.partition("def assistant_message(out: Out, record: dict) -> None:")
    assert body, "the role-content mapping names its assistant kind 'assistant message'"
    edited = body.replace('content(record, "content")', 'content(record, "content").upper()', 1)
    assert edited != body
    script.write_text(head + "def assistant_message(out: Out, record: dict) -> None:" + edited, encoding="utf-8")
    raw = raw_sessions(tmp_path / "raw", 4)
    for jobs in ("1", "2"):
        result = run(project, raw, tmp_path / f"out{jobs}", "--jobs", jobs)
        assert result.returncode == 0, result.stderr
        for n in range(4):
            records = read_jsonl(tmp_path / f"out{jobs}" / f"s{n}.jsonl")
            assert [r["content"] for r in records if r["role"] == "assistant"] == [f"ANSWER {n}"]


def test_an_answers_file_edited_without_regenerating_is_refused(project, tmp_path):
    answers = project / ".copier-answers.yml"
    text = answers.read_text(encoding="utf-8")
    assert '"role": "assistant"' in text
    answers.write_text(text.replace('"role": "assistant"', '"role": "system"', 1), encoding="utf-8")
    result = run(project, raw_sessions(tmp_path / "raw", 1), tmp_path / "out")
    assert result.returncode == 2
    assert "changed since clean_to_trajectory_jsonl.py was generated" in " ".join(result.stderr.split())
    assert "trajectory-cleaner update ." in result.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
