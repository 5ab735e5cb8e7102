"""The input files: which files paths, folders and globs name, how a file is opened (gzip or not), and
whether it is JSON Lines or one JSON document, decided as the cleaner's reader decides it.

Contract: ``expand_paths`` returns (shown name, path) pairs without duplicates, and the problems of
names that match nothing; the rest look at the head of one file. The runtime's readers do the work.
"""

from __future__ import annotations

import glob
import json
import os
from pathlib import Path

from cleaner_runtime.readers import Limits, detect, open_bytes
from cleaner_runtime.validate import not_regular

_GLOB_CHARS = set("*?[")


def expand_paths(paths: list[str]) -> tuple[list[tuple[str, Path]], list[str]]:
    """Files named by paths, folders (recursive, hidden skipped) and globs; plus problems."""
    from cleaner_runtime import readers
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
                skipped: list[tuple[str, str]] = []
                items = [(str(item.path), item.path) for item in readers.discover(candidate, ["*"], skipped=skipped)]
                problems.extend(f"{name}: skipped, {reason}" for name, reason in skipped)
            elif (kind := not_regular(path.stat().st_mode)) is not None:
                # a FIFO blocks on open and /dev/zero never ends: only regular files are read
                problems.append(f"{candidate}: not a regular file ({kind}); inspect reads regular files only")
                continue
            else:
                items = [(candidate, path)]
            for shown, real in items:
                key = os.path.realpath(real)
                if key not in seen:
                    seen.add(key)
                    out.append((shown, real))
    return out, problems


def open_input(path: Path):
    return open_bytes(path)


def first_byte(path: Path) -> bytes:
    with open_input(path) as stream:
        chunk = stream.read(65536).lstrip(b" \t\r\n")
    if chunk.startswith(b"\xef\xbb\xbf"):
        chunk = chunk[3:].lstrip(b" \t\r\n")
    return chunk[:1]


def first_line_longer(path: Path, limit: int) -> bool:
    with open_input(path) as stream:
        return not stream.readline(limit).endswith(b"\n") and bool(stream.read(1))


def detect_container(path: Path) -> str:
    """``jsonl`` or a JSON document, decided exactly as the cleaner's reader decides it."""
    kind, fallback = detect(path, Limits())
    if kind != "jsonl" and fallback:
        # one line holding a whole value: a document only if the whole file parses as one
        with open_input(path) as stream:
            head = stream.read(1 << 20)
        try:
            json.loads(head)
        except ValueError:
            return "jsonl" if len(head) < (1 << 20) else kind
    return kind

