"""Find input files and read raw records from JSONL, JSON arrays, JSON objects and gzip.

Every record comes with where it was found (file and line) so that an error or a skip can name
it. Bad lines never stop a read: they are reported to the caller, which applies the mapping's
``invalid_lines`` policy.

Memory stays bounded whatever the input: a JSONL line is read only up to ``Limits.line_bytes``
(longer lines are reported, not loaded), a whole JSON document only up to
``Limits.document_bytes`` (decompressed), and records nested deeper than ``Limits.depth`` are
reported instead of being handed to code that walks them recursively.
"""

from __future__ import annotations

import contextlib
import csv
import fnmatch
import functools
import gzip
import io
import json
import os
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from .shapes import ShapeError, Shaping, is_tagged, node_map

try:  # the optional fast extra (requirements-fast.txt); the records read are the same without it
    import orjson
except ImportError:
    orjson = None

MIB = 1024 * 1024
MAX_LINE_MB = 64  # the longest JSONL line read (--max-line-mb)
MAX_DOCUMENT_MB = 256  # the largest JSON array/object file read, decompressed (--max-document-mb)
MAX_DEPTH = 200  # records nested deeper are reported as invalid lines
MAX_LINE_BYTES = MAX_LINE_MB * MIB
_JSON_TYPES = {"dict": "object", "list": "array", "str": "string", "int": "number", "float": "number",
               "bool": "boolean", "NoneType": "null"}


@dataclass(frozen=True)
class Limits:
    """What one read may hold in memory; each limit names the flag that raises it."""

    line_bytes: int = MAX_LINE_MB * MIB
    document_bytes: int = MAX_DOCUMENT_MB * MIB
    depth: int = MAX_DEPTH

    @classmethod
    def from_mb(cls, line_mb: float | None = None, document_mb: float | None = None) -> Limits:
        return cls(
            line_bytes=int((line_mb or MAX_LINE_MB) * MIB),
            document_bytes=int((document_mb or MAX_DOCUMENT_MB) * MIB),
        )


class InputError(Exception):
    """An input path or file that cannot be read at all."""


class Where(NamedTuple):
    """A place in the input: the file as the user named it (relative stays relative) and a line.

    One is made for every record read: a named tuple is several times cheaper to build than a
    frozen dataclass."""

    file: str
    line: int
    unit: str = "line"  # "record" for JSON documents: the position in the record list
    element: str = ""  # with a `*` in input.records_path: the element (position or key) holding the record

    def __str__(self) -> str:
        if self.element:
            return f"{self.file} (element {self.element}" + (f", record {self.line})" if self.line else ")")
        if not self.line:
            return self.file
        return f"{self.file}:{self.line}" if self.unit == "line" else f"{self.file} (record {self.line})"


# A Where built without the Python-level __new__ of a named tuple (readers make one per line);
# every field is given: tuple.__new__ knows no defaults.
_new_where = functools.partial(tuple.__new__, Where)


@dataclass(frozen=True)
class BadLine:
    """A line that is not a JSON object, with the reason."""

    where: Where
    reason: str


@dataclass(frozen=True)
class InputFile:
    path: Path  # as the user typed it, joined with the relative part
    rel: Path  # relative to the input root (the file name when the input is a file)


def discover(
    input_path: str,
    include: list[str],
    exclude_dir: Path | None = None,
    skipped: list[tuple[str, str]] | None = None,
) -> list[InputFile]:
    """The files to read, sorted, without following directory links (no loops).

    Entries that match ``include`` but cannot be read as files (link loops, dangling links,
    FIFOs and other special files, links to folders, unreadable folders) are appended to
    ``skipped`` as ``(path, reason)`` so that the summary can count them; a FIFO is never
    opened, so it cannot hang the run.
    """
    root = Path(input_path)
    if not root.exists():
        raise InputError(f"{input_path}: no such file or folder (check --input)")
    if root.is_file():
        return [InputFile(root, Path(root.name))]
    if not root.is_dir():
        raise InputError(f"{input_path}: not a regular file or folder (check --input)")
    notes = skipped if skipped is not None else []
    patterns = [pattern.lower() for pattern in include]
    found: list[InputFile] = []
    skip = exclude_dir.resolve() if exclude_dir is not None else None

    def unreadable(error: OSError) -> None:
        notes.append((str(error.filename), f"folder cannot be read ({error.strerror or error})"))

    for folder, dirs, files in os.walk(root, onerror=unreadable, followlinks=False):
        here = Path(folder)
        kept = []
        for d in sorted(dirs):
            if d.startswith(".") or (skip is not None and (here / d).resolve() == skip):
                continue
            if (here / d).is_symlink():
                notes.append((str(here / d), "link to a folder (not followed)"))
                continue
            kept.append(d)
        dirs[:] = kept
        for name in sorted(files):
            if name.startswith("."):
                continue
            if any(fnmatch.fnmatch(name.lower(), pattern) for pattern in patterns):
                path = here / name
                if path.is_file():
                    found.append(InputFile(path, path.relative_to(root)))
                else:
                    notes.append((str(path), _not_a_file(path)))
    return found


def _not_a_file(path: Path) -> str:
    """Why a matching directory entry is not read."""
    try:
        path.stat()
    except OSError as exc:
        if path.is_symlink():
            return "link loop" if exc.errno == 40 else "dangling link"
        return f"cannot be read ({exc.strerror or exc})"
    return "not a regular file (a FIFO, socket or device is never opened)"


READ_BUFFER = 1 << 18


def open_bytes(path: Path):
    """A file opened for reading bytes, gunzipped when it starts with gzip's magic bytes (whatever
    its name). Public: inspection reads sample files through it, as the cleaner does."""
    # a larger buffer than the default 8 KiB halves the cost of reading a line
    handle = open(path, "rb", buffering=READ_BUFFER)  # noqa: SIM115 - returned open, closed by the caller's with
    try:
        magic = handle.read(2)
        handle.seek(0)
    except BaseException:
        handle.close()
        raise
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=handle, mode="rb")
    return handle


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists/objects deeper than ``limit`` (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.values() if isinstance(child, (dict, list)))
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node if isinstance(child, (dict, list)))
    return False


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for messages."""
    return _JSON_TYPES.get(type(value).__name__, type(value).__name__)


def _find_record_list(document: dict, records_path: tuple | None) -> tuple[list | None, str, tuple]:
    """The record list inside a JSON object: at the path given, else the one list of objects; with
    the path where it was found."""
    list_, problem = _record_list_at(document, records_path)
    if list_ is None or records_path:
        return list_, problem, tuple(records_path or ())
    return list_, problem, next((k,) for k, v in document.items()
                                if v is list_ or (node_map(v) and list(v.values()) == list_))


def _record_list_at(document: dict, records_path: tuple | None) -> tuple[list | None, str]:
    if records_path:
        node: Any = document
        for key in records_path:
            if isinstance(node, dict) and key in node:
                node = node[key]
            elif isinstance(node, dict) and isinstance(key, int) and str(key) in node:
                node = node[str(key)]
            elif isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node):
                node = node[key]
            else:
                return None, f"input.records_path {'.'.join(map(str, records_path))!r} not found"
        if isinstance(node, dict) and node and all(isinstance(value, dict) for value in node.values()):
            return list(node.values()), ""  # an object of records by id (a conversation's node map)
        if not isinstance(node, list):
            return None, f"input.records_path {'.'.join(map(str, records_path))!r} is not a list"
        return node, ""
    candidates = [
        (key, value)
        for key, value in document.items()
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value)
    ]
    if not candidates:  # no list: an object of records by their id (shapes.node_map) is the list
        candidates = [(key, list(value.values())) for key, value in document.items() if node_map(value)]
    if len(candidates) == 1:
        return candidates[0][1], ""
    if not candidates:
        return None, "no list of records found in the JSON object (set input.records_path)"
    names = ", ".join(repr(key) for key, _ in candidates)
    return None, f"several record lists ({names}); set input.records_path to one of them"


def read_records(
    item: InputFile, container: str = "auto", records_path: tuple | None = None, limits: Limits | None = None,
    document_key: str | None = None, transform: Transform | None = None, span: Span | None = None,
    shaping: Shaping | None = None,
) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    """Yield ``(where, record)`` for every JSON object, and ``BadLine`` for what is not one.

    Raises InputError for a file that cannot be opened or decompressed at all. A compressed
    file that ends early keeps the records before the tear and reports the tear as a bad line,
    exactly like a torn last line of a plain file. With ``document_key`` (``input.document_key``),
    every record of a JSON object document carries, under that key, the document without its
    record list: fields such as a conversation's id, model or creation time become reachable.

    ``transform(document, container)`` (cleaner_hooks.transform_document) receives the whole
    document before its records are found: the parsed JSON of a JSON document, the list of records
    of a JSONL or CSV file (its bad lines are reported first); what it returns is read instead, and
    ``None`` reads nothing.

    ``span``: only the lines that start in that byte range of a plain JSON Lines file
    (``jsonl_spans``), their line numbers counted from the span's first line.

    ``shaping`` (``input.tagged`` / ``unflatten`` / ``decode``, ``shapes.Shaping``): each line, or
    the whole document, is given the shape of records before they are looked for.
    """
    limits = limits or Limits()
    name = str(item.path)
    try:
        kind = container
        fallback = False
        if kind == "auto":
            kind, fallback = detect(item.path, limits)
        if kind in TABLES or kind == "jsonl":
            if span is not None and (kind != "jsonl" or transform is not None or records_path):
                raise ValueError(f"{name}: a byte range of a file that is not plain JSON Lines")
            lines = _read_table(item.path, name, TABLES[kind], limits) if kind in TABLES else \
                _read_jsonl(item.path, name, limits, span, shaping)
            if transform is not None:
                lines = _transformed_lines(item.path, name, lines, kind, transform, limits)
            if kind == "jsonl" and records_path and records_path[0] == STAR:
                yield from _jsonl_elements(lines, name, records_path[1:], document_key)
            else:
                yield from lines
        else:
            yield from _read_document(item.path, name, kind, records_path, limits, fallback, document_key, transform,
                                      shaping)
    except (OSError, EOFError, zlib.error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else f"{exc.__class__.__name__}: {exc}"
        raise InputError(f"{name}: cannot read ({reason}); fix or remove the file") from exc


TABLES = {"csv": ",", "tsv": "\t"}  # tabular containers and their delimiters
Transform = Callable[[Any, str], Any]  # (document, container) -> the document to read instead


def _transformed_lines(path: Path, name: str, lines: Iterator[tuple[Where, dict[str, Any]] | BadLine], kind: str,
                       transform: Transform, limits: Limits) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    """The records of a file read line by line, handed to ``transform`` as one list: the bad lines
    first, then the records it returns, each named by its line when the file held it (the same
    object), else by its position in the returned list."""
    if path.stat().st_size > limits.document_bytes:
        raise InputError(
            f"{name}: larger than {_mb(limits.document_bytes)}, and cleaner_hooks.transform_document needs it whole "
            "in memory (not loaded); raise --max-document-mb"
        )
    records: list[dict[str, Any]] = []
    places: dict[int, Where] = {}
    for entry in lines:
        if isinstance(entry, BadLine):
            yield entry
        else:
            places[id(entry[1])] = entry[0]
            records.append(entry[1])
    returned = transform(records, kind)
    for index, record in enumerate(returned or (), start=1):
        yield places.get(id(record)) or Where(name, index, "record"), record


def table_kind(path: Path) -> str | None:
    """``csv``/``tsv`` for a file named so (also gzipped), else None."""
    suffixes = [s.lower() for s in path.suffixes[-2:]]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1][1:] if suffixes and suffixes[-1][1:] in TABLES else None


def _read_table(path: Path, name: str, delimiter: str, limits: Limits) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    """One record a row, keyed by the header row's column names; empty cells are left out.

    Rows are numbered by the physical line they start on, so that a message names the line a
    person finds in an editor even when a quoted cell spans several lines."""
    with open_bytes(path) as stream, io.TextIOWrapper(stream, encoding="utf-8-sig", newline="") as text:
        rows = csv.reader(_counted_lines(text, limits), delimiter=delimiter)
        try:
            header = next(rows, None)
        except csv.Error as exc:
            yield BadLine(Where(name, 1), f"the header row cannot be read ({exc})")
            return
        if not header:
            return
        columns = [column.strip() for column in header]
        line = rows.line_num + 1
        try:
            for row in rows:
                where = Where(name, line)
                line = rows.line_num + 1
                if not any(cell.strip() for cell in row):
                    continue
                if len(row) > len(columns):
                    yield BadLine(where, f"{len(row)} cells where the header names {len(columns)} columns")
                    continue
                yield where, {column: cell for column, cell in zip(columns, row, strict=False) if cell != ""}
        except csv.Error as exc:
            yield BadLine(Where(name, line), f"invalid {'TSV' if delimiter == chr(9) else 'CSV'} row ({exc})")
        except UnicodeDecodeError as exc:
            yield BadLine(Where(name, line), f"invalid UTF-8 ({exc.reason})")


def _counted_lines(text: io.TextIOWrapper, limits: Limits) -> Iterator[str]:
    """The lines of a table, each refused past the line limit (a cell never loads unbounded)."""
    while True:
        line = text.readline(limits.line_bytes)
        if not line:
            return
        if len(line) >= limits.line_bytes and not line.endswith("\n"):
            raise csv.Error(f"a line longer than {_mb(limits.line_bytes)}")
        yield line


def detect(path: Path, limits: Limits) -> tuple[str, bool]:
    """The container of a file, from its first non-blank line; and whether to fall back to JSONL.
    Public: inspection decides containers with it, exactly as the cleaner does.

    A first line that is a whole object means JSONL, unless it is the file's only line, the file is
    not named as JSON Lines (``.jsonl``, ``.ndjson``) and the object holds a list of objects: a
    document written on one line (an export's ``{"messages": [...]}``), read as the document it
    is. One that breaks off at its end (``[``,
    ``{``, ``{"records": [``) starts a pretty-printed document. One that is broken in its middle
    is a bad JSONL line: reading the file as a document would lose every good line after it. A
    first line that is some other whole value (``[{...}, {...}]`` on one line) is tried as a
    document first and read line by line if the whole file is not one.
    """
    table = table_kind(path)
    if table is not None:
        return table, False
    with open_bytes(path) as stream:
        line = b""
        try:
            for _ in range(100_000):
                line = stream.readline(limits.line_bytes)
                if not line or line.strip(b" \t\r\n\xef\xbb\xbf"):
                    break
        except EOFError:  # a compressed file torn in its first line: reported by the JSONL reader
            return "jsonl", False
    if len(line) >= limits.line_bytes and not line.endswith(b"\n"):
        return "jsonl", False  # a huge first line: JSONL, whose long lines are reported one by one
    line = line.strip(b" \t\r\n")
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:].lstrip(b" \t\r\n")
    if not line.startswith((b"[", b"{")):
        return "jsonl", False
    document = "json_array" if line.startswith(b"[") else "json_object"
    try:
        text = line.decode("utf-8")
        value = _loads(text)
    except json.JSONDecodeError as exc:
        return (document, False) if exc.pos >= len(text) else ("jsonl", False)
    except ValueError:  # invalid UTF-8 or nested too deeply: a bad line, reported as such
        return "jsonl", False
    if isinstance(value, dict):
        if _lines_by_name(path) or not _holds_records(value) or not _only_line(path, limits):
            return "jsonl", False
        return "json_object", False  # a document written on one line: its records are in its lists
    return document, True


def _lines_by_name(path: Path) -> bool:
    """Whether the file's name says JSON Lines (``.jsonl``, ``.ndjson``, gzipped or not)."""
    return any(suffix in (".jsonl", ".ndjson") for suffix in (s.lower() for s in path.suffixes))


def _holds_records(value: dict, depth: int = 3) -> bool:
    """Whether an object holds a list of objects (its records) at most ``depth`` levels down."""
    for item in value.values():
        if isinstance(item, list) and item and all(isinstance(v, dict) for v in item):
            return True
        if isinstance(item, dict) and depth > 1 and _holds_records(item, depth - 1):
            return True
    return False


def _only_line(path: Path, limits: Limits) -> bool:
    """Whether nothing but blanks follows the file's first non-blank line: one object, one line."""
    with open_bytes(path) as stream, contextlib.suppress(EOFError):
        seen = False
        for _ in range(100_000):
            line = stream.readline(limits.line_bytes)
            if not line:
                return True
            if line.strip(b" \t\r\n\xef\xbb\xbf"):
                if seen:
                    return False
                seen = True
    return False


def _read_jsonl(path: Path, name: str, limits: Limits, span: Span | None = None, shaping: Shaping | None = None
                ) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    # per line, the cheapest way: the place made by tuple.__new__ (no Python call), orjson's record
    # taken here when _fast_record can (_parse_line, a call more, for the rest)
    most = min(limits.depth, _FAST_MAX_BRACKETS)
    fast = orjson is not None and shaping is None
    with open_bytes(path) as stream:
        compressed = isinstance(stream, gzip.GzipFile)
        number = 0
        stop = None
        if span is not None:
            if compressed:
                raise ValueError(f"{name}: a byte range of a compressed file")
            stop = span[1]
            _span_start(stream, span[0], stop)
        while True:
            if stop is not None and stream.tell() >= stop:
                return
            try:
                raw = stream.readline(limits.line_bytes + 1)
            except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
                if not compressed or (number == 0 and not isinstance(exc, EOFError)):
                    raise
                yield BadLine(Where(name, number + 1), f"torn compressed file ({exc}); the records before the "
                              "tear are kept")
                return
            if not raw:
                return
            number += 1
            where = _new_where((name, number, "line", ""))
            if len(raw) > limits.line_bytes:
                ended = raw.endswith(b"\n")
                raw = b""  # let the long head go before reading on: memory stays at one line limit
                while not ended and not raw.endswith(b"\n"):
                    try:
                        raw = stream.readline(MIB)
                    except (EOFError, zlib.error, gzip.BadGzipFile):
                        break
                    if not raw:
                        break
                yield BadLine(where, f"line longer than {_mb(limits.line_bytes)} (not loaded; raise --max-line-mb "
                              "to read it)")
                continue
            if number == 1 and raw.startswith(b"\xef\xbb\xbf") and not (span and span[0]):
                raw = raw[3:]
            if raw[:1] <= b" " and not raw.strip():  # only a line starting with a blank can be blank
                continue
            if fast:
                value = _fast_record(raw, most)
                if value is not None:
                    yield where, value
                    continue
            yield _parse_line(raw, where, limits, fast=False, shaping=shaping)


# a byte range of a file: the lines that start at or after its first byte, before its second (None: the end)
Span = tuple[int, int | None]
SPAN_BYTES = 16 * MIB  # the least bytes in one span of a file read in parallel


def _span_start(stream: Any, start: int, stop: int | None) -> None:
    """Move ``stream`` to the first line that starts at or after byte ``start`` (a line that
    begins before it is the span before's), or anywhere at or past ``stop`` when none starts
    before it (the span is empty: a line longer than the span is read by the span it starts in
    alone)."""
    if start:
        stream.seek(start - 1)
        if stream.read(1) != b"\n":
            while True:  # the rest of a line begun before: in pieces, however long it is
                piece = stream.readline(MIB)
                if not piece or piece.endswith(b"\n") or (stop is not None and stream.tell() >= stop):
                    break


def jsonl_spans(path: Path, limits: Limits, parts: int) -> list[Span] | None:
    """About ``parts`` byte ranges, each at least ``SPAN_BYTES``, that split a plain
    (uncompressed) JSON Lines file for reading in parallel (``read_records(span=...)``): together
    they read every line once, each in the range it starts in. None for a file that is not plain
    JSON Lines, or too small to split."""
    try:
        size = path.stat().st_size
        if size < 2 * SPAN_BYTES or parts < 2:
            return None
        with open(path, "rb") as handle:
            if handle.read(2) == b"\x1f\x8b":
                return None
        if detect(path, limits)[0] != "jsonl":
            return None
    except OSError:
        return None  # read whole, where the error is reported as it always is
    step = max(SPAN_BYTES, -(-size // parts))
    starts = list(range(0, size, step))
    return [(start, starts[i + 1] if i + 1 < len(starts) else None) for i, start in enumerate(starts)]


# orjson reads integers beyond 64 bits as floats, where json keeps them exact: a line holding a run
# of 19 or more digits (the only way to write such an integer) is left to json.
# One translation serves both checks: digits become "9", opening brackets "{", the rest a blank.
_DIGITS = bytes(0x39 if 0x30 <= i <= 0x39 else 0x7B if i in (0x5B, 0x7B) else 0x20 for i in range(256))
_LONG_NUMBER = b"9" * 19
_FAST_MAX_BRACKETS = 500  # deeper lines go to json, whose recursion limit decides them as before


def _fast_record(raw: bytes, most: int) -> dict[str, Any] | None:
    """The record orjson reads from ``raw`` when that is exactly what json.loads reads, else None.

    None also for anything that is not a plain JSON object line (invalid JSON, NaN, lone
    surrogates, deep nesting): the json path then decides, with its own messages.
    """
    shape = raw.translate(_DIGITS)
    if _LONG_NUMBER in shape or shape.count(b"{") > most:
        return None
    try:
        value = orjson.loads(raw)
    except ValueError:  # orjson.JSONDecodeError
        return None
    return value if value.__class__ is dict else None


def _parse_line(raw: bytes, where: Where, limits: Limits, fast: bool = True, shaping: Shaping | None = None
                ) -> tuple[Where, dict[str, Any]] | BadLine:
    """The record of one line, or why there is none; ``fast=False``: ``_fast_record`` has been
    asked already."""
    if fast and orjson is not None:
        value = _fast_record(raw, min(limits.depth, _FAST_MAX_BRACKETS))
        if value is not None:
            return where, value
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return BadLine(where, f"invalid UTF-8 at byte {exc.start}")
    try:
        value = _loads(text)
    except ValueError as exc:
        if b"\x00" in raw and not raw.strip(b"\x00 \t\r\n"):
            return BadLine(where, "NUL bytes (a zero-filled block, typically left by a crash)")
        if b"\r" in raw.rstrip(b"\r\n"):
            return BadLine(where, "records separated by CR only (old Mac line ends); convert line ends to LF")
        if not raw.endswith(b"\n"):
            return BadLine(where, "torn last line (no newline)")
        if isinstance(exc, json.JSONDecodeError):
            return BadLine(where, f"invalid JSON ({exc.msg} at column {exc.colno})")
        return BadLine(where, f"invalid JSON ({exc})")
    if shaping is not None:
        try:
            value = shaping.record(value)
        except ShapeError as exc:
            return BadLine(where, str(exc))
    if not isinstance(value, dict):
        hint = "; a [name, object] pair is read as a record with input.tagged" if is_tagged(value) else ""
        return BadLine(where, f"a JSON {json_type(value)}, not an object{hint}")
    if raw.count(b"{") + raw.count(b"[") > limits.depth and _depth_over(value, limits.depth):
        return BadLine(where, f"nested deeper than {limits.depth} levels")
    return where, value


def _mb(size: int) -> str:
    return f"{size / MIB:g} MiB"


def _read_document(
    path: Path, name: str, kind: str, records_path: tuple | None, limits: Limits, fallback: bool = False,
    document_key: str | None = None, transform: Transform | None = None, shaping: Shaping | None = None,
) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    with open_bytes(path) as stream:
        data = stream.read(limits.document_bytes + 1)
    if len(data) > limits.document_bytes:
        raise InputError(
            f"{name}: a JSON document larger than {_mb(limits.document_bytes)} (not loaded); convert it to "
            "JSONL or raise --max-document-mb"
        )
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        document = _loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        if fallback:  # not one document after all: read it line by line, keeping the good lines
            lines = _read_jsonl(path, name, limits, shaping=shaping)
            yield from _transformed_lines(path, name, lines, "jsonl", transform, limits) if transform else lines
        elif isinstance(exc, UnicodeDecodeError):
            yield BadLine(Where(name, 0), f"invalid UTF-8 at byte {exc.start}")
        else:
            yield BadLine(Where(name, 0), f"invalid JSON document ({exc})")
        return
    deep = data.count(b"{") + data.count(b"[") > limits.depth
    if shaping is not None:
        try:
            document = shaping.document(document)
        except ShapeError as exc:
            yield BadLine(Where(name, 0), str(exc))
            return
        deep = deep or bool(shaping.decode)  # what a decoded string held was never counted
    if transform is not None:
        document = transform(document, kind)
        if document is None:
            return
        deep = True  # what a hook built was never counted: each record's depth is checked
    if records_path and STAR in records_path:
        yield from _read_elements(document, name, records_path, limits, document_key, deep)
        return
    envelope = None
    if records_path == (WHOLE,):  # the document is the one record (a run tree's root run)
        records = [document]
    elif isinstance(document, dict):
        records, problem, found = _find_record_list(document, records_path)
        if records is None:
            yield BadLine(Where(name, 0), problem)
            return
        more = shaping.more if shaping is not None else ()
        if more:
            records = list(records)
            for more_path in more:  # input.more_records: the lists that continue the conversation
                extra, problem = _record_list_at(document, more_path)
                if extra is None:
                    yield BadLine(Where(name, 0), problem.replace("input.records_path", "input.more_records"))
                else:
                    records.extend(extra)
        if document_key:
            envelope = without_path(document, found)
            for more_path in more:
                envelope = without_path(envelope, more_path)
    elif isinstance(document, list):
        records = document
    else:
        yield BadLine(Where(name, 0), f"a JSON {json_type(document)}, not records")
        return
    yield from _records(records, name, envelope, document_key, limits if deep else None)


def _records(records: list, name: str, envelope: dict | None, document_key: str | None, limits: Limits | None,
             element: str = "") -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    """The objects of a record list (``limits`` when some may nest too deeply), with their envelope."""
    for index, value in enumerate(records, start=1):
        where = Where(name, index, "record", element)
        if not isinstance(value, dict):
            yield BadLine(where, f"record {index} is a JSON {json_type(value)}, not an object")
        elif limits is not None and _depth_over(value, limits.depth):
            yield BadLine(where, f"record {index} is nested deeper than {limits.depth} levels")
        else:
            if envelope is not None:
                value[document_key] = envelope
            yield where, value


STAR = "*"  # in input.records_path: each element of the list (or value of the object) at that point
WHOLE = "$"  # input.records_path: the whole document is one record


def _read_elements(document: Any, name: str, records_path: tuple, limits: Limits, document_key: str | None,
                   deep: bool) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    """Records nested one list deeper: ``*.messages`` reads the messages of every element of an array."""
    at = records_path.index(STAR)
    outer: Any = document
    for key in records_path[:at]:
        if isinstance(outer, dict) and key in outer:
            outer = outer[key]
        elif isinstance(outer, dict) and isinstance(key, int) and str(key) in outer:
            outer = outer[str(key)]
        elif isinstance(outer, list) and isinstance(key, int) and -len(outer) <= key < len(outer):
            outer = outer[key]
        else:
            yield BadLine(Where(name, 0), f"input.records_path {_dotted(records_path)!r}: "
                          f"{_dotted(records_path[:at])!r} not found")
            return
    if isinstance(outer, dict):
        elements = [(str(key), value) for key, value in outer.items()]
    elif isinstance(outer, list):
        elements = [(str(n), value) for n, value in enumerate(outer, start=1)]
    else:
        yield BadLine(Where(name, 0), f"input.records_path {_dotted(records_path)!r}: a JSON {json_type(outer)} "
                      "where the elements should be")
        return
    for label, element in elements:
        yield from _element_records(element, name, label, records_path[at + 1:], document_key,
                                    limits if deep else None)


def _jsonl_elements(lines: Iterator[tuple[Where, dict[str, Any]] | BadLine], name: str, inner: tuple,
                    document_key: str | None) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    """A JSONL file whose every line is one element holding records (``*.messages``)."""
    for entry in lines:
        if isinstance(entry, BadLine):
            yield entry
            continue
        where, line = entry
        yield from _element_records(line, name, str(where.line), inner, document_key, None)


def _element_records(element: Any, name: str, label: str, inner: tuple, document_key: str | None,
                     limits: Limits | None) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    if STAR in inner:
        yield BadLine(Where(name, 0, "record", label), "input.records_path may hold only one '*'")
        return
    if not inner:
        if isinstance(element, list):
            yield from _records(element, name, None, None, limits, label)
        else:
            yield BadLine(Where(name, 0, "record", label), f"a JSON {json_type(element)}, not a list of records")
        return
    if not isinstance(element, dict):
        yield BadLine(Where(name, 0, "record", label), f"a JSON {json_type(element)}, not an object holding "
                      f"records at {_dotted(inner)!r}")
        return
    records, problem = _record_list_at(element, inner)
    if records is None:
        yield BadLine(Where(name, 0, "record", label), f"{problem} in this element")
        return
    envelope = without_path(element, inner) if document_key else None
    yield from _records(records, name, envelope, document_key, limits, label)


def _dotted(path: tuple) -> str:
    return ".".join(str(part) for part in path)


def without_path(document: dict, path: tuple) -> dict:
    """A copy of ``document`` without the value at ``path`` (only the objects along the path are copied)."""
    top = dict(document)
    node: Any = top
    for i, key in enumerate(path):
        if isinstance(node, dict) and key not in node and isinstance(key, int) and str(key) in node:
            key = str(key)
        last = i == len(path) - 1
        if isinstance(node, dict) and key in node:
            if last:
                del node[key]
                break
            child = node[key]
        elif isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node):
            if last:
                node[key] = None
                break
            child = node[key]
        else:
            break
        if isinstance(child, (dict, list)):
            child = dict(child) if isinstance(child, dict) else list(child)
            node[key] = child
            node = child
        else:
            break
    return top
