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
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.migrate.convert_old import FileResult, convert_old_file
from generator.migrate.errors import MigrateError
from generator.migrate.inference import try_infer
from generator.migrate.learning import Learned, learn_mapping
from generator.migrate.old_run import OldRun, run_old_script
from generator.migrate.old_shape import old_shape_mapping
from generator.migrate.records import RawRec, Target
from generator.migrate.rules import SOURCE_SHORT, describe_rule, rule_name
from generator.migrate.samples import read_samples
from generator.migrate.script_reading import ScriptFacts, read_script
from generator.migrate.script_redaction import portable_pattern
from generator.migrate.sessions import learn_session
from generator.migrate.text_match import TextMatcher
from generator.migrate.times import instant
from generator.migrate.traces import migrate_traces
from generator.migrate.traces_summary import format_traces_report
from generator.paths import runtime_module

__all__ = ["MigrateError", "RawRec", "Target", "TextMatcher", "format_script_report", "format_traces_report",
           "learn_session", "migrate_script", "migrate_traces", "portable_pattern", "read_script"]

# Part 2d: the equivalence report - the old output migrated mechanically vs the new cleaner
# =============================================================================================

RUNTIME_PLACEHOLDER = re.compile(r"\[REDACTED:[A-Za-z0-9_-]+\]")


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


def _texts(records: list[dict]) -> list[tuple[int, str, str]]:
    return [(i, r["role"], r["content"]) for i, r in enumerate(records)
            if r.get("role") in ("user", "assistant") and isinstance(r.get("content"), str)]


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
    result.texts = sum(1 for _, kind, _ in old_items if kind in ("user", "assistant"))
    if new is None:
        result.missing = [f"{kind} {_short(text)}" for _, kind, text in old_items]
        return result
    new_items = _items(new)
    matched: set[int] = set()
    cursor = 0
    for old_index, kind, text in old_items:
        ordered = kind in ("user", "assistant")
        found = None
        order = list(range(cursor, len(new_items))) + list(range(cursor)) if ordered else range(len(new_items))
        for k in order:
            _, new_kind, new_text = new_items[k]
            if k in matched or new_kind != kind:
                continue
            verdict = _equivalent(text, new_text, matcher)
            if verdict is not None:
                found = (k, verdict)
                break
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
        old_ts, new_ts = old[old_index].get("timestamp"), new[index].get("timestamp")
        if isinstance(old_ts, str) and isinstance(new_ts, str):
            try:
                differs = instant(old_ts) != instant(new_ts)
            except ValueError:
                differs = old_ts != new_ts
            if differs:
                result.times.append(f"{kind} {_short(text, 40)}: old {old_ts}, new {new_ts}")
    for k, (_, kind, text) in enumerate(new_items):
        if k in matched:
            continue
        result.added[kind] += 1
        if len(result.added_examples) < 8:
            result.added_examples.append(f"{kind}: {_short(text, 60)}")
    return result


def _present(role: str, text: str, exact: set, texts: list[tuple[int, str, str]], joined: str,
             matcher: TextMatcher) -> bool:
    """Is an old message in a new session? Exact text by lookup; the slow placeholder match only if needed."""
    if (role, TextMatcher.norm(text)) in exact:
        return True
    if matcher.pattern(text) is None or (matcher.key(text) or "") not in joined:
        return False
    return any(r == role and _equivalent(text, t, matcher) for _, r, t in texts)


def _pair_sessions(old: dict[str, list[dict]], new: dict[str, list[dict]], matcher: TextMatcher
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


# =============================================================================================
# Part 2e: the whole `migrate script` run
# =============================================================================================


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
            "equivalence": {
                "passed": self.passed,
                "compared": self.compared,
                "sessions": [{
                    "old": s.old, "new": s.new, "old_messages": s.texts, "same": s.same,
                    "redaction_differs": s.redaction, "reordered": s.reordered, "missing": s.missing,
                    "shows_redacted": s.leaks, "timestamp_differs": s.times, "added": dict(s.added),
                } for s in self.sessions],
                "new_sessions_without_old": self.extra_new,
            },
            "old_output_secrets_redacted": dict(self.old_redactions),
            "new_cleaner_exit": self.cleaner_exit,
            "errors": self.errors,
        }


MAPPING_FILE = "migration-mapping.yml"


def _default_source(script: Path) -> str:
    name = script.resolve().parent.name
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")
    return name or "custom-agent"


def migrate_script(old_script: str, samples: list[str], output: str, *, run_old: bool = False, timeout: float = 120,
                   source: str | None = None, source_profile: str = "generic", tz: str | None = None,
                   notice=lambda text: None) -> ScriptReport:
    """Detect, (optionally) run and align, render the new cleaner, compare, and write both documents."""
    from generator.render import RenderError, render_new

    facts = read_script(old_script)
    script = Path(old_script)
    sample_paths = [Path(s) for s in samples]
    for given, path in zip(samples, sample_paths):
        if not path.exists():
            raise MigrateError(f"{given}: no such file or folder (check --samples)")
    dest = Path(output)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise MigrateError(f"{output}: exists and is not empty; choose a new --output folder")
    if run_old and not {"--input", "--output"} <= set(facts.cli):
        raise MigrateError(f"{old_script}: has no --input/--output arguments, so --run-old cannot run it; "
                           "run it without --run-old to learn from the samples alone")
    if run_old and not timeout > 0:
        raise MigrateError(f"--timeout {timeout:g}: give a number of seconds above 0")
    if source is not None and not source.strip():
        raise MigrateError("--source must name your agent or workflow (it becomes the meta record's source)")
    if tz is not None:
        try:
            runtime_module("timestamps").zone(tz)
        except ValueError as exc:
            raise MigrateError(f"--timezone: {exc}") from None
    if not facts.emits_old_shape:
        notice(f"notice: {old_script}: no old-shape record found in the code (no dict with keys type and message)"
               + ("; it already writes trajectory-v1 records" if facts.trajectory_sites else ""))
    source = source or _default_source(script)
    raws, files, include, sample_notes = read_samples(sample_paths)
    report = ScriptReport(facts, output, run_old, None, None, notes=list(sample_notes), timezone=tz or "UTC")
    work = Path(tempfile.mkdtemp(prefix="trajectory-cleaner-migrate-"))
    try:
        old_sessions: dict[str, FileResult] = {}
        targets: list[Target] = []
        if run_old:
            notice(f"running {old_script} on the samples (timeout {timeout:g}s per sample)")
            report.old_run = run_old_script(script, old_script, sample_paths, timeout, work)
            if report.old_run.error:
                report.errors.append(report.old_run.error)
            plain = old_shape_mapping(source, tz or "UTC", fallback_mtime=True, redact=False)
            for n, (path, shown) in enumerate(report.old_run.files):
                result = convert_old_file(path, f"old output {shown}", plain, path.stat().st_mtime)
                report.old_problems += result.not_old_shape
                if result.error:
                    report.old_problems.append(result.error)
                    continue
                old_sessions[shown] = result
                for index, record in enumerate(result.trajectory):
                    if index == 0:
                        continue
                    row = result.origins[index]
                    targets.append(Target(n, index, record, result.old_times[row] if row >= 0 else None))
            if report.old_run.files and not targets:
                report.errors.append(f"{old_script}: its output on the samples has no old-shape rows to learn from "
                                     "(see the old-output problems in the report)")
        inference = try_infer(sample_paths, notice)
        learned = learn_mapping(raws, files, include, targets or None, source, source_profile, tz, facts, inference)
        report.learned = learned
        report.timezone = learned.mapping["timestamps"]["timezone"]
        try:
            rendered = render_new(learned.mapping, sample_paths, dest, {"questions": learned.questions})
        except RenderError as exc:
            # Nothing was rendered; the documents and the learned mapping still go to --output so that
            # the mapping can be fixed by hand (or by a coding agent) and rendered with `new --answers`.
            from generator.answers import dump_mapping

            report.cleaner_exit = 2
            report.cleaner_output = str(exc)
            report.errors.append(f"the new cleaner could not be rendered: {str(exc).splitlines()[0]}; the learned "
                                 f"mapping is in {output}/{MAPPING_FILE} (fix it, then `trajectory-cleaner new "
                                 f"SAMPLES --answers {output}/{MAPPING_FILE} -o DIR`)")
            dest.mkdir(parents=True, exist_ok=True)
            runtime_module("writer").write_atomic(dest / MAPPING_FILE, dump_mapping(learned.mapping).encode("utf-8"))
            write_documents(report, dest)
            return report
        report.cleaner_exit = rendered.cleaner_exit
        report.cleaner_output = rendered.cleaner_output
        if rendered.cleaner_exit != 0:
            report.errors.append(f"the new cleaner failed on the samples (exit {rendered.cleaner_exit}); see "
                                 f"{output}/MIGRATION_REPORT.md and fix the mapping in {output}/.copier-answers.yml")
        if old_sessions:
            _compare(report, old_sessions, dest, tz or report.timezone, source, facts)
        write_documents(report, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


def _compare(report: ScriptReport, old_sessions: dict[str, FileResult], dest: Path, tz: str, source: str,
             facts: ScriptFacts) -> None:
    """Migrate the old output mechanically (with redaction) and compare it with the new cleaner's output."""
    mapping = old_shape_mapping(source, tz, fallback_mtime=True, redact=True)
    old: dict[str, list[dict]] = {}
    for path, shown in report.old_run.files if report.old_run else []:
        if shown not in old_sessions:
            continue
        result = convert_old_file(path, shown, mapping, path.stat().st_mtime)
        if result.error:
            continue
        old[shown] = result.trajectory
        report.old_redactions.update(result.redactions)
    expected = dest / "tests" / "expected"
    new: dict[str, list[dict]] = {}
    for path in sorted(expected.rglob("*.jsonl")):
        try:
            new[path.relative_to(expected).as_posix()] = [
                json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        except (OSError, ValueError):
            continue
    matcher = TextMatcher(facts.markers)
    pairs = _pair_sessions(old, new, matcher)
    for old_name, new_name in pairs:
        report.sessions.append(compare_session(old_name, old[old_name], new_name,
                                               new.get(new_name) if new_name else None, matcher))
    paired = {n for _, n in pairs if n}
    report.extra_new = [name for name in new if name not in paired]


# =============================================================================================
# Part 2f: MIGRATION_REPORT.md, MIGRATION_PROMPT.md and the printed summary
# =============================================================================================


def _md(text: Any) -> str:
    from generator.jinja_ext import md_code

    return md_code(str(text))


def _verdict(report: ScriptReport) -> str:
    if not report.ran_old:
        return ("not compared: the old script was not run (--run-old), so there is no old output to compare; "
                "the mapping was inferred from the samples alone")
    if not report.compared:
        return "FAILED: no old output could be compared (see the errors above)"
    if report.passed:
        return "PASSED: every user and assistant message of the old output is present in the new output, in order"
    return "FAILED: the differences below would lose or reorder what the old output had"


def render_report(report: ScriptReport) -> str:
    """MIGRATION_REPORT.md: how the mapping was learned, and old vs new output, differences listed."""
    facts, learned = report.facts, report.learned
    out = [f"# Migration report: {facts.path}", ""]
    out.append(f"**Equivalence: {_verdict(report)}**")
    out.append("")
    if report.errors:
        out += ["## Errors", ""] + [f"- {e}" for e in report.errors] + [""]
    out += ["## Where the old script writes the old shape", ""]
    if facts.sites or facts.message_sites:
        out += [f"- `{facts.path}:{s.line}`: {s.what}" for s in facts.sites + facts.message_sites]
    else:
        out.append("- nowhere found: no dict with keys `type` and `message`"
                   + (" (it writes trajectory-v1 records already)" if facts.trajectory_sites else ""))
    if facts.patterns:
        out += ["", "Its own redaction (kept in the new cleaner as `privacy.extra_patterns`):", ""]
        out += [f"- `{facts.path}:{facts.pattern_lines[c]}` {_md(p)} -> class `{c}`" for c, p in facts.patterns.items()]
    out.append("")
    if report.old_run is not None:
        out += ["## The old script on the samples", ""] + [f"- {line}" for line in report.old_run.log]
        out += [f"- old output file: `{shown}`" for _, shown in report.old_run.files]
        if report.old_problems:
            out += ["", "Rows of the old output that are not old-shape:", ""] + [f"- {p}" for p in report.old_problems]
        out.append("")
    if learned is not None:
        out += ["## The mapping", ""]
        if report.ran_old:
            out.append(f"Learned by aligning the old output with the raw samples: {learned.aligned} of "
                       f"{learned.old_records} old records were traced back to a raw record.")
        else:
            out.append("Inferred from the samples (the old script was not run).")
        out += ["", "| raw records | records | in old output | new cleaner writes | learned from |",
                "|---|---|---|---|---|"]
        for rule in learned.rules:
            out.append(f"| {_md(rule_name(rule))} | {rule.records} | {rule.aligned} | {describe_rule(rule)} | "
                       f"{SOURCE_SHORT[rule.source]} |")
        session = learned.mapping["session"]
        ts = learned.mapping["timestamps"]
        out += ["", f"- sessions: {'one per raw file' if session['by'] == 'file' else 'grouped by ' + _md(session['field'])}",
                f"- timestamps: {_md(ts['fields'])}, zone-less times read in {ts['timezone']}"
                + (", file modification time when a session has none" if ts.get("fallback") == "file_mtime" else "")]
        if learned.unmatched:
            out += ["", "Old records no raw record could be found for:", ""] + [f"- {u}" for u in learned.unmatched]
        if learned.notes or report.notes:
            out += ["", "Notes:", ""] + [f"- {n}" for n in learned.notes + report.notes]
        out += ["", "## What could not be learned", ""]
        out += [f"- {q}" for q in learned.questions] or ["- nothing: every kind was learned from the old output"]
        out += ["", "The mapping is in `.copier-answers.yml`; change it there and run `trajectory-cleaner update .`.", ""]
    if report.sessions:
        out += ["## Old output (migrated mechanically) vs the new cleaner", ""]
        out.append(f"The old output was migrated as `trajectory-cleaner migrate traces` would (zone-less times in "
                   f"{report.timezone}); the new output is `tests/expected/` (the new cleaner on the samples).")
        out += ["", ("| old session | new session | old messages | identical | redaction differs | reordered | "
                     "missing | added by the new cleaner |"), "|---|---|---|---|---|---|---|---|"]
        for s in report.sessions:
            added = ", ".join(f"{n} {k}" for k, n in sorted(s.added.items())) or "-"
            out.append(f"| {_md(s.old)} | {_md(s.new or 'none')} | {s.texts} | {s.same} | {len(s.redaction)} | "
                       f"{len(s.reordered)} | {len(s.missing)} | {added} |")
        out += ["", "### Differences", ""]
        listed = False
        for s in report.sessions:
            for title, items in (("missing from the new output", s.missing), ("reordered", s.reordered),
                                 ("the new output shows what the old script redacted", s.leaks),
                                 ("present, with different redaction placeholders", s.redaction),
                                 ("timestamp differs", s.times), ("added by the new cleaner", s.added_examples)):
                if items:
                    listed = True
                    out.append(f"- {_md(s.old)}: {title}:")
                    out += [f"  - {item}" for item in items]
        if report.extra_new:
            listed = True
            out.append("- sessions the new cleaner writes that the old script did not: "
                       + ", ".join(_md(n) for n in report.extra_new))
        if not listed:
            out.append("- none")
        if report.old_redactions:
            out += ["", "### Secrets in the old output", "",
                    f"The old output had leaked {sum(report.old_redactions.values())} secret(s) ("
                    + ", ".join(f"{n} x {k}" for k, n in sorted(report.old_redactions.items()))
                    + "). `migrate traces` and the new cleaner redact them; re-migrate or delete the old folders."]
        out.append("")
    if report.cleaner_exit != 0:
        out += ["## The new cleaner's output on the samples", "", "```", report.cleaner_output.strip(), "```", ""]
    return "\n".join(out)


def _section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    return match.group(1).strip() if match else ""


def render_migration_prompt(report: ScriptReport, schema: tuple[str, str] | None = None) -> str:
    """MIGRATION_PROMPT.md: what a coding agent needs to finish the migration."""
    from generator.prompt import render_prompt, resolved_schema

    facts, learned = report.facts, report.learned
    schema_path, origin = schema or resolved_schema()
    mapping = learned.mapping if learned else {"source": "custom-agent"}
    agent_prompt = render_prompt(source=mapping["source"], source_profile=mapping.get("source_profile", "generic"),
                                 mapping=mapping, schema=(schema_path, origin))
    constraints = _section(agent_prompt, "Hard constraints")
    redactor = runtime_module("redact").Redactor()
    code = redactor.redact(facts.text)
    fence = "```"
    while fence in code:
        fence += "`"
    out = [f"# Finish migrating `{Path(facts.path).name}` to a trajectory-v1 cleaner", "",
           ("Lerim no longer reads the pre-trajectory shape `{\"type\", \"message\": {\"role\", \"content\"}, "
            "\"timestamp\"}` that the old script below writes. trajectory-cleaner has rendered a new cleaner in this "
            "folder (`clean_to_trajectory_jsonl.py`, generated from `.copier-answers.yml`) and compared it with the "
            "old script in `MIGRATION_REPORT.md`. Your job: close the gaps listed there and below, without losing "
            "anything the old script kept."), "",
           "## The schema", "",
           (f"The trajectory-v1 schema on this machine is `{schema_path}` ({origin}). Read it first; it is the "
            "contract. It describes a whole file as an array: load every line into a list and validate the list."), "",
           "## The new hard constraints", "", constraints, "",
           "## What the old script did", ""]
    out += [f"- `{facts.path}:{s.line}`: {s.what}" for s in facts.sites + facts.message_sites] or [
        "- no old-shape record was found in the code"]
    if facts.patterns:
        out.append("- it redacts with its own patterns, now `privacy.extra_patterns`: "
                   + ", ".join(f"`{c}`" for c in facts.patterns))
    out += ["", f"{fence}python", code.rstrip("\n"), fence, ""]
    if learned is not None:
        out += ["## The mapping table", "", "| raw records | records | in old output | new cleaner writes | learned from |",
                "|---|---|---|---|---|"]
        for rule in learned.rules:
            out.append(f"| {_md(rule_name(rule))} | {rule.records} | {rule.aligned} | {describe_rule(rule)} | "
                       f"{SOURCE_SHORT[rule.source]} |")
        out += ["", "## Still open", ""]
        out += [f"- {q}" for q in learned.questions] or ["- nothing"]
        out.append("")
    out += ["## How to work", "",
            ("- Keep reasoning and tool calls the old shape flattened away: they are what the new cleaner should now "
             "write (`reasoning`, `assistant` + `tool_calls`, `tool`)."),
            ("- Change the mapping in `.copier-answers.yml` and run `trajectory-cleaner update .`; put logic a "
             "mapping cannot express in `cleaner_hooks.py` (never edit `clean_to_trajectory_jsonl.py`)."),
            ("- Keep `python -m pytest` passing, and every user and assistant message of the old output present, "
             "in order (`MIGRATION_REPORT.md`)."),
            "- Check the output with `trajectory-cleaner validate <output folder>`.",
            ("- Convert folders the old script already wrote with `trajectory-cleaner migrate traces OLD -o NEW "
             f"--source {mapping['source']}`."), ""]
    return "\n".join(out)


def write_documents(report: ScriptReport, dest: Path) -> None:
    writer = runtime_module("writer")
    writer.write_atomic(dest / "MIGRATION_REPORT.md", render_report(report).encode("utf-8"))
    writer.write_atomic(dest / "MIGRATION_PROMPT.md", render_migration_prompt(report).encode("utf-8"))


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
        added = ", ".join(f"{n} {k}" for k, n in sorted(s.added.items())) or "nothing"
        out.append(f"  {s.old} -> {s.new or 'NO MATCHING SESSION'}: {s.present}/{s.texts} messages "
                   f"present, {len(s.missing)} missing, {len(s.reordered)} reordered; adds {added}")
    if report.old_redactions:
        out.append(f"old output secrets:   {sum(report.old_redactions.values())} leaked by the old script, redacted")
    out.append(f"equivalence:          {_verdict(report)}")
    out.append(f"report:               {report.output}/MIGRATION_REPORT.md")
    out.append(f"agent prompt:         {report.output}/MIGRATION_PROMPT.md")
    return "\n".join(out)
