"""Time a rendered cleaner against the JSON floor and Letta's normalizer, side by side, in one run.

What is measured, each in a fresh child process (so peak memory is that run's own):

* ``floor``: the practical floor for pure Python: read each line, ``json.loads``, build a small
  dict, ``json.dumps`` compact, write; ``floor-orjson`` the same with orjson when it is installed;
* ``cleaner``: the cleaner rendered from the format's mapping (``examples/answers/pi.yml``,
  ``benchmarks/flat.yml``) by ``generator.render.render_new``, run as its README says, with
  validation and redaction on; ``cleaner-nofast`` the same with the optional fast extra
  (``requirements-fast.txt``) hidden, i.e. only jsonschema installed; ``cleaner-jN`` with
  ``--jobs N`` (sessions in parallel, or helper processes for one session at a time);
* ``handwritten`` (Pi only): ``benchmarks/handwritten_pi.py``, a Pi cleaner written by hand for
  speed with the runtime's own redaction and validation, in one process: what a cleaner written
  in Python can cost at the least, beside what the generated one costs;
* ``normalizer``: Letta's normalizer (``agent-trajectory`` from PyPI, which drives a bundled Node
  CLI) on the same Pi files: ``normalizer-batch`` (all sessions in one ``normalize_many`` call,
  its best case) and ``normalizer-per-session`` (one ``normalize_transcript`` call per session,
  as a tool that cleans sessions as they appear would call it; timed on a prefix of the sessions
  when there are many, see the note printed). Skipped with a note when the package or Node is
  missing: ``pip install -e '.[bench]'``.

Records are raw input records (lines); MB are input megabytes (10^6 bytes). Every figure is the
median of ``--runs`` runs, taken in rounds (each subject once per round, so a drifting machine
slows all of them alike); peak RSS is the largest resident set of the process tree (polled, and
the kernel's ``ru_maxrss`` of the children), in MB.

    python benchmarks/bench_cleaner.py            # full run: 1 x 200k and 2,000 x 100 (about 20 min)
    python benchmarks/bench_cleaner.py --quick    # 1-2 minutes, smaller corpora of the same shapes
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from corpus import Options, write_corpus

MAPPINGS = {"pi": REPO / "examples" / "answers" / "pi.yml", "flat": HERE / "flat.yml"}
FAST_MODULES = ("orjson", "fastjsonschema", "jsonschema_rs", "hyperscan")

# The floor: read, json.loads, build a small dict, json.dumps compact, write; one output per input.
FLOOR = r"""
import sys
from pathlib import Path
use_orjson = sys.argv[3] == "orjson"
if use_orjson:
    import orjson
    loads = orjson.loads
    def dumps(value):
        return orjson.dumps(value)
else:
    import json
    loads = json.loads
    def dumps(value):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
for path in sorted(src.rglob("*.jsonl")):
    target = dst / path.relative_to(src)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "rb") as inp, open(target, "wb") as out:
        for line in inp:
            record = loads(line)
            small = {"role": "user", "content": str(record.get("id") or record.get("seq")),
                     "timestamp": str(record.get("timestamp") or record.get("at"))}
            out.write(dumps(small))
            out.write(b"\n")
"""

# Letta's normalizer driven from Python, writing trajectory-v1 JSONL like a cleaner would.
NORMALIZER = r"""
import json, sys
from pathlib import Path
from trajectory import normalize_many, normalize_transcript
src, dst, mode, limit = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
files = sorted(src.rglob("*.jsonl"))[: limit or None]
def write(path, records):
    target = dst / path.relative_to(src)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
            out.write("\n")
if mode == "batch":
    results = normalize_many([{"source": "pi", "transcript": p.read_text(encoding="utf-8")} for p in files])
    for path, result in zip(files, results):
        write(path, result["records"])
else:
    for path in files:
        write(path, normalize_transcript(source="pi", transcript=path.read_text(encoding="utf-8"))["records"])
"""

# Runs the cleaner script with the fast extra's modules made unimportable (only jsonschema).
NOFAST = r"""
import runpy, sys
for name in FAST_MODULES:
    sys.modules[name] = None
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, script.rsplit("/", 1)[0])
runpy.run_path(script, run_name="__main__")
""".replace("FAST_MODULES", repr(FAST_MODULES))


@dataclass
class Measure:
    seconds: float
    peak_mb: float
    ok: bool
    detail: str = ""
    peak_pss_mb: float = float("nan")


@dataclass
class Row:
    corpus: str
    subject: str
    records: int
    megabytes: float
    runs: list[Measure] = field(default_factory=list)
    note: str = ""

    @property
    def seconds(self) -> float:
        return statistics.median(m.seconds for m in self.runs) if self.runs else float("nan")

    @property
    def rate(self) -> float:
        return self.records / self.seconds if self.runs else float("nan")

    @property
    def peak_mb(self) -> float:
        return statistics.median(m.peak_mb for m in self.runs) if self.runs else float("nan")

    @property
    def peak_pss_mb(self) -> float:
        return statistics.median(m.peak_pss_mb for m in self.runs) if self.runs else float("nan")


# --------------------------------------------------------------------------------------------
# Measuring one child process tree
# --------------------------------------------------------------------------------------------


def _pss_kb(pid: int) -> int:
    """Proportional set size: the process's private pages plus its share of pages it shares."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _tree_memory_kb(root: int) -> tuple[int, int]:
    """Resident set and proportional set size of ``root`` and its descendants, from /proc (0 where
    /proc is missing). The RSS of a tree counts pages that forked processes share once per process;
    its PSS counts each page once, split between the processes that share it."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0, 0
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
            with open(f"/proc/{name}/statm", "rb") as handle:
                pages = int(handle.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        pid = int(name)
        parents[pid] = int(fields[1])
        rss[pid] = pages * (os.sysconf("SC_PAGE_SIZE") // 1024)
    total = pss = 0
    for pid, kb in rss.items():
        node = pid
        while node and node != root and node in parents:
            node = parents[node]
        if node == root:
            total += kb
            pss += _pss_kb(pid)
    return total, pss


def measure(cmd: list[str], env: dict | None = None, timeout: float = 3600) -> Measure:
    """Run ``cmd`` in a fresh intermediate process that reports the peak RSS of its tree."""
    probe = r"""
import json, resource, subprocess, sys, threading, time, os
sys.path.insert(0, HERE)
from bench_cleaner import _tree_memory_kb
cmd = json.loads(sys.argv[1])
start = time.perf_counter()
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
peak = [0, 0]
def poll():
    while proc.poll() is None:
        rss, pss = _tree_memory_kb(proc.pid)
        peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
        time.sleep(0.1)
thread = threading.Thread(target=poll, daemon=True)
thread.start()
out, err = proc.communicate()
seconds = time.perf_counter() - start
thread.join()
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_kb": max(peak[0], children), "peak_pss_kb": peak[1],
                  "rc": proc.returncode,
                  "tail": (out + err).decode("utf-8", "replace")[-600:]}))
""".replace("HERE", repr(str(HERE)), 1)
    result = subprocess.run([sys.executable, "-c", probe, json.dumps(cmd)], capture_output=True, text=True,
                            env=env, timeout=timeout, check=False)
    try:
        data = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return Measure(float("nan"), float("nan"), False, (result.stdout + result.stderr)[-600:])
    return Measure(data["seconds"], data["peak_kb"] / 1024, data["rc"] in (0,), data["tail"],
                   data["peak_pss_kb"] / 1024 if data["peak_pss_kb"] else float("nan"))


# --------------------------------------------------------------------------------------------
# Setting up: corpora, rendered cleaners
# --------------------------------------------------------------------------------------------


def corpus(work: Path, opts: Options) -> tuple[Path, dict]:
    """The corpus for ``opts``, generated once and cached under ``work``."""
    dest = work / "corpora" / opts.name()
    info_path = dest.with_suffix(".json")
    if info_path.exists() and dest.is_dir():
        return dest, json.loads(info_path.read_text())
    shutil.rmtree(dest, ignore_errors=True)
    info = write_corpus(opts, dest)
    info_path.write_text(json.dumps(info))
    return dest, info


def render(work: Path, fmt: str) -> Path:
    """A cleaner rendered from the format's mapping, exactly as `trajectory-cleaner new` renders it."""
    import yaml

    from generator.render import render_new

    samples, _ = corpus(work, Options(fmt, 10, 10))
    dest = Path(tempfile.mkdtemp(prefix=f"cleaner-{fmt}-", dir=work)) / "cleaner"
    mapping = yaml.safe_load(MAPPINGS[fmt].read_text(encoding="utf-8"))
    render_new(mapping, [samples], dest)
    # as a user's project runs from its second start on: bytecode written once (this machine may set
    # PYTHONDONTWRITEBYTECODE, which would make every timed run compile the runtime again)
    compileall.compile_dir(dest, quiet=1)
    return dest


def auto_jobs(src: Path) -> int:
    """The processes ``--jobs auto`` uses for this corpus, by the rendered runtime's own rule."""
    from cleaner_runtime import readers, run

    files = [readers.InputFile(p, p.relative_to(src)) for p in sorted(src.rglob("*")) if p.is_file()]
    return run.resolve_jobs("auto", files)


def have_normalizer() -> str:
    """'' when Letta's normalizer can run here, else why not."""
    try:
        import trajectory  # noqa: F401
    except ImportError:
        return "agent-trajectory is not installed (pip install -e '.[bench]')"
    if shutil.which("node") is None:
        return "Node.js is not installed (agent-trajectory needs Node 20+)"
    return ""


def fast_extra() -> list[str]:
    found = []
    for name in FAST_MODULES:
        try:
            __import__(name)
            found.append(name)
        except ImportError:
            pass
    return found


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------


def run_rounds(rows: list[tuple[Row, list[str]]], runs: int, out_dir: Path, log) -> None:
    """Each subject once per round, ``runs`` rounds: a machine whose speed drifts (a shared VM, a
    neighbour's load) then slows every subject alike, and the ratios taken within one corpus stay
    fair. A subject that fails is dropped from the later rounds, with the reason in its note."""
    for i in range(runs):
        for row, cmd in rows:
            if row.note.startswith("FAILED"):
                continue
            shutil.rmtree(out_dir, ignore_errors=True)
            m = measure(cmd)
            if not m.ok:
                row.note = "FAILED: " + " ".join(m.detail.split())[-300:]
                log(f"  {row.subject}: failed: {m.detail[-300:]}")
                continue
            row.runs.append(m)
            log(f"  {row.corpus} {row.subject} run {i + 1}/{runs}: {m.seconds:.2f}s, "
                f"{row.records / m.seconds:,.0f} rec/s, {m.peak_mb:.0f} MB RSS, {m.peak_pss_mb:.0f} MB PSS")
    shutil.rmtree(out_dir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Benchmark a rendered cleaner against the JSON floor and Letta's normalizer.",
        epilog="example:\n  python benchmarks/bench_cleaner.py --quick\n  python benchmarks/bench_cleaner.py --json results.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="smaller corpora of the same shapes (1-2 minutes)")
    parser.add_argument("--runs", type=int, help="runs per measurement; the median is reported (default 3; quick 2)")
    parser.add_argument("--formats", default="pi,flat", help="comma-separated: pi, flat (default both)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="also time the cleaner with --jobs N (default 1: one process; 0 to skip); the "
                             "cleaner itself runs as shipped, with --jobs auto")
    parser.add_argument("--workdir", help="where corpora and outputs go (default: a cache folder in the temp dir)")
    parser.add_argument("--no-normalizer", action="store_true", help="skip Letta's normalizer")
    parser.add_argument("--per-session-limit", type=int, default=200,
                        help="sessions timed for the per-session normalizer on many-session corpora (0: all)")
    parser.add_argument("--corpus", action="append", metavar="SESSIONSxRECORDS",
                        help="a corpus of this shape instead of the default two (repeatable), e.g. 20000x5: "
                             "many tiny sessions, whose peak memory shows what a run holds per session")
    parser.add_argument("--json", dest="json_out", help="also write the results as JSON to this file")
    args = parser.parse_args(argv)
    runs = args.runs or (2 if args.quick else 3)
    work = Path(args.workdir or Path(tempfile.gettempdir()) / "trajectory-cleaner-bench")
    work.mkdir(parents=True, exist_ok=True)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    sizes = {"single": (1, 30_000), "many": (300, 100)} if args.quick else {"single": (1, 200_000), "many": (2000, 100)}
    if args.corpus:
        try:
            sizes = {shape: tuple(int(n) for n in shape.lower().split("x", 1)) for shape in args.corpus}
        except ValueError:
            parser.error(f"--corpus takes SESSIONSxRECORDS, such as 20000x5 (got {args.corpus})")

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    why_no_normalizer = "skipped (--no-normalizer)" if args.no_normalizer else have_normalizer()
    extra = fast_extra()
    log(f"fast extra importable here: {', '.join(extra) or 'none'}; normalizer: {why_no_normalizer or 'yes'}")
    rows: list[Row] = []
    outputs = work / "out"
    compileall.compile_dir(REPO / "cleaner_runtime", quiet=1)  # the hand-written cleaner imports it from here
    for fmt in formats:
        log(f"rendering the {fmt} cleaner ...")
        project = render(work, fmt)
        script = str(project / "clean_to_trajectory_jsonl.py")
        schema = str(project / "cleaner_runtime" / "trajectory-v1.schema.json")
        for sessions, records in sizes.values():
            src, info = corpus(work, Options(fmt, sessions, records))
            name = f"{fmt} {sessions}x{records}"
            mb = info["bytes"] / 1e6
            total = info["records"]
            log(f"{name}: {total:,} records, {mb:.0f} MB")
            subjects: list[tuple[str, list[str], int, str]] = [
                ("floor", [sys.executable, "-c", FLOOR, str(src), str(outputs), "json"], total, ""),
            ]
            if "orjson" in extra:
                subjects.append(("floor-orjson", [sys.executable, "-c", FLOOR, str(src), str(outputs), "orjson"],
                                 total, ""))
            clean = ["--input", str(src), "--output", str(outputs), "--schema", schema, "--quiet"]
            by_field = "by: field" in MAPPINGS[fmt].read_text(encoding="utf-8")
            auto = auto_jobs(src)
            how = f"--jobs auto: {auto} process{'es' if auto > 1 else ''}"
            if auto > 1:
                how += (", helpers redact the strings of sessions past 1 MiB" if sessions == 1
                        else ", sessions in parallel, each process reading every file" if by_field
                        else ", sessions in parallel")
            subjects.append(("cleaner", [sys.executable, script, *clean], total,
                             "fast extra: " + (", ".join(extra) or "none installed") + "; " + how))
            if extra:
                subjects.append(("cleaner-nofast", [sys.executable, "-c", NOFAST, script, *clean], total,
                                 "only jsonschema; " + how))
            if args.jobs > 0:
                subjects.append((f"cleaner-j{args.jobs}", [sys.executable, script, *clean, "--jobs", str(args.jobs)],
                                 total, "one process" if args.jobs == 1 else f"--jobs {args.jobs}"))
            if fmt == "pi":
                subjects.append(("handwritten", [sys.executable, str(HERE / "handwritten_pi.py"), str(src), str(outputs)],
                                 total, "hand-written (benchmarks/handwritten_pi.py): the lower bound; one process"))
            if fmt == "pi" and not why_no_normalizer:
                subjects.append(("normalizer-batch",
                                 [sys.executable, "-c", NORMALIZER, str(src), str(outputs), "batch", "0"], total,
                                 "one normalize_many call"))
                limit = args.per_session_limit if sessions > args.per_session_limit > 0 else 0
                counted = total if not limit else limit * records
                subjects.append(("normalizer-per-session",
                                 [sys.executable, "-c", NORMALIZER, str(src), str(outputs), "each", str(limit)],
                                 counted, f"first {limit} sessions" if limit else "one call per session"))
            timed = [(Row(name, subject, counted, mb * counted / total, note=note), cmd)
                     for subject, cmd, counted, note in subjects]
            run_rounds(timed, runs, outputs, log)
            rows.extend(row for row, _cmd in timed)
    print(report(rows, why_no_normalizer, runs, extra, args.quick))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(
            [{**asdict(r), "median_seconds": r.seconds, "records_per_s": r.rate, "median_peak_mb": r.peak_mb,
              "median_peak_pss_mb": r.peak_pss_mb}
             for r in rows], indent=2) + "\n", encoding="utf-8")
    return 0 if all(not r.note.startswith("FAILED") for r in rows) else 1


def report(rows: list[Row], why_no_normalizer: str, runs: int, extra: list[str], quick: bool) -> str:
    """The results as a Markdown table, with the ratios the issue asks for."""
    lines = [
        (f"Median of {runs} runs; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
         f"fast extra: {', '.join(extra) or 'none'}{'; --quick corpora' if quick else ''}."),
        "",
        "| corpus | subject | records/s | MB/s | peak RSS MB | peak PSS MB | vs floor | vs normalizer | note |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    by_corpus: dict[str, dict[str, Row]] = {}
    for row in rows:
        by_corpus.setdefault(row.corpus, {})[row.subject] = row
    for corpus_name, subjects in by_corpus.items():
        floor = subjects.get("floor")
        normalizers = [r for s, r in subjects.items() if s.startswith("normalizer") and r.runs and not r.note.startswith("FAILED")]
        best = max(normalizers, key=lambda r: r.rate) if normalizers else None
        for subject, row in subjects.items():
            if not row.runs:
                continue
            vs_floor = f"{row.rate / floor.rate:.2f}x" if floor and floor.runs else ""
            vs_norm = f"{row.rate / best.rate:.2f}x" if best else ""
            mem, pss = f"{row.peak_mb:,.0f}", f"{row.peak_pss_mb:,.0f}"
            if best and subject.startswith("cleaner"):
                mem += f" ({row.peak_mb / best.peak_mb:.1%})"
                pss += f" ({row.peak_pss_mb / best.peak_pss_mb:.1%})"
            lines.append(f"| {corpus_name} | {subject} | {row.rate:,.0f} | {row.megabytes / row.seconds:,.1f} | {mem} | "
                         f"{pss} | {vs_floor} | {vs_norm} | {row.note} |")
    if why_no_normalizer:
        lines += ["", f"Letta's normalizer: {why_no_normalizer}."]
    else:
        lines += ["", ("vs normalizer: against the faster normalizer mode on the same corpus; peak memory in "
                       "brackets: the cleaner's as a share of that normalizer run's. RSS counts the pages "
                       "forked helper processes share with their parent once per process; PSS once.")]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
