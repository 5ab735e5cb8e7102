"""The command line of a rendered cleaner: read, map, validate, write, summarise.

Exit codes: 0 every session written; 1 the run finished but some session failed (or failed
validation) and was not written; 2 usage or configuration errors (missing input, unwritable
output, bad schema); 130 interrupted. Nothing is ever half-written: each output file appears
atomically, and a session that fails leaves any earlier output of the same name untouched.

Memory is bounded by flags, each named in the message when it is hit: ``--max-line-mb`` (one
JSONL line), ``--max-document-mb`` (one JSON array/object file) and ``--max-session-mb`` (the
cleaned output of one session, held until the session is written: as encoded lines, each record
validated once final, or as the records themselves for a session hook; see ``stream``).
Raw records are never kept: each is mapped as soon as it is read, also when sessions are grouped
by a field across files.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import signal
import sys
import tempfile
import threading
import traceback
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from operator import is_
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .convert import (
    MAX_SESSION_MB,
    Converter,
    Privacy,
    SessionBuilder,
    SessionFailed,
    SessionSkipped,
    delete_path,
    first_present,
)
from .hooks import DocumentContext, Hooks, HooksError
from .mapping import MappingError, compile_path, compile_paths, read_mapping
from .model import Mapping
from .model import Session as SessionSettings
from .offload import Helpers, Offload, RemoteJudge
from .pool import each_done, pool_process_signals, run_task, stop_now
from .readers import (
    MAX_DOCUMENT_MB,
    MAX_LINE_MB,
    BadLine,
    InputError,
    InputFile,
    Limits,
    Span,
    discover,
    jsonl_spans,
    read_records,
)
from .redaction.names import shown_path
from .shapes import Shaping
from .stream import SessionOutput
from .summary import Summary
from .trees import flatten_children
from .writer import (
    SUFFIX,
    Committer,
    Held,
    Lines,
    Names,
    discard_held,
    remove_stale_temps,
    stem_for_key,
    sync_folders,
    write_atomic,
    write_held,
)

if TYPE_CHECKING:  # a run of one process imports no process pool (~8 ms of start-up): see _pool
    from concurrent.futures import ProcessPoolExecutor

AUTO_MIN_MB = 16  # --jobs auto: smaller inputs are cleaned in one process
AUTO_MAX_JOBS = 8
OFFLOAD_AFTER = 1 << 20  # output characters after which a session's strings go to the helpers


class UsageError(Exception):
    """Bad flags, paths or configuration: exit 2."""


@dataclass
class Outcome:
    """What happened to one session; merged into the run's summary."""

    key: str
    output: str | None = None
    rows: int = 0
    error: str | None = None
    skipped_session: str | None = None
    skipped: Counter = field(default_factory=Counter)
    repaired: Counter = field(default_factory=Counter)
    redactions: Counter = field(default_factory=Counter)
    truncated: int = 0
    examples: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    seen: Counter = field(default_factory=Counter)  # calls, results, texts the mapping read
    kept: Counter = field(default_factory=Counter)  # ... and wrote
    pending: Any = field(default=None, repr=False, compare=False)  # the Committer's future for output

    def skip(self, reason: str, where: str) -> None:
        self.skipped[reason] += 1
        self.examples.setdefault(reason, where)

    def settle(self) -> None:
        """Wait for the output's fsync and rename; if they failed, the session failed."""
        pending, self.pending = self.pending, None
        exc = pending.exception() if pending is not None else None
        if exc is not None:
            self.fail_write(exc)

    def fail_write(self, exc: BaseException) -> None:
        self.error = write_failure(self.key, self.output, exc)
        self.output, self.rows = None, 0


def write_failure(key: str, output: str | None, exc: BaseException) -> str:
    """The error of a session whose output could not be written or put in place."""
    reason = getattr(exc, "strerror", None) or exc
    return f"{key}: could not write {output} ({reason}); nothing written for this session"


@dataclass(slots=True)
class Job:
    key: str
    files: list[InputFile]
    target: Path | str  # relative to the output folder


@dataclass
class Session:
    """One session being built: its outcome, its privacy counters and its builder."""

    job: Job
    outcome: Outcome
    privacy: Privacy
    builder: SessionBuilder
    done: bool = False  # failed or skipped before the end of its records
    read: int = 0  # its raw records read so far (sessions grouped by field count them)


class Cleaner:
    """One run's state: the compiled mapping, the validator, the hooks and the memory limits."""

    def __init__(self, mapping: Mapping | dict, hooks: Hooks | None, schema_arg: str | None, quiet: bool = False,
                 limits: Limits | None = None, max_session_mb: float | None = None, adapter: ModuleType | None = None):
        self.mapping = Mapping.load(mapping)  # a dict is checked and completed here, once
        self.hooks = hooks or Hooks()
        self.adapter = adapter  # the script's generated code (kind_of, a function per kind); else the mapping's
        self.schema_arg = schema_arg
        self.quiet = quiet
        self.limits = limits or Limits()
        self.max_session_chars = int((max_session_mb or MAX_SESSION_MB) * 1024 * 1024)
        self.inputs: set[str] = set()  # resolved input files: never overwritten by an output (str: a
        # Path costs four times the memory, and a worker process holds the set too)
        self.committer: Committer | None = None  # fsync and rename in the background (else inline)
        self.debug = False  # print the traceback of an unexpected error (--debug)
        self.helpers: Helpers | None = None  # processes that redact the long strings of sessions cleaned here
        self.converter: Converter | None = None
        from .validate import TrajectoryValidator, find_schema, load_schema

        self.schema_path, self.schema_origin = find_schema(schema_arg)
        self.validator = TrajectoryValidator(load_schema(self.schema_path))

    def records_of(self, item: InputFile, outcome: Outcome, span: Span | None = None):
        """The records of one input file (``span``: of that byte range of it, ``jsonl_spans``),
        children after their parents; its lines that are not records counted in ``outcome``."""
        settings = self.mapping.input
        path = compile_path(settings.records_path) if settings.records_path else None
        children = compile_paths(settings.children)
        transform = None
        if self.hooks.document is not None:
            def transform(document: Any, container: str) -> Any:
                ctx = DocumentContext(str(item.path), container)
                return self.hooks.transform_document(document, ctx, outcome.skip)
        shaping = Shaping.from_settings(settings.tagged, settings.unflatten, settings.decode,
                                        compile_paths(settings.more_records), settings.keyed_lists)
        for entry in read_records(item, settings.container, path, self.limits, settings.document_key,
                                  transform, span, shaping):
            if isinstance(entry, BadLine):
                if settings.invalid_lines == "fail":
                    raise SessionFailed(f"{entry.where}: {entry.reason}; set input.invalid_lines: skip to skip such lines")
                reason = f"invalid line: {entry.reason}"
                outcome.skipped[reason] += 1
                outcome.examples.setdefault(reason, str(entry.where))
                continue
            if children:  # records nested in records (input.children): each followed by its children
                where = entry[0]
                for record in flatten_children(entry[1], children):
                    yield where, record
            else:
                yield entry

    # -- one session, in three steps, so that sessions grouped across files can be fed record by record
    def start(self, job: Job) -> Session:
        privacy = Privacy(self.mapping.privacy)  # per session: its redaction and truncation counts
        if self.converter is None:  # the mapping, compiled once per run
            self.converter = Converter(self.mapping, adapter=self.adapter)
            self.converter.max_session_chars = self.max_session_chars
        builder = self.converter.session(job.key, privacy)
        if self.hooks.session is None:  # a session hook needs the whole list: the session is held
            builder.output = SessionOutput.of(self.validator, self.converter.source)
        try:
            builder.mtime = os.stat(job.files[0].path).st_mtime
        except OSError:
            builder.mtime = None
        return Session(job, Outcome(job.key), privacy, builder)

    def feed(self, session: Session, where: Any, raw: dict) -> None:
        """Map one raw record into its session; a failure ends the session (recorded, not raised)."""
        if session.done:
            return
        try:
            builder = session.builder
            if self.hooks.per_record:
                for record in self.hooks.transform_records(raw, where, self._kind_of, session.outcome.skip):
                    builder.add(where, record)
            else:
                builder.add(where, raw)
            if builder.size > OFFLOAD_AFTER and builder.offload is None and self.helpers is not None \
                    and session.privacy.redactor is not None:
                # a large session: from here on the helpers redact its long strings (a small one
                # would spend more time waiting for their last batch than it saves)
                builder.offload = Offload(self.helpers, session.privacy, self.max_session_chars, builder.size,
                                          builder.position)
                if builder.output is not None:  # and a helper judges its lines
                    builder.output.to_helper(RemoteJudge(self.helpers, self.validator.schema, self.validator.partial,
                                                         self.converter.source))
                builder.size_sent = builder.size
        except (SessionFailed, SessionSkipped, InputError) as exc:
            self._end(session, exc)
        except Exception as exc:  # noqa: BLE001 - a bug: this session fails, the run goes on
            self._end(session, self._bug(str(where), exc))

    def _kind_of(self, record: dict) -> str | None:
        """The name of the rule of ``kinds`` that matches a raw record, as mapping it will find it
        (after ``privacy.drop_fields``), for cleaner_hooks.transform_kind; None when none does."""
        converter = self.converter
        for path in converter.drop_fields:
            delete_path(record, path)
        kind = converter.classify(record)
        return kind.name if kind is not None else None

    def _bug(self, where: str, exc: Exception) -> SessionFailed:
        """An unexpected error, which is a bug in the cleaner rather than a problem of the data: it fails
        the session it happened in, named, and the other sessions are still cleaned."""
        if self.debug:
            traceback.print_exception(exc, file=sys.stderr)
        return SessionFailed(
            f"{where}: unexpected {exc.__class__.__name__}: {exc} (a bug in the cleaner; nothing written for this "
            "session; rerun with --debug for the traceback and report it)"
        )

    def _end(self, session: Session, exc: Exception) -> None:
        session.done = True
        if isinstance(exc, SessionSkipped):
            session.outcome.skipped_session = str(exc)
        else:
            session.outcome.error = str(exc)

    def finish(self, session: Session, output_root: Path, hold: list[Held] | None = None) -> Outcome:
        """Validate and write one session (unless it already failed); never raises for bad data.
        With ``hold``, the output is written but left under its temporary name, its ``Held``
        appended there for the caller to put in place (or discard)."""
        job, outcome, builder = session.job, session.outcome, session.builder
        if not session.done:
            try:
                out = builder.finish()
                if builder.output is not None:  # the records are judged and encoded: only the meta record is here
                    problems, chunks = builder.output.end(out[0])
                    rows = builder.output.count
                else:
                    if self.hooks.session is not None:
                        mapped, private = list(out), [_private_strings(r) for r in out]
                        out = self.hooks.transform_session(out, job.key, [str(f.path) for f in job.files])
                        guard_hook_output(out, mapped, private, session.privacy)
                        del mapped, private
                    problems = self.validator.check_records(out)
                    rows = len(out)
                errors = [p for p in problems if p.severity == "error"]
                outcome.warnings = [
                    (f"line {p.line}: " if p.line else "") + f"{p.rule}: {p.message}"
                    for p in problems if p.severity != "error"
                ]
                if errors:
                    first = errors[0]
                    raise SessionFailed(
                        f"output for {job.key} fails validation{where_problem(first)}: {first.rule}: "
                        f"{first.message} ({len(errors)} problem(s); nothing written)"
                    )
                target = output_root / job.target
                if str(target.resolve()) in self.inputs:
                    raise SessionFailed(
                        f"{job.key}: its output {target} would overwrite an input file (nothing written); "
                        "choose an --output outside --input"
                    )
                if builder.output is not None:
                    lines: Any = chunks
                else:
                    # serialised as it is written, each record let go once written: never held twice;
                    # plain JSON as the builder makes it, unless a session hook had its say
                    lines = Lines(out, release=True, plain=self.hooks.session is None)
                outcome.output = str(job.target)
                outcome.rows = rows
                try:
                    if hold is None:
                        outcome.pending = write_atomic(target, lines, self.committer)
                    else:
                        write_held(target, lines, hold, self.committer)
                except OSError as exc:
                    outcome.fail_write(exc)
                replaced = builder.output.replaced if builder.output is not None else lines.replaced
                if replaced:
                    builder.stats.repair("lone surrogates replaced by U+FFFD", replaced)
            except (SessionFailed, SessionSkipped, InputError) as exc:
                self._end(session, exc)
            except Exception as exc:  # noqa: BLE001 - a bug: this session fails, the run goes on
                self._end(session, self._bug(f"session {job.key}", exc))
        if builder.output is not None:
            builder.output.close()
        outcome.skipped.update(builder.stats.skipped)
        for reason, where in builder.stats.examples.items():
            outcome.examples.setdefault(reason, where)
        outcome.repaired.update(builder.stats.repaired)
        outcome.seen.update(builder.seen)
        outcome.kept.update(builder.written)
        outcome.redactions.update(session.privacy.counts)
        outcome.truncated = session.privacy.truncated
        return outcome

    def clean(self, job: Job, output_root: Path) -> Outcome:
        """Read, build, check and write one session of whole files; never raises for bad data."""
        session = self.start(job)
        try:
            for item in job.files:
                for where, raw in self.records_of(item, session.outcome):
                    self.feed(session, where, raw)
                    if session.done:
                        break
        except (SessionFailed, InputError) as exc:
            self._end(session, exc)
        except Exception as exc:  # noqa: BLE001 - a bug while reading: this session fails, the run goes on
            self._end(session, self._bug(f"session {job.key}", exc))
        return self.finish(session, output_root)


_META_TEXT = ("cwd", "git_branch", "model")


def _private_strings(record: Any) -> Any:
    """The strings of a finished record that went through privacy (redaction and truncation): its
    content alone for a plain record (no tuple: a session may hold millions of records), else a tuple
    that also holds its call list, calls, tool names and args, or the meta record's texts. Kept as
    objects, so a hook's change shows as a new object even if an old one's memory is reused."""
    if record.__class__ is not dict:
        return record
    calls = record.get("tool_calls")
    if calls:
        if calls.__class__ is list and len(calls) == 1 and calls[0].__class__ is dict:  # the usual call record
            call = calls[0]
            return (record.get("content"), calls, call, call.get("name"), call.get("args"))
        parts: list[Any] = [record.get("content"), calls]
        for call in calls if isinstance(calls, list) else ():
            parts.append(call)
            if isinstance(call, dict):
                parts += (call.get("name"), call.get("args"))
        return tuple(parts)
    if record.get("role") == "meta":
        return tuple(record.get(key) for key in _META_TEXT)
    return record.get("content")


def _same(now: Any, then: Any) -> bool:
    return now is then or (now.__class__ is tuple and then.__class__ is tuple and len(now) == len(then)
                           and all(map(is_, now, then)))


def guard_hook_output(out: list, mapped: list, private: list, privacy: Privacy) -> None:
    """The privacy boundary around ``transform_session``: every string the hook added or changed, in
    the fields the mapping's own records pass through privacy (content, tool names and args, the
    meta record's cwd, git_branch and model), is redacted, truncated and counted exactly like a
    mapped one. Strings the cleaner already made private, still the same objects, are left alone, so
    that nothing is counted twice; redaction is idempotent, so a mapped string a hook copies into a
    new record is redacted again for nothing but time."""
    if len(out) == len(mapped) and all(map(is_, out, mapped)):
        for record, then in zip(out, private):  # the common case: the same records, in order
            if not _same(_private_strings(record), then):
                _make_private(record, then, privacy)
        return
    index = {id(record): i for i, record in enumerate(mapped)}  # `mapped` keeps every id valid
    for record in out:
        i = index.get(id(record))
        if i is None:
            _make_private(record, None, privacy)
        elif not _same(_private_strings(record), private[i]):
            _make_private(record, private[i], privacy)


def _make_private(record: Any, then: Any, privacy: Privacy) -> None:
    """Redact and truncate the privacy fields of one record a hook added or changed, skipping the
    string objects the cleaner had already made private (``then``, from ``_private_strings``)."""
    if not isinstance(record, dict):
        return  # validation rejects it
    done = {id(s) for s in (then if isinstance(then, tuple) else (then,)) if isinstance(s, str)}
    role = record.get("role")
    if role == "meta":
        for key in _META_TEXT:
            value = record.get(key)
            if isinstance(value, str) and id(value) not in done:
                record[key] = privacy.text(value)
        return
    value = record.get("content")
    if isinstance(value, str) and id(value) not in done:
        record["content"] = privacy.text(value, tool=role == "tool")
    calls = record.get("tool_calls")
    if not isinstance(calls, list):
        return
    for call in calls:
        if not isinstance(call, dict):
            continue
        name, args = call.get("name"), call.get("args")
        if isinstance(name, str) and id(name) not in done:
            call["name"] = privacy.redact(name)
        if isinstance(args, str) and id(args) not in done:
            try:
                parsed = json.loads(args)
            except ValueError:
                parsed = None
            # an object is redacted value by value, as a mapped call's args are; other text whole
            call["args"] = privacy.args(parsed) if isinstance(parsed, dict) else privacy.redact(args)


def _jobs_by_file(files: list[InputFile]) -> list[Job]:
    """One job per input file, each output named by the run's one allocator (``writer.Names``), in
    the order of ``files`` (all of them, also under ``--shard``: the names are a whole run's)."""
    names = Names()
    # a str, not a Path: a third of the memory
    return [Job(str(item.path), [item], names.for_file(item.rel)) for item in files]


def _session_key(raw: dict, paths: tuple, settings: SessionSettings, where: Any) -> str | None:
    """The session id of a record grouped by field; None for a record without one when the mapping
    says ``session.missing: skip``; SessionFailed (the run stops) otherwise."""
    value = first_present(raw, paths)
    if not isinstance(value, (str, int)) or isinstance(value, bool) or value == "":
        if settings.missing == "skip":
            return None
        raise SessionFailed(
            f"{where}: record has no session id at {settings.field!r}; fix session.field "
            "or set session.missing: skip"
        )
    return str(value)


@dataclass
class FirstPass:
    """What the first, reading-only pass over sessions grouped by field found (``_session_ends``)."""

    ends: dict[str, tuple[int, int, int]]  # each session's last record (file, record) and its records
    renamed: dict[str, Path]  # the outputs not named after the session id alone
    counts: list[int]  # the records read from each file

    def shares(self, part: Part, workers: int = 1) -> list[FirstPass]:
        """What the sessions of ``part`` need of it, dealt out to ``workers`` (``Part.of``), each
        id's place in them found once."""
        shares = [FirstPass({}, {}, self.counts) for _ in range(workers)]
        for key, end in self.ends.items():
            shard, worker = part.of(key, workers)
            if shard == part.shard:
                share = shares[worker]
                share.ends[key] = end
                if key in self.renamed:
                    share.renamed[key] = self.renamed[key]
        return shares


_WRITTEN = (-1, -1, -1)  # in the ends of _field_pass: the session is written


def _session_ends(cleaner: Cleaner, files: list[InputFile], paths: tuple, settings: SessionSettings,
                  progress: bool, scans: Iterable[FileScan] | None = None) -> FirstPass:
    """A first, reading-only pass: for each session id, the file and record position of its last
    record and how many records it has, so that the cleaning pass can write and free each session
    as soon as it is complete, and knows it is. Anything that would stop the run (an unreadable
    file, a record without a session id) stops it here, before a single session is written.

    Also each session's output, named by the run's one allocator (``writer.Names``) in order of
    first appearance: those not named as ``_field_target`` names them alone (an id whose name
    would clash with an earlier one's on a file system that ignores case, "Run-1" and "run-1",
    takes its id's hash; so does one in a folder renamed) are kept in ``renamed``, so that no
    session overwrites another on any system, and every process and shard names it alike; how
    many records each file holds, which the cleaning pass checks; and how many each session has.

    ``scans``: each file's ``_scan_file``, in the order of ``files`` (from worker processes); by
    default each file is scanned here. Either way the files are taken in order, so the findings
    and the first error are those of one process reading them one after another."""
    ends: dict[str, tuple[int, int, int]] = {}
    renamed: dict[str, Path] = {}
    counts: list[int] = []
    names = Names()
    if scans is None:
        scans = (_scan_file(cleaner, item, paths, settings) for item in files)
    for index, (item, (found, count)) in enumerate(zip(files, scans)):
        for key, (position, records) in found.items():  # in order of first appearance
            end = ends.get(key)
            if end is None:
                target, plain = names.for_key(item.rel.parent, key)
                if not plain:
                    renamed[key] = Path(target)
            else:
                records += end[2]
            ends[key] = (index, position, records)
        counts.append(count)
        if progress:
            print(f"\rscanning {index + 1}/{len(files)} files", end="", file=sys.stderr)
    return FirstPass(ends, renamed, counts)


FileScan = tuple[dict[str, list[int]], int]


def _scan_file(cleaner: Cleaner, item: InputFile, paths: tuple, settings: SessionSettings,
               span: Span | None = None) -> FileScan:
    """One file of the first pass (``_session_ends``), or one byte range of it: each session id
    in it, in order of first appearance, with the position of its last record there and its
    number of records there; and how many records it holds."""
    found: dict[str, list[int]] = {}
    position = -1
    scratch = Outcome("scan")  # bad lines are counted by the cleaning pass
    for position, (where, raw) in enumerate(cleaner.records_of(item, scratch, span)):
        key = _session_key(raw, paths, settings, where)
        if key is None:
            continue
        seen = found.get(key)
        if seen is None:
            found[key] = [position, 1]
        else:
            seen[0] = position
            seen[1] += 1
    return found, position + 1


def _scan_work(item: InputFile, span: Span | None) -> FileScan:
    """``_scan_file`` in a worker process."""
    assert _WORKER is not None
    settings = _WORKER.mapping.session
    return run_task(_scan_file, _WORKER, item, compile_paths(settings.field), settings, span)


def _scan_tasks(cleaner: Cleaner, files: list[InputFile], processes: int) -> list[tuple[int, InputFile, Span | None]]:
    """The first pass's work for ``processes`` worker processes: each file whole, or a large
    plain JSON Lines file in byte ranges (``jsonl_spans``), when its lines are read one by one
    (no ``transform_document`` hook, no records path); each with its file's index."""
    settings = cleaner.mapping.input
    split = cleaner.hooks.document is None and settings.container in ("auto", "jsonl") and not settings.records_path
    tasks: list[tuple[int, InputFile, Span | None]] = []
    for index, item in enumerate(files):
        spans = jsonl_spans(item.path, cleaner.limits, processes) if split else None
        tasks.extend((index, item, span) for span in spans or [None])
    return tasks


def _pooled_scans(pool: ProcessPoolExecutor, cleaner: Cleaner, files: list[InputFile],
                  tasks: list[tuple[int, InputFile, Span | None]], paths: tuple,
                  settings: SessionSettings) -> Iterator[FileScan]:
    """Each file's scan, in file order, from ``tasks`` run in ``pool``. A file whose scan failed
    is scanned again here, so that the error that stops the run is exactly the one a single
    process meets first (with the line numbers of the whole file, not of a byte range)."""
    from concurrent.futures import BrokenExecutor, Future

    futures: list[list[Future]] = [[] for _ in files]  # each file's tasks, in order
    for index, item, span in tasks:
        futures[index].append(pool.submit(_scan_work, item, span))
    for item, mine in zip(files, futures):
        try:
            scans = [future.result() for future in mine]
        except BrokenExecutor:  # a worker died: the run cannot go on with these processes
            raise
        except Exception:  # noqa: BLE001 - read again here, for the error as one process gives it
            yield _scan_file(cleaner, item, paths, settings)
            continue
        yield _joined(scans)


def _joined(scans: list[FileScan]) -> FileScan:
    """The scans of the consecutive byte ranges of one file, as one scan of the whole file."""
    if len(scans) == 1:
        return scans[0]
    found: dict[str, list[int]] = {}
    offset = 0
    for part, count in scans:
        for key, (position, records) in part.items():
            seen = found.get(key)
            if seen is None:
                found[key] = [position + offset, records]
            else:
                seen[0] = position + offset
                seen[1] += records
        offset += count
    return found, offset


def _field_target(item: InputFile, key: str) -> Path:
    """The output of a session grouped by field as its id alone names it, in the folder of the
    file it first appears in: ``Names.for_key``'s first choice (the first pass keeps the others)."""
    stem = stem_for_key(item.rel.parent, key)
    return stem.with_name(stem.name + SUFFIX)


def _clean_by_field(cleaner: Cleaner, files: list[InputFile], output: Path, totals: Outcome, summary: Summary,
                    progress: bool, processes: int = 1, initargs: tuple | None = None,
                    shard: tuple[int, int] | None = None) -> None:
    """Sessions grouped by the session field across files, in order of first appearance.

    Each record is mapped into its session's builder as soon as it is read, and a session is
    validated, written and freed right after its last record (found by a first pass that only
    reads; put in place once its file has been read to its end), so memory holds the sessions
    open at the same time, never the whole corpus. A file that cannot be read, or a record
    without a session id (unless ``session.missing: skip``), stops the run in that first pass,
    before anything is written; with several processes, the first pass reads the files in them.

    With ``processes`` above 1 and several sessions, the sessions are dealt out to that many
    worker processes (``_field_shards``), unless one of them holds more than half the records:
    workers would then wait for the one cleaning it, so the sessions are cleaned here, one at a
    time, and helper processes redact the long strings of the large ones (as for a single
    session). ``shard`` (K, N), from ``--shard K/N``: only the sessions of that shard
    (``session_shard``), every file read.
    """
    settings = cleaner.mapping.session
    paths = compile_paths(settings.field)
    pool = done = None
    tasks = _scan_tasks(cleaner, files, processes) if processes > 1 and initargs is not None else []
    if len(tasks) > 1:  # the first pass's files (or parts of a large one) read in parallel
        pool, done = _field_pool(processes, initargs, progress)
    try:
        try:
            scans = _pooled_scans(pool, cleaner, files, tasks, paths, settings) if pool is not None else None
            first = _session_ends(cleaner, files, paths, settings, progress, scans)
        except (SessionFailed, InputError) as exc:
            totals.error = f"{exc} (the run stopped; nothing written)"
            return
        part = Part()
        if shard is not None:
            part = Part(shard[0] - 1, shard[1])
            (first,) = first.shares(part)
            if not first.ends and not cleaner.quiet:
                print(f"notice: shard {shard[0]}/{shard[1]} holds none of the sessions", file=sys.stderr)
        even = _even_enough([records for _, _, records in first.ends.values()])
        if processes > 1 and even and initargs is not None:
            if pool is None:
                pool, done = _field_pool(processes, initargs, progress)
            _field_shards(pool, done, files, output, totals, summary, first, part, min(processes, len(first.ends)))
            return
    except BaseException:  # an interruption: end the workers' work, nothing half-written
        if pool is not None:
            stop_now(pool)
        raise
    finally:
        if pool is not None:  # (after the first pass failed, the files it still had to read are dropped)
            pool.shutdown(cancel_futures=True)
    if processes > 1 and cleaner.mapping.privacy.redact:
        cleaner.helpers = Helpers(processes - 1, cleaner.mapping.privacy)
    _field_pass(cleaner, files, output, totals, summary, first, progress, part)


def _even_enough(counts: list[int]) -> bool:
    """Whether sessions of ``counts`` records each are worth dealing out to worker processes:
    several, and none holding more than half the records, which one worker would clean while the
    others wait."""
    return len(counts) > 1 and 2 * max(counts) <= sum(counts)


def _field_pass(cleaner: Cleaner, files: list[InputFile], output: Path, totals: Outcome, summary: Summary,
                first: FirstPass, progress: bool, part: Part | None = None) -> None:
    """The cleaning pass of ``_clean_by_field``: every session of ``first``, or those ``part``
    holds (the records of every other session are read and passed over). Each outcome is folded
    into ``summary`` at where its session began (file, record): the order of the summary.

    A session is written at the record the first pass found last in it, so an input that changed
    since could cut one session in two or write one with records missing. Whatever shows that it
    changed stops the run: a session the first pass did not see, a record after its session was
    written, a session with another number of records at its last one, a file holding another
    number of records (checked at its end), or a session whose last record did not come where the
    first pass found it (that session is not written). The sessions that end in a file are put in
    place only once that file has been read to its end as the first pass read it (``Held``): a
    change the checks see anywhere in it leaves none of them written. A change that keeps every
    count and every last record in its place (a record's text edited in place) is not seen: the
    file is cleaned as it reads the second time. Records appended to a file (a log still
    being written) never reach a written session either."""
    ends, renamed = first.ends, first.renamed  # each entry of ends is marked once its session is written
    settings = cleaner.mapping.session
    paths = compile_paths(settings.field)
    sessions: dict[str, Session] = {}
    begun: dict[str, tuple[int, int, int]] = {}  # where each open session began: its place in the summary
    keep = summary.keep
    held: list[Held] = []  # the outputs of the sessions ended in the file being read ...
    ended = Summary(keep)  # ... their outcomes, into summary once they are in place ...
    written: list[Written] = []  # ... and what failing one whose rename fails takes
    settled = 0  # held[:settled] are synced: their futures let go (a file may end a million sessions)
    done = 0
    try:
        for index, item in enumerate(files):
            position = -1
            for position, (where, raw) in enumerate(cleaner.records_of(item, totals)):
                key = _session_key(raw, paths, settings, where)
                if key is None:
                    totals.skipped["record without a session id"] += 1
                    totals.examples.setdefault("record without a session id", str(where))
                    continue
                session = sessions.get(key)
                if session is None:
                    if part is not None and not part.holds(key):
                        continue  # another shard's or process's session
                    end = ends.get(key)
                    if end is None or end is _WRITTEN:
                        raise SessionFailed(
                            f"{where}: " + (f"session {key!r} was not there in the first pass" if end is None else
                                            f"a record of session {key!r} after the one the first pass found last")
                            + ": the input changed during the run; rerun once it no longer changes")
                    target = renamed.get(key) or _field_target(item, key)
                    session = sessions[key] = cleaner.start(Job(key, [item], target))
                    begun[key] = (1, index, position)  # after the folders not read (0, n)
                elif item not in session.job.files:
                    session.job.files.append(item)
                cleaner.feed(session, where, raw)
                session.read += 1
                end = ends[key]
                if end[1] == position and end[0] == index:
                    if session.read != end[2]:
                        raise SessionFailed(
                            f"{where}: session {key!r} reached its last record with {session.read} records where the "
                            f"first pass read {end[2]}: the input changed during the run; rerun once it no longer changes")
                    at = begun.pop(key)
                    outcome = cleaner.finish(sessions.pop(key), output, held)
                    if len(held) > len(written):  # written (held), not failed
                        ended.add(at, outcome)
                        written.append((at, outcome.key, outcome.rows, outcome.output, outcome if keep else None))
                        while settled < len(held) and held[settled].settle():
                            settled += 1
                    else:
                        summary.add(at, outcome)
                    ends[key] = _WRITTEN
                    done += 1
                    if progress:
                        print(f"\r{done}/{len(ends)} sessions".ljust(32), end="", file=sys.stderr)
                    elif _DONE is not None:
                        with _DONE.get_lock():
                            _DONE.value += 1
            if position + 1 != first.counts[index]:
                raise SessionFailed(
                    f"{item.path}: {position + 1} records where the first pass read {first.counts[index]}: "
                    "the input changed during the run; rerun once it no longer changes")
            _put_in_place(held, written, ended, summary)
            ended, settled = Summary(keep), 0
    except (SessionFailed, InputError) as exc:  # the input changed since the first pass
        totals.error = f"{exc} (the run stopped; sessions already written are complete)"
        return  # the sessions held are never put in place: not written, not in the summary
    finally:
        discard_held(held)  # those of the file being read when the run stopped: not written
    if sessions:  # records the first pass found are gone
        key, session = next(iter(sessions.items()))
        totals.error = (
            f"{session.job.files[-1].path}: session {key!r} did not end where the first pass found its last "
            f"record: the input changed during the run; rerun once it no longer changes ({len(sessions)} "
            "session(s) not written; the sessions already written are complete)")


# a session held by _field_pass: its place, key, rows and output, and its outcome when the run keeps them
Written = tuple[tuple[int, int, int], str, int, str, Outcome | None]


def _put_in_place(held: list[Held], written: list[Written], ended: Summary, summary: Summary) -> None:
    """Rename the held outputs into place (``_field_pass``, at the end of a file) and merge the
    summary of their sessions, ``ended``, into ``summary``; a rename that fails fails its session.
    Both lists are emptied."""
    for output_held, (at, key, rows, out, outcome) in zip(held, written):
        try:
            output_held.release()
        except OSError as exc:
            ended.unwrite(at, rows, write_failure(key, out, exc), out)
            if outcome is not None:
                outcome.fail_write(exc)
    summary.merge(ended)
    held.clear()
    written.clear()


def _place(data: bytes) -> int:
    """A number for a path or a session id, the same on every machine, run and Python (never
    hash(), which each process seeds its own way): the first 8 bytes of its SHA-256."""
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


def _session_place(key: str) -> int:
    return _place(key.encode("utf-8", "surrogatepass"))


def session_shard(key: str, count: int) -> int:
    """The shard (1..count) of ``--shard K/N`` a session grouped by field belongs to."""
    return _session_place(key) % count + 1


@dataclass(frozen=True)
class Part:
    """The sessions grouped by field that one process cleans: those of shard ``shard`` (from 0) of
    ``shards`` (``--shard``), and of those, the ones of worker ``worker`` of ``workers``. A
    worker's share is taken from the id's number once the shard's is taken out of it, so that
    the workers of one shard share it evenly."""

    shard: int = 0
    shards: int = 1
    worker: int = 0
    workers: int = 1

    def of(self, key: str, workers: int) -> tuple[int, int]:
        """The shard (from 0) of a session id, and its worker of ``workers`` within the shard."""
        place, shard = divmod(_session_place(key), self.shards)
        return shard, place % workers

    def holds(self, key: str) -> bool:
        return self.of(key, self.workers) == (self.shard, self.worker)


def _field_work(part: Part, files: list[InputFile], output: Path, first: FirstPass,
                keep: bool) -> tuple[Summary, Outcome]:
    """One worker's share of ``_field_shards``: its sessions' summary (``keep``: with their
    outcomes), and its run totals."""
    assert _WORKER is not None
    totals = Outcome("run")
    summary = Summary(keep)
    run_task(_field_pass, _WORKER, files, output, totals, summary, first, False, part)
    summary.settle()
    return summary, totals


def _field_pool(processes: int, initargs: tuple, progress: bool) -> tuple[ProcessPoolExecutor, Any]:
    """The worker processes of a run of sessions grouped by field, and (with ``progress``) the
    count of sessions they have finished, shared with them."""
    done = None
    if progress:
        import multiprocessing

        done = multiprocessing.Value("q", 0)
        initargs = (*initargs, done)
    return _pool(processes, initargs), done


def _field_shards(pool: ProcessPoolExecutor, done: Any, files: list[InputFile], output: Path, totals: Outcome,
                  summary: Summary, first: FirstPass, part: Part, count: int) -> None:
    """Sessions grouped by field, the sessions ``part`` holds cleaned in ``pool`` by ``count``
    worker processes, each taking its share of them (``Part``); ``done``: their shared count of
    finished sessions, for the progress line, or None.

    Sessions may interleave anywhere in the files, so each worker reads every record and maps
    only its own: the reading is done once per worker, the mapping, redaction, validation and
    writing once in all (most of the work). Each worker's summary is merged into ``summary``,
    whose places give the order one process gives; what the run counts itself (lines not read,
    records without a session id) is taken from the first worker alone, as each worker reads them
    all."""
    keep = summary.keep
    futures = [pool.submit(_field_work, Part(part.shard, part.shards, worker, count), files, output, share, keep)
               for worker, share in enumerate(first.shares(part, count))]
    if done is not None:
        from concurrent.futures import wait

        finished = False
        while not finished:  # the count, every half second and once all are done
            finished = not wait(futures, timeout=0.5).not_done
            print(f"\r{done.value}/{len(first.ends)} sessions ({count} processes)".ljust(32), end="",
                  file=sys.stderr)
    results = [future.result() for future in futures]
    for worker, (mine, theirs) in enumerate(results):
        summary.merge(mine)
        if worker == 0:
            totals.skipped.update(theirs.skipped)
            for reason, where in theirs.examples.items():
                totals.examples.setdefault(reason, where)
        totals.error = totals.error or theirs.error


def _clean_by_element(cleaner: Cleaner, files: list[InputFile], output: Path, totals: Outcome, summary: Summary,
                      progress: bool, layout: list[InputFile] | None = None) -> None:
    """One session per element of the list a ``*`` in input.records_path stands for (one conversation of
    an array of conversations), in file order; one session is open at a time.

    The output is ``<file stem>/<element>.jsonl``: the element's ``session.field`` value when the
    mapping names one (``document.id``), else its position (``0003``) or its key in an object;
    named by the run's one allocator (``writer.Names``). Each input file has an output folder of
    its own, given out for every file of ``layout`` (all of them, also under ``--shard``) first,
    so a file's outputs are named alike in every run and shard.
    """
    name_paths = compile_paths(cleaner.mapping.session.field)
    count = 0  # the sessions so far: the place of the next in the summary
    names = Names()
    for item in layout or files:
        names.file_folder(item.rel)

    def target_for(item: InputFile, where: Any, raw: dict) -> Path:
        label = where.element or "1"
        value = first_present(raw, name_paths) if name_paths else None
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            label = str(value)
        elif label.isdigit():
            label = f"{int(label):04d}"
        return Path(names.for_element(item.rel, label, where.element or ""))

    for item in files:
        session: Session | None = None
        current: str | None = None
        try:
            for where, raw in cleaner.records_of(item, totals):
                if session is None or where.element != current:
                    if session is not None:
                        count += 1
                        summary.add((1, count), cleaner.finish(session, output))
                    current = where.element
                    key = f"{item.path} (element {where.element})" if where.element else str(item.path)
                    session = cleaner.start(Job(key, [item], target_for(item, where, raw)))
                cleaner.feed(session, where, raw)
        except (SessionFailed, InputError) as exc:
            if session is None:
                count += 1
                summary.add((1, count), Outcome(str(item.path), error=str(exc)))
            else:
                cleaner._end(session, exc)
        if session is not None:
            count += 1
            summary.add((1, count), cleaner.finish(session, output))
        if progress:
            print(f"\r{count} sessions", end="", file=sys.stderr)


_WORKER: Cleaner | None = None
_DONE: Any = None  # in a pool process: a multiprocessing.Value counting the sessions finished


def load_module(path: str | os.PathLike, name: str) -> ModuleType:
    """A module read from its file (a project's hooks, or its script's generated code), not from sys.path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fewer_collections() -> None:
    """Collect the youngest generation of Python's cyclic garbage collector every 10,000
    allocations instead of 700, in a cleaner's own processes (the command and its workers; never
    a program that calls ``api.clean_file``): a session's records hold no reference cycles, while
    each collection walks every object allocated since the last. Measured on a 20,000-record Pi
    session: 177 collections, 2.5% of the run, down to 11."""
    if gc.get_threshold()[0] < 10_000:
        gc.set_threshold(10_000, *gc.get_threshold()[1:])


def _init_worker(mapping: Mapping, hooks_path: str | None, schema_arg: str | None, limits: Limits,
                 max_session_mb: float | None, inputs: set[str], debug: bool = False,
                 adapter_path: str | None = None, done: Any = None) -> None:
    """A pool process: its Cleaner, and ``done``, a shared count of the sessions it finishes for
    the main process's progress line (sessions grouped by field; by file, the pool's results
    tell it)."""
    global _WORKER, _DONE
    _DONE = done
    _fewer_collections()
    module = load_module(hooks_path, "cleaner_hooks") if hooks_path else None
    adapter = load_module(adapter_path, "clean_to_trajectory_jsonl") if adapter_path else None
    pool_process_signals()  # Ctrl-C is the main process's; SIGTERM ends the session, never half a file
    _WORKER = Cleaner(mapping, Hooks(module), schema_arg, quiet=True, limits=limits, max_session_mb=max_session_mb,
                      adapter=adapter)
    _WORKER.inputs = inputs
    _WORKER.debug = debug


def where_problem(problem: Any) -> str:
    """`` at record line N`` for a problem of one record; nothing for one of the whole session (no
    user record, say), which has no line."""
    return f" at record line {problem.line}" if problem.line else ""


def _pool(processes: int, initargs: tuple) -> ProcessPoolExecutor:
    """The workers' pool. Imported here: ``concurrent.futures.process`` brings ``multiprocessing``,
    which a run of one process (``--jobs 1``, a small input, ``new``'s preview) never uses."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(processes, initializer=_init_worker, initargs=initargs)


def _interrupted(signum: int, frame: Any) -> None:
    """SIGTERM stops a run the way Ctrl-C does: pending writes settle, exit code 130."""
    raise KeyboardInterrupt


def _work(job: Job, output_root: Path) -> Outcome:
    assert _WORKER is not None
    return run_task(_WORKER.clean, job, output_root)


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be greater than 0")
        return value

    parse.__name__ = kind.__name__
    return parse


def _jobs(text: str) -> int | str:
    return "auto" if text.strip().lower() == "auto" else _positive(int)(text)


def _shard(text: str) -> tuple[int, int]:
    k, sep, n = text.partition("/")
    try:
        shard, count = int(k), int(n)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N (for example 2/8)") from None
    if not sep or count < 1 or not 1 <= shard <= count:
        raise argparse.ArgumentTypeError(f"{text!r}: K/N needs 1 <= K <= N (shards are numbered from 1)")
    return shard, count


def shard_of(rel: str | os.PathLike, count: int) -> int:
    """The shard (1..count) of an input file, from its path relative to --input: a SHA-256 of the
    path with forward slashes, so it is the same on every machine, run and Python (never hash())."""
    return _place(Path(rel).as_posix().encode("utf-8", "surrogateescape")) % count + 1


def _listed_files(args: argparse.Namespace, source: Path) -> list[InputFile]:
    """The files of --files-from (or of ``clean_file``), each named relative to --input."""
    names = getattr(args, "file_list", None)
    if names is None:
        try:
            if args.files_from == "-":
                text = sys.stdin.read()
            else:
                text = Path(args.files_from).read_text(encoding="utf-8", errors="surrogateescape")
        except OSError as exc:
            raise UsageError(f"{args.files_from}: cannot read the --files-from list ({exc.strerror or exc})") from exc
        names = [line.rstrip("\r") for line in text.split("\n")]
    if not source.is_dir():
        raise UsageError(f"{args.input}: --files-from needs --input to be the folder that holds the listed files")
    root = source.resolve()
    files: list[InputFile] = []
    seen: set[Path] = set()
    for name in names:
        if not str(name).strip():
            continue
        path = Path(name).expanduser()
        path = path if path.is_absolute() else source / path
        if not path.is_file():
            raise UsageError(f"{name}: listed in --files-from but not a readable file (paths are relative to --input)")
        try:
            rel = path.resolve().relative_to(root)
        except ValueError:
            raise UsageError(f"{name}: listed in --files-from but outside --input {args.input}") from None
        if rel not in seen:
            seen.add(rel)
            files.append(InputFile(source / rel, rel))
    if not files:
        raise UsageError(f"{args.files_from}: the --files-from list names no file")
    # in the order discover() walks a folder: a folder's files (by name), then its subfolders
    return sorted(files, key=lambda item: [(1, part) for part in item.rel.parts[:-1]] + [(0, item.rel.name)])


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity, which containers and taskset narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def resolve_jobs(jobs: int | str, files: list[InputFile]) -> int:
    """``--jobs auto``: one process for a small input, where starting more would cost more time than
    they save, else one per available CPU (capped: each one holds a session in memory)."""
    if jobs != "auto":
        return int(jobs)
    total = 0
    for item in files:
        try:
            total += item.path.stat().st_size
        except OSError:
            continue
        if total >= AUTO_MIN_MB * 1024 * 1024:
            return max(1, min(available_cpus(), AUTO_MAX_JOBS))
    return 1


def build_parser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="clean_to_trajectory_jsonl.py",
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "example:\n"
            "  python clean_to_trajectory_jsonl.py --input ./raw-traces --output ~/lerim-traces/clean\n\n"
            "exit codes: 0 all sessions written; 1 some session failed and was not written;\n"
            "            2 usage or configuration error; 130 interrupted"
        ),
    )
    parser.add_argument("--input", help="raw trace file or folder (folders are read recursively)")
    parser.add_argument("--output", help="folder for the trajectory-v1 .jsonl files (created if needed)")
    parser.add_argument("--schema", help="trajectory-v1 schema file (default: Lerim's data dir, else the bundled copy)")
    parser.add_argument("--jobs", type=_jobs, default="auto", metavar="N|auto",
                        help="processes to use: this many sessions at once, or, for one large session, helpers "
                             "that redact its strings and validate its lines; the output is the same bytes for any N (default auto: every "
                             f"available CPU, at most {AUTO_MAX_JOBS}, once the input passes {AUTO_MIN_MB} MB)")
    parser.add_argument("--max-line-mb", type=_positive(float), default=MAX_LINE_MB, metavar="MB",
                        help=f"longest JSONL line read; longer lines are skipped and counted (default {MAX_LINE_MB})")
    parser.add_argument("--max-document-mb", type=_positive(float), default=MAX_DOCUMENT_MB, metavar="MB",
                        help=f"largest JSON array/object file read, decompressed (default {MAX_DOCUMENT_MB})")
    parser.add_argument("--max-session-mb", type=_positive(float), default=MAX_SESSION_MB, metavar="MB",
                        help=f"largest cleaned session held in memory; larger ones fail (default {MAX_SESSION_MB})")
    parser.add_argument("--files-from", metavar="FILE|-",
                        help="clean only the files listed in FILE (one path a line; - reads stdin; blank lines "
                             "ignored); relative paths are taken relative to --input, which must be the folder "
                             "that holds them all, so the outputs are named as a run over the whole folder")
    parser.add_argument("--shard", type=_shard, metavar="K/N",
                        help="clean only shard K of N (1 <= K <= N): a file belongs to the shard given by a "
                             "SHA-256 of its path relative to --input, the same on every machine and run; the "
                             "N shards together clean every file exactly once (with session.by: field, a "
                             "session belongs to the shard given by a SHA-256 of its id, and each shard reads "
                             "every file)")
    parser.add_argument("--quiet", action="store_true", help="print only the summary's problems")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of unexpected errors")
    parser.add_argument("--agent-prompt", action="store_true", help="print the embedded coding-agent prompt and exit")
    return parser


def _check_paths(args: argparse.Namespace) -> tuple[Path, Path]:
    """--input and --output, checked before anything is made or written: the input exists, and
    the output is a folder (or can be made one) that neither is the input, nor holds it, nor
    lies inside it (``_refuse_overlap``), so that no output ever lands on a raw file."""
    if not args.input or not args.output:
        raise UsageError("both --input and --output are required (see --help)")
    source = Path(args.input)
    output = Path(args.output).expanduser()
    if not source.exists():
        raise UsageError(f"{args.input}: no such file or folder (check --input)")
    if output.exists() and not output.is_dir():
        raise UsageError(f"{args.output}: exists and is not a folder (choose another --output)")
    _refuse_overlap(args, source, output)
    try:
        output.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=output):
            pass
    except OSError as exc:
        raise UsageError(f"{args.output}: cannot write there ({exc.strerror or exc}); choose another --output") from exc
    return source, output


def _chain(path: Path) -> list[tuple[int, int]]:
    """(st_dev, st_ino) of an existing, resolved ``path`` and of each folder above it: the
    same folder whatever its spelling (a symlink, ``..``, another case on a disk that ignores it)."""
    chain = []
    while True:
        info = os.stat(path)
        chain.append((info.st_dev, info.st_ino))
        if path.parent == path:
            return chain
        path = path.parent


def _existing(path: Path) -> Path:
    """``path`` resolved, or its nearest parent that exists (an output not made yet)."""
    path = path.resolve()
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def _refuse_overlap(args: argparse.Namespace, source: Path, output: Path) -> None:
    """UsageError when --output is --input, holds it (a file of the folder, or a folder above
    it) or lies inside it, compared by (device, inode) along the resolved folders above each:
    outputs there could overwrite raw files, and a rerun would read them as input.

    The files ``api.clean_file`` lists (``args.file_list``) are input files each, as a file
    --input is: only an output holding one of them is refused."""
    listed = getattr(args, "file_list", None)
    out, given = shown_path(args.output), shown_path(args.input)
    try:
        resolved = source.resolve(strict=True)
        folder = resolved if resolved.is_dir() else resolved.parent
        inputs = _chain(folder)
        near = _existing(output)
        outputs = _chain(near)
        here = outputs[0] if near == output.resolve() else None  # the output folder, if it exists
        if listed is not None:  # (a listed file that is not there is named by _listed_files)
            for name in listed:
                path = Path(name) if Path(name).is_absolute() else source / name
                if path.is_file() and here in _chain(path.resolve().parent):
                    given = shown_path(name)
                    break
            else:
                return
            resolved = path.resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop
        raise UsageError(f"{out}: cannot tell where --output lies ({exc}); choose another --output") from exc
    if not resolved.is_dir():
        if listed is not None or here in inputs:
            raise UsageError(f"{out}: writing here would overwrite the input file or the files beside it "
                             f"(--output holds --input {given}); choose an --output outside its folder")
        return
    if here == inputs[0]:
        raise UsageError(f"{out}: --output must not be the same as --input")
    if here in inputs:
        raise UsageError(f"{out}: --output holds --input {given}, so its outputs could overwrite raw files; "
                         "choose an --output outside --input (not a folder above it either)")
    if inputs[0] in outputs:
        raise UsageError(f"{out}: --output is inside --input {given}, so its outputs could overwrite raw files "
                         "and a rerun would read them as input; choose an --output outside --input")


def main(mapping: Mapping | dict[str, Any] | str | os.PathLike, hooks: ModuleType | None = None, argv: list[str] | None = None,
         description: str = "", agent_prompt: Path | None = None, adapter: ModuleType | None = None) -> int:
    """Run the cleaner: ``mapping`` is the mapping, or the answers file that holds it (a rendered
    project's ``.copier-answers.yml``); ``hooks`` the ``cleaner_hooks`` module; ``adapter`` the
    script's generated code (``kind_of`` and a function per kind; without it, the mapping's kinds)."""
    for stream in (sys.stdout, sys.stderr):  # names and values may hold lone surrogates
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    _fewer_collections()
    try:  # read, checked and completed once: the run reads the typed mapping
        mapping = Mapping.load(mapping) if isinstance(mapping, (dict, Mapping)) else read_mapping(mapping)
    except MappingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not description:
        description = (f"Clean {mapping.source!r} traces into trajectory-v1 JSONL "
                       f"(Lerim profile {mapping.source_profile!r}).")
    parser = build_parser(description)
    args = parser.parse_args(argv)
    if threading.current_thread() is not threading.main_thread():  # signals are the main thread's
        return _main(args, mapping, hooks, agent_prompt, adapter)
    previous = signal.signal(signal.SIGTERM, _interrupted)
    try:
        return _main(args, mapping, hooks, agent_prompt, adapter)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(args: argparse.Namespace, mapping: Mapping, module: ModuleType | None,
          agent_prompt: Path | None, adapter: ModuleType | None = None) -> int:
    """The run, with every outcome turned into its exit code and one line on stderr."""
    try:
        if args.agent_prompt:
            if agent_prompt is None or not agent_prompt.exists():
                raise UsageError("AGENT_PROMPT.md is missing beside the script; regenerate the project")
            sys.stdout.write(agent_prompt.read_text(encoding="utf-8"))
            return 0
        try:
            hooks = Hooks(module)
        except HooksError as exc:
            raise UsageError(str(exc)) from exc
        return _run(args, mapping, hooks, adapter)
    except UsageError as exc:
        print(f"error: {shown_path(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: files already written are complete; rerun to finish", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - a bug, not bad data: one line unless --debug
        if args.debug:
            traceback.print_exc()
        else:
            print(shown_path(f"error: unexpected {exc.__class__.__name__}: {exc} (rerun with --debug)"), file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, mapping: Mapping, hooks: Hooks, adapter: ModuleType | None = None) -> int:
    from .validate import SchemaError

    if adapter is not None:
        from .adapter import check_adapter

        problem = check_adapter(adapter, mapping.to_dict())  # the digest is of the mapping as written out
        if problem:
            raise UsageError(problem)
    source, output = _check_paths(args)
    limits = Limits.from_mb(args.max_line_mb, args.max_document_mb)
    try:
        cleaner = Cleaner(mapping, hooks, args.schema, args.quiet, limits, args.max_session_mb, adapter)
    except SchemaError as exc:
        raise UsageError(str(exc)) from exc
    cleaner.debug = args.debug
    if not args.quiet:  # which schema is news once per run, not once per file of an engine's clean_file calls
        print(f"schema: {cleaner.schema_path} ({cleaner.schema_origin})", file=sys.stderr)
    if getattr(cleaner.validator, "differs_from_bundled", False):
        print("notice: the schema on disk differs from the copy bundled with this cleaner", file=sys.stderr)
    stale = remove_stale_temps(output)
    if stale:
        print(f"notice: removed {stale} temporary file(s) left in {shown_path(args.output)} by an interrupted run",
              file=sys.stderr)
    settings = cleaner.mapping
    not_read: list[tuple[str, str]] = []
    try:
        if args.files_from is not None or getattr(args, "file_list", None) is not None:
            files = _listed_files(args, source)
        else:
            files = discover(args.input, settings.input.include, None, not_read)  # (--output is not inside)
    except InputError as exc:
        raise UsageError(str(exc)) from exc
    layout = files  # the files whose names settle the output names (case clashes), before sharding
    if args.shard is not None and settings.session.by != "field":  # by field: a shard of the sessions
        shard, count = args.shard
        files = [item for item in files if shard_of(item.rel, count) == shard]
        if not files:
            print(f"notice: shard {shard}/{count} holds none of the input files", file=sys.stderr)
    totals = Outcome("run")
    report = getattr(args, "report", None)
    summary = Summary(keep=report is not None)
    for n, (path, reason) in enumerate(not_read):
        if reason.startswith("folder cannot be read"):  # listed before every session
            summary.add((0, n), Outcome(path, error=f"{path}: {reason}; fix its permissions or leave it out of --input"))
        else:
            totals.skipped[f"input entry not read: {reason}"] += 1
            totals.examples.setdefault(f"input entry not read: {reason}", path)
    if not layout and not summary.failed:
        raise UsageError(f"{args.input}: no input files match {settings.input.include} (check --input or input.include in the mapping)")
    cleaner.inputs = {str(item.path.resolve()) for item in files}
    progress = sys.stderr.isatty() and not args.quiet
    cleaner.committer = Committer()
    try:
        _clean_all(cleaner, args, files, output, totals, summary, progress, layout)
    except BaseException:
        if cleaner.helpers is not None:
            cleaner.helpers.stop(wait=False)
        cleaner.committer.close(cancel=True)
        raise
    if cleaner.helpers is not None:
        cleaner.helpers.stop()
    cleaner.committer.close()
    summary.settle()
    sync_folders(output / folder for folder in summary.folders)
    summary.check_disk(output)  # every session counted as written is a file of its own, or the run fails
    if progress:
        print(file=sys.stderr)
    if report is not None:  # clean_file's view of the run
        report.update(files=[str(item.path) for item in files], totals=totals, outcomes=summary.outcomes)
    try:
        return summary.report(len(files), totals, args.quiet)
    except BrokenPipeError:  # the sessions are written; only the summary's reader is gone
        _quiet_stdout()
        return 1 if totals.error or summary.failed or summary.disk_error else 0


def _clean_all(cleaner: Cleaner, args: argparse.Namespace, files: list[InputFile], output: Path,
               totals: Outcome, summary: Summary, progress: bool,
               layout: list[InputFile] | None = None) -> None:
    """Clean every session as the mapping groups them, each one's outcome folded into ``summary``.
    ``layout`` (all the files, when ``files`` is one shard of them) names the outputs as a whole
    run would."""
    settings = cleaner.mapping
    by = settings.session.by
    jobs = []
    if by not in ("field", "element"):
        chosen = {id(item) for item in files}
        jobs = [job for job in _jobs_by_file(layout or files) if id(job.files[0]) in chosen]
    processes = resolve_jobs(args.jobs, files)
    hooks_path = getattr(cleaner.hooks.module, "__file__", None)
    adapter_path = getattr(cleaner.adapter, "__file__", None)
    initargs = (cleaner.mapping, hooks_path, args.schema, cleaner.limits, args.max_session_mb, cleaner.inputs,
                args.debug, adapter_path)
    if by == "field":  # how many sessions there are is known only after its first pass
        _clean_by_field(cleaner, files, output, totals, summary, progress, processes, initargs, args.shard)
        return
    if processes > 1 and len(jobs) <= 1 and settings.privacy.redact:
        # sessions are cleaned here one at a time: the other processes redact the long strings of
        # those that grow large
        cleaner.helpers = Helpers(processes - 1, settings.privacy)
    if by == "element":
        _clean_by_element(cleaner, files, output, totals, summary, progress, layout)
    else:
        for job in jobs:
            if str((output / job.target).resolve()) in cleaner.inputs:
                raise UsageError(f"{args.output}: writing {output / job.target} would overwrite that input file; "
                                 "choose an --output outside --input")
        if processes > 1 and len(jobs) > 1:
            workers = min(processes, len(jobs))
            with _pool(workers, initargs) as pool:
                try:
                    for n, (i, outcome) in enumerate(each_done(pool, workers, _work, jobs, output), 1):
                        summary.add((1, i + 1), outcome)
                        if progress:
                            print(f"\r{n}/{len(jobs)} sessions", end="", file=sys.stderr)
                except BaseException:  # an interruption: drop the sessions not started, end the current ones
                    stop_now(pool)
                    raise
        else:
            for n, job in enumerate(jobs, 1):
                summary.add((1, n), cleaner.clean(job, output))
                if progress:
                    print(f"\r{n}/{len(jobs)} sessions", end="", file=sys.stderr)


def _quiet_stdout() -> None:
    """stdout's reader went away (``| head``): send what is left, and the final flush, nowhere."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
