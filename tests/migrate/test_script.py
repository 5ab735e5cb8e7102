"""`migrate script`: three old cleaners, written in different styles, regenerated end to end."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from generator.migrate.old_script import read_script
from generator.prompt import resolved_schema

from .conftest import SCRIPTS, read_jsonl, run_cli

OLD_SCRIPT = "clean_to_lerim_jsonl.py"
SECRETS = {
    "helpdesk-blocks": ["sk_live_51MzQx7LkP2vR9tY4wB8nC3dF6gH0jK5mN1pQ7sT2uV9xZ4"],
    "research-nulls": ["hf_mQ4tR8vX2kL9pZ6nB3wC7yD1fG5hJ0sKa"],
    "ops-redacting": ["maria.lopez@example-ops.test", "ops-lead@example-ops.test", "ACCT-00417731",
                      "7d1f0c9a2b8e4f6a9c3d5e7f1a2b4c6d"],
}


def old_output(tmp_path, name: str) -> dict[str, list[dict]]:
    """Run the old script ourselves and read what it wrote (the reference for "nothing lost")."""
    out = tmp_path / f"old-{name}"
    subprocess.run([sys.executable, str(SCRIPTS / name / OLD_SCRIPT), "--input", str(SCRIPTS / name / "raw"),
                    "--output", str(out)], check=True, capture_output=True, timeout=60)
    return {p.name: read_jsonl(p) for p in sorted(out.glob("*.jsonl"))}


def old_texts(rows: list[dict]) -> list[tuple[str, str]]:
    """(role, text) of the old rows' user/assistant text, read by hand from the old shape."""
    out = []
    for row in rows:
        role = row["message"].get("role") or {"human": "user"}.get(row["type"], row["type"])
        content = row["message"]["content"]
        if isinstance(content, list):
            content = "\n".join(b["text"] for b in content if b.get("type") == "text")
        if content:
            out.append((role, content))
    return out


def new_sessions(project) -> dict[str, list[dict]]:
    expected = project / "tests" / "expected"
    return {p.name: read_jsonl(p) for p in sorted(expected.rglob("*.jsonl"))}


def valid(path) -> bool:
    from cleaner_runtime import validate

    schema, _ = validate.find_schema(None)
    validator = validate.TrajectoryValidator(validate.load_schema(schema))
    return not [p for p in validate.check_file(path, validator) if p.severity == "error"]


def in_order(old: list[tuple[str, str]], new: list[dict], redacted: bool) -> bool:
    """Every old text is in the new user/assistant records, in order (the old script's placeholders match
    whatever the new cleaner put there)."""
    texts = [(r["role"], r["content"]) for r in new if r["role"] in ("user", "assistant") and r.get("content")]
    from cleaner_runtime.redaction import Redactor

    redactor = Redactor()
    at = 0
    for role, text in old:
        text = redactor.redact(text)  # what the old script leaked is redacted by the migration
        if redacted:
            pattern = re.compile(".+?".join(re.escape(piece) for piece in text.split("[REDACTED]")), re.DOTALL)
            hit = lambda r, t, role=role, pattern=pattern: r == role and pattern.fullmatch(t)
        else:
            hit = lambda r, t, role=role, text=text: r == role and t == text
        while at < len(texts) and not hit(*texts[at]):
            at += 1
        if at == len(texts):
            return False
        at += 1
    return True


@pytest.mark.parametrize("name", ["helpdesk-blocks", "research-nulls", "ops-redacting"])
def test_old_script_regenerated_end_to_end(tmp_path, capsys, name):
    project = tmp_path / "new-cleaner"
    code, stdout, stderr = run_cli(capsys, "migrate", "script", SCRIPTS / name / OLD_SCRIPT, "--samples",
                                   SCRIPTS / name / "raw", "-o", project, "--run-old", "--source", name)
    assert code == 0, stdout + stderr
    assert "equivalence:          PASSED" in stdout
    report = (project / "MIGRATION_REPORT.md").read_text(encoding="utf-8")
    assert "**Equivalence: PASSED" in report
    # the rendered project is a working cleaner whose outputs validate
    new = new_sessions(project)
    assert new
    for path in (project / "tests" / "expected").rglob("*.jsonl"):
        assert valid(path), path
    # independently of the report: every old user/assistant text is in a new session, in order
    old = old_output(tmp_path, name)
    for rows in old.values():
        wanted = old_texts(rows)
        assert any(in_order(wanted, records, name == "ops-redacting") for records in new.values()), wanted
    # secrets, whether the old script leaked them or redacted them itself, are not in anything written
    for path in project.rglob("*"):
        if path.is_file() and path.suffix in (".jsonl", ".md", ".yml") and "samples" not in path.parts:
            text = path.read_text(encoding="utf-8")
            for secret in SECRETS[name]:
                assert secret not in text, (path, secret)
    prompt = (project / "MIGRATION_PROMPT.md").read_text(encoding="utf-8")
    assert "## The new hard constraints" in prompt and "`tool_call.args`" not in prompt
    assert "is null if and only if `tool_calls` is present" in prompt
    assert resolved_schema()[0] in prompt
    assert "def main" in prompt or "__main__" in prompt  # the old script itself
    assert "## The mapping table" in prompt


def test_block_list_script_keeps_reasoning_tools_and_error_flags(tmp_path, capsys):
    project = tmp_path / "p"
    code, stdout, _ = run_cli(capsys, "migrate", "script", SCRIPTS / "helpdesk-blocks" / OLD_SCRIPT, "--samples",
                              SCRIPTS / "helpdesk-blocks" / "raw", "-o", project, "--run-old", "--yes")
    assert code == 0
    records = new_sessions(project)["ticket-1002.jsonl"]
    assert [r["role"] for r in records] == ["meta", "user", "assistant", "tool", "reasoning", "assistant", "user"]
    assert records[0]["source"] == "helpdesk-blocks"  # default: the old script's folder name
    call = records[2]["tool_calls"][0]
    assert (call["id"], call["name"], json.loads(call["args"])) == ("act-7", "key_status", {"account": "AC-7781"})
    assert records[3]["tool_call_id"] == "act-7" and records[3]["ok"] is False
    # the old script grouped a note and a reply under one time; the report says so rather than hiding it
    report = (project / "MIGRATION_REPORT.md").read_text(encoding="utf-8")
    assert "timestamp differs" in report
    assert "old 2026-03-03T10:01:30+01:00, new 2026-03-03T10:02:00+01:00" in report
    # what could not be learned is printed with --yes
    assert "could not learn:      1" in stdout and "kind=ticket_opened|typing" in stdout
    assert "1 x stripe-secret-key" in report
    # the regenerated project's own tests pass out of the box
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project,
                           capture_output=True, text=True, timeout=120, check=False)
    assert tests.returncode == 0, tests.stdout[-2000:]


def test_null_timestamp_script_gains_reasoning_and_tool_steps(tmp_path, capsys):
    project = tmp_path / "p"
    code, stdout, _ = run_cli(capsys, "migrate", "script", SCRIPTS / "research-nulls" / OLD_SCRIPT, "--samples",
                              SCRIPTS / "research-nulls" / "raw", "-o", project, "--run-old", "--json")
    assert code == 0
    data = json.loads(stdout)
    assert data["equivalence"]["passed"] is True
    sessions = new_sessions(project)
    run_a = sessions["run-a.jsonl"]
    assert [r["role"] for r in run_a] == ["meta", "user", "assistant", "reasoning", "assistant", "tool", "assistant",
                                          "user", "reasoning", "assistant"]
    # the first event has no time: it takes the next one's, read in UTC (zone-less in the raw data)
    assert run_a[1]["timestamp"] == "2026-04-01T14:00:40.000Z"
    assert all(r["timestamp"] for r in run_a[1:])
    call = run_a[4]["tool_calls"][0]
    assert call["name"] == "search_papers"
    assert json.loads(call["args"]) == {"query": "retrieval augmented code review", "since": 2023}
    assert run_a[5] == {"role": "tool", "tool_call_id": call["id"], "content": "12 results; top: RAG-Review (2024), "
                        "CodeRAG (2025)", "timestamp": "2026-04-01T14:01:05.000Z"}
    added = {s["old"]: s["added"] for s in data["equivalence"]["sessions"]}
    assert added["lit-0401-a.jsonl"] == {"reasoning": 2, "tool call": 1, "tool result": 1}
    assert any("without a zone" in q for q in data["open_questions"])


def test_redacting_script_keeps_its_patterns_and_sessions(tmp_path, capsys):
    project = tmp_path / "p"
    code, stdout, _ = run_cli(capsys, "migrate", "script", SCRIPTS / "ops-redacting" / OLD_SCRIPT, "--samples",
                              SCRIPTS / "ops-redacting" / "raw", "-o", project, "--run-old", "--json")
    assert code == 0
    data = json.loads(stdout)
    assert data["mapping"]["session"] == {"by": "field", "field": "conversation_id"}
    assert set(data["mapping"]["privacy"]["extra_patterns"]) == {"old-script-email", "old-script-bearer",
                                                                 "old-script-acct"}
    sessions = new_sessions(project)
    assert sorted(sessions) == ["inc-77.jsonl", "inc-78.jsonl"]
    inc77 = sessions["inc-77.jsonl"]
    call = next(r for r in inc77 if r.get("tool_calls"))["tool_calls"][0]
    assert (call["id"], call["name"], json.loads(call["args"])) == ("tc-9", "pg_replication_status",
                                                                    {"host": "db-eu-1"})
    result = next(r for r in inc77 if r["role"] == "tool")
    assert result["tool_call_id"] == "tc-9" and result["content"].startswith("lag_seconds=2410")
    assert not any("heartbeat" in (r.get("content") or "") for r in inc77)
    assert inc77[1]["timestamp"] == "2026-05-16T08:00:00.000Z"  # epoch seconds in the raw data
    differs = [s["redaction_differs"] for s in data["equivalence"]["sessions"]]
    assert any(differs)  # "[REDACTED]" then, "[REDACTED:old-script-email]" now: listed, and passing


def test_ast_detection_names_the_places(tmp_path):
    facts = read_script(str(SCRIPTS / "research-nulls" / OLD_SCRIPT))
    assert [(s.line, s.what) for s in facts.sites] == [
        (22, "dict literal with keys type, message, timestamp"), (22, "json.dumps(...) of an old-shape record")]
    assert facts.cli == {"--input": 42, "--output": 43}
    facts = read_script(str(SCRIPTS / "helpdesk-blocks" / OLD_SCRIPT))
    assert [s.line for s in facts.sites] == [34, 52, 55]
    facts = read_script(str(SCRIPTS / "ops-redacting" / OLD_SCRIPT))
    assert [s.line for s in facts.sites] == [43] and facts.markers == ["[REDACTED]"]
    patterns = {name: re.compile(p) for name, p in facts.patterns.items()}
    assert patterns["old-script-email"].search("mail maria.lopez@example-ops.test now")
    assert patterns["old-script-bearer"].search("Authorization: BEARER abc.def-123")
    assert patterns["old-script-acct"].fullmatch("ACCT-00417731")

    other = tmp_path / "clean_to_lerim_jsonl.py"
    other.write_text(
        "import json\n"
        "# grep bait: {\"type\": ..., \"message\": ..., \"timestamp\": ...}\n"
        "def row(kind, text, ts):\n"
        "    rec = {}\n"
        "    rec['type'] = kind\n"
        "    rec['message'] = dict(role=kind, content=text)\n"
        "    rec['timestamp'] = ts\n"
        "    return json.dumps(rec)\n"
        "def other(kind, text):\n"
        "    return dict(type=kind, message={'content': text}, timestamp=None)\n",
        encoding="utf-8")
    facts = read_script(str(other))
    assert [(s.line, s.what.split(" (")[0]) for s in facts.sites] == [
        (5, "record built key by key in rec[...]"), (8, "json.dumps(...) of an old-shape record"),
        (10, "dict literal with keys type, message, timestamp")]
    assert facts.message_sites[0].line == 6

    new = tmp_path / "new.py"
    new.write_text("text = 'type message timestamp'\n"
                   "records = [{'role': 'meta', 'source': 's'}, {'role': 'user', 'content': text, 'timestamp': 't'}]\n",
                   encoding="utf-8")
    facts = read_script(str(new))
    assert not facts.emits_old_shape and facts.trajectory_sites


def test_without_run_old_the_script_is_never_executed(tmp_path, capsys):
    marker = tmp_path / "executed"
    script = tmp_path / "old" / OLD_SCRIPT
    script.parent.mkdir()
    source = (SCRIPTS / "ops-redacting" / OLD_SCRIPT).read_text(encoding="utf-8")
    head, rest = source.split("from __future__ import annotations\n", 1)
    script.write_text(f"{head}from __future__ import annotations\nfrom pathlib import Path\nPath({str(marker)!r}).touch()\n"
                      + rest, encoding="utf-8")
    project = tmp_path / "p"
    code, stdout, _ = run_cli(capsys, "migrate", "script", script, "--samples", SCRIPTS / "ops-redacting" / "raw",
                              "-o", project)
    assert code == 0
    assert not marker.exists()
    assert "not compared" in stdout
    assert (project / "MIGRATION_PROMPT.md").is_file() and (project / "MIGRATION_REPORT.md").is_file()
    assert sorted(new_sessions(project)) == ["inc-77.jsonl", "inc-78.jsonl"]
    code, _, _ = run_cli(capsys, "migrate", "script", script, "--samples", SCRIPTS / "ops-redacting" / "raw",
                         "-o", tmp_path / "p2", "--run-old")
    assert code == 0 and marker.exists()


def test_an_old_script_that_fails_or_hangs(tmp_path, capsys):
    samples = SCRIPTS / "helpdesk-blocks" / "raw"
    crash = tmp_path / "crash" / OLD_SCRIPT
    crash.parent.mkdir()
    crash.write_text("import argparse, json\n"
                     "p = argparse.ArgumentParser(); p.add_argument('--input'); p.add_argument('--output')\n"
                     "p.parse_args()\n"
                     "rows = [{'type': 'user', 'message': {'content': 'x'}, 'timestamp': None}]\n"
                     "raise SystemExit('cannot parse ticket T-1001')\n", encoding="utf-8")
    code, _, stderr = run_cli(capsys, "migrate", "script", crash, "--samples", samples, "-o", tmp_path / "p1",
                              "--run-old")
    assert code == 1
    assert "exited 1" in stderr and "cannot parse ticket T-1001" in stderr
    report = (tmp_path / "p1" / "MIGRATION_REPORT.md").read_text(encoding="utf-8")
    assert "FAILED" in report and "cannot parse ticket T-1001" in report
    assert (tmp_path / "p1" / "MIGRATION_PROMPT.md").is_file()

    hang = tmp_path / "hang" / OLD_SCRIPT
    hang.parent.mkdir()
    hang.write_text("import argparse, time\n"
                    "p = argparse.ArgumentParser(); p.add_argument('--input'); p.add_argument('--output')\n"
                    "p.parse_args()\n"
                    "print({'type': 'user', 'message': {'content': 'x'}, 'timestamp': None})\n"
                    "time.sleep(30)\n", encoding="utf-8")
    code, _, stderr = run_cli(capsys, "migrate", "script", hang, "--samples", samples, "-o", tmp_path / "p2",
                              "--run-old", "--timeout", "1")
    assert code == 1 and "still running after 1s" in stderr


def test_usage_errors(tmp_path, capsys):
    samples = SCRIPTS / "helpdesk-blocks" / "raw"
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n    pass\n", encoding="utf-8")
    code, _, stderr = run_cli(capsys, "migrate", "script", broken, "--samples", samples, "-o", tmp_path / "p")
    assert code == 2 and f"{broken}:1: not valid Python" in stderr
    no_cli = tmp_path / "no_cli.py"
    no_cli.write_text("import sys, json\nprint(json.dumps({'type': 'user', 'message': {'content': sys.argv[1]}}))\n",
                      encoding="utf-8")
    code, _, stderr = run_cli(capsys, "migrate", "script", no_cli, "--samples", samples, "-o", tmp_path / "p",
                              "--run-old")
    assert code == 2 and "--input/--output" in stderr
    code, _, stderr = run_cli(capsys, "migrate", "script", SCRIPTS / "helpdesk-blocks" / OLD_SCRIPT, "--samples",
                              tmp_path / "missing", "-o", tmp_path / "p")
    assert code == 2 and "missing: no such file or folder" in stderr
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("x")
    code, _, stderr = run_cli(capsys, "migrate", "script", SCRIPTS / "helpdesk-blocks" / OLD_SCRIPT, "--samples",
                              samples, "-o", tmp_path / "taken")
    assert code == 2 and "not empty" in stderr
    assert not (tmp_path / "p").exists()


def test_calls_and_results_the_old_script_dropped_are_kept(tmp_path, capsys):
    # the old script wrote only the chat's text; the assistant records hold untyped tool_calls and
    # the tool records answer them by id (the same raw log as the untyped_tool_calls golden format)
    project = tmp_path / "p"
    code, stdout, _ = run_cli(capsys, "migrate", "script", SCRIPTS / "chat-calls-dropped" / OLD_SCRIPT, "--samples",
                              SCRIPTS / "chat-calls-dropped" / "raw", "-o", project, "--run-old", "--json")
    assert code == 0
    data = json.loads(stdout)
    assert data["equivalence"]["passed"] is True
    [records] = new_sessions(project).values()
    calls = [call for r in records for call in r.get("tool_calls") or ()]
    assert [c["name"] for c in calls] == ["search_docs", "get_ticket", "read_doc", "read_doc"]
    answered = [r["tool_call_id"] for r in records if r["role"] == "tool"]
    assert sorted(answered) == sorted(c["id"] for c in calls)
    [added] = [s["added"] for s in data["equivalence"]["sessions"]]
    assert added == {"reasoning": 1, "tool call": 4, "tool result": 4}
    report = (project / "MIGRATION_REPORT.md").read_text(encoding="utf-8")
    assert "tool calls or results the old script dropped; the new cleaner keeps them" in report
