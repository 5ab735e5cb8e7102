"""The printed summary of `migrate traces`: what was split, derived, dropped and why.

The conversion loses nothing silently; this is where people read what it did to their files
(``--json`` gives the same facts to machines, see TracesReport.to_json).
"""

from __future__ import annotations

import re
from collections import Counter

from generator.migrate.traces import TracesReport


def format_traces_report(report: TracesReport) -> str:
    """The people's summary: what was split, derived, dropped and why; what failed and where."""
    out = []
    for section in (_totals, _roles, _splits, _times, _dropped, _redactions, _not_old_shape, _warnings):
        out += section(report)
    out.append(f"files failed:      {len(report.failed)}")
    return "\n".join(out)


def _totals(report: TracesReport) -> list[str]:
    written = [f for f in report.files if f.output]
    naive = sum(f.naive for f in report.files)
    return [
        f"files read:        {len(report.files)}",
        f"files written:     {len(written)}  (to {report.output}, source {report.source!r})",
        f"records written:   {sum(f.records for f in written)}  (old rows: {sum(f.rows for f in written)})",
        f"schema:            {report.schema}",
        (f"time zone:         {report.timezone} - zone-less old timestamps are read in this zone "
         f"({naive} found; change with --timezone)"),
    ]


def _roles(report: TracesReport) -> list[str]:
    roles: Counter = Counter()
    for f in report.files:
        roles.update(f.roles)
    return ["roles:             " + "; ".join(f"{n} x {name}" for name, n in sorted(roles.items()))]


def _splits(report: TracesReport) -> list[str]:
    split = [s for f in report.files for s in f.split]
    out = [(f"split:             {len(split)} block-list row(s) became several records "
            "(text -> message, thinking -> reasoning, tool_use -> tool_calls, tool_result -> tool)")]
    out += [f"  {line}" for line in split[:10]]
    if len(split) > 10:
        out.append(f"  ... {len(split) - 10} more (see --json)")
    flattened = sum(len(f.flattened) for f in report.files)
    out.append(f"flattened:         {flattened} block-list row(s) of text only, joined into one string")
    return out


def _times(report: TracesReport) -> list[str]:
    derived = [(f.input, f.derived) for f in report.files if f.derived]
    out = [(f"derived times:     {sum(len(d) for _, d in derived)} null/missing timestamp(s) took the previous "
            "record's time (the next one's at the start of a file); none invented")]
    out += [f"  {name}: line(s) {_lines(lines)}" for name, lines in derived]
    fallback = [(f.input, n) for f in report.files for reason, n in f.repaired.items() if "fallback" in reason]
    out += [f"  {name}: no timestamp at all; {n} record(s) use the file's modification time (--fallback-mtime)"
            for name, n in fallback]
    repairs: Counter = Counter()
    for f in report.files:
        repairs.update({k: v for k, v in f.repaired.items()
                        if "derived from neighbouring" not in k and "fallback" not in k})
    out += [f"  also: {count} x {reason}" for reason, count in sorted(repairs.items())]
    return out


def _lines(numbers: list[int], limit: int = 8) -> str:
    shown = ", ".join(map(str, numbers[:limit]))
    return shown + (f", ... ({len(numbers)} in all)" if len(numbers) > limit else "")


def _dropped(report: TracesReport) -> list[str]:
    dropped: Counter = Counter()
    where: dict[str, str] = {}
    for f in report.files:
        dropped.update(f.dropped)
        for reason, w in f.dropped_where.items():
            where.setdefault(reason, w)
    out = [f"dropped:           {sum(dropped.values())}"]
    for reason, count in sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0])):
        out.append(f"  {count} x {_why_dropped(reason)} (first at {where.get(reason, '?')})")
    return out


def _why_dropped(reason: str) -> str:
    match = re.fullmatch(r"block type '(.+)' \(skipped by the mapping\)", reason)
    if match:
        kind = match.group(1)
        if kind == "redacted_thinking":
            return "redacted_thinking block (encrypted reasoning, no text to keep)"
        return f"{kind} block (binary content has no place in trajectory-v1)"
    if reason.startswith("unknown block type"):
        return reason + " (not a block kind the old shape defined; its content was not converted)"
    if "no content" in reason:
        return reason + " (an empty message is not a valid record)"
    if "no earlier call" in reason or "no unanswered call" in reason:
        return reason + " (trajectory-v1 needs every result linked to an earlier call)"
    return reason


def _redactions(report: TracesReport) -> list[str]:
    redactions: Counter = Counter()
    for f in report.files:
        redactions.update(f.redactions)
    out = [f"redactions:        {sum(redactions.values())}" + (" (secrets the old output had leaked)" if redactions else "")]
    out += [f"  {count} x {kind}" for kind, count in sorted(redactions.items())]
    truncated = sum(f.truncated for f in report.files)
    if truncated:
        out.append(f"truncated:         {truncated} very long string(s), head and tail kept")
    return out


def _not_old_shape(report: TracesReport) -> list[str]:
    bad = [line for f in report.files for line in f.not_old_shape]
    out = [f"not old-shape:     {len(bad)} row(s), not converted"]
    out += [f"  {line}" for line in bad[:20]]
    if len(bad) > 20:
        out.append(f"  ... {len(bad) - 20} more (see --json)")
    return out


def _warnings(report: TracesReport) -> list[str]:
    warnings = [(f.input, w) for f in report.files for w in f.warnings]
    if not warnings:
        return []
    return [f"warnings:          {len(warnings)}"] + [f"  {name}: {w}" for name, w in warnings[:10]]
