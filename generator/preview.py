"""Preview what a mapping does by running a rendered cleaner on a bounded handful of the samples.

The first session is shown record by record; what the cleaner skips, repairs and loses, and the
records per role, are over every previewed session (a loss in the third file is shown too).

The generator never re-implements the cleaner: it renders the template into a temporary folder
and runs the real script, so a preview shows exactly what the cleaner will write.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from cleaner_runtime import mapping as runtime_mapping
from cleaner_runtime.shapes import Shaping
from generator.render import complete, render_template, run_cleaner

MAX_PREVIEW_BYTES = 8 * 1024 * 1024
MAX_PREVIEW_FILES = 20


@dataclass
class Preview:
    raw: list[str]  # first raw records, shortened and redacted
    records: list[dict]  # the trajectory-v1 records of the first session written
    roles: Counter = field(default_factory=Counter)  # over all previewed sessions
    skipped: list[str] = field(default_factory=list)  # summary lines about skips and repairs
    error: str | None = None  # the cleaner's error lines, when it failed
    sessions: int = 0
    losses: list = field(default_factory=list)  # what the cleaner drops of the previewed samples (infer.losses)


def _first_files(samples: list[Path]) -> list[Path]:
    """A bounded handful of the sample files (``MAX_PREVIEW_BYTES``, ``MAX_PREVIEW_FILES``), in order."""
    files: list[Path] = []
    for sample in samples:
        if sample.is_dir():
            files.extend(sorted(p for p in sample.rglob("*") if p.is_file() and not p.name.startswith(".")))
        else:
            files.append(sample)
    chosen, total = [], 0
    for file in files:
        if chosen and (total + file.stat().st_size > MAX_PREVIEW_BYTES or len(chosen) >= MAX_PREVIEW_FILES):
            break
        chosen.append(file)
        total += file.stat().st_size
    return chosen


def shorten(text: str, limit: int = 160) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def raw_lines(mapping: dict, files: list[Path], limit: int) -> list[str]:
    from cleaner_runtime import readers
    from cleaner_runtime.redaction import Redactor

    redactor = Redactor()
    settings = mapping["input"]
    records_path = settings.get("records_path")
    path = runtime_mapping.compile_path(records_path) if records_path else None
    lines: list[str] = []
    for file in files:
        item = readers.InputFile(file, Path(file.name))
        try:
            # The records exactly as the cleaner reads them: nested lists unpacked, so the left
            # column shows what each output record came from.
            for entry in readers.read_records(item, settings["container"], path,
                                              shaping=Shaping.from_input(settings)):
                if isinstance(entry, readers.BadLine):
                    lines.append(f"[{entry.where}: {entry.reason}]")
                else:
                    lines.append(shorten(redactor.redact(json.dumps(entry[1], ensure_ascii=False))))
                if len(lines) >= limit:
                    return lines
        except readers.InputError as exc:
            lines.append(f"[{exc}]")
    return lines


def run_preview(mapping: dict, samples: list[Path], limit: int = 8) -> Preview:
    mapping = complete(mapping)
    files = _first_files(samples)
    with tempfile.TemporaryDirectory(prefix="tc-preview-") as tmp:
        work = Path(tmp)
        project = work / "project"
        render_template(mapping, project)
        inputs = work / "in"
        inputs.mkdir()
        for n, file in enumerate(files):
            shutil.copy2(file, inputs / f"{n:04d}-{file.name}")
        out = work / "out"
        result = run_cleaner(project, inputs, out)
        outputs = sorted(out.rglob("*.jsonl")) if out.exists() else []
        records: list[dict] = []
        roles: Counter = Counter()
        for n, path in enumerate(outputs):
            lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            roles.update(r["role"] for r in lines)
            if n == 0:
                records = lines
        text = result.stdout
        skipped = [line.strip() for line in text.splitlines()
                   if re.match(r"\s+\d+ x ", line) or line.startswith(("sessions skipped", "items skipped"))]
        error = None
        losses = []
        if result.returncode != 0:
            error = "\n".join(line for line in result.stderr.splitlines() if not line.startswith("schema:"))
            error = error.replace(str(inputs) + "/", "")
        else:
            from generator.infer.losses import find_losses

            losses = find_losses(mapping, inputs, out, result.stdout)
        return Preview(raw_lines(mapping, files, limit), records[: limit + 1], roles, skipped, error, len(outputs),
                       losses)


def format_preview(preview: Preview, width: int = 120) -> str:
    """Raw records on the left, trajectory-v1 records on the right; stacked on narrow screens."""
    right = [shorten(json.dumps(r, ensure_ascii=False), 400) for r in preview.records]
    raw = ["", *preview.raw] if right and preview.records[0].get("role") == "meta" else list(preview.raw)
    out: list[str] = []
    if width >= 110:
        half = (width - 3) // 2
        out.append(f"{'raw (first session)':<{half}} | trajectory-v1")
        out.append("-" * half + "-+-" + "-" * half)
        for i in range(max(len(raw), len(right))):
            left = raw[i][:half] if i < len(raw) else ""
            rec = right[i][:half] if i < len(right) else ""
            out.append(f"{left:<{half}} | {rec}")
    else:
        out.append("raw (first session):")
        out.extend(f"  {line[: width - 2]}" for line in preview.raw)
        out.append("trajectory-v1:")
        out.extend(f"  {line[: width - 2]}" for line in right)
    roles = ", ".join(f"{role} {count}" for role, count in sorted(preview.roles.items()))
    out.append(f"sessions previewed: {preview.sessions}; records per role: {roles or 'none'}")
    out.extend(preview.skipped)
    if preview.losses:
        out.append("would be lost (the samples hold it, the output does not; go back and change an answer):")
        out.extend(f"  {loss}" for loss in preview.losses)
    if preview.error:
        out.append("the cleaner reported:")
        out.extend(f"  {line}" for line in preview.error.splitlines())
    return "\n".join(out)
