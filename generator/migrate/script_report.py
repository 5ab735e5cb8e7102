"""What one `migrate script` run found, learned and compared, and whether it passed.

The same facts go to MIGRATION_REPORT.md, the printed summary and ``--json``; keeping them in
one record (and the verdict in one function) keeps those three from disagreeing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from generator.migrate.comparison import SessionCompare
from generator.migrate.learning import Learned
from generator.migrate.old_run import OldRun
from generator.migrate.rules import describe_rule, rule_name
from generator.migrate.script_reading import ScriptFacts


@dataclass
class ScriptReport:
    facts: ScriptFacts
    output: str
    ran_old: bool
    old_run: OldRun | None
    learned: Learned | None
    sessions: list[SessionCompare] = field(default_factory=list)
    extra_new: list[str] = field(default_factory=list)
    old_redactions: Counter = field(default_factory=Counter)
    old_problems: list[str] = field(default_factory=list)
    cleaner_exit: int = 0
    cleaner_output: str = ""
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timezone: str = "UTC"

    @property
    def compared(self) -> bool:
        return bool(self.sessions)

    @property
    def passed(self) -> bool:
        if self.errors or self.cleaner_exit != 0:
            return False
        if self.ran_old:
            return self.compared and all(s.passed for s in self.sessions)
        return True

    def to_json(self) -> dict:
        learned = self.learned
        return {
            "script": self.facts.path,
            "output": self.output,
            "emits_old_shape": self.facts.emits_old_shape,
            "sites": [{"line": s.line, "what": s.what} for s in self.facts.sites + self.facts.message_sites],
            "ran_old": self.ran_old,
            "old_run_log": self.old_run.log if self.old_run else [],
            "mapping": learned.mapping if learned else None,
            "kinds": [{"rule": rule_name(r), "does": describe_rule(r), "records": r.records,
                       "in_old_output": r.aligned, "learned_from": r.source} for r in (learned.rules if learned else [])],
            "open_questions": learned.questions if learned else [],
            "notes": (learned.notes if learned else []) + self.notes,
            "equivalence": self._equivalence_json(),
            "old_output_secrets_redacted": dict(self.old_redactions),
            "new_cleaner_exit": self.cleaner_exit,
            "errors": self.errors,
        }

    def _equivalence_json(self) -> dict:
        return {
            "passed": self.passed,
            "compared": self.compared,
            "sessions": [{
                "old": s.old, "new": s.new, "old_messages": s.texts, "same": s.same,
                "redaction_differs": s.redaction, "reordered": s.reordered, "missing": s.missing,
                "shows_redacted": s.leaks, "timestamp_differs": s.times, "added": dict(s.added),
            } for s in self.sessions],
            "new_sessions_without_old": self.extra_new,
        }


def verdict(report: ScriptReport) -> str:
    """The equivalence verdict in one line, as the report and the summary both state it."""
    if not report.ran_old:
        return ("not compared: the old script was not run (--run-old), so there is no old output to compare; "
                "the mapping was inferred from the samples alone")
    if not report.compared:
        return "FAILED: no old output could be compared (see the errors above)"
    if report.passed:
        return "PASSED: every user and assistant message of the old output is present in the new output, in order"
    return "FAILED: the differences below would lose or reorder what the old output had"
