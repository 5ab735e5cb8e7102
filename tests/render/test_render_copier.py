"""`new` renders through copier's public API only: the project is what copier renders from the
template, plus the runtime package (plain files, the bytes and modes of the package the generator
imports) and the agent prompt; the expected outputs are what the rendered cleaner writes.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cleaner_runtime.mapping import with_defaults
from generator.answers import load_answers
from generator.render import (
    ANSWERS_FILE,
    complete,
    copier_data,
    render_new,
    render_template,
    run_cleaner,
)

from .conftest import ANSWERS, REPO

EXAMPLES = sorted(ANSWERS.glob("*.yml"))


def files(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("answers", EXAMPLES[:2], ids=lambda p: p.stem)
def test_the_template_renders_as_copier_alone_renders_it(tmp_path: Path, answers: Path):
    import copier

    mapping = complete(load_answers(answers))
    render_template(mapping, tmp_path / "fast")
    copier.run_copy(str(REPO / "template"), str(tmp_path / "plain"), data=copier_data(mapping),
                    answers_file=ANSWERS_FILE, defaults=True, overwrite=True, unsafe=True,
                    settings=copier.Settings(), quiet=True)
    fast, plain = files(tmp_path / "fast"), files(tmp_path / "plain")
    # written by render_template, not by copier: the prompt, and the runtime package (plain files,
    # the bytes and modes of the package the generator imports, without caches)
    runtime = {f"cleaner_runtime/{rel}": entry for rel, entry in files(REPO / "cleaner_runtime").items()
               if "__pycache__" not in rel and not rel.endswith((".pyc", ".pyo"))}
    assert set(fast) - set(plain) == {"AGENT_PROMPT.md", *runtime}
    assert {rel: fast[rel] for rel in runtime} == runtime
    assert not [p for p in (tmp_path / "fast").rglob("*") if p.is_symlink() or p.name in ("__pycache__", ".ruff_cache")]
    for rel, (data, mode) in plain.items():
        assert fast[rel][0] == data, rel
        if rel != "clean_to_trajectory_jsonl.py":  # made executable by render_template
            assert fast[rel][1] == mode, rel


def test_expected_outputs_are_what_the_rendered_cleaner_writes(tmp_path: Path):
    samples = REPO / "examples" / "support-desk" / "raw"
    project = render_new(load_answers(ANSWERS / "support-desk.yml"), [samples], tmp_path / "p").path
    copy = project / "tests" / "samples"
    mtimes = json.loads((project / "tests" / "expected" / "_mtimes.json").read_text(encoding="utf-8"))
    for rel, mtime in mtimes.items():
        os.utime(copy / rel, (mtime, mtime))
    result = run_cleaner(project, copy, tmp_path / "again")
    assert result.returncode == 0, result.stderr
    expected = {p.relative_to(project / "tests" / "expected"): p.read_bytes()
                for p in (project / "tests" / "expected").rglob("*.jsonl")}
    again = {p.relative_to(tmp_path / "again"): p.read_bytes() for p in (tmp_path / "again").rglob("*.jsonl")}
    assert expected and again == expected


def test_no_library_is_patched_or_stubbed_to_render():
    """copier and its prompting libraries are imported the ordinary way (nothing stands in for them)."""
    code = ("import sys\nfrom generator.render import render_template\nimport copier\n"
            "print(type(sys.modules['copier']).__name__, any(type(f).__module__.startswith('generator') "
            "for f in sys.meta_path))")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["module", "False"]


def test_a_command_imports_only_what_it_needs():
    code = ("import sys\nfrom generator.cli import main\ntry:\n    main(['validate', '--help'])\n"
            "except SystemExit:\n    pass\nprint('copier' in sys.modules, 'generator.new_cmd' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "False False"


def test_the_answers_file_of_a_render_is_the_one_copy_of_the_mapping(tmp_path: Path):
    """The answers file holds the mapping, as YAML readers (copier's, update's) read it too; the
    script holds none of it, and no path of the machine that rendered the project is recorded."""
    mapping = complete(load_answers(ANSWERS / "pi.yml"))
    render_template(mapping, tmp_path / "p")
    text = (tmp_path / "p" / ANSWERS_FILE).read_text(encoding="utf-8")
    stored = yaml.safe_load(text)
    assert with_defaults({key: stored[key] for key in mapping if key in stored}) == mapping
    assert stored == json.loads("\n".join(line for line in text.splitlines() if not line.startswith("#")))
    assert not [key for key in stored if key.startswith("_")] and str(REPO) not in text
    # entries that hold nothing but their default are left out
    assert "children" not in stored["input"] and "drop_fields" not in stored["privacy"] and "[]" not in text
    script = (tmp_path / "p" / "clean_to_trajectory_jsonl.py").read_text(encoding="utf-8")
    assert "SOURCE" not in script and "KINDS" not in script and "main(HERE / \".copier-answers.yml\"" in script
