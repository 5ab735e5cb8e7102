"""A non-editable install renders exactly like a checkout, and rendered projects stand alone."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "support-desk" / "raw"
ANSWERS = REPO / "examples" / "answers" / "support-desk.yml"
VOLATILE = (".copier-answers.yml",)  # records the template's own path, which differs by design


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False, **kwargs)


def hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and p.name not in VOLATILE
            and p.parts[-2:-1] != (".trajectory-cleaner",)}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The wheel, installed without dependencies into its own folder (deps come from this env)."""
    work = tmp_path_factory.mktemp("wheel")
    build = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(work / "dist"),
                 str(REPO)])
    if build.returncode != 0 and "No module named 'hatchling'" in build.stderr + build.stdout:
        pytest.skip("hatchling is not installed (pip install -e '.[test]' brings it)")
    assert build.returncode == 0, build.stdout + build.stderr
    wheel = next((work / "dist").glob("*.whl"))
    target = work / "site"
    result = run([sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target), str(wheel)])
    assert result.returncode == 0, result.stderr
    assert (target / "generator" / "template" / "copier.yml").is_file()
    assert (target / "generator" / "prompts").is_dir()
    assert (target / "cleaner_runtime" / "run.py").is_file()  # the runtime, a package beside the generator
    return target


def render_with(site: Path | None, dest: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(site) if site else str(REPO)
    code = ("import generator, cleaner_runtime, sys; from generator.cli import main; "
            "print(generator.__file__, cleaner_runtime.__file__, file=sys.stderr); sys.exit(main())")
    return run([sys.executable, "-c", code,
                "new", str(EXAMPLE), "--answers", str(ANSWERS), "-o", str(dest)], env=env, cwd=cwd)


def test_wheel_renders_like_a_checkout(installed: Path, tmp_path: Path):
    from_wheel = render_with(installed, tmp_path / "a", cwd=tmp_path)
    assert from_wheel.returncode == 0, from_wheel.stderr
    assert str(installed) in from_wheel.stderr, "the wheel's package must be the one imported"
    assert str(installed / "cleaner_runtime") in from_wheel.stderr, "and the wheel's runtime"
    from_checkout = render_with(None, tmp_path / "b", cwd=tmp_path)
    assert from_checkout.returncode == 0, from_checkout.stderr
    assert hashes(tmp_path / "a") == hashes(tmp_path / "b")
    assert not list((tmp_path / "a").rglob("*.pyc"))


def test_project_from_moved_install_still_updates(installed: Path, tmp_path: Path):
    """Render from the wheel, move (uninstall) it, then update from the checkout."""
    site = tmp_path / "site"
    shutil.copytree(installed, site)
    assert render_with(site, tmp_path / "p", cwd=tmp_path).returncode == 0
    shutil.rmtree(site)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = run([sys.executable, "-m", "generator", "update", str(tmp_path / "p"), "--check"], env=env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_rendered_project_tests_pass_in_a_venv_with_only_pytest_and_jsonschema(tmp_path: Path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    dest = tmp_path / "project"
    result = run([sys.executable, "-m", "generator", "new", str(EXAMPLE), "--answers", str(ANSWERS), "-o", str(dest)],
                 env=env)
    assert result.returncode == 0, result.stderr
    venv.create(tmp_path / "venv", with_pip=True)
    python = tmp_path / "venv" / "bin" / "python"
    install = run([str(python), "-m", "pip", "install", "--quiet", "pytest", "jsonschema"])
    if install.returncode != 0:
        pytest.skip(f"cannot install pytest and jsonschema into a fresh venv: {install.stderr[-300:]}")
    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    tests = run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=dest, env=clean_env)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    listed = run([str(python), "-m", "pip", "list", "--format=freeze"], env=clean_env).stdout.lower()
    assert "copier" not in listed and "questionary" not in listed


def test_rendered_script_passes_ruff(tmp_path: Path):
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    dest = tmp_path / "project"
    assert run([sys.executable, "-m", "generator", "new", str(EXAMPLE), "--answers", str(ANSWERS), "-o",
                str(dest)], env=env).returncode == 0
    result = run([ruff, "check", "."], cwd=dest)  # the project ships its ruff.toml
    assert result.returncode == 0, result.stdout
