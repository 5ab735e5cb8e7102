"""Reading inputs as the cleaner's readers would: the files that paths, folders and globs name, and a
bounded sample of each (JSONL, JSON documents, nested record lists, CSV/TSV, gzip of either).

Contract: ``read_sample`` reads at most its byte budget of one file (head, middle and tail of a big
one) and returns its FileReport (what was read, bad lines, problems) with the kept records; input
it cannot read is reported, not raised. Containers are decided by the runtime's own reader.
"""

from __future__ import annotations

import glob
import json
import os
from pathlib import Path
from typing import Any

from generator.inspect.documents import Partial, nested_key, records_in_document
from generator.inspect.records import FileReport, Keep, Rec
from generator.inspect.values import human_size, shrink, type_name
from generator.paths import runtime_module

_GLOB_CHARS = set("*?[")


def expand_paths(paths: list[str]) -> tuple[list[tuple[str, Path]], list[str]]:
    """Files named by paths, folders (recursive, hidden skipped) and globs; plus problems."""
    readers = runtime_module("readers")
    out: list[tuple[str, Path]] = []
    problems: list[str] = []
    seen: set = set()
    for given in paths:
        candidates: list[str]
        if not os.path.exists(given) and _GLOB_CHARS & set(given):
            candidates = sorted(glob.glob(given, recursive=True))
            if not candidates:
                problems.append(f"{given}: no file matches this pattern")
        else:
            candidates = [given]
        for candidate in candidates:
            path = Path(candidate)
            if not path.exists():
                problems.append(f"{candidate}: no such file or folder")
                continue
            if path.is_dir():
                items = [(str(item.path), item.path) for item in readers.discover(candidate, ["*"])]
            else:
                items = [(candidate, path)]
            for shown, real in items:
                key = os.path.realpath(real)
                if key not in seen:
                    seen.add(key)
                    out.append((shown, real))
    return out, problems


def _open(path: Path):
    return runtime_module("readers")._open_bytes(path)


def _segments(size: int, budget: int) -> list[tuple[int, int, str]]:
    """Byte ranges of a big file to read: mostly the head, some middle, some tail."""
    if size <= budget:
        return [(0, size, "head")]
    head = int(budget * 0.6)
    middle = int(budget * 0.2)
    tail = budget - head - middle
    mid_start = max(head, size // 2 - middle // 2)
    return [(0, head, "head"), (mid_start, middle, "middle"), (size - tail, tail, "tail")]


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
    if not isinstance(value, dict):
        report.bad(where, f"a JSON {type_name(value)}, not an object")
        return
    out.offer(value, where)


def _read_jsonl(report: FileReport, path: Path, budget: int, index: int, keep: int) -> list[Rec]:
    out = Keep(index, keep)
    if report.compressed or report.size <= budget:
        with _open(path) as stream:
            number = 0
            while True:
                raw = stream.readline()
                if not raw:
                    break
                number += 1
                if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                report.bytes_read += len(raw)
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


def _read_document(report: FileReport, path: Path, budget: int, index: int, keep: int) -> list[Rec]:
    with _open(path) as stream:
        data = stream.read(budget + 1)
        complete = len(data) <= budget
    report.bytes_read = min(len(data), budget)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if complete:
        try:
            document = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            report.problem = f"invalid UTF-8 at byte {exc.start}"
            report.bad(report.path, report.problem)
            return []
        except (ValueError, RecursionError) as exc:
            report.problem = f"invalid JSON document ({exc})"
            report.bad(report.path, report.problem)
            return []
        records, records_path, choices = records_in_document(document)
        if isinstance(document, dict) and records_path:
            report.envelope = shrink(runtime_module("readers").without_path(document, records_path))
    else:
        report.complete = False
        text = data[:budget].decode("utf-8", errors="ignore")
        records, records_path = Partial(text).find()
        choices = [records_path] if records_path else []
        kind = "decompressed " if report.compressed else ""
        report.read = f"first {human_size(report.bytes_read)} ({kind}bytes of the document)"
    if records is None:
        report.problem = "no list of records found in the JSON document"
        report.bad(report.path, report.problem)
        return []
    report.container = "json_array" if records_path is None else "json_object"
    report.records_path = records_path
    report.records_path_choices = choices
    nested = nested_key(records)
    if nested is not None:
        return _read_elements(report, records, nested, index, keep)
    out = Keep(index, keep)
    for number, value in enumerate(records, start=1):
        where = f"{report.path} (record {number})"
        if isinstance(value, dict):
            out.offer(value, where)
        else:
            report.bad(where, f"record {number} is a JSON {type_name(value)}, not an object")
    return out


def _read_elements(report: FileReport, elements: list, key: str, index: int, keep: int) -> list[Rec]:
    """The records nested in each element (``*.<key>``), each knowing its element and the element's
    other fields (its envelope)."""
    report.records_path = (*(report.records_path or ()), "*", key)
    report.records_path_choices = [report.records_path]
    report.envelope = None  # each element is its records' envelope
    without = runtime_module("readers").without_path
    out = Keep(index, keep)
    for e_no, element in enumerate(elements, start=1):
        inner = element.get(key) if isinstance(element, dict) else None
        if isinstance(inner, dict):
            inner = list(inner.values())  # a node map: its values are the records
        if not isinstance(inner, list):
            report.bad(f"{report.path} (element {e_no})", f"no list at `{key}`")
            continue
        envelope = shrink(without(element, (key,)))
        for number, value in enumerate(inner, start=1):
            where = f"{report.path} (element {e_no}, record {number})"
            if not isinstance(value, dict):
                report.bad(where, f"record {number} is a JSON {type_name(value)}, not an object")
                continue
            rec = out.offer(value, where)
            if rec is not None:
                rec.element, rec.envelope = e_no, envelope
    return out


def _expand_lines(report: FileReport, lines: list[Rec], key: str, index: int, keep: int) -> list[Rec]:
    """JSONL whose every line is one conversation holding its records at ``key`` (``*.<key>``)."""
    report.records_path = ("*", key)
    report.records_path_choices = [report.records_path]
    without = runtime_module("readers").without_path
    out = Keep(index, keep)
    for line in lines:
        inner = line.data.get(key)
        if not isinstance(inner, list):
            report.bad(line.where, f"no list at `{key}`")
            continue
        envelope = without(line.data, (key,))
        for number, value in enumerate(inner, start=1):
            if isinstance(value, dict):
                rec = out.offer(value, f"{line.where} (record {number})")
                if rec is not None:
                    rec.element, rec.envelope = line.pos, envelope
    return out


def _first_byte(path: Path) -> bytes:
    with _open(path) as stream:
        chunk = stream.read(65536).lstrip(b" \t\r\n")
    if chunk.startswith(b"\xef\xbb\xbf"):
        chunk = chunk[3:].lstrip(b" \t\r\n")
    return chunk[:1]


def _first_line_longer(path: Path, limit: int) -> bool:
    with _open(path) as stream:
        return not stream.readline(limit).endswith(b"\n") and bool(stream.read(1))


def _container(readers: Any, path: Path) -> str:
    """``jsonl`` or a JSON document, decided exactly as the cleaner's reader decides it."""
    try:
        kind, fallback = readers._detect(path, readers.Limits())
    except (AttributeError, TypeError):
        with _open(path) as stream:
            line = stream.readline(1 << 20).strip(b" \t\r\n\xef\xbb\xbf")
        try:
            return "jsonl" if isinstance(json.loads(line), dict) else "json_array"
        except ValueError:
            return "json_object"
    if kind != "jsonl" and fallback:
        # one line holding a whole value: a document only if the whole file parses as one
        with _open(path) as stream:
            head = stream.read(1 << 20)
        try:
            json.loads(head)
        except ValueError:
            return "jsonl" if len(head) < (1 << 20) else kind
    return kind


def _read_table(report: FileReport, path: Path, table: str, index: int, keep: int) -> list[Rec]:
    """A CSV/TSV file read by the cleaner's own table reader: one record a row."""
    readers = runtime_module("readers")
    report.container = table
    kept = Keep(index, keep)
    for entry in readers.read_records(readers.InputFile(path, Path(path.name)), table):
        if isinstance(entry, readers.BadLine):
            report.bad(f"{report.path}:{entry.where.line}", entry.reason)
        else:
            kept.offer(entry[1], f"{report.path}:{entry[0].line}")
    report.bytes_read = report.size
    report.records = getattr(kept, "parsed", len(kept))
    if not kept:
        report.problem = "no row under the header"
    return list(kept)


def read_sample(shown: str, path: Path, budget: int, index: int, keep: int = 6000) -> tuple[FileReport, list[Rec]]:
    """Read at most ``budget`` bytes of one file as the cleaner's readers would."""
    readers = runtime_module("readers")
    try:
        stat = path.stat()
        report = FileReport(shown, stat.st_size, mtime=stat.st_mtime)
        with open(path, "rb") as handle:
            report.compressed = handle.read(2) == b"\x1f\x8b"
        table = readers.table_kind(path)
        if table is not None:
            return report, _read_table(report, path, table, index, keep)
        first = _first_byte(path)
        named_json = any(part in (".json", ".jsonl", ".ndjson") for part in Path(shown.lower()).suffixes)
        if not first or (first not in (b"{", b"[") and not named_json):
            report.container = "not_json" if first else "empty"
            report.problem = "not JSON (the first character is not { or [)" if first else "empty file"
            return report, []
        if first in (b"{", b"[") and _first_line_longer(path, budget):
            records = _read_document(report, path, budget, index, keep)  # one huge line: a document
        elif first not in (b"{", b"[") or _container(readers, path) == "jsonl":
            report.container = "jsonl"  # a junk first line is one bad line of a JSONL file
            records = _read_jsonl(report, path, budget, index, keep)
            if not records:
                report.container, report.problem = "not_json", "no line holds a JSON object"
            elif len(records) > 1 and (nested := nested_key([r.data for r in records])) is not None:
                records = _expand_lines(report, records, nested, index, keep)
            elif len(records) == 1 and report.complete and getattr(records, "parsed", 1) == 1:
                # one compact line holding a list of records: a JSON object document, not JSONL
                inner, inner_path, choices = records_in_document(records[0].data)
                if inner is not None and len(inner) > 1:
                    report.container, report.records_path, report.records_path_choices = (
                        "json_object", inner_path, choices)
                    report.one_line = True
                    report.envelope = shrink(runtime_module("readers").without_path(records[0].data, inner_path))
                    kept = Keep(index, keep)
                    for number, value in enumerate(inner, start=1):
                        kept.offer(value, f"{report.path} (record {number})")
                    records = kept
        else:
            records = _read_document(report, path, budget, index, keep)
    except (OSError, EOFError, ValueError) as exc:
        report = FileReport(shown, 0, container="unreadable", problem=f"cannot read ({exc})")
        return report, []
    report.records = getattr(records, "parsed", len(records))
    if report.envelope is not None:
        for rec in records:
            rec.envelope = report.envelope
    return report, list(records)

