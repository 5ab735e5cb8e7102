"""`migrate script`: regenerate an old cleaner script as a tested trajectory-v1 cleaner.

The steps live in their own modules; this one runs them in order and owns the scratch folder:
read the script (old_script.py), optionally run it on the samples and convert its output
mechanically (old_traces.py), learn the mapping (mapping.py), render the new cleaner with
``render_new``, compare the two outputs and write both documents (reports.py).

Contract: ``migrate_script`` raises MigrateError (exit 2) for bad options, an unreadable script
or samples without records; everything else - the old script failing, a mapping that cannot be
rendered, a new cleaner that fails on the samples - is in the ``ScriptReport`` it returns (its
``passed`` decides exit 0 or 1), and the documents are written into --output either way.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cleaner_runtime.timestamps import zone
from cleaner_runtime.writer import write_atomic
from generator.migrate.alignment import Target, TextMatcher, read_samples
from generator.migrate.mapping import Learned, learn_mapping
from generator.migrate.old_script import OldRun, ScriptFacts, read_script, run_old_script
from generator.migrate.old_traces import FileResult, MigrateError, convert_old_file, old_shape_mapping
from generator.migrate.reports import (
    ScriptReport,
    SessionCompare,
    compare_session,
    new_output,
    pair_sessions,
    render_migration_prompt,
    render_report,
)
from generator.migrate.rules import try_infer

MAPPING_FILE = "migration-mapping.yml"


def migrate_script(old_script: str, samples: list[str], output: str, *, run_old: bool = False, timeout: float = 120,
                   source: str | None = None, source_profile: str = "generic", tz: str | None = None,
                   notice=lambda text: None) -> ScriptReport:
    """Detect, (optionally) run and align, render the new cleaner, compare, and write both documents."""
    facts = read_script(old_script)
    sample_paths = [Path(s) for s in samples]
    dest = Path(output)
    _check_options(old_script, samples, sample_paths, output, dest, facts, run_old, timeout, source, tz)
    if not facts.emits_old_shape:
        notice(f"notice: {old_script}: no old-shape record found in the code (no dict with keys type and message)"
               + ("; it already writes trajectory-v1 records" if facts.trajectory_sites else ""))
    source = source or _default_source(Path(old_script))
    raws, include, sample_notes = read_samples(sample_paths)
    work = Path(tempfile.mkdtemp(prefix="trajectory-cleaner-migrate-"))
    try:
        old = _run_old(old_script, sample_paths, timeout, work, source, tz, notice) if run_old else OldOutput()
        inference = try_infer(sample_paths, notice)
        learned = learn_mapping(raws, include, old.targets or None, source, source_profile, tz, facts, inference)
        timezone = learned.mapping["timestamps"]["timezone"]
        rendered = _render(learned, output, sample_paths, dest)
        compared = Comparison()
        if rendered.ok and old.sessions:
            compared = _compare(old, dest, tz or timezone, source, facts)
        report = ScriptReport(facts, output, run_old, old.run, learned, sessions=compared.sessions,
                              extra_new=compared.extra_new, old_redactions=compared.old_redactions,
                              old_problems=old.problems, cleaner_exit=rendered.cleaner_exit,
                              cleaner_output=rendered.cleaner_output, errors=old.errors + rendered.errors,
                              notes=list(sample_notes), timezone=timezone)
        write_documents(report, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


@dataclass
class OldOutput:
    """The old script's run on the samples, and its output converted (without redaction) to learn from."""

    run: OldRun | None = None
    sessions: dict[str, FileResult] = field(default_factory=dict)  # converted output file, by shown name
    targets: list[Target] = field(default_factory=list)  # its records, to align with the raw samples
    problems: list[str] = field(default_factory=list)  # rows and files of the output that are not old-shape
    errors: list[str] = field(default_factory=list)


@dataclass
class Rendered:
    """The new cleaner rendered and run on the samples, or why it could not be."""

    ok: bool
    cleaner_exit: int
    cleaner_output: str
    errors: list[str] = field(default_factory=list)


@dataclass
class Comparison:
    """The old output (migrated mechanically) compared with the new cleaner's, session by session."""

    sessions: list[SessionCompare] = field(default_factory=list)
    extra_new: list[str] = field(default_factory=list)  # new sessions paired with no old one
    old_redactions: Counter = field(default_factory=Counter)  # secrets the old output had leaked


def _check_options(old_script: str, samples: list[str], sample_paths: list[Path], output: str, dest: Path,
                   facts: ScriptFacts, run_old: bool, timeout: float, source: str | None, tz: str | None) -> None:
    """MigrateError (exit 2) for missing samples, a used --output, and options that cannot work."""
    for given, path in zip(samples, sample_paths):
        if not path.exists():
            raise MigrateError(f"{given}: no such file or folder (check --samples)")
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise MigrateError(f"{output}: exists and is not empty; choose a new --output folder")
    if run_old and not {"--input", "--output"} <= set(facts.cli):
        raise MigrateError(f"{old_script}: has no --input/--output arguments, so --run-old cannot run it; "
                           "run it without --run-old to learn from the samples alone")
    if run_old and not timeout > 0:
        raise MigrateError(f"--timeout {timeout:g}: give a number of seconds above 0")
    if source is not None and not source.strip():
        raise MigrateError("--source must name your agent or workflow (it becomes the meta record's source)")
    if tz is not None:
        try:
            zone(tz)
        except ValueError as exc:
            raise MigrateError(f"--timezone: {exc}") from None


def _default_source(script: Path) -> str:
    name = script.resolve().parent.name
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")
    return name or "custom-agent"


def _run_old(old_script: str, sample_paths: list[Path], timeout: float, work: Path, source: str, tz: str | None,
             notice) -> OldOutput:
    """Run the old script on the samples; its output, converted without redaction, and the records to align."""
    notice(f"running {old_script} on the samples (timeout {timeout:g}s per sample)")
    run = run_old_script(Path(old_script), old_script, sample_paths, timeout, work)
    errors = [run.error] if run.error else []
    plain = old_shape_mapping(source, tz or "UTC", fallback_mtime=True, redact=False)
    sessions: dict[str, FileResult] = {}
    targets: list[Target] = []
    problems: list[str] = []
    for n, (path, shown) in enumerate(run.files):
        result = convert_old_file(path, f"old output {shown}", plain, path.stat().st_mtime)
        problems += result.not_old_shape
        if result.error:
            problems.append(result.error)
            continue
        sessions[shown] = result
        targets += _targets(n, result)
    if run.files and not targets:
        errors.append(f"{old_script}: its output on the samples has no old-shape rows to learn from "
                      "(see the old-output problems in the report)")
    return OldOutput(run, sessions, targets, problems, errors)


def _targets(session: int, result: FileResult) -> Iterator[Target]:
    """The records of one converted old output file (not its meta record), with their old timestamps."""
    for index, record in enumerate(result.trajectory):
        if index == 0:
            continue
        row = result.origins[index]
        yield Target(session, index, record, result.old_times[row] if row >= 0 else None)


def _render(learned: Learned, output: str, sample_paths: list[Path], dest: Path) -> Rendered:
    """Render the new cleaner and run it on the samples; not ok (the mapping saved instead) if it cannot be."""
    from generator.render import RenderError, render_new

    try:
        rendered = render_new(learned.mapping, sample_paths, dest, {"questions": learned.questions})
    except RenderError as exc:
        # Nothing was rendered; the documents and the learned mapping still go to --output so that
        # the mapping can be fixed by hand (or by a coding agent) and rendered with `new --answers`.
        from generator.answers import dump_mapping

        error = (f"the new cleaner could not be rendered: {str(exc).splitlines()[0]}; the learned "
                 f"mapping is in {output}/{MAPPING_FILE} (fix it, then `trajectory-cleaner new "
                 f"SAMPLES --answers {output}/{MAPPING_FILE} -o DIR`)")
        dest.mkdir(parents=True, exist_ok=True)
        write_atomic(dest / MAPPING_FILE, dump_mapping(learned.mapping).encode("utf-8"))
        return Rendered(False, 2, str(exc), [error])
    errors = []
    if rendered.cleaner_exit != 0:
        errors.append(f"the new cleaner failed on the samples (exit {rendered.cleaner_exit}); see "
                      f"{output}/MIGRATION_REPORT.md and fix the mapping in {output}/.copier-answers.yml")
    return Rendered(True, rendered.cleaner_exit, rendered.cleaner_output, errors)


def _compare(old_output: OldOutput, dest: Path, tz: str, source: str, facts: ScriptFacts) -> Comparison:
    """Migrate the old output mechanically (with redaction) and compare it with the new cleaner's output."""
    mapping = old_shape_mapping(source, tz, fallback_mtime=True, redact=True)
    old: dict[str, list[dict]] = {}
    redactions: Counter = Counter()
    for path, shown in old_output.run.files if old_output.run else []:
        if shown not in old_output.sessions:
            continue
        result = convert_old_file(path, shown, mapping, path.stat().st_mtime)
        if result.error:
            continue
        old[shown] = result.trajectory
        redactions.update(result.redactions)
    new = new_output(dest / "tests" / "expected")
    matcher = TextMatcher(facts.markers)
    pairs = pair_sessions(old, new, matcher)
    sessions = [compare_session(old_name, old[old_name], new_name, new.get(new_name) if new_name else None, matcher)
                for old_name, new_name in pairs]
    paired = {n for _, n in pairs if n}
    return Comparison(sessions, [name for name in new if name not in paired], redactions)


def write_documents(report: ScriptReport, dest: Path) -> None:
    """MIGRATION_REPORT.md and MIGRATION_PROMPT.md, written atomically into the new project."""
    from cleaner_runtime import writer
    writer.write_atomic(dest / "MIGRATION_REPORT.md", render_report(report).encode("utf-8"))
    writer.write_atomic(dest / "MIGRATION_PROMPT.md", render_migration_prompt(report).encode("utf-8"))
