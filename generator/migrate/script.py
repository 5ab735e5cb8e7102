"""`migrate script`: regenerate an old cleaner script as a tested trajectory-v1 cleaner.

The steps live in their own modules; this one runs them in order and owns the scratch folder:
read the script (script_reading.py), optionally run it on the samples (old_run.py) and convert
its output mechanically, learn the mapping (learning.py), render the new cleaner with
``render_new``, compare the two outputs (comparison.py) and write both documents.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from generator.migrate.comparison import compare_session, new_output, pair_sessions
from generator.migrate.convert_old import FileResult, convert_old_file
from generator.migrate.errors import MigrateError
from generator.migrate.inference import try_infer
from generator.migrate.learning import learn_mapping
from generator.migrate.old_run import run_old_script
from generator.migrate.old_shape import old_shape_mapping
from generator.migrate.prompt_doc import render_migration_prompt
from generator.migrate.records import Target
from generator.migrate.report_doc import render_report
from generator.migrate.samples import read_samples
from generator.migrate.script_reading import ScriptFacts, read_script
from generator.migrate.script_report import ScriptReport
from generator.migrate.text_match import TextMatcher
from generator.paths import runtime_module

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
    report = ScriptReport(facts, output, run_old, None, None, notes=list(sample_notes), timezone=tz or "UTC")
    work = Path(tempfile.mkdtemp(prefix="trajectory-cleaner-migrate-"))
    try:
        old_sessions: dict[str, FileResult] = {}
        targets: list[Target] = []
        if run_old:
            old_sessions, targets = _run_old(report, old_script, sample_paths, timeout, work, source, tz, notice)
        inference = try_infer(sample_paths, notice)
        learned = learn_mapping(raws, include, targets or None, source, source_profile, tz, facts, inference)
        report.learned = learned
        report.timezone = learned.mapping["timestamps"]["timezone"]
        if _render(report, sample_paths, dest) and old_sessions:
            _compare(report, old_sessions, dest, tz or report.timezone, source, facts)
        write_documents(report, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


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
            runtime_module("timestamps").zone(tz)
        except ValueError as exc:
            raise MigrateError(f"--timezone: {exc}") from None


def _default_source(script: Path) -> str:
    name = script.resolve().parent.name
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")
    return name or "custom-agent"


def _run_old(report: ScriptReport, old_script: str, sample_paths: list[Path], timeout: float, work: Path,
             source: str, tz: str | None, notice) -> tuple[dict[str, FileResult], list[Target]]:
    """Run the old script on the samples; its output, converted without redaction, and the records to align."""
    notice(f"running {old_script} on the samples (timeout {timeout:g}s per sample)")
    report.old_run = run_old_script(Path(old_script), old_script, sample_paths, timeout, work)
    if report.old_run.error:
        report.errors.append(report.old_run.error)
    plain = old_shape_mapping(source, tz or "UTC", fallback_mtime=True, redact=False)
    old_sessions: dict[str, FileResult] = {}
    targets: list[Target] = []
    for n, (path, shown) in enumerate(report.old_run.files):
        result = convert_old_file(path, f"old output {shown}", plain, path.stat().st_mtime)
        report.old_problems += result.not_old_shape
        if result.error:
            report.old_problems.append(result.error)
            continue
        old_sessions[shown] = result
        targets += _targets(n, result)
    if report.old_run.files and not targets:
        report.errors.append(f"{old_script}: its output on the samples has no old-shape rows to learn from "
                             "(see the old-output problems in the report)")
    return old_sessions, targets


def _targets(session: int, result: FileResult) -> Iterator[Target]:
    """The records of one converted old output file (not its meta record), with their old timestamps."""
    for index, record in enumerate(result.trajectory):
        if index == 0:
            continue
        row = result.origins[index]
        yield Target(session, index, record, result.old_times[row] if row >= 0 else None)


def _render(report: ScriptReport, sample_paths: list[Path], dest: Path) -> bool:
    """Render the new cleaner and run it on the samples; False (the mapping saved instead) if it cannot be."""
    from generator.render import RenderError, render_new

    learned, output = report.learned, report.output
    try:
        rendered = render_new(learned.mapping, sample_paths, dest, {"questions": learned.questions})
    except RenderError as exc:
        # Nothing was rendered; the documents and the learned mapping still go to --output so that
        # the mapping can be fixed by hand (or by a coding agent) and rendered with `new --answers`.
        from generator.answers import dump_mapping

        report.cleaner_exit = 2
        report.cleaner_output = str(exc)
        report.errors.append(f"the new cleaner could not be rendered: {str(exc).splitlines()[0]}; the learned "
                             f"mapping is in {output}/{MAPPING_FILE} (fix it, then `trajectory-cleaner new "
                             f"SAMPLES --answers {output}/{MAPPING_FILE} -o DIR`)")
        dest.mkdir(parents=True, exist_ok=True)
        runtime_module("writer").write_atomic(dest / MAPPING_FILE, dump_mapping(learned.mapping).encode("utf-8"))
        return False
    report.cleaner_exit = rendered.cleaner_exit
    report.cleaner_output = rendered.cleaner_output
    if rendered.cleaner_exit != 0:
        report.errors.append(f"the new cleaner failed on the samples (exit {rendered.cleaner_exit}); see "
                             f"{output}/MIGRATION_REPORT.md and fix the mapping in {output}/.copier-answers.yml")
    return True


def _compare(report: ScriptReport, old_sessions: dict[str, FileResult], dest: Path, tz: str, source: str,
             facts: ScriptFacts) -> None:
    """Migrate the old output mechanically (with redaction) and compare it with the new cleaner's output."""
    mapping = old_shape_mapping(source, tz, fallback_mtime=True, redact=True)
    old: dict[str, list[dict]] = {}
    for path, shown in report.old_run.files if report.old_run else []:
        if shown not in old_sessions:
            continue
        result = convert_old_file(path, shown, mapping, path.stat().st_mtime)
        if result.error:
            continue
        old[shown] = result.trajectory
        report.old_redactions.update(result.redactions)
    new = new_output(dest / "tests" / "expected")
    matcher = TextMatcher(facts.markers)
    pairs = pair_sessions(old, new, matcher)
    for old_name, new_name in pairs:
        report.sessions.append(compare_session(old_name, old[old_name], new_name,
                                               new.get(new_name) if new_name else None, matcher))
    paired = {n for _, n in pairs if n}
    report.extra_new = [name for name in new if name not in paired]


def write_documents(report: ScriptReport, dest: Path) -> None:
    """MIGRATION_REPORT.md and MIGRATION_PROMPT.md, written atomically into the new project."""
    writer = runtime_module("writer")
    writer.write_atomic(dest / "MIGRATION_REPORT.md", render_report(report).encode("utf-8"))
    writer.write_atomic(dest / "MIGRATION_PROMPT.md", render_migration_prompt(report).encode("utf-8"))
