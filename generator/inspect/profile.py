"""The Profile: everything inspect learned from a bounded sample of the inputs, and the run that
builds it.

Contract: ``profile_paths`` spreads the byte budget (MAX_BYTES) over the files, reads them, runs
every analysis and returns a Profile whose ``to_dict()`` is the --json report (FileNotFoundError
when nothing is found); ``sample_records`` returns a few raw records, one per kind first (NOT
redacted).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from cleaner_runtime.redaction.names import shown_path
from generator.inspect.blocks import Blocks, find_blocks
from generator.inspect.fieldpaths import dotted
from generator.inspect.fields import profile_fields
from generator.inspect.files import expand_paths
from generator.inspect.kinds import find_kinds
from generator.inspect.links import find_links
from generator.inspect.meta import find_meta
from generator.inspect.native import Native, detect_native
from generator.inspect.reading import read_sample
from generator.inspect.records import Rec
from generator.inspect.sessions import SessionInfo, find_sessions
from generator.inspect.times import find_times

MAX_BYTES = 16 * 1024 * 1024
MIN_FILE_BYTES = 64 * 1024
MAX_FILES = 400
ANALYSED = 6000  # records kept for the structural analyses (every shape, a bounded number of each)


@dataclass
class Profile:
    """Everything inspect learned from the samples; ``to_dict()`` is the --json report."""

    inputs: list
    files: list = field(default_factory=list)
    recs: list = field(default_factory=list, repr=False)
    stats: dict = field(default_factory=dict, repr=False)
    session: SessionInfo = field(default_factory=SessionInfo)
    kinds: list = field(default_factory=list)
    blocks: Blocks = field(default_factory=Blocks)
    links: list = field(default_factory=list)
    times: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    native: Native | None = None
    problems: list = field(default_factory=list)
    budget: int = MAX_BYTES
    files_total: int = 0
    bytes_total: int = 0
    seconds: float = 0.0

    @property
    def records(self) -> int:
        """Records analysed (all of them in small samples; every shape, bounded, in big ones)."""
        return len(self.recs)

    @property
    def records_read(self) -> int:
        return sum(f.records for f in self.files)

    @property
    def complete(self) -> bool:
        return self.files_total == len(self.files) and all(f.complete for f in self.files)

    def to_dict(self, show_values: bool = False) -> dict:
        total = self.records
        fields = [s.to_dict(total, show_values) for p, s in sorted(self.stats.items(), key=lambda kv: dotted(kv[0]))]
        return {
            "inputs": [shown_path(given) for given in self.inputs],
            "sampling": {"budget_bytes": self.budget, "files_found": self.files_total, "files_read": len(self.files),
                         "bytes_total": self.bytes_total,
                         "bytes_read": sum(f.bytes_read for f in self.files), "complete": self.complete},
            "files": [f.to_dict() for f in self.files],
            "records": total,
            "records_read": self.records_read,
            "bad_lines": sum(f.bad_count for f in self.files),
            "session": self.session.to_dict(),
            "fields": fields,
            "kinds": [k.to_dict(show_values) for k in self.kinds],
            "blocks": self.blocks.to_dict(),
            "links": [link.to_dict() for link in self.links],
            "timestamps": [t.to_dict() for t in self.times],
            "meta": {k: [{**{f: x for f, x in c.items() if f != "values"}, "path": dotted(c["path"])} for c in v]
                     for k, v in self.meta.items()},
            "native": None if self.native is None else {"source": self.native.source, "evidence": self.native.evidence},
            "problems": [shown_path(problem) for problem in self.problems],
            "seconds": round(self.seconds, 3),
        }


class _Progress:
    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()
        self.last = 0.0

    def show(self, text: str, final: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if final or now - self.last > 0.1:
            self.last = now
            sys.stderr.write("\r\033[K" + text + ("\n" if final else ""))
            sys.stderr.flush()


def _choose_files(found: list[tuple[str, Path]], budget: int) -> list[tuple[str, Path]]:
    """Every file when few; otherwise an even spread (first and last included)."""
    limit = max(2, min(MAX_FILES, budget // MIN_FILE_BYTES))
    if len(found) <= limit:
        return found
    step = (len(found) - 1) / (limit - 1)
    return [found[round(i * step)] for i in range(limit)]


def profile_paths(paths: list[str], *, max_bytes: int = MAX_BYTES, progress: bool = False,
                  records_path: tuple | None = None) -> Profile:
    """Read a bounded sample of the inputs and profile it (raises FileNotFoundError for no input).
    ``records_path`` reads JSON documents' records at that path (a chosen reading, re-profiled)."""
    started = time.monotonic()
    found, problems = expand_paths(paths)
    profile = Profile(inputs=list(paths), problems=problems, budget=max_bytes, files_total=len(found))
    if not found:
        raise FileNotFoundError("; ".join(problems) or f"{' '.join(paths)}: no files found")
    sizes = []
    for _, path in found:
        try:
            sizes.append(path.stat().st_size)
        except OSError:
            sizes.append(0)
    profile.bytes_total = sum(sizes)
    chosen = _choose_files(found, max_bytes)
    show = _Progress(progress)
    remaining = max_bytes
    keep = max(16, ANALYSED // len(chosen))
    for i, (shown, path) in enumerate(chosen):
        if remaining < MIN_FILE_BYTES // 4 and profile.recs:
            break  # the budget is spent; the report says how many files were read
        share = max(MIN_FILE_BYTES // 4, min(remaining, max(MIN_FILE_BYTES, remaining // max(1, len(chosen) - i))))
        show.show(f"inspect: reading {i + 1}/{len(chosen)} {shown}")
        report, recs = read_sample(shown, path, share, len(profile.files), keep, records_path)
        remaining = max(0, remaining - report.bytes_read)
        profile.files.append(report)
        profile.recs.extend(recs)
    show.show(f"inspect: profiling {len(profile.recs)} records", final=False)
    profile.stats = profile_fields([r.data for r in profile.recs])
    profile.session = find_sessions(profile.recs, profile.stats, profile.files)
    profile.kinds = find_kinds(profile.recs, profile.stats, profile.session)
    profile.blocks = find_blocks(profile.recs, profile.stats)
    profile.links = find_links(profile.kinds, profile.blocks, profile.stats, profile.session.path)
    profile.times = find_times(profile.recs, profile.stats, profile.session)
    profile.meta = find_meta(profile.stats, max(1, len(profile.recs)))
    profile.native = detect_native(profile.recs, profile.files)
    profile.seconds = time.monotonic() - started
    show.show(f"inspect: {len(profile.recs)} records from {len(profile.files)} file(s) "
              f"in {profile.seconds:.1f}s", final=True)
    return profile


def sample_records(paths: list[str], n: int = 5, *, max_bytes: int = 4 * 1024 * 1024) -> list[dict]:
    """A few raw records, one per kind first, for previews and prompts (NOT redacted)."""
    found, _ = expand_paths(paths)
    recs: list[Rec] = []
    budget = max_bytes
    for i, (shown, path) in enumerate(found[:50]):
        _, got = read_sample(shown, path, max(MIN_FILE_BYTES, budget // max(1, min(50, len(found)) - i)), i)
        budget -= sum(len(json.dumps(r.data)) for r in got[:1000])
        recs.extend(got)
        if budget <= 0:
            break
    if not recs:
        return []
    stats = profile_fields([r.data for r in recs[:5000]])
    kinds = find_kinds(recs[:5000], stats, SessionInfo())
    out: list[dict] = []
    for kind in kinds:
        if len(out) < n:
            out.append(kind.recs[0].data)
    for rec in recs:
        if len(out) >= n:
            break
        if not any(rec.data is r for r in out):
            out.append(rec.data)
    return out

