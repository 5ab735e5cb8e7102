"""Reading JSON Lines within a byte budget: every line of a small (or compressed) file up to the
budget, the head, middle and tail of a big one; and lines that each hold one conversation's records.

Contract: bad lines are counted in the FileReport with where and why (a torn last line, invalid
JSON or UTF-8, a value that is not an object), never raised; the report says which part was read.
"""

from __future__ import annotations

import json
from pathlib import Path

from cleaner_runtime.readers import without_path
from cleaner_runtime.shapes import ShapeError
from generator.inspect.fieldpaths import dotted, get
from generator.inspect.files import open_input
from generator.inspect.records import FileReport, Keep, Rec
from generator.inspect.shaping import shape_line
from generator.inspect.values import human_size, type_name

#: The longest line read: a longer one (a gzip bomb's single line, a log line holding a whole
#: dump) is counted as a bad line naming its file and line, skipped a piece at a time, and reading
#: goes on, so memory stays a few times this whatever a line holds.
MAX_LINE_BYTES = 64 << 20
_SKIP_PIECE = 1 << 20


def _read_line(stream, limit: int) -> tuple[bytes, int, bool]:
    """(the line, its size in bytes, whether it was over ``limit`` and skipped): one line read
    ``limit`` + 1 bytes at most; an overlong line's rest is read and dropped a MiB at a time."""
    raw = stream.readline(limit + 1)
    if len(raw) <= limit or raw.endswith(b"\n"):
        return raw, len(raw), False
    size = len(raw)
    while raw and not raw.endswith(b"\n"):
        raw = stream.readline(_SKIP_PIECE)
        size += len(raw)
    return b"", size, True


def _segments(size: int, budget: int) -> list[tuple[int, int, str]]:
    """Byte ranges of a big file to read: mostly the head, some middle, some tail."""
    if size <= budget:
        return [(0, size, "head")]
    head = int(budget * 0.6)
    middle = int(budget * 0.2)
    tail = budget - head - middle
    mid_start = max(head, size // 2 - middle // 2)
    return [(0, head, "head"), (mid_start, middle, "middle"), (size - tail, tail, "tail")]


def human_limit(count: int) -> str:
    """A limit as people read it: ``64 MiB``, ``1000 bytes``."""
    if count >= 1 << 20 and count % (1 << 20) == 0:
        return f"{count >> 20} MiB"
    return f"{count} bytes"


def _parse_line(raw: bytes, where: str, report: FileReport, out: list, index: int) -> None:
    if not raw.strip():
        return
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        report.bad(where, f"invalid UTF-8 at byte {exc.start}")
        return
    except (ValueError, RecursionError) as exc:
        torn = not raw.endswith(b"\n")
        detail = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        report.bad(where, "torn last line (no newline)" if torn else f"invalid JSON ({detail})")
        return
    try:
        value = shape_line(report, value)
    except ShapeError as exc:
        report.bad(where, str(exc))
        return
    if not isinstance(value, dict):
        report.bad(where, f"a JSON {type_name(value)}, not an object")
        return
    out.offer(value, where)


def read_jsonl(report: FileReport, path: Path, budget: int, index: int, keep: int) -> list[Rec]:
    out = Keep(index, keep)
    if report.compressed or report.size <= budget:
        with open_input(path) as stream:
            number = 0
            while True:
                raw, size, skipped = _read_line(stream, MAX_LINE_BYTES)
                if not size:
                    break
                number += 1
                report.bytes_read += size
                if skipped:
                    report.bad(f"{report.path}:{number}",
                               f"line longer than {human_limit(MAX_LINE_BYTES)} (the per-line limit); skipped")
                else:
                    if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                        raw = raw[3:]
                    _parse_line(raw, f"{report.path}:{number}", report, out, index)
                if report.bytes_read >= budget:
                    if stream.readline():
                        report.complete = False
                        kind = "decompressed " if report.compressed else ""
                        report.read = f"first {human_size(report.bytes_read)} ({kind}lines 1-{number})"
                    break
        return out
    report.complete = False
    parts = []
    with open(path, "rb") as stream:
        for start, length, name in _segments(report.size, budget):
            stream.seek(start)
            data = stream.read(length)
            report.bytes_read += len(data)
            lines = data.split(b"\n")
            at_end = start + length >= report.size
            if start > 0:
                lines = lines[1:]  # the first piece is the rest of a line we did not start
            if not at_end:
                lines = lines[:-1]  # the last piece is cut by the budget
            if name == "head":
                if lines and lines[0].startswith(b"\xef\xbb\xbf"):
                    lines[0] = lines[0][3:]
                for number, raw in enumerate(lines, start=1):
                    _parse_line(raw + b"\n", f"{report.path}:{number}", report, out, index)
                parts.append(f"lines 1-{len(lines)}")
            else:
                for raw in lines:
                    _parse_line(raw + b"\n", f"{report.path} (byte ~{start})", report, out, index)
                parts.append(f"{human_size(length)} of the {name} (from byte {start})")
    report.read = f"{human_size(report.bytes_read)} of {human_size(report.size)}: " + ", ".join(parts)
    return out


def expand_lines(report: FileReport, lines: list[Rec], inner_path: tuple, index: int, keep: int) -> list[Rec]:
    """JSONL whose every line is one conversation holding its records at ``inner_path`` (``*.<path>``)."""
    report.records_path = ("*", *inner_path)
    report.records_path_choices = [report.records_path]
    without = without_path
    out = Keep(index, keep)
    for line in lines:
        inner = get(line.data, inner_path)
        if isinstance(inner, dict):
            inner = list(inner.values())  # a node map: its values are the records
        if not isinstance(inner, list):
            report.bad(line.where, f"no list at `{dotted(inner_path)}`")
            continue
        envelope = without(line.data, inner_path)
        for number, value in enumerate(inner, start=1):
            if isinstance(value, dict):
                rec = out.offer(value, f"{line.where} (record {number})")
                if rec is not None:
                    rec.element, rec.envelope = line.pos, envelope
    return out

