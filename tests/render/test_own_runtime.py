"""A rendered project runs its own copy of cleaner_runtime, never the generator's.

The generator imports ``cleaner_runtime`` by name, so wherever trajectory-cleaner is installed that
name is importable too. A project must still run the copy rendered into it (the one its tests
cover and its owner may patch): run as a script, under ``python -m pytest``, and under a pytest
that does not put the working folder on sys.path. Here the generator's copy is put on PYTHONPATH,
ahead of site-packages, and the project must still win.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cleaner_runtime
from generator.answers import load_answers
from generator.render import complete, render_template

from .conftest import ANSWERS, REPO

OWN_TEST = '''\
from pathlib import Path

import cleaner_runtime
from cleaner_runtime import run

PROJECT = Path(__file__).resolve().parents[1]


def test_the_runtime_is_the_project_copy():
    assert Path(cleaner_runtime.__file__).resolve().parent == PROJECT / "cleaner_runtime"
    assert Path(run.__file__).resolve().parent == PROJECT / "cleaner_runtime"
'''


def test_a_rendered_project_imports_its_own_runtime(tmp_path: Path):
    project = tmp_path / "p"
    render_template(complete(load_answers(ANSWERS / "pi.yml")), project)
    copy = project / "cleaner_runtime"
    assert copy.is_dir() and not copy.is_symlink()
    assert Path(cleaner_runtime.__file__).resolve().parent == REPO / "cleaner_runtime"  # the generator's own
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}

    # the script: mark the project's copy, and see the mark when it runs from elsewhere
    init = copy / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8")
                    + "import sys as _sys\n_sys.stderr.write(f'runtime loaded from {__file__}\\n')\n", encoding="utf-8")
    result = subprocess.run([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--help"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert f"runtime loaded from {init}" in result.stderr.splitlines()

    # its tests, with the working folder first on sys.path and without it (``-P``: only the
    # project's conftest puts the project there)
    (project / "tests" / "test_own_runtime.py").write_text(OWN_TEST, encoding="utf-8")
    for flags in ([], ["-P"]):
        result = subprocess.run([sys.executable, *flags, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 "tests/test_own_runtime.py"],
                                cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False)
        assert result.returncode == 0, (flags, result.stdout[-2000:], result.stderr[-2000:])
