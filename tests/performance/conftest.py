"""Shared helpers for the performance tests: corpora from benchmarks/corpus.py and rendered cleaners.

No test here times anything: they prove that what makes the cleaner fast (fast paths, parallel
jobs) gives exactly what the plain path gives, and that the Pi mapping matches Letta's normalizer.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "benchmarks"
MAPPINGS = {"pi": REPO / "examples" / "answers" / "pi.yml", "flat": BENCH / "flat.yml"}


def _load_corpus_module():
    """benchmarks/corpus.py under a private name (benchmarks/ is not a package)."""
    name = "_trajectory_cleaner_bench_corpus"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCH / "corpus.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


corpus = _load_corpus_module()
Options, write_corpus = corpus.Options, corpus.write_corpus


def make_corpus(dest: Path, fmt: str, sessions: int, records: int, **options) -> Path:
    write_corpus(Options(fmt, sessions, records, **options), dest)
    return dest


def render(fmt: str, dest: Path) -> Path:
    """The cleaner for ``fmt``, rendered exactly as ``trajectory-cleaner new --answers`` renders it."""
    from generator.render import render_new

    samples = make_corpus(dest.parent / f"{fmt}-samples", fmt, 3, 12)
    render_new(yaml.safe_load(MAPPINGS[fmt].read_text(encoding="utf-8")), [samples], dest)
    return dest


def run_cleaner(project: Path, src: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", str(src), "--output", str(out),
         "--schema", str(project / "cleaner_runtime" / "trajectory-v1.schema.json"), *extra],
        capture_output=True, text=True, timeout=600, check=False,
    )


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def cleaners(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("cleaners")
    return {fmt: render(fmt, base / fmt / "cleaner") for fmt in MAPPINGS}
