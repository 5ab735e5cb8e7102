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

This package re-exports the names the rest of the generator imports from it.
"""

from __future__ import annotations

from generator.inspect.documents import DEFINITIONS_ONLY
from generator.inspect.fieldpaths import LIST, dotted, get, mapping_path, values_at
from generator.inspect.fields import profile_fields
from generator.inspect.kinds import Kind
from generator.inspect.meta import find_meta
from generator.inspect.profile import MAX_BYTES, Profile, profile_paths, sample_records
from generator.inspect.report import report_text
from generator.inspect.sessions import session_key
from generator.inspect.timeformats import time_formats
from generator.inspect.times import time_name_rank
from generator.inspect.values import human_size
from generator.inspect.vocab import name_roles, strong_roles, words

__all__ = [
    "DEFINITIONS_ONLY",
    "LIST",
    "MAX_BYTES",
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
