"""Name output files and write them atomically: a reader never sees a half-written session."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

_SUFFIXES = (".gz", ".jsonl", ".ndjson", ".json")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def stem_for_file(rel: Path) -> Path:
    """``runs/a.jsonl.gz`` -> ``runs/a``: the output keeps the input's relative folders."""
    name = rel.name
    changed = True
    while changed:
        changed = False
        for suffix in _SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                changed = True
    return rel.with_name(name)


def stem_for_key(folder: Path, key: str) -> Path:
    """A file name for a session id; ids that are not file-name safe get a short hash."""
    safe = _UNSAFE.sub("_", key).strip("._")[:80] or "session"
    if safe != key:
        safe = f"{safe}-{hashlib.sha1(key.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    return folder / safe


def serialise(records: list[dict]) -> tuple[bytes, int]:
    """One compact JSON object per line; lone surrogates become U+FFFD (returned count)."""
    lines = []
    replaced = 0
    for record in records:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        try:
            lines.append(line.encode("utf-8"))
        except UnicodeEncodeError:
            line, n = _SURROGATE.subn("\ufffd", line)
            replaced += n
            lines.append(line.encode("utf-8"))
    return b"\n".join(lines) + b"\n", replaced


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file beside ``path`` and rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
