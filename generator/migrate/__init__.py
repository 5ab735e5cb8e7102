"""Leave the pre-trajectory shape behind: convert old traces, and relearn the cleaners that wrote them.

Lerim used to read ``{"type", "message": {"role", "content"}, "timestamp"}`` per line; it now
reads only trajectory-v1. Two things need migrating:

* folders of old output (``migrate_traces``): the mapping is mechanical, so it is written once
  as an ordinary mapping (``old_shape_mapping``) and run through the cleaner runtime's
  ``Converter`` - the same code every rendered cleaner ships - which already splits block lists,
  links tool results to calls, derives missing times from neighbours and redacts secrets;
* the old cleaner scripts (``migrate_script``): read by AST to find where they emit the old
  shape, optionally run on the raw samples, and the raw -> role/content mapping they embody is
  learned by aligning their output with the raw records. A new cleaner is rendered from it and
  an equivalence report compares the two outputs record by record.

The modules, in the order the work flows:

  old traces       old_shape (the mapping), convert_old (one file), traces (the subcommand),
                   traces_summary (its printed summary)
  the old script   script_ast, script_reading (what it writes), script_redaction (its own
                   redaction), old_run (running it, opt-in)
  learning         samples, records, text_match, alignment, vocabulary, shape_guess, rules,
                   rule_learning, times, sessions, inference, notation, learning (the mapping)
  checking         comparison (old output vs new), script_report, report_doc, prompt_doc,
                   script_summary, script (the subcommand)

This package re-exports what the CLI (migrate_cmd.py) and the tests use.
"""

from __future__ import annotations

from generator.migrate.errors import MigrateError
from generator.migrate.records import RawRec, Target
from generator.migrate.script import migrate_script
from generator.migrate.script_reading import read_script
from generator.migrate.script_redaction import portable_pattern
from generator.migrate.script_summary import format_script_report
from generator.migrate.sessions import learn_session
from generator.migrate.text_match import TextMatcher
from generator.migrate.traces import migrate_traces
from generator.migrate.traces_summary import format_traces_report

__all__ = ["MigrateError", "RawRec", "Target", "TextMatcher", "format_script_report", "format_traces_report",
           "learn_session", "migrate_script", "migrate_traces", "portable_pattern", "read_script"]
