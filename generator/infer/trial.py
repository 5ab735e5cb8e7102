"""Run a candidate mapping on the samples through the one cleaner runtime, in this process.

Why: a mapping is judged by what its cleaner writes, not by how plausible each of its parts
looked. The runtime is the template's own (``cleaner_runtime``, the code every rendered cleaner
runs); running it in process, with no rendered script around it, costs milliseconds per candidate
where rendering a project would cost a second.

Contract: ``Samples.copy(paths, budget)`` copies a bounded, evenly spread subset of the sample
files into a temporary folder once per search; ``run_trial(mapping, samples)`` cleans that
folder with the mapping and returns a ``Trial``: the exit code, the records written per output
file, the summary's counted skips and the errors. A mapping the runtime rejects is a failed
trial, never an exception.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from cleaner_runtime.hooks import Hooks
from cleaner_runtime.mapping import MappingError
from cleaner_runtime.model import Mapping
from cleaner_runtime.run import UsageError, _run, build_parser

SCHEMA = Path(__file__).resolve().parents[2] / "cleaner_runtime" / "trajectory-v1.schema.json"
TRIAL_BYTES = 4 * 1024 * 1024  # samples a trial cleans: enough to see every kind, small enough to try many
_SKIP_LINE = re.compile(r"^\s+(?P<count>\d+) x (?P<what>.+?)(?: \(first at .*)?$")


@dataclass
class Samples:
    """A temporary folder holding the sample files a trial cleans (a bounded subset)."""

    root: Path
    files: int

    @classmethod
    def copy(cls, paths: list[str], budget: int = TRIAL_BYTES) -> Samples:
        found: list[Path] = []
        for given in paths:
            path = Path(given)
            if path.is_dir():
                found.extend(sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")))
            elif path.is_file():
                found.append(path)
        root = Path(tempfile.mkdtemp(prefix="trajectory-cleaner-trial-"))
        chosen, total = [], 0
        for path in _spread(found):
            size = path.stat().st_size
            if chosen and total + size > budget:
                continue
            chosen.append(path)
            total += size
        for n, path in enumerate(chosen):
            # one flat folder, names kept (the session id may come from the file name), clashes numbered
            name = path.name if not (root / path.name).exists() else f"{n}-{path.name}"
            shutil.copy2(path, root / name)
        return cls(root, len(chosen))

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _spread(files: list[Path]) -> list[Path]:
    """Files in an order that samples the whole set early: first, last, then the middle ones."""
    if len(files) <= 2:
        return files
    return [files[0], files[-1], *files[1:-1]]


@dataclass
class Trial:
    """What a mapping's cleaner wrote for the samples."""

    exit_code: int
    outputs: dict[str, list[dict]] = field(default_factory=dict)  # output file -> its records
    skips: Counter = field(default_factory=Counter)  # the summary's counted skips, by what
    errors: list[str] = field(default_factory=list)
    summary: str = ""

    @property
    def failed(self) -> bool:
        return self.exit_code != 0

    def fingerprint(self) -> str:
        """What the trial wrote, as one string: two trials with equal fingerprints are the same output."""
        return json.dumps(sorted(self.outputs.items()), sort_keys=True, ensure_ascii=False)


def run_trial(mapping: dict, samples: Samples) -> Trial:
    """Clean the samples with ``mapping`` (a complete or partial mapping dict)."""
    try:
        typed = Mapping.load(mapping)
    except (MappingError, ValueError, TypeError) as exc:
        return Trial(2, errors=[f"mapping: {exc}"])
    with tempfile.TemporaryDirectory(prefix="trajectory-cleaner-out-") as out:
        args = _arguments(samples.root, Path(out))
        text, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(text), contextlib.redirect_stderr(err):
                code = _run(args, typed, Hooks(None), None)
        except UsageError as exc:
            return Trial(2, errors=[str(exc)])
        except Exception as exc:  # noqa: BLE001 - a candidate the runtime cannot run is a failed candidate
            return Trial(2, errors=[f"{exc.__class__.__name__}: {exc}"])
        outputs = {str(p.relative_to(out)): _records(p) for p in sorted(Path(out).rglob("*.jsonl"))}
    summary = text.getvalue()
    errors = [line for line in (summary + err.getvalue()).splitlines() if line.startswith("error")]
    return Trial(code, outputs, _skips(summary), errors, summary)


def _arguments(inputs: Path, output: Path) -> argparse.Namespace:
    args = build_parser("trial").parse_args(
        ["--input", str(inputs), "--output", str(output), "--jobs", "1", "--quiet", "--schema", str(SCHEMA)])
    args.report = {}
    return args


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _skips(summary: str) -> Counter:
    """The summary's counted skips and repairs (``  3 tool result with no earlier call (...)``)."""
    counts: Counter = Counter()
    for line in summary.splitlines():
        match = _SKIP_LINE.match(line)
        if match:
            counts[match.group("what").strip()] += int(match.group("count"))
    return counts
