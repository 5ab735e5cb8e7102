"""Reading a bounded sample of one input file as the cleaner's readers would: JSON Lines, JSON
documents (with nested record lists), CSV/TSV tables, gzip of any.

Contract: ``read_sample`` reads at most its byte budget of the file and returns its FileReport
(container, records path, what was read, bad lines, problems) with the kept records; a file it
cannot read is reported, not raised.
"""

from __future__ import annotations

import json
from pathlib import Path

from cleaner_runtime.readers import without_path
from generator.inspect.documents import Partial, grouped_records, nested_path, records_in_document
from generator.inspect.fieldpaths import dotted, get, mapping_path
from generator.inspect.files import detect_container, first_byte, first_line_longer, open_input
from generator.inspect.jsonl import expand_lines, read_jsonl
from generator.inspect.nesting import with_children
from generator.inspect.records import FileReport, Keep, Rec
from generator.inspect.shaping import continued_lists, shape_document
from generator.inspect.values import human_size, shrink, type_name


def _chosen_records(document, records_path: tuple | None) -> tuple[list | None, tuple | None, list]:
    """The document's record list: the one at ``records_path`` when a person or the search chose
    it (and it is a list there), else the one ``records_in_document`` finds."""
    if records_path and "*" not in records_path:
        chosen = get(document, records_path)
        if isinstance(chosen, list):
            return chosen, tuple(records_path), [tuple(records_path)]
    return records_in_document(document)


def _read_document(report: FileReport, path: Path, budget: int, index: int, keep: int,
                   records_path: tuple | None = None) -> list[Rec]:
    with open_input(path) as stream:
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
        document = shape_document(report, document)
        records, records_path, choices = _chosen_records(document, records_path)
        group = continued_lists(document, records_path)
        if len(group) > 1:  # the conversation goes on in other lists: read them all, in document order
            records_path, records = group[0], [r for at in group for r in get(document, at)]
            report.shaping["more_records"] = [mapping_path(at) for at in group[1:]]
            choices = [records_path, *(c for c in choices if c != records_path)]
        if isinstance(document, dict) and records_path:
            envelope = without_path(document, records_path)
            for at in group[1:]:
                envelope = without_path(envelope, at)
            report.envelope = shrink(envelope)
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
    if records_path and (grouped := grouped_records(records)) is not None:
        return _read_grouped(report, grouped, index, keep)
    nested = nested_path(records)
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


def _read_elements(report: FileReport, elements: list, inner_path: tuple, index: int, keep: int) -> list[Rec]:
    """The records nested in each element (``*.<inner_path>``), each knowing its element and the
    element's other fields (its envelope)."""
    report.records_path = (*(report.records_path or ()), "*", *inner_path)
    report.records_path_choices = [report.records_path]
    report.envelope = None  # each element is its records' envelope
    without = without_path
    out = Keep(index, keep)
    for e_no, element in enumerate(elements, start=1):
        inner = get(element, inner_path) if isinstance(element, dict) else None
        if isinstance(inner, dict):
            inner = list(inner.values())  # a node map: its values are the records
        if not isinstance(inner, list):
            report.bad(f"{report.path} (element {e_no})", f"no list at `{dotted(inner_path)}`")
            continue
        envelope = shrink(without(element, inner_path))
        for number, value in enumerate(inner, start=1):
            where = f"{report.path} (element {e_no}, record {number})"
            if not isinstance(value, dict):
                report.bad(where, f"record {number} is a JSON {type_name(value)}, not an object")
                continue
            rec = out.offer(value, where)
            if rec is not None:
                rec.element, rec.envelope = e_no, envelope
    return out


def _read_grouped(report: FileReport, grouped: tuple, index: int, keep: int) -> list[Rec]:
    """The records of the innermost groupings of lists of lists (``documents.grouped_records``); the
    file stays one session: a grouping is not a conversation."""
    steps, groups = grouped
    report.records_path = (*report.records_path, *steps)
    report.records_path_choices = [report.records_path]
    report.grouped = True
    out = Keep(index, keep)
    for label, inner in groups:
        for number, value in enumerate(inner, start=1):
            rec = out.offer(value, f"{report.path} (group {label or 1}, record {number})")
            if rec is not None and label:
                rec.element = int(label)
    return out


def _read_table(report: FileReport, path: Path, table: str, index: int, keep: int) -> list[Rec]:
    """A CSV/TSV file read by the cleaner's own table reader: one record a row."""
    from cleaner_runtime import readers
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


def read_sample(shown: str, path: Path, budget: int, index: int, keep: int = 6000,
                records_path: tuple | None = None) -> tuple[FileReport, list[Rec]]:
    """Read at most ``budget`` bytes of one file as the cleaner's readers would; a JSON document's
    records are taken at ``records_path`` when given and present."""
    from cleaner_runtime import readers
    try:
        stat = path.stat()
        report = FileReport(shown, stat.st_size, mtime=stat.st_mtime)
        with open(path, "rb") as handle:
            report.compressed = handle.read(2) == b"\x1f\x8b"
        table = readers.table_kind(path)
        if table is not None:
            return report, _read_table(report, path, table, index, keep)
        first = first_byte(path)
        named_json = any(part in (".json", ".jsonl", ".ndjson") for part in Path(shown.lower()).suffixes)
        if not first or (first not in (b"{", b"[") and not named_json):
            report.container = "not_json" if first else "empty"
            report.problem = "not JSON (the first character is not { or [)" if first else "empty file"
            return report, []
        if first in (b"{", b"[") and first_line_longer(path, budget):
            records = _read_document(report, path, budget, index, keep, records_path)  # one huge line: a document
        elif first not in (b"{", b"[") or detect_container(path) == "jsonl":
            report.container = "jsonl"  # a junk first line is one bad line of a JSONL file
            records = read_jsonl(report, path, budget, index, keep)
            if not records:
                report.container, report.problem = "not_json", "no line holds a JSON object"
            elif len(records) > 1 and (nested := nested_path([r.data for r in records])) is not None:
                records = expand_lines(report, records, nested, index, keep)
            elif len(records) == 1 and report.complete and getattr(records, "parsed", 1) == 1:
                # one compact line holding a list of records: a JSON object document, not JSONL
                inner, inner_path, choices = _chosen_records(records[0].data, records_path)
                grouped = grouped_records(inner) if inner_path else None
                if grouped is not None:
                    report.container, report.records_path, report.records_path_choices = (
                        "json_object", inner_path, choices)
                    report.one_line = True
                    report.envelope = shrink(without_path(records[0].data, inner_path))
                    records = _read_grouped(report, grouped, index, keep)
                elif inner is not None and len(inner) > 1:
                    report.container, report.records_path, report.records_path_choices = (
                        "json_object", inner_path, choices)
                    report.one_line = True
                    report.envelope = shrink(without_path(records[0].data, inner_path))
                    kept = Keep(index, keep)
                    for number, value in enumerate(inner, start=1):
                        kept.offer(value, f"{report.path} (record {number})")
                    records = kept
        else:
            records = _read_document(report, path, budget, index, keep, records_path)
    except (OSError, EOFError, ValueError) as exc:
        report = FileReport(shown, 0, container="unreadable", problem=f"cannot read ({exc})")
        return report, []
    report.records = getattr(records, "parsed", len(records))
    records, report.children = with_children(list(records))
    if report.envelope is not None:
        for rec in records:
            rec.envelope = report.envelope
    return report, list(records)

