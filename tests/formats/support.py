"""The per-format golden corpus: ``tests/fixtures/<format>/<case>/`` holding ``raw/`` (one session's
raw files, modelled on a real exporter's documented shape), ``mapping.yml`` and ``expected.jsonl``,
written by hand from what the format means (never copied from a cleaner's output)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
MTIME = 1778922000  # 2026-05-16T09:00:00Z: every raw file's modification time, for file_mtime fallbacks


@dataclass(frozen=True)
class Case:
    folder: Path

    @property
    def name(self) -> str:
        return f"{self.folder.parent.name}/{self.folder.name}"

    @property
    def mapping(self) -> dict:
        return yaml.safe_load((self.folder / "mapping.yml").read_text(encoding="utf-8"))

    @property
    def expected(self) -> Path:
        return self.folder / "expected.jsonl"

    def raw_copy(self, where: Path) -> Path:
        """The raw files copied under ``where``, every file's mtime set to MTIME."""
        target = where / "raw"
        shutil.copytree(self.folder / "raw", target)
        for path in target.rglob("*"):
            os.utime(path, (MTIME, MTIME))
        return target


def cases() -> list[Case]:
    return [Case(p.parent) for p in sorted(FIXTURES.glob("*/*/mapping.yml")) if (p.parent / "expected.jsonl").exists()]


def generator(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "generator", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300, check=False)


def run_cleaner(project: Path, raw: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", str(raw),
                           "--output", str(out)], capture_output=True, text=True, timeout=300, check=False)


def only_output(out: Path) -> Path:
    files = sorted(out.rglob("*.jsonl"))
    assert len(files) == 1, f"one session expected, got {[str(f.relative_to(out)) for f in files]}"
    return files[0]


def first_difference(got: Path, want: Path) -> str:
    a = got.read_text(encoding="utf-8").splitlines()
    b = want.read_text(encoding="utf-8").splitlines()
    for n, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            return f"line {n}:\n  got  {x}\n  want {y}"
    return f"got {len(a)} lines, want {len(b)}"


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
