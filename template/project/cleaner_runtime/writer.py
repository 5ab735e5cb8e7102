"""Name output files and write them atomically: a reader never sees a half-written session.

Each file is written to a hidden temporary file beside its target (``.<name>.<pid>-<random>.tmp``,
ignored by Lerim, which reads only ``*.jsonl``), flushed to disk and renamed over the target, so
the target holds either its previous bytes or its new bytes, never a mix, even if the process is
killed. A run killed between writing and renaming leaves its temporary file behind; the next run
removes such files once the process that wrote them is gone (``remove_stale_temps``).
"""

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
_TEMP = re.compile(r"\..+\.(?P<pid>[0-9]+)-[A-Za-z0-9_]+\.tmp")
_MODE: list[int] = []


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


def _file_mode() -> int:
    """The mode a plainly created file gets under the current umask (mkstemp would give 0600)."""
    if not _MODE:
        mask = os.umask(0o022)
        os.umask(mask)
        _MODE.append(0o666 & ~mask)
    return _MODE[0]


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a hidden temporary file beside ``path``, fsync it and rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), _file_mode())
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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_stale_temps(root: Path) -> int:
    """Delete temporary files a killed run of this cleaner left under ``root``; returns how many.

    Only files named as ``write_atomic`` names them, whose writing process no longer runs, are
    touched: a concurrent run's temporary files and anything else in the folder are left alone.
    """
    removed = 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for name in files:
            match = _TEMP.fullmatch(name)
            if match and not _alive(int(match.group("pid"))):
                try:
                    os.unlink(os.path.join(folder, name))
                    removed += 1
                except OSError:
                    pass
    return removed
