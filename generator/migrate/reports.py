"""Reports: whether the regenerated cleaner keeps what the old one wrote, and how that is told.

Regenerating a cleaner must not lose messages. The equivalence check pairs each old session
with the new session sharing most of its messages, then looks every old record up in it - user
and assistant text in order, tool steps anywhere - allowing for different redaction
placeholders, and flagging text the old script had redacted that the new output shows.

What one `migrate script` run found, learned and compared is one ``ScriptReport``, with the
verdict in one function (``verdict``), so that the three ways it is told cannot disagree:
MIGRATION_REPORT.md (``render_report``: what a person reads before trusting the new cleaner),
the printed summary (``format_script_report``) and ``--json`` (``ScriptReport.to_json``).
MIGRATION_PROMPT.md (``render_migration_prompt``) hands a coding agent what it needs to finish
what the mapping cannot: the schema, the hard constraints, the old script (redacted), the
mapping table and what is still open. Contract: everything here only reads the report and
returns text or new values; nothing is written.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cleaner_runtime.redaction import Redactor
from generator.migrate.alignment import TextMatcher
from generator.migrate.mapping import Learned
from generator.migrate.old_script import OldRun, ScriptFacts
from generator.migrate.old_traces import instant
from generator.migrate.rules import SOURCE_SHORT, Rule, describe_rule, rule_name

RUNTIME_PLACEHOLDER = re.compile(r"\[REDACTED:[A-Za-z0-9_-]+\]")
ORDERED = ("user", "assistant")
INTRO = ("Lerim no longer reads the pre-trajectory shape `{\"type\", \"message\": {\"role\", \"content\"}, "
         "\"timestamp\"}` that the old script below writes. trajectory-cleaner has rendered a new cleaner in this "
         "folder (`clean_to_trajectory_jsonl.py`, generated from `.copier-answers.yml`) and compared it with the "
         "old script in `MIGRATION_REPORT.md`. Your job: close the gaps listed there and below, without losing "
         "anything the old script kept.")


# --- the equivalence check --------------------------------------------------------------------

@dataclass
class SessionCompare:
    old: str
    new: str | None
    texts: int = 0
    same: int = 0
    redaction: list[str] = field(default_factory=list)  # present, the placeholders differ
    reordered: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)  # new output shows what the old script redacted
    times: list[str] = field(default_factory=list)
    added: Counter = field(default_factory=Counter)
    added_examples: list[str] = field(default_factory=list)

    @property
    def present(self) -> int:
        """Old user and assistant messages found in the new output."""
        return self.texts - sum(1 for m in self.missing if m.startswith(("user ", "assistant ")))

    @property
    def passed(self) -> bool:
        return self.new is not None and not (self.missing or self.reordered or self.leaks)

    def added_text(self) -> str:
        """What the new cleaner adds, e.g. "2 reasoning, 1 tool call"; "" when nothing."""
        return ", ".join(f"{n} {k}" for k, n in sorted(self.added.items()))


def new_output(expected: Path) -> dict[str, list[dict]]:
    """The new cleaner's output on the samples (its tests/expected/), by relative file name."""
    new: dict[str, list[dict]] = {}
    for path in sorted(expected.rglob("*.jsonl")):
        try:
            new[path.relative_to(expected).as_posix()] = [
                json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        except (OSError, ValueError):
            continue
    return new


def _texts(records: list[dict]) -> list[tuple[int, str, str]]:
    return [(i, r["role"], r["content"]) for i, r in enumerate(records)
            if r.get("role") in ORDERED and isinstance(r.get("content"), str)]


def _items(records: list[dict]) -> list[tuple[int, str, str]]:
    """(record index, kind, comparable text) of every non-meta record; one item per tool call."""
    out = []
    for index, record in enumerate(records):
        role = record.get("role")
        if role == "meta":
            continue
        if role == "assistant" and record.get("tool_calls"):
            for call in record["tool_calls"]:
                out.append((index, "tool call", f"{call.get('name')} {call.get('args')}"))
        elif role == "tool":
            out.append((index, "tool result", str(record.get("content") or "")))
        elif isinstance(record.get("content"), str):
            out.append((index, str(role), record["content"]))
    return out


def _equivalent(old: str, new: str, matcher: TextMatcher) -> str | None:
    """None, "same", "redaction" (old placeholders hide the same spans in new) or "leak"."""
    a, b = TextMatcher.norm(old), TextMatcher.norm(new)
    if a == b:
        return "same"
    pattern = matcher.pattern(old)
    if pattern is None:
        return None
    match = pattern.fullmatch(b)
    if match is None:
        return None
    if all(RUNTIME_PLACEHOLDER.search(gap) or matcher.marker.fullmatch(gap) for gap in match.groups()):
        return "redaction"
    return "leak"


def _short(text: str, limit: int = 70) -> str:
    text = TextMatcher.norm(text)
    return json.dumps(text if len(text) <= limit else text[: limit - 3] + "...", ensure_ascii=False)


def compare_session(old_name: str, old: list[dict], new_name: str | None, new: list[dict] | None,
                    matcher: TextMatcher) -> SessionCompare:
    """Every old record looked up in the new output: user and assistant text in order, the rest present."""
    result = SessionCompare(old_name, new_name)
    old_items = _items(old)
    result.texts = sum(1 for _, kind, _ in old_items if kind in ORDERED)
    if new is None:
        result.missing = [f"{kind} {_short(text)}" for _, kind, text in old_items]
        return result
    new_items = _items(new)
    matched: set[int] = set()
    cursor = 0
    for old_index, kind, text in old_items:
        ordered = kind in ORDERED
        found = _find(kind, text, new_items, matched, cursor if ordered else None, matcher)
        if found is None:
            result.missing.append(f"{kind} {_short(text)}")
            continue
        k, verdict = found
        matched.add(k)
        index = new_items[k][0]
        if ordered:
            if k < cursor:
                result.reordered.append(f"{kind} {_short(text)} (now record {index}, before an earlier message)")
            else:
                cursor = k + 1
        if verdict == "same":
            result.same += 1 if ordered else 0
        elif verdict == "redaction":
            result.redaction.append(f"{kind} {_short(new_items[k][2])}")
        else:
            result.leaks.append(f"{kind} record {index}: shows text the old script had redacted")
        moved = _time_moved(kind, text, old[old_index].get("timestamp"), new[index].get("timestamp"))
        if moved is not None:
            result.times.append(moved)
    for k, (_, kind, text) in enumerate(new_items):
        if k in matched:
            continue
        result.added[kind] += 1
        if len(result.added_examples) < 8:
            result.added_examples.append(f"{kind}: {_short(text, 60)}")
    return result


def _find(kind: str, text: str, new_items: list[tuple[int, str, str]], matched: set[int], cursor: int | None,
          matcher: TextMatcher) -> tuple[int, str] | None:
    """(new item, verdict) of the first unmatched new item of the same kind equivalent to ``text``.

    With a cursor (user and assistant text) the search starts there and wraps around, so a
    match before it shows up as reordered; without one (tool steps) it starts at the top.
    """
    order = list(range(cursor, len(new_items))) + list(range(cursor)) if cursor is not None else range(len(new_items))
    for k in order:
        _, new_kind, new_text = new_items[k]
        if k in matched or new_kind != kind:
            continue
        verdict = _equivalent(text, new_text, matcher)
        if verdict is not None:
            return k, verdict
    return None


def _time_moved(kind: str, text: str, old_ts, new_ts) -> str | None:
    """The line for a matched record whose time moved (compared as instants when both parse); None if not."""
    if isinstance(old_ts, str) and isinstance(new_ts, str):
        try:
            differs = instant(old_ts) != instant(new_ts)
        except ValueError:
            differs = old_ts != new_ts
        if differs:
            return f"{kind} {_short(text, 40)}: old {old_ts}, new {new_ts}"
    return None


def _present(role: str, text: str, exact: set, texts: list[tuple[int, str, str]], joined: str,
             matcher: TextMatcher) -> bool:
    """Is an old message in a new session? Exact text by lookup; the slow placeholder match only if needed."""
    if (role, TextMatcher.norm(text)) in exact:
        return True
    if matcher.pattern(text) is None or (matcher.key(text) or "") not in joined:
        return False
    return any(r == role and _equivalent(text, t, matcher) for _, r, t in texts)


def pair_sessions(old: dict[str, list[dict]], new: dict[str, list[dict]], matcher: TextMatcher
                  ) -> list[tuple[str, str | None]]:
    """Pair each old session with the new session sharing the most messages (each used once)."""
    scores = []
    texts = {name: _texts(records) for name, records in new.items()}
    exact = {name: {(role, TextMatcher.norm(text)) for _, role, text in items} for name, items in texts.items()}
    joined = {name: "\n".join(TextMatcher.norm(text) for _, _, text in items) for name, items in texts.items()}
    for old_name, old_records in old.items():
        old_texts = _texts(old_records)
        for new_name in new:
            hits = sum(1 for _, role, text in old_texts
                       if _present(role, text, exact[new_name], texts[new_name], joined[new_name], matcher))
            if hits:
                scores.append((hits, old_name, new_name))
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    for _, old_name, new_name in sorted(scores, key=lambda s: (-s[0], s[1], s[2])):
        if old_name not in pairs and new_name not in taken:
            pairs[old_name] = new_name
            taken.add(new_name)
    return [(name, pairs.get(name)) for name in old]


# --- one run's report, and its verdict ----------------------------------------------------------

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


# --- MIGRATION_REPORT.md ----------------------------------------------------------------------

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
        out += _report_mapping(report, report.learned)
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


def _report_mapping(report: ScriptReport, learned: Learned) -> list[str]:
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


# --- MIGRATION_PROMPT.md ----------------------------------------------------------------------

def render_migration_prompt(report: ScriptReport, schema: tuple[str, str] | None = None) -> str:
    """MIGRATION_PROMPT.md: what a coding agent needs to finish the migration."""
    from generator.prompt import render_prompt, resolved_schema

    facts, learned = report.facts, report.learned
    schema_path, origin = schema or resolved_schema()
    mapping = learned.mapping if learned else {"source": "custom-agent"}
    agent_prompt = render_prompt(source=mapping["source"], source_profile=mapping.get("source_profile", "generic"),
                                 mapping=mapping, schema=(schema_path, origin))
    constraints = _section(agent_prompt, "Hard constraints")
    out = [f"# Finish migrating `{Path(facts.path).name}` to a trajectory-v1 cleaner", "", INTRO, "",
           "## The schema", "",
           (f"The trajectory-v1 schema on this machine is `{schema_path}` ({origin}). Read it first; it is the "
            "contract. It describes a whole file as an array: load every line into a list and validate the list."), "",
           "## The new hard constraints", "", constraints, ""]
    out += _old_script(facts)
    if learned is not None:
        out += _prompt_mapping(learned)
    out += _how_to_work(mapping["source"])
    return "\n".join(out)


def _section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    return match.group(1).strip() if match else ""


def _old_script(facts: ScriptFacts) -> list[str]:
    """Where it wrote the old shape, and its code (redacted), fenced whatever backticks it holds."""
    code = Redactor().redact(facts.text)
    fence = "```"
    while fence in code:
        fence += "`"
    out = ["## What the old script did", ""]
    out += [f"- `{facts.path}:{s.line}`: {s.what}" for s in facts.sites + facts.message_sites] or [
        "- no old-shape record was found in the code"]
    if facts.patterns:
        out.append("- it redacts with its own patterns, now `privacy.extra_patterns`: "
                   + ", ".join(f"`{c}`" for c in facts.patterns))
    out += ["", f"{fence}python", code.rstrip("\n"), fence, ""]
    return out


def _prompt_mapping(learned: Learned) -> list[str]:
    out = ["## The mapping table", ""] + mapping_table(learned.rules)
    out += ["", "## Still open", ""]
    out += [f"- {q}" for q in learned.questions] or ["- nothing"]
    out.append("")
    return out


def _how_to_work(source: str) -> list[str]:
    return ["## How to work", "",
            ("- Keep reasoning and tool calls the old shape flattened away: they are what the new cleaner should now "
             "write (`reasoning`, `assistant` + `tool_calls`, `tool`)."),
            ("- Change the mapping in `.copier-answers.yml` and run `trajectory-cleaner update .`; put logic a "
             "mapping cannot express in `cleaner_hooks.py` (never edit `clean_to_trajectory_jsonl.py`)."),
            ("- Keep `python -m pytest` passing, and every user and assistant message of the old output present, "
             "in order (`MIGRATION_REPORT.md`)."),
            "- Check the output with `trajectory-cleaner validate <output folder>`.",
            ("- Convert folders the old script already wrote with `trajectory-cleaner migrate traces OLD -o NEW "
             f"--source {source}`."), ""]


# --- the printed summary ----------------------------------------------------------------------

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
