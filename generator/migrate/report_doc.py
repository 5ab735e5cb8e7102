"""MIGRATION_REPORT.md: how the mapping was learned, and the old output vs the new cleaner's.

It is what a person reads before trusting the regenerated cleaner: where the old script wrote
the old shape, what it did on the samples, every learned kind with its evidence, what could not
be learned, and every difference between the two outputs.
"""

from __future__ import annotations

from typing import Any

from generator.migrate.learning import Learned
from generator.migrate.rules import SOURCE_SHORT, Rule, describe_rule, rule_name
from generator.migrate.script_reading import ScriptFacts
from generator.migrate.script_report import ScriptReport, verdict


def md(text: Any) -> str:
    """``text`` as inline Markdown code, safe whatever backticks it holds."""
    from generator.jinja_ext import md_code

    return md_code(str(text))


def mapping_table(rules: list[Rule]) -> list[str]:
    """The learned kinds as a Markdown table: conditions, counts, what they become, the evidence."""
    out = ["| raw records | records | in old output | new cleaner writes | learned from |", "|---|---|---|---|---|"]
    for rule in rules:
        out.append(f"| {md(rule_name(rule))} | {rule.records} | {rule.aligned} | {describe_rule(rule)} | "
                   f"{SOURCE_SHORT[rule.source]} |")
    return out


def render_report(report: ScriptReport) -> str:
    """MIGRATION_REPORT.md: how the mapping was learned, and old vs new output, differences listed."""
    out = [f"# Migration report: {report.facts.path}", ""]
    out.append(f"**Equivalence: {verdict(report)}**")
    out.append("")
    if report.errors:
        out += ["## Errors", ""] + [f"- {e}" for e in report.errors] + [""]
    out += _sites(report.facts)
    if report.old_run is not None:
        out += ["## The old script on the samples", ""] + [f"- {line}" for line in report.old_run.log]
        out += [f"- old output file: `{shown}`" for _, shown in report.old_run.files]
        if report.old_problems:
            out += ["", "Rows of the old output that are not old-shape:", ""] + [f"- {p}" for p in report.old_problems]
        out.append("")
    if report.learned is not None:
        out += _mapping(report, report.learned)
    if report.sessions:
        out += _comparison(report)
    if report.cleaner_exit != 0:
        out += ["## The new cleaner's output on the samples", "", "```", report.cleaner_output.strip(), "```", ""]
    return "\n".join(out)


def _sites(facts: ScriptFacts) -> list[str]:
    out = ["## Where the old script writes the old shape", ""]
    if facts.sites or facts.message_sites:
        out += [f"- `{facts.path}:{s.line}`: {s.what}" for s in facts.sites + facts.message_sites]
    else:
        out.append("- nowhere found: no dict with keys `type` and `message`"
                   + (" (it writes trajectory-v1 records already)" if facts.trajectory_sites else ""))
    if facts.patterns:
        out += ["", "Its own redaction (kept in the new cleaner as `privacy.extra_patterns`):", ""]
        out += [f"- `{facts.path}:{facts.pattern_lines[c]}` {md(p)} -> class `{c}`" for c, p in facts.patterns.items()]
    out.append("")
    return out


def _mapping(report: ScriptReport, learned: Learned) -> list[str]:
    out = ["## The mapping", ""]
    if report.ran_old:
        out.append(f"Learned by aligning the old output with the raw samples: {learned.aligned} of "
                   f"{learned.old_records} old records were traced back to a raw record.")
    else:
        out.append("Inferred from the samples (the old script was not run).")
    out += [""] + mapping_table(learned.rules)
    session = learned.mapping["session"]
    ts = learned.mapping["timestamps"]
    out += ["", f"- sessions: {'one per raw file' if session['by'] == 'file' else 'grouped by ' + md(session['field'])}",
            f"- timestamps: {md(ts['fields'])}, zone-less times read in {ts['timezone']}"
            + (", file modification time when a session has none" if ts.get("fallback") == "file_mtime" else "")]
    if learned.unmatched:
        out += ["", "Old records no raw record could be found for:", ""] + [f"- {u}" for u in learned.unmatched]
    if learned.notes or report.notes:
        out += ["", "Notes:", ""] + [f"- {n}" for n in learned.notes + report.notes]
    out += ["", "## What could not be learned", ""]
    out += [f"- {q}" for q in learned.questions] or ["- nothing: every kind was learned from the old output"]
    out += ["", "The mapping is in `.copier-answers.yml`; change it there and run `trajectory-cleaner update .`.", ""]
    return out


def _comparison(report: ScriptReport) -> list[str]:
    out = ["## Old output (migrated mechanically) vs the new cleaner", ""]
    out.append(f"The old output was migrated as `trajectory-cleaner migrate traces` would (zone-less times in "
               f"{report.timezone}); the new output is `tests/expected/` (the new cleaner on the samples).")
    out += ["", ("| old session | new session | old messages | identical | redaction differs | reordered | "
                 "missing | added by the new cleaner |"), "|---|---|---|---|---|---|---|---|"]
    for s in report.sessions:
        out.append(f"| {md(s.old)} | {md(s.new or 'none')} | {s.texts} | {s.same} | {len(s.redaction)} | "
                   f"{len(s.reordered)} | {len(s.missing)} | {s.added_text() or '-'} |")
    out += ["", "### Differences", ""]
    differences = _differences(report)
    out += differences or ["- none"]
    if report.old_redactions:
        out += ["", "### Secrets in the old output", "",
                f"The old output had leaked {sum(report.old_redactions.values())} secret(s) ("
                + ", ".join(f"{n} x {k}" for k, n in sorted(report.old_redactions.items()))
                + "). `migrate traces` and the new cleaner redact them; re-migrate or delete the old folders."]
    out.append("")
    return out


def _differences(report: ScriptReport) -> list[str]:
    """Every difference, session by session, and the new sessions without an old one."""
    out = []
    for s in report.sessions:
        for title, items in (("missing from the new output", s.missing), ("reordered", s.reordered),
                             ("the new output shows what the old script redacted", s.leaks),
                             ("present, with different redaction placeholders", s.redaction),
                             ("timestamp differs", s.times), ("added by the new cleaner", s.added_examples)):
            if items:
                out.append(f"- {md(s.old)}: {title}:")
                out += [f"  - {item}" for item in items]
    if report.extra_new:
        out.append("- sessions the new cleaner writes that the old script did not: "
                   + ", ".join(md(n) for n in report.extra_new))
    return out
