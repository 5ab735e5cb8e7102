"""Leave the pre-trajectory shape behind: convert old traces, and relearn the cleaners that wrote them.

Lerim used to read ``{"type", "message": {"role", "content"}, "timestamp"}`` per line; it now
reads only trajectory-v1. Two things need migrating:

* folders of old output (``migrate_traces``): the mapping is mechanical, so it is written once
  as an ordinary mapping and run through the cleaner runtime's ``Converter`` - the same code
  every rendered cleaner ships - which already splits block lists, links tool results to calls,
  derives missing times from neighbours and redacts secrets;
* the old cleaner scripts (``migrate_script``): read by AST to find where they emit the old
  shape, optionally run on the raw samples, and the raw -> role/content mapping they embody is
  learned by aligning their output with the raw records. A new cleaner is rendered from it and
  an equivalence report compares the two outputs record by record.

The modules, each importing only those above it:

  old_traces   the old shape as a mapping; one old file converted in memory; MigrateError
  traces       `migrate traces`: find, convert, validate and write the files; its summary
  old_script   the old script read from its syntax tree (what it writes, its own redaction);
               running it on the samples (opt-in)
  alignment    the raw samples and the old output as records; which raw record each old
               record came from (or, where the old output is silent, a guess from its shape)
  rules        kind rules generalised from that by a decision tree; trajectory-cleaner's
               inference where the old output is silent
  mapping      the new cleaner's mapping put together: rules, times, sessions, blocks, privacy
  reports      the equivalence check (old output vs new), the run's report and its verdict,
               MIGRATION_REPORT.md, MIGRATION_PROMPT.md and the printed summary
  script       `migrate script`: the steps in order, the scratch folder, both documents written

This package exports what the command (migrate_cmd.py) uses.
"""

from __future__ import annotations

from generator.migrate.old_traces import MigrateError
from generator.migrate.reports import format_script_report
from generator.migrate.script import migrate_script
from generator.migrate.traces import format_traces_report, migrate_traces

__all__ = ["MigrateError", "format_script_report", "format_traces_report", "migrate_script", "migrate_traces"]
