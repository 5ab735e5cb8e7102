"""Regenerate a rendered cleaner with the installed template, never destroying the user's work.

The rules (copier is only the renderer; see render.py):
- the stored answers are validated first: an answer the new version rejects is an error naming
  it, never a silent reset to a default;
- a generated file is replaced only when it is still what we generated last time (its hash is
  the manifest's); a hand-edited one is kept and reported unless ``force`` (then a ``.orig``
  copy is kept beside it);
- user-owned files are never touched (created only when missing); files the new template no
  longer generates are removed only if unmodified;
- the samples' expected outputs change only when the user accepts the output change.

Why not copier's own ``run_update`` or ``run_recopy``: ``run_update`` works only on a git-tracked
project rendered from a git-tracked template with a recorded ``_commit``, and ``run_recopy`` only
while the ``_src_path`` recorded at render time still exists; the template ships inside the wheel
and the answers file records no machine path, so neither can keep these promises. Each update is
a fresh ``run_copy`` (``render.render_template``) compared file by file with the project.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from generator import TEMPLATE_VERSION
from generator.answers import AnswersError, load_answers, load_yaml
from generator.render import (
    ANSWERS_FILE,
    MANIFEST,
    USER_OWNED,
    complete,
    generated_files,
    render_template,
    run_cleaner,
    sha256,
    write_manifest,
)


class UpdateError(Exception):
    """The project cannot be updated as asked; nothing was written."""


@dataclass
class Plan:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)  # hand-edited generated files that differ from the new render
    removed: list[str] = field(default_factory=list)
    kept_stale: list[str] = field(default_factory=list)
    created_user: list[str] = field(default_factory=list)
    answers_changed: bool = False
    old_template_version: int | None = None
    diffs: dict[str, str] = field(default_factory=dict)

    @property
    def out_of_date(self) -> bool:
        return bool(self.added or self.changed or self.edited or self.removed or self.answers_changed
                    or self.old_template_version != TEMPLATE_VERSION)


def set_value(mapping: dict, assignment: str) -> None:
    """Apply ``--set a.b=VALUE`` (VALUE read as YAML, so lists and numbers work)."""
    if "=" not in assignment:
        raise AnswersError(f"--set {assignment!r}: expected KEY=VALUE, e.g. timestamps.fallback=file_mtime")
    key, _, raw = assignment.partition("=")
    try:
        value = load_yaml(raw, f"--set {key.strip()}") if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    node = mapping
    parts = key.strip().split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise AnswersError(f"--set {key}: {part!r} is not a mapping section")
    node[parts[-1]] = value


def load_project_mapping(project: Path, answers: str | None, sets: list[str]) -> dict:
    source = Path(answers) if answers else project / ANSWERS_FILE
    if not answers and not source.exists():
        raise UpdateError(f"{project}: not a rendered cleaner (no {ANSWERS_FILE}); use `trajectory-cleaner new`")
    mapping = load_answers(source)  # as written: --set edits what the author wrote
    for assignment in sets:
        set_value(mapping, assignment)
    return complete(mapping, f"{source} with --set" if sets else str(source))


def _diff(rel: str, old: bytes | None, new: bytes | None) -> str:
    def lines(data: bytes | None) -> list[str]:
        return data.decode("utf-8", "replace").splitlines(keepends=True) if data is not None else []

    return "".join(difflib.unified_diff(lines(old), lines(new), f"a/{rel}", f"b/{rel}"))


def plan_update(project: Path, fresh: Path, mapping: dict) -> Plan:
    manifest_path = project / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    recorded: dict[str, str] = manifest.get("files", {})
    plan = Plan(old_template_version=manifest.get("template_version"))
    old_answers = project / ANSWERS_FILE
    if old_answers.exists():
        stored = load_yaml(old_answers.read_text(encoding="utf-8"), str(old_answers)) or {}
        plan.answers_changed = {k: v for k, v in stored.items() if not str(k).startswith("_")} != {
            k: v for k, v in load_yaml((fresh / ANSWERS_FILE).read_text(encoding="utf-8"), ANSWERS_FILE).items()
            if not str(k).startswith("_")
        }
    new_files = [rel for rel in generated_files(fresh) if rel != ANSWERS_FILE]
    for rel in new_files:
        target = project / rel
        new = (fresh / rel).read_bytes()
        if not target.exists():
            plan.added.append(rel)
            plan.diffs[rel] = _diff(rel, None, new)
            continue
        current = target.read_bytes()
        if current == new:
            plan.unchanged.append(rel)
        elif recorded.get(rel) == sha256(target):
            plan.changed.append(rel)
            plan.diffs[rel] = _diff(rel, current, new)
        else:
            plan.edited.append(rel)
            plan.diffs[rel] = _diff(rel, current, new)
    for rel in sorted(set(recorded) - set(new_files) - {ANSWERS_FILE}):
        target = project / rel
        if not target.exists():
            continue
        if sha256(target) == recorded[rel]:
            plan.removed.append(rel)
            plan.diffs[rel] = _diff(rel, target.read_bytes(), None)
        else:
            plan.kept_stale.append(rel)
    for rel in USER_OWNED:
        if not (project / rel).exists():
            plan.created_user.append(rel)
    return plan


def _write(target: Path, data: bytes, mode: int | None = None) -> None:
    from cleaner_runtime.writer import write_atomic

    write_atomic(target, data)
    if mode is not None:
        target.chmod(mode)


def apply_plan(project: Path, fresh: Path, plan: Plan, force: bool) -> list[str]:
    """Write the planned changes; returns hand-edited files that were kept."""
    replace = plan.added + plan.changed + (plan.edited if force else [])
    for rel in replace:
        source = fresh / rel
        target = project / rel
        if rel in plan.edited:
            shutil.copy2(target, target.with_name(target.name + ".orig"))
        _write(target, source.read_bytes(), source.stat().st_mode & 0o777)
    for rel in plan.removed:
        (project / rel).unlink()
    for rel in plan.created_user:
        _write(project / rel, (fresh / rel).read_bytes())
    _write(project / ANSWERS_FILE, (fresh / ANSWERS_FILE).read_bytes())
    # The new manifest records the new render's hashes, also for files the user kept: a
    # hand-edited file therefore stays 'edited' until the user takes the template's version.
    write_manifest(fresh)
    _write(project / MANIFEST, (fresh / MANIFEST).read_bytes())
    return [] if force else list(plan.edited)


SCRIPT = "clean_to_trajectory_jsonl.py"
_DIGEST = re.compile(r'^MAPPING_DIGEST = "([0-9a-f]+)"', re.MULTILINE)


def stale_script(project: Path, fresh: Path, kept: list[str]) -> str | None:
    """When the hand-edited script kept by ``apply_plan`` was generated from other kinds than the
    answers now hold, the cleaner refuses to run (``MAPPING_DIGEST``): the new code is written
    beside it as ``.new`` for the user to carry the edit into, and the message says so."""
    if SCRIPT not in kept:
        return None
    ours, theirs = (_DIGEST.search(path.read_text(encoding="utf-8")) for path in (project / SCRIPT, fresh / SCRIPT))
    if ours is not None and theirs is not None and ours.group(1) == theirs.group(1):
        return None
    _write(project / (SCRIPT + ".new"), (fresh / SCRIPT).read_bytes())
    return (f"{SCRIPT} was edited by hand and was generated from other kinds (block types, timestamp fields) than "
            f"{ANSWERS_FILE} now holds: it is kept, and the cleaner refuses to run until it matches them. The code "
            f"generated from the answers is in {SCRIPT}.new: carry your edit into it and move it over {SCRIPT}, or "
            f"rerun with --force (keeps {SCRIPT}.orig)")


@dataclass
class OutputChange:
    changed: list[str]
    details: list[str]
    error: str | None = None


def compare_outputs(project: Path) -> OutputChange:
    """Run the project's cleaner on its samples and compare with tests/expected."""
    samples = project / "tests" / "samples"
    expected = project / "tests" / "expected"
    if not samples.is_dir():
        return OutputChange([], [])
    with tempfile.TemporaryDirectory(prefix="tc-update-") as tmp:
        work = Path(tmp)
        shutil.copytree(samples, work / "samples")
        mtimes_file = expected / "_mtimes.json"
        if mtimes_file.exists():
            import os

            for rel, mtime in json.loads(mtimes_file.read_text(encoding="utf-8")).items():
                if (work / "samples" / rel).exists():
                    os.utime(work / "samples" / rel, (mtime, mtime))
        out = work / "out"
        result = run_cleaner(project, work / "samples", out)
        if result.returncode not in (0, 1):
            return OutputChange([], [], (result.stdout + result.stderr).strip())
        changed, details = [], []
        new_files = {p.relative_to(out).as_posix() for p in out.rglob("*.jsonl")}
        old_files = {p.relative_to(expected).as_posix() for p in expected.rglob("*.jsonl")} if expected.exists() else set()
        for rel in sorted(new_files | old_files):
            old = (expected / rel).read_text(encoding="utf-8").splitlines() if rel in old_files else []
            new = (out / rel).read_text(encoding="utf-8").splitlines() if rel in new_files else []
            if old != new:
                changed.append(rel)
                details.append("".join(difflib.unified_diff(
                    [line + "\n" for line in old], [line + "\n" for line in new],
                    f"expected/{rel}", f"now/{rel}", n=1)))
        if changed:
            (work / "accept").mkdir()
            shutil.copytree(out, work / "accept" / "expected")
            if mtimes_file.exists():
                shutil.copy2(mtimes_file, work / "accept" / "expected" / "_mtimes.json")
            staging = project / ".trajectory-cleaner" / "pending-expected"
            shutil.rmtree(staging, ignore_errors=True)
            staging.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(work / "accept" / "expected", staging)
        return OutputChange(changed, details)


def accept_outputs(project: Path) -> bool:
    """Replace tests/expected with the outputs staged by the last comparison."""
    staging = project / ".trajectory-cleaner" / "pending-expected"
    if not staging.is_dir():
        return False
    expected = project / "tests" / "expected"
    old = expected.with_name("expected.old")
    shutil.rmtree(old, ignore_errors=True)
    if expected.exists():
        expected.rename(old)
    staging.rename(expected)
    shutil.rmtree(old, ignore_errors=True)
    return True


def stored_prompt_context(project: Path) -> dict:
    try:
        stored = load_yaml((project / ANSWERS_FILE).read_text(encoding="utf-8"), str(project / ANSWERS_FILE)) or {}
    except (OSError, yaml.YAMLError, AnswersError):
        return {}
    context = stored.get("prompt_context")
    return context if isinstance(context, dict) else {}


def render_fresh(mapping: dict, workdir: Path, prompt_context: dict | None = None) -> Path:
    fresh = workdir / "fresh"
    render_template(mapping, fresh, prompt_context)
    for cache in fresh.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    return fresh
