"""The raw samples, read by the runtime's readers into records to learn from.

Learning must see exactly what the rendered cleaner will see, so the samples go through the same
readers (containers, compression, bad lines); a single sample with an unusual suffix is still
read, and learning stops at MAX_RAW records so a huge sample folder stays fast.
"""

from __future__ import annotations

from pathlib import Path

from generator.migrate.errors import MigrateError
from generator.migrate.records import RawRec
from generator.paths import runtime_module

DEFAULT_INCLUDE = ["*.jsonl", "*.json", "*.ndjson", "*.jsonl.gz", "*.json.gz", "*.ndjson.gz"]
MAX_RAW = 20000


def read_samples(samples: list[Path]) -> tuple[list[RawRec], list[str], list[str]]:
    """(records, include globs, notes) of the raw samples, read by the runtime's readers."""
    readers = runtime_module("readers")
    include = _include(samples)
    records: list[RawRec] = []
    notes: list[str] = []
    file = 0  # index of the sample file, as RawRec.file
    for sample in samples:
        try:
            items = readers.discover(str(sample), include)
        except readers.InputError as exc:
            raise MigrateError(str(exc)) from None
        for item in items:
            try:
                _read_item(item, file, records, notes)
            except readers.InputError as exc:
                notes.append(str(exc))
            file += 1
    if len(records) >= MAX_RAW:
        notes.append(f"only the first {MAX_RAW} raw records were used for learning")
    if not records:
        raise MigrateError(f"{' '.join(map(str, samples))}: no raw records found in the samples "
                           f"(looked for {', '.join(include)})")
    return records, include, notes


def _include(samples: list[Path]) -> list[str]:
    """The default globs, plus the suffix of any sample file given by name that they miss."""
    include = list(DEFAULT_INCLUDE)
    for sample in samples:
        if sample.is_file() and not any(sample.name.lower().endswith(p[1:]) for p in include):
            suffix = "".join(sample.suffixes[-1:]) or sample.name
            include.append(f"*{suffix}")
    return include


def _read_item(item, file: int, records: list[RawRec], notes: list[str]) -> None:
    """Add one file's records (up to MAX_RAW in all); its bad lines become notes."""
    readers = runtime_module("readers")
    for entry in readers.read_records(item, "auto"):
        if isinstance(entry, readers.BadLine):
            notes.append(f"{entry.where}: {entry.reason} (not used for learning)")
            continue
        where, record = entry
        if len(records) < MAX_RAW:
            records.append(RawRec(len(records), file, str(where), record))
