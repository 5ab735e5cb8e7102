"""Profile sample raw traces: containers, sessions, fields, record kinds, times and tool links.

Why: inference (generator/infer/), the survey and the agent prompt all need the same facts
about a format nobody has described, and a person deciding whether to trust a proposed mapping
needs to see them too. The profile is structure and counts first; example values are shortened
and passed through the cleaner runtime's own redaction before anyone sees them.

Large inputs are read by bounded sampling (a byte budget spread over files, and over the head,
middle and tail of a big file), and the profile says which part was read, so gigabytes of
samples take seconds and bounded memory.

The modules, each importing only those above it:

- ``vocab``: what names sound like (role words, field names of kinds, sessions, times, meta)
- ``fieldpaths``: paths into records (``LIST``, ``dotted``, ``get``, ``values_at``, ``walk``)
- ``values``: single values (type names, token-like strings, sizes, shortened long strings)
- ``timeformats``: the timestamp formats a value could be read as, and reading one
- ``examples``: redacted short renderings of values
- ``fields``: per-path statistics (``FieldStat``, ``profile_fields``)
- ``records``: ``FileReport``, ``Rec`` and which sampled records are kept
- ``documents``: where the record list is in a JSON document
- ``files``: the files the inputs name, how each is opened, JSON Lines or a document
- ``jsonl``: reading JSON Lines within a byte budget
- ``reading``: reading a bounded sample of one input file (any container)
- ``sessions``, ``discriminators``, ``splits``, ``kinds``, ``blocks``, ``links``, ``times``, ``meta``,
  ``native``: the analyses
- ``profile``: the ``Profile`` (its ``to_dict()`` is the --json report) and ``profile_paths``
- ``report``: the printed report

This package re-exports the names the rest of the generator imports from it, each module imported
when one of its names is first asked for.
"""

from __future__ import annotations

_WHERE = {  # each re-exported name and the module that defines it
    "DEFINITIONS_ONLY": "documents",
    "LIST": "fieldpaths",
    "dotted": "fieldpaths",
    "get": "fieldpaths",
    "mapping_path": "fieldpaths",
    "values_at": "fieldpaths",
    "profile_fields": "fields",
    "Kind": "kinds",
    "find_meta": "meta",
    "MAX_BYTES": "profile",
    "MEDIA_WORDS": "vocab",
    "Profile": "profile",
    "profile_paths": "profile",
    "sample_records": "profile",
    "report_text": "report",
    "session_key": "sessions",
    "time_formats": "timeformats",
    "time_name_rank": "times",
    "human_size": "values",
    "name_roles": "vocab",
    "strong_roles": "vocab",
    "words": "vocab",
}

__all__ = [
    "DEFINITIONS_ONLY",
    "LIST",
    "MAX_BYTES",
    "MEDIA_WORDS",
    "Kind",
    "Profile",
    "dotted",
    "find_meta",
    "get",
    "human_size",
    "mapping_path",
    "name_roles",
    "profile_fields",
    "profile_paths",
    "report_text",
    "sample_records",
    "session_key",
    "strong_roles",
    "time_formats",
    "time_name_rank",
    "values_at",
    "words",
]


def __getattr__(name: str):
    """A re-exported name, its module imported on first use: what imports one helper (the loss check
    of `new --answers` needs ``get`` and ``words``) does not pay for reading, profiling and the report."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{module}"), name)
