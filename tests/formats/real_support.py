"""The real-format corpus as cases to render and judge (issue 35), and the one judge of `new --yes`
shared by benchmarks/bench_generality.py and tests/formats/test_never_wrong.py.

A real format is a folder of ``tests/fixtures/real/<format>/`` (its ``case.yml`` says the source, what
one session is, and the fallback time of a format that records none) or of
``../shared/reference/real-world/<format>/`` (read-only, no case.yml: its table is ours, in
``tests/fixtures/real/_shared/<format>.yml``). Its raw files and expectations may be absent from a
checkout (they are data from public repositories, kept out of commits): such a case is still listed,
with ``present`` false, so that callers skip it by name.

How a case is judged: the raw files are copied (every file's modification time set to the format's
``timestamp_fallback`` when it has one, else to support.MTIME), ``new --yes --json --source <source>``
renders a cleaner, and the cleaner cleans the copy. Exit 1 of ``new`` is a refusal; any other non-zero
exit, a failing cleaner, or outputs that differ from the expected files is wrong. A rendered cleaner
writes one file per session, named after the input file and the session id (a naming other work is
changing), so outputs are matched to expectations by content: right iff the multiset of output files
equals the multiset of expected files. Names only pair files up to say *why* they differ.

What "equal" means:
- our own real formats (``compare: bytes``): the same bytes, except that a format with no time at all
  may write its fallback either as declared in case.yml or as `file_mtime` writes it (the same instant
  in UTC): both read as one token. A user has no other way to give `new` that time than the files'
  modification time, which the runtime writes in UTC.
- the shared formats (``compare: records``): their expected files predate the corpus conventions
  (spaced JSON, extra meta keys, no times), so both sides are compared as parsed records: meta keeps
  only trajectory-v1's keys, times compare as instants, a record with no time takes the fallback,
  call args compare as parsed JSON, key order does not matter.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import yaml

from .support import FIXTURES, MTIME, REPO, Case, first_difference, generator, only_output, run_cleaner

OURS = FIXTURES / "real"
SHARED = REPO.parent / "shared" / "reference" / "real-world"
SHARED_TABLES = OURS / "_shared"
META_KEYS = ("role", "source", "cwd", "git_branch", "model")
FALLBACK_TOKEN = "@timestamp_fallback"


def _files(folder: Path | None) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder and folder.is_dir() else []


def _data(folder: Path, part: str) -> Path | None:
    """`raw` or `expected` of a format: its own, else the shared folder's of the same name, else None."""
    for candidate in (folder / part, SHARED / folder.name / part):
        if _files(candidate):
            return candidate
    return None


def instant(text: str) -> datetime:
    """An ISO-8601 time as an aware UTC datetime (Z and offsets read; a naive time read as UTC)."""
    moment = datetime.fromisoformat(text)
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)


@dataclass(frozen=True)
class RealCase:
    """One real format: where its data is, how `new` is told about it, and how its output is judged."""

    name: str
    where: str  # "ours" (tests/fixtures/real) or "shared" (../shared/reference/real-world)
    source: str
    session: str
    note: str
    timestamp_fallback: str | None
    compare: str  # "bytes" or "records"
    raw: Path | None = field(compare=False)
    expected: Path | None = field(compare=False)

    @property
    def id(self) -> str:
        return f"{self.where}:{self.name}"

    @property
    def present(self) -> bool:
        return self.raw is not None and self.expected is not None

    def mtime(self) -> float:
        """The raw copies' modification time: the fallback instant, if the format declares one."""
        return instant(self.timestamp_fallback).timestamp() if self.timestamp_fallback else MTIME

    def raw_copy(self, where: Path) -> Path:
        """The raw files copied under ``where``, every file's mtime set to ``mtime()``."""
        target = where / "raw"
        shutil.copytree(self.raw, target)
        stamp = self.mtime()
        for path in target.rglob("*"):
            os.utime(path, (stamp, stamp))
        return target

    def expectations(self) -> dict[tuple[str, str | None], Path]:
        """Expected file of each session, keyed (raw file relative to raw/, session or None)."""
        found = {}
        for raw in _files(self.raw):
            rel = raw.relative_to(self.raw).as_posix()
            single = self.expected / f"{rel}.expected.jsonl"
            if single.is_file():
                found[(rel, None)] = single
            for path in sorted((self.expected / rel).glob("*.expected.jsonl")):
                found[(rel, path.name.removesuffix(".expected.jsonl"))] = path
        return found

    def canonical(self, data: bytes, expected: bool) -> bytes:
        """The bytes compared for this format (see the module docstring)."""
        if self.compare == "records":
            return _canonical_records(data, self.timestamp_fallback, expected)
        return _fallback_as_token(data, self.timestamp_fallback)


def _fallback_as_token(data: bytes, fallback: str | None) -> bytes:
    """``data`` with the fallback time, as declared or as `file_mtime` writes it, as one token."""
    if not fallback:
        return data
    moment = instant(fallback)
    utc = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    for spelling in {fallback, utc}:
        data = data.replace(f'"timestamp":"{spelling}"'.encode(), f'"timestamp":"{FALLBACK_TOKEN}"'.encode())
    return data


def _canonical_records(data: bytes, fallback: str | None, expected: bool) -> bytes:
    """Each record parsed and rewritten: trajectory-v1 meta keys only, times as UTC instants (the
    fallback where an expected record has none), call args as parsed JSON, keys sorted."""
    lines = []
    for line in data.decode("utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            lines.append(line)
            continue
        if isinstance(record, dict):
            record = _canonical_record(record, fallback, expected)
        lines.append(json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(lines).encode("utf-8")


def _as_judged(record: dict, fallback: str | None) -> dict:
    """What the old shared yardsticks' conventions are read as: meta with trajectory-v1's keys only,
    the fallback time in a record that has none."""
    if record.get("role") == "meta":
        return {k: v for k, v in record.items() if k in META_KEYS}
    if "timestamp" not in record and fallback:
        return {**record, "timestamp": fallback}
    return record


def _canonical_record(record: dict, fallback: str | None, expected: bool) -> dict:
    record = _as_judged(record, fallback if expected else None)
    if record.get("role") == "meta":
        return record
    record = dict(record)
    if isinstance(record.get("timestamp"), str):
        try:
            record["timestamp"] = instant(record["timestamp"]).isoformat(timespec="microseconds")
        except ValueError:
            pass
    calls = record.get("tool_calls")
    if isinstance(calls, list):
        record["tool_calls"] = [_canonical_call(c) for c in calls]
    return record


def _canonical_call(call):
    if isinstance(call, dict) and isinstance(call.get("args"), str):
        try:
            return dict(call, args=json.loads(call["args"]))
        except ValueError:
            pass
    return call


def _table(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def _case(folder: Path, where: str, table: dict) -> RealCase:
    return RealCase(
        name=folder.name, where=where, source=str(table["source"]), session=str(table.get("session", "file")),
        note=str(table.get("note", "")), timestamp_fallback=table.get("timestamp_fallback"),
        compare=str(table.get("compare", "bytes")), raw=_data(folder, "raw"), expected=_data(folder, "expected"))


def _format_folders(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))) if root.is_dir() else []


def real_cases() -> list[RealCase]:
    """Every real format: ours (case.yml) and the shared ones with a table under _shared/. A shared
    format without a table is listed with no source (``present`` false), so it is skipped by name
    rather than forgotten; a shared table whose folder is missing is listed the same way."""
    found = [_case(folder, "ours", _table(folder / "case.yml")) for folder in _format_folders(OURS)]
    tables = {p.stem: p for p in sorted(SHARED_TABLES.glob("*.yml"))}
    for name in sorted(set(tables) | {f.name for f in _format_folders(SHARED)}):
        table = _table(tables[name]) if name in tables else {"source": "?"}
        case = _case(SHARED / name, "shared", table)
        found.append(case if name in tables else RealCase(**{**case.__dict__, "raw": None}))
    return found


@dataclass
class Verdict:
    """One case's result: right, refused (with the questions `new` named) or wrong, and why."""

    case: str
    verdict: str
    why: str = ""
    questions: int = 0
    format: str = ""
    yardstick: str = ""  # why Letta's rules reject the expected files, "" when they accept them

    def as_dict(self) -> dict:
        return {"case": self.case, "format": self.format, "verdict": self.verdict, "questions": self.questions,
                "why": self.why, "yardstick": self.yardstick}


def refusal_why(done: subprocess.CompletedProcess) -> tuple[int, str]:
    """How many questions a refusal of `new --yes --json` names, and a short reason."""
    try:
        report = json.loads(done.stdout)
    except ValueError:
        report = {}
    questions = [q.get("key", "?") for q in report.get("questions", [])]
    losses = [f"loss: {x.get('kind')}: {x.get('what')}" for x in report.get("losses", [])]
    failures = [f"fails: {x}" for x in report.get("failures", [])[:2]]
    why = "; ".join(questions + losses + failures) or report.get("error") or (
        done.stderr.strip().splitlines() or ["?"])[-1]
    return len(questions), why


def render_and_clean(raw: Path, source: str, work: Path, verdict: Verdict) -> Path | None:
    """`new --yes --json --source` as a user would run it, then the rendered cleaner on ``raw``: the
    output folder, or None with ``verdict`` set to refused (exit 1) or wrong (any other failure)."""
    project = work / "cleaner"
    done = generator("new", raw, "--yes", "--json", "--source", source, "-o", project)
    if done.returncode == 1:
        verdict.verdict = "refused"
        verdict.questions, why = refusal_why(done)
        verdict.why = why.replace(f"{work}{os.sep}", "")  # the same words on every run
        return None
    verdict.verdict = "wrong"
    if done.returncode != 0:
        verdict.why = f"new exit {done.returncode}: " + (done.stderr or done.stdout).strip()[-200:]
        return None
    out = work / "out"
    cleaned = run_cleaner(project, raw, out)
    if cleaned.returncode != 0:
        verdict.why = (f"new exit 0 but the cleaner exit {cleaned.returncode}: "
                       + (cleaned.stderr or cleaned.stdout).strip()[-200:])
        return None
    return out


def yardstick_rejected(case: RealCase, work: Path) -> str:
    """Why Letta's rules (`trajectory-cleaner validate`, which holds them) reject the expected files
    of ``case`` as they are compared, "" when they accept them all. Such a yardstick no cleaner may
    meet: a cleaner never writes a file Letta's validator rejects (a shared yardstick without a user
    record, say), so the benchmark sets the format aside rather than count a refusal against it.
    Compared as the judge compares them: meta with trajectory-v1's keys only, the fallback time in
    a record that has none."""
    folder = work / "yardstick"
    for n, path in enumerate(case.expectations().values()):
        target = folder / f"{n}-{path.name}"
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        target.write_bytes(_as_compared(data.decode("utf-8"), case.timestamp_fallback)
                           if case.compare == "records" else data)
    if not folder.is_dir():
        return ""
    done = generator("validate", folder)
    if done.returncode == 0:
        return ""
    if done.returncode != 1:  # not a verdict on the files (a usage or configuration error): say so
        raise RuntimeError(f"validate exit {done.returncode} on {case.id}'s expected files: "
                           + (done.stderr or done.stdout).strip()[-300:])
    errors = [line.split(": ", 1)[1] for line in (done.stdout + done.stderr).splitlines()
              if line.startswith(str(folder)) and ": warning: " not in line and ": " in line]
    return "; ".join(sorted(set(errors))) or f"validate exit {done.returncode}"


def _as_compared(text: str, fallback: str | None) -> bytes:
    """A shared yardstick's lines as ``compare: records`` reads them (``_as_judged``); any other line
    as it is, for the validator to report."""
    lines = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict):
            lines.append(line + "\n")
            continue
        lines.append(json.dumps(_as_judged(record, fallback), ensure_ascii=False, separators=(",", ":")) + "\n")
    return "".join(lines).encode("utf-8")


def judge_real(case: RealCase, work: Path) -> Verdict:
    """Render ``case`` with `new --yes`, clean its raw copy, and judge the outputs (module docstring);
    the verdict also says whether Letta's rules reject the yardstick (``yardstick_rejected``)."""
    verdict = Verdict(case=case.id, verdict="wrong", format=case.name,
                      yardstick=yardstick_rejected(case, work))
    out = render_and_clean(case.raw_copy(work), case.source, work, verdict)
    if out is not None:
        same, why = compare_outputs(case, out)
        verdict.verdict, verdict.why = ("right", "") if same else ("wrong", why)
    return verdict


def judge_own(case: Case, work: Path) -> Verdict:
    """One case of our own fixtures: one session, byte for byte with expected.jsonl."""
    verdict = Verdict(case=f"own:{case.name}", verdict="wrong", format=case.folder.parent.name)
    out = render_and_clean(case.raw_copy(work), case.mapping["source"], work, verdict)
    if out is None:
        return verdict
    try:
        got = only_output(out)
    except AssertionError as exc:
        verdict.why = str(exc)
        return verdict
    if got.read_bytes() == case.expected.read_bytes():
        verdict.verdict = "right"
    else:
        verdict.why = first_difference(got, case.expected).replace("\n", " ")
    return verdict


def compare_outputs(case: RealCase, out: Path) -> tuple[bool, str]:
    """Whether the output files equal the expected ones as multisets of canonical bytes, and if not,
    the first difference found between the files paired up."""
    got = {p.relative_to(out).as_posix(): case.canonical(p.read_bytes(), False) for p in sorted(out.rglob("*.jsonl"))}
    want = {key: case.canonical(p.read_bytes(), True) for key, p in case.expectations().items()}
    if Counter(got.values()) == Counter(want.values()):
        return True, ""
    return False, _explain(got, want)


def _explain(got: dict[str, bytes], want: dict[tuple[str, str | None], bytes]) -> str:
    """Outputs paired with expectations (equal content first, then by name, then in order); the
    first difference of each pair that differs, and which files are extra or missing."""
    got, want = dict(got), dict(want)
    for key, data in list(want.items()):
        match = next((g for g, d in got.items() if d == data), None)
        if match is not None:
            del got[match], want[key]
    notes = []
    for key in list(want):
        match = next((g for g in got if _names_match(g, key)), None)
        if match is not None:
            notes.append(f"{match} vs expected {_shown(key)}: {_first_difference(got.pop(match), want.pop(key))}")
    for g, key in list(zip(list(got), list(want), strict=False)):
        notes.append(f"{g} vs expected {_shown(key)}: {_first_difference(got.pop(g), want.pop(key))}")
    notes += [f"no expected file for output {g}" for g in got]
    notes += [f"no output for expected {_shown(w)}" for w in want]
    return "; ".join(notes) or "outputs differ"


def _shown(key: tuple[str, str | None]) -> str:
    return key[0] if key[1] is None else f"{key[0]}/{key[1]}"


def _names_match(output: str, key: tuple[str, str | None]) -> bool:
    """An output path and an expectation key naming the same session: the session's name (or the
    raw file's stem, for one session a file) is the output's stem, or one holds the other."""
    stem = Path(output).name.removesuffix(".jsonl")
    raw, session = key
    wanted = session or Path(raw).stem
    return stem == wanted or wanted in stem or stem in wanted


def _first_difference(got: bytes, want: bytes) -> str:
    a = got.decode("utf-8", "replace").splitlines()
    b = want.decode("utf-8", "replace").splitlines()
    for n, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            return f"line {n}: got {x[:200]} want {y[:200]}"
    return f"got {len(a)} lines, want {len(b)}"
