"""`trajectory-cleaner update`: user work survives, hand edits are reported, outputs are guarded."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "support-desk" / "raw"
ANSWERS = REPO / "examples" / "answers" / "support-desk.yml"


def cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True,
                          env=env, timeout=300, check=False)


def tree_hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    dest = tmp_path / "support-cleaner"
    result = cli("new", str(EXAMPLE), "--answers", str(ANSWERS), "-o", str(dest))
    assert result.returncode == 0, result.stderr
    return dest


def test_fresh_project_is_up_to_date(project: Path):
    result = cli("update", str(project), "--check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "up to date" in result.stdout


def test_older_template_is_upgraded_silently(project: Path):
    """A file as an older template generated it (its hash in the manifest) is simply replaced."""
    readme = project / "README.md"
    readme.write_text("# written by template version 0\n", encoding="utf-8")
    manifest_path = project / ".trajectory-cleaner" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["README.md"] = hashlib.sha256(readme.read_bytes()).hexdigest()
    manifest["template_version"] = 0
    manifest["files"]["OLD_NOTES.md"] = hashlib.sha256(b"obsolete\n").hexdigest()
    (project / "OLD_NOTES.md").write_bytes(b"obsolete\n")
    manifest_path.write_text(json.dumps(manifest))
    check = cli("update", str(project), "--check")
    assert check.returncode == 1 and "README.md" in check.stdout and "0 -> 2" in check.stdout
    result = cli("update", str(project))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "written by template version 0" not in readme.read_text()
    assert not (project / "OLD_NOTES.md").exists(), "an unmodified file the template dropped is removed"
    assert cli("update", str(project), "--check").returncode == 0


def test_hooks_survive_and_edited_generated_file_is_kept_until_force(project: Path):
    hooks = project / "cleaner_hooks.py"
    hooks.write_text(hooks.read_text() + "\nMY_SETTING = 42\n", encoding="utf-8")
    readme = project / "README.md"
    edited = readme.read_text() + "\n# my hand edit\n"
    readme.write_text(edited, encoding="utf-8")
    user_file = project / "notes.txt"
    user_file.write_text("mine", encoding="utf-8")

    result = cli("update", str(project), "--set", "privacy.truncate.tool=5000")
    assert result.returncode == 1
    assert "README.md was edited by hand" in result.stderr
    assert "+# my hand edit" not in result.stderr and "-# my hand edit" in result.stderr  # the diff is shown
    assert readme.read_text() == edited
    assert "MY_SETTING = 42" in hooks.read_text()
    assert user_file.read_text() == "mine"
    stored = yaml.safe_load((project / ".copier-answers.yml").read_text())
    assert stored["privacy"]["truncate"]["tool"] == 5000

    forced = cli("update", str(project), "--force")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert "# my hand edit" not in readme.read_text()
    assert "tool results over 5000 characters" in readme.read_text()
    assert (project / "README.md.orig").read_text() == edited
    assert "MY_SETTING = 42" in hooks.read_text()


def test_diff_writes_nothing_and_shows_the_change(project: Path):
    (project / "AGENT_PROMPT.md").write_text("hand written\n", encoding="utf-8")
    before = tree_hashes(project)
    result = cli("update", str(project), "--diff", "--set", "source=helpdesk-bot-v2")
    assert result.returncode == 0
    assert "-# Cleaner for `helpdesk-bot` traces" in result.stdout
    assert "+# Cleaner for `helpdesk-bot-v2` traces" in result.stdout
    assert tree_hashes(project) == before


def test_invalid_stored_answer_is_named_not_reset(project: Path):
    answers = project / ".copier-answers.yml"
    data = yaml.safe_load(answers.read_text())
    data["unknown_kinds"] = "ignore"
    data["timestamps"]["format"] = "epoch_seconds"
    answers.write_text(yaml.safe_dump(data, sort_keys=False))
    before = tree_hashes(project)
    result = cli("update", str(project))
    assert result.returncode == 2
    assert ".copier-answers.yml" in result.stderr
    assert "timestamps.format" in result.stderr or "unknown_kinds" in result.stderr
    assert "Traceback" not in result.stderr
    assert tree_hashes(project) == before


def test_output_change_is_detected_and_needs_acceptance(project: Path):
    expected = project / "tests" / "expected" / "raw" / "ticket-4502.jsonl"
    before = expected.read_bytes()
    result = cli("update", str(project), "--set", "tools.error_prefix='Lookup failed: '")
    assert result.returncode == 1
    assert "output changed" in result.stdout and "NOT accepted" in result.stdout
    assert "Lookup failed: timeout" in result.stdout
    assert expected.read_bytes() == before, "expected outputs change only on --accept-output"

    accepted = cli("update", str(project), "--accept-output")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert b"Lookup failed: timeout" in expected.read_bytes()
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project,
                           capture_output=True, text=True, timeout=300, check=False)
    assert tests.returncode == 0, tests.stdout + tests.stderr


def test_update_ignores_a_stale_template_path(project: Path):
    """An answers file of an older render may hold a _src_path into an uninstalled or moved
    site-packages: it is never used, and no longer recorded."""
    answers = project / ".copier-answers.yml"
    assert "_src_path" not in answers.read_text() and str(REPO) not in answers.read_text()
    data = yaml.safe_load(answers.read_text())
    answers.write_text(yaml.safe_dump({"_src_path": "/nonexistent/site-packages/x", **data}, sort_keys=False))
    result = cli("update", str(project), "--set", "source_profile=ops")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "--source-profile ops" in (project / "README.md").read_text()
    assert "_src_path" not in answers.read_text()


def test_the_cleaner_runs_with_the_answers_file_and_update_rewrites_yaml_edits_as_json(project: Path, tmp_path):
    """The answers file is the one copy of the mapping: an edit there changes what the cleaner does;
    an edit in YAML, which the cleaner cannot read, is named, and `update` writes it back as JSON."""
    answers = project / ".copier-answers.yml"
    script = project / "clean_to_trajectory_jsonl.py"
    raw = project / "tests" / "samples"
    data = yaml.safe_load(answers.read_text())
    data["tools"]["error_prefix"] = "Lookup failed: "
    answers.write_text(json.dumps(data, indent=2), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), "--input", str(raw), "--output", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "Lookup failed: timeout" in "".join(p.read_text() for p in (tmp_path / "out").rglob("*.jsonl"))

    answers.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    broken = subprocess.run([sys.executable, str(script), "--input", str(raw), "--output", str(tmp_path / "again")],
                            capture_output=True, text=True, timeout=300, check=False)
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
    assert ".copier-answers.yml:1:1: not JSON" in broken.stderr and "trajectory-cleaner update ." in broken.stderr
    result = cli("update", str(project), "--accept-output")
    assert result.returncode == 0, result.stdout + result.stderr
    assert answers.read_text().lstrip("#").startswith(" The record of this render")
    assert json.loads("\n".join(line for line in answers.read_text().splitlines() if not line.startswith("#")))[
        "tools"]["error_prefix"] == "Lookup failed: "


def test_not_a_project_is_a_usage_error(tmp_path: Path):
    result = cli("update", str(tmp_path))
    assert result.returncode == 2 and "not a rendered cleaner" in result.stderr


def _answers(project: Path) -> dict:
    text = (project / ".copier-answers.yml").read_text(encoding="utf-8")
    return json.loads("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))


def test_a_hand_edited_script_is_kept_and_runs_while_its_kinds_stand(project: Path, tmp_path):
    """The script is the format's adapter: an edit to a kind's function is kept by update, reported,
    and is what the cleaner runs."""
    script = project / "clean_to_trajectory_jsonl.py"
    text = script.read_text(encoding="utf-8")
    assert 'out.text("user", content(record, "body"), at)' in text
    script.write_text(text.replace('out.text("user", content(record, "body"), at)',
                                   'out.text("user", "[customer] " + content(record, "body"), at)'), encoding="utf-8")
    data = _answers(project)
    data["tools"]["error_prefix"] = "Lookup failed: "  # not a kind: the generated code stands
    (project / ".copier-answers.yml").write_text(json.dumps(data, indent=2), encoding="utf-8")
    result = cli("update", str(project), "--accept-output")
    assert result.returncode == 1, result.stdout + result.stderr  # an edited file kept is reported
    assert "clean_to_trajectory_jsonl.py was edited by hand" in result.stderr
    assert "[customer] " in script.read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), "--input", str(project / "tests" / "samples"), "--output",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    users = [r for p in (tmp_path / "out").rglob("*.jsonl") for r in map(json.loads, p.read_text().splitlines())
             if r["role"] == "user"]
    assert users and all(r["content"].startswith("[customer] ") for r in users)


def test_kinds_changed_under_a_hand_edited_script_get_the_new_code_beside_it(project: Path, tmp_path):
    script = project / "clean_to_trajectory_jsonl.py"
    script.write_text(script.read_text(encoding="utf-8").replace("def kind_of(", "# my note\ndef kind_of(", 1),
                      encoding="utf-8")
    data = _answers(project)
    data["kinds"][0]["name"] += " (renamed)"
    (project / ".copier-answers.yml").write_text(json.dumps(data, indent=2), encoding="utf-8")
    result = cli("update", str(project))
    assert result.returncode == 1
    assert "clean_to_trajectory_jsonl.py.new: carry your edit into it" in result.stderr
    assert "# my note" in script.read_text(encoding="utf-8")
    new = project / "clean_to_trajectory_jsonl.py.new"
    assert "(renamed)" in new.read_text(encoding="utf-8")
    refused = subprocess.run([sys.executable, str(script), "--input", str(project / "tests" / "samples"), "--output",
                              str(tmp_path / "out")], capture_output=True, text=True, timeout=300, check=False)
    assert refused.returncode == 2 and "clean_to_trajectory_jsonl.py.new" in refused.stderr
    new.replace(script)  # the user takes the new code
    result = cli("update", str(project))
    assert result.returncode == 0, result.stdout + result.stderr
