"""Find input files and read raw records from JSONL, JSON arrays, JSON objects and gzip.

Every record comes with where it was found (file and line) so that an error or a skip can name
it. Bad lines never stop a read: they are reported to the caller, which applies the mapping's
``invalid_lines`` policy.
"""

from __future__ import annotations

import fnmatch
import gzip
import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_LINE_BYTES = 256 * 1024 * 1024


class InputError(Exception):
    """An input path or file that cannot be read at all."""


@dataclass(frozen=True)
class Where:
    """A place in the input: the file as the user named it (relative stays relative) and a line."""

    file: str
    line: int
    unit: str = "line"  # "record" for JSON documents: the position in the record list

    def __str__(self) -> str:
        if not self.line:
            return self.file
        return f"{self.file}:{self.line}" if self.unit == "line" else f"{self.file} (record {self.line})"


@dataclass(frozen=True)
class BadLine:
    """A line that is not a JSON object, with the reason."""

    where: Where
    reason: str


@dataclass(frozen=True)
class InputFile:
    path: Path  # as the user typed it, joined with the relative part
    rel: Path  # relative to the input root (the file name when the input is a file)


def discover(input_path: str, include: list[str], exclude_dir: Path | None = None) -> list[InputFile]:
    """The files to read, sorted, without following directory links (no loops)."""
    root = Path(input_path)
    if not root.exists():
        raise InputError(f"{input_path}: no such file or folder (check --input)")
    if root.is_file():
        return [InputFile(root, Path(root.name))]
    if not root.is_dir():
        raise InputError(f"{input_path}: not a regular file or folder")
    patterns = [pattern.lower() for pattern in include]
    found: list[InputFile] = []
    skip = exclude_dir.resolve() if exclude_dir is not None else None
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and (skip is None or (here / d).resolve() != skip)
        )
        for name in sorted(files):
            if name.startswith("."):
                continue
            if any(fnmatch.fnmatch(name.lower(), pattern) for pattern in patterns):
                path = here / name
                if path.is_file():
                    found.append(InputFile(path, path.relative_to(root)))
    return found


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def _open_bytes(path: Path):
    """The file's bytes, decompressed when it is gzip (told by its magic bytes, not its name)."""
    return gzip.open(path, "rb") if _is_gzip(path) else open(path, "rb")


def _first_significant_byte(path: Path) -> bytes:
    with _open_bytes(path) as stream:
        while True:
            chunk = stream.read(4096)
            if not chunk:
                return b""
            stripped = chunk.lstrip(b" \t\r\n")
            if stripped.startswith(b"\xef\xbb\xbf"):
                stripped = stripped[3:].lstrip(b" \t\r\n")
            if stripped:
                return stripped[:1]


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _find_record_list(document: dict, records_path: tuple | None) -> tuple[list | None, str]:
    """The record list inside a JSON object: at the path given, else the one list of objects."""
    if records_path:
        node: Any = document
        for key in records_path:
            if (isinstance(node, dict) and key in node) or (
                isinstance(node, list) and isinstance(key, int) and -len(node) <= key < len(node)
            ):
                node = node[key]
            else:
                return None, f"records_path {'.'.join(map(str, records_path))!r} not found"
        if not isinstance(node, list):
            return None, f"records_path {'.'.join(map(str, records_path))!r} is not a list"
        return node, ""
    candidates = [
        (key, value)
        for key, value in document.items()
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value)
    ]
    if len(candidates) == 1:
        return candidates[0][1], ""
    if not candidates:
        return None, "no list of records found in the JSON object (set input.records_path)"
    names = ", ".join(repr(key) for key, _ in candidates)
    return None, f"several record lists ({names}); set input.records_path to one of them"


def read_records(
    item: InputFile, container: str = "auto", records_path: tuple | None = None
) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    """Yield ``(where, record)`` for every JSON object, and ``BadLine`` for what is not one.

    Raises InputError for a file that cannot be opened or decompressed at all.
    """
    name = str(item.path)
    try:
        kind = container
        if kind == "auto":
            first = _first_significant_byte(item.path)
            kind = "json_array" if first == b"[" else "jsonl"
            if first == b"{" and _looks_like_single_document(item.path):
                kind = "json_object"
        if kind == "jsonl":
            yield from _read_jsonl(item.path, name)
        else:
            yield from _read_document(item.path, name, kind, records_path)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputError(f"{name}: cannot read ({exc.__class__.__name__}: {exc})") from exc


def _looks_like_single_document(path: Path) -> bool:
    """A file starting with ``{`` is one JSON document when its first line is not a whole object."""
    with _open_bytes(path) as stream:
        line = stream.readline(MAX_LINE_BYTES)
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    try:
        value = _loads(line.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return True
    return not isinstance(value, dict)


def _read_jsonl(path: Path, name: str) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    with _open_bytes(path) as stream:
        number = 0
        while True:
            raw = stream.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            where = Where(name, number)
            if len(raw) > MAX_LINE_BYTES:
                while raw and not raw.endswith(b"\n"):
                    raw = stream.readline(MAX_LINE_BYTES)
                yield BadLine(where, f"line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB")
                continue
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield BadLine(where, f"invalid UTF-8 at byte {exc.start}")
                continue
            try:
                value = _loads(text)
            except ValueError as exc:
                torn = not raw.endswith(b"\n")
                detail = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
                yield BadLine(where, "torn last line (no newline)" if torn else f"invalid JSON ({detail})")
                continue
            if not isinstance(value, dict):
                yield BadLine(where, f"a JSON {type(value).__name__}, not an object")
                continue
            yield where, value


def _read_document(
    path: Path, name: str, kind: str, records_path: tuple | None
) -> Iterator[tuple[Where, dict[str, Any]] | BadLine]:
    with _open_bytes(path) as stream:
        data = stream.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        document = _loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        yield BadLine(Where(name, 0), f"invalid UTF-8 at byte {exc.start}")
        return
    except ValueError as exc:
        yield BadLine(Where(name, 0), f"invalid JSON document ({exc})")
        return
    if isinstance(document, dict):
        records, problem = _find_record_list(document, records_path)
        if records is None:
            yield BadLine(Where(name, 0), problem)
            return
    elif isinstance(document, list):
        records = document
    else:
        yield BadLine(Where(name, 0), f"a JSON {type(document).__name__}, not records")
        return
    for index, value in enumerate(records, start=1):
        where = Where(name, index, "record")
        if isinstance(value, dict):
            yield where, value
        else:
            yield BadLine(where, f"record {index} is a JSON {type(value).__name__}, not an object")
