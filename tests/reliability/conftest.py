"""Fixtures: one rendered project per mapping (rendered once per test session, in parallel)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from .support import BASE, MAPPINGS, jsonl, run_generator, write_mapping


@pytest.fixture(scope="session")
def answers_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("answers")
    for name in MAPPINGS:
        write_mapping(name, folder)
    return folder


@pytest.fixture(scope="session")
def good_sample(tmp_path_factory) -> Path:
    """One well-formed session, with a session id so that the by-field mappings can read it too."""
    path = tmp_path_factory.mktemp("sample") / "good.jsonl"
    path.write_text(jsonl([{**r, "sid": "S"} for r in BASE]), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def element_sample(tmp_path_factory) -> Path:
    """One conversation per line, the form the `element` mapping reads."""
    path = tmp_path_factory.mktemp("element-sample") / "convs.jsonl"
    path.write_text(jsonl([{"id": "one", "messages": BASE}]), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def projects(tmp_path_factory, answers_dir: Path, good_sample: Path, element_sample: Path) -> dict[str, Path]:
    """Every mapping of support.MAPPINGS rendered with `trajectory-cleaner new --answers`."""
    root = tmp_path_factory.mktemp("projects")

    def render(name: str) -> Path:
        dest = root / name
        sample = element_sample if name == "element" else good_sample
        result = run_generator("new", str(sample), "--answers", str(answers_dir / f"{name}.yml"), "-o", str(dest))
        assert result.returncode == 0, result.stdout + result.stderr
        return dest

    with ThreadPoolExecutor(3) as pool:
        return dict(zip(MAPPINGS, pool.map(render, MAPPINGS)))


def hooked_copy(project: Path, hooks: str, dest: Path) -> Path:
    """A copy of a rendered project whose user-owned cleaner_hooks.py says ``hooks``."""
    shutil.copytree(project, dest, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    (dest / "cleaner_hooks.py").write_text(hooks, encoding="utf-8")
    return dest


def unreadable_prefix(probe_dir: Path) -> tuple[list[str], str | None]:
    """A command prefix under which chmod 000 really blocks reading, or why there is none.

    Tests often run as root, which reads any file whatever its mode. There the cleaner runs
    under `setpriv` with CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH removed from its bounding
    set: still root, but subject to file modes like any user. A probe proves it works.
    """
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if not setpriv:
            return [], "running as root without setpriv: chmod 000 does not stop root from reading"
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"]
    probe = probe_dir / ".probe"
    probe.write_text("x")
    probe.chmod(0)
    try:
        blocked = subprocess.run([*prefix, sys.executable, "-c", f"open({str(probe)!r}).read()"],
                                 capture_output=True, timeout=30, check=False).returncode != 0
    finally:
        probe.chmod(0o644)
        probe.unlink()
    if not blocked:
        return [], "cannot make a file unreadable here (chmod 000 is ignored)"
    return prefix, None
