"""The printed summary of `migrate script`: the run in a screenful, details left to the report."""

from __future__ import annotations

from generator.migrate.rules import SOURCE_SHORT, describe_rule, rule_name
from generator.migrate.script_report import ScriptReport, verdict


def format_script_report(report: ScriptReport, list_open: bool = False) -> str:
    """The printed summary of `migrate script`."""
    facts, learned = report.facts, report.learned
    out = []
    where = ", ".join(f"{facts.path}:{s.line}" for s in facts.sites) or "not found"
    out.append(f"old shape written at: {where}")
    if report.old_run is not None:
        out.append(f"old script run:       {len(report.old_run.files)} output file(s)"
                   + (f" - {report.old_run.error}" if report.old_run.error else ""))
    if learned is not None:
        if report.ran_old:
            out.append(f"learned:              {learned.aligned} of {learned.old_records} old records traced to raw "
                       f"records; {len(learned.rules)} kind rule(s)")
        else:
            out.append(f"inferred:             {len(learned.rules)} kind rule(s) from the samples")
        for rule in learned.rules:
            out.append(f"  {rule_name(rule)} -> {describe_rule(rule)} ({SOURCE_SHORT[rule.source]})")
        if list_open:
            out.append(f"could not learn:      {len(learned.questions)}")
            out += [f"  - {q}" for q in learned.questions]
        else:
            out.append(f"could not learn:      {len(learned.questions)} (listed in MIGRATION_REPORT.md; --yes prints them)")
    out.append(f"rendered:             {report.output} (new cleaner exit {report.cleaner_exit} on the samples)")
    for s in report.sessions:
        out.append(f"  {s.old} -> {s.new or 'NO MATCHING SESSION'}: {s.present}/{s.texts} messages "
                   f"present, {len(s.missing)} missing, {len(s.reordered)} reordered; adds {s.added_text() or 'nothing'}")
    if report.old_redactions:
        out.append(f"old output secrets:   {sum(report.old_redactions.values())} leaked by the old script, redacted")
    out.append(f"equivalence:          {verdict(report)}")
    out.append(f"report:               {report.output}/MIGRATION_REPORT.md")
    out.append(f"agent prompt:         {report.output}/MIGRATION_PROMPT.md")
    return "\n".join(out)
