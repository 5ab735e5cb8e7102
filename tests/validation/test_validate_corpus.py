"""The corpus: files with known verdicts, the rule ids they trip, and what the command says."""

from __future__ import annotations

import argparse
import json
import os

import jsonschema
import pytest

from generator import validate_cmd

from .support import CORPUS, REPO, UPSTREAM_FIXTURES, load_upstream_schema

CORPUS_FILES = sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*.jsonl"))
# Rules that no file can show on its own (a file that cannot be read is made in a test below).
NOT_IN_CORPUS = {"unreadable"}


def run_validate(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="trajectory-cleaner validate")
    validate_cmd.add_arguments(parser)
    return validate_cmd.run(parser.parse_args(list(argv)))


def test_corpus_is_big_enough_and_fully_described(expected):
    assert len(CORPUS_FILES) >= 40
    assert sorted(expected) == CORPUS_FILES
    assert len([f for f in CORPUS_FILES if f.startswith("valid/")]) >= 10
    assert len([f for f in CORPUS_FILES if f.startswith("invalid/")]) >= 30


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_file_gives_expected_problems(rt, bundled_validator, expected, name):
    problems = rt.check_file(CORPUS / name, bundled_validator)
    got = [[p.rule, p.line, p.severity] for p in problems]
    assert got == expected[name]["problems"]
    for rule, fragment in expected[name]["messages"].items():
        assert any(p.rule == rule and fragment in p.message for p in problems), (rule, fragment, problems)
    for p in problems:
        assert p.rule in rt.RULES
        assert "\n" not in p.message and p.message.strip()
        assert p.severity == ("warning" if p.rule in rt.WARNING_RULES else "error")
    errors = [p for p in problems if p.severity == "error"]
    warnings = [p for p in problems if p.severity == "warning"]
    if name.startswith("valid/"):
        assert problems == []
    elif name.startswith("warn/"):
        assert warnings and not errors
    else:
        assert errors


def test_every_rule_has_a_failing_corpus_file_with_a_message_check(rt, expected):
    covered = {rule for entry in expected.values() for rule in entry["messages"]}
    tripped = {p[0] for entry in expected.values() for p in entry["problems"]}
    missing = set(rt.RULES) - NOT_IN_CORPUS - covered
    assert not missing, f"rules without a corpus file that checks their message: {sorted(missing)}"
    assert set(rt.RULES) - NOT_IN_CORPUS <= tripped


def help_rules() -> dict[str, tuple[bool, tuple[str, ...]]]:
    """The rules `validate --help` lists: id -> (a warning?, its origins)."""
    section = validate_cmd.EPILOG.split("\nrules (")[1].split("\nexit codes")[0]
    listed = {}
    for line in section.splitlines():
        if line.startswith("  ") and not line.startswith("   "):
            rule, origins = line[2:22].strip(), line[22:43].strip()
            listed[rule.rstrip("*")] = (rule.endswith("*"), tuple(o.strip() for o in origins.split(",")))
    return listed


def test_every_rule_has_an_origin(rt):
    assert set(rt.RULE_ORIGINS) == set(rt.RULES)
    for rule, origins in rt.RULE_ORIGINS.items():
        assert origins and set(origins) <= {"schema", "seed", "Letta", "JSON", "cleaner"}, rule
        if "cleaner" in origins:  # advice of our own never fails a file by default
            assert origins == ("cleaner",) and rule in rt.WARNING_RULES, rule
    assert rt.BEYOND_LETTA <= set(rt.RULES) and rt.PARTIAL_RULES <= set(rt.RULES) - rt.WARNING_RULES
    assert rt.WARNING_RULES <= rt.BEYOND_LETTA  # Letta rejects nothing that is only a warning here
    assert all("Letta" in rt.RULE_ORIGINS[rule] for rule in rt.PARTIAL_RULES)


def test_help_lists_every_rule_with_its_origin(rt):
    listed = help_rules()
    assert set(listed) == set(rt.RULES)
    assert {rule for rule, (warning, _) in listed.items() if warning} == set(rt.WARNING_RULES)
    assert {rule: origins for rule, (_, origins) in listed.items()} == rt.RULE_ORIGINS


def test_readme_lists_every_rule_with_its_origin(rt):
    text = (REPO / "README.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.split("| rule | severity | origin |")[1].split("\n\n")[0].splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = (cells[1], tuple(o.strip() for o in cells[2].split(",")))
    assert set(rows) == set(rt.RULES)
    for rule, (severity, origins) in rows.items():
        assert severity == ("warning" if rule in rt.WARNING_RULES else "error"), rule
        assert origins == rt.RULE_ORIGINS[rule], rule


def test_unreadable_file(rt, bundled_validator, tmp_path):
    folder = tmp_path / "a-folder.jsonl"
    folder.mkdir()
    problems = rt.check_file(folder, bundled_validator)
    assert [p.rule for p in problems] == ["unreadable"]
    assert problems[0].line is None


def corpus_records(name: str) -> list | None:
    """The records of a corpus file when every line is one JSON value, else None."""
    data = (CORPUS / name).read_bytes()
    try:
        text = data.decode("utf-8")
        lines = [line for line in text.split("\n") if line.strip()]
        return [json.loads(line, parse_constant=lambda c: 1 / 0) for line in lines]
    except (UnicodeDecodeError, ValueError, ZeroDivisionError):
        return None


def test_bundled_schema_agrees_with_upstream_on_the_corpus(bundled_schema):
    upstream = jsonschema.Draft202012Validator(load_upstream_schema())
    bundled = jsonschema.Draft202012Validator(bundled_schema)
    checked = 0
    for name in CORPUS_FILES:
        records = corpus_records(name)
        if records is None:
            continue
        checked += 1
        assert upstream.is_valid(records) == bundled.is_valid(records), name
        for record in records:  # record by record too, for a sharper check
            assert upstream.is_valid([record]) == bundled.is_valid([record]), (name, record)
    assert checked >= 40


def test_bundled_schema_is_equivalent_to_upstream(rt, upstream_schema):
    assert rt.TrajectoryValidator(upstream_schema).differs_from_bundled is False
    changed = json.loads(json.dumps(upstream_schema))
    changed["$defs"]["meta"]["properties"]["team"] = {"type": "string"}
    assert rt.TrajectoryValidator(changed).differs_from_bundled is True


# ---- the command's verdicts ----------------------------------------------------------------


def test_command_valid_folder_passes(capsys):
    assert run_validate(str(CORPUS / "valid")) == 0
    out, err = capsys.readouterr()
    assert "15 files checked: 15 passed, 0 failed" in out
    assert "bundled copy" in err or "Lerim data dir" in err


def test_command_warnings_pass_unless_strict(capsys):
    assert run_validate(str(CORPUS / "warn")) == 0
    out, _ = capsys.readouterr()
    assert "compact-line: warning:" in out and "timestamp-order: warning:" in out
    assert run_validate(str(CORPUS / "warn"), "--strict") == 1
    out, _ = capsys.readouterr()
    assert "0 passed" in out


@pytest.mark.parametrize("name", [f for f in CORPUS_FILES if f.startswith("invalid/")])
def test_command_fails_each_invalid_file(name, expected, capsys):
    assert run_validate(str(CORPUS / name)) == 1
    out, err = capsys.readouterr()
    first = expected[name]["problems"][0]
    where = f"{CORPUS / name}:{first[1]}" if first[1] is not None else str(CORPUS / name)
    assert f"{where}: {first[0]}" in out
    assert "1 file checked: 0 passed, 1 failed" in out
    assert "Traceback" not in err


def test_command_partial_accepts_a_session_without_user_or_assistant(capsys):
    """Letta's validator requires a user and an assistant record unless asked for {partial: true}."""
    files = [str(CORPUS / "invalid" / "no-user.jsonl"), str(CORPUS / "invalid" / "no-assistant.jsonl")]
    assert run_validate(*files) == 1
    out, _ = capsys.readouterr()
    assert "no-user.jsonl: no-user: the session has no user record, which Letta's runtime validator" in out
    assert run_validate(*files, "--partial") == 0
    out, _ = capsys.readouterr()
    assert "no-user.jsonl: no-user: warning:" in out and "no-assistant.jsonl: no-assistant: warning:" in out
    assert run_validate(*files, "--partial", "--strict") == 1
    capsys.readouterr()
    assert run_validate(*files, "--partial", "--json") == 0
    out, _ = capsys.readouterr()
    assert json.loads(out)["partial"] is True


def test_command_keeps_relative_paths(monkeypatch, capsys):
    monkeypatch.chdir(CORPUS)
    assert run_validate("invalid", "--strict") == 1
    out, _ = capsys.readouterr()
    assert "invalid/bom.jsonl:1: bom: " in out.splitlines()[0] or "invalid/" in out.splitlines()[0]
    assert all(not line.startswith("/") for line in out.splitlines())
    assert "invalid/timestamp-feb30.jsonl:2: timestamp: " in out


def test_command_json_report(capsys):
    code = run_validate(str(CORPUS / "invalid" / "tool-orphan.jsonl"), str(CORPUS / "valid" / "minimal.jsonl"), "--json")
    assert code == 1
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["ok"] is False
    assert report["summary"] == {"files": 2, "passed": 1, "failed": 1, "errors": 1, "warnings": 0}
    first, second = report["files"]
    assert first["problems"] == [
        {"line": 4, "rule": "tool-link", "severity": "error", "message": first["problems"][0]["message"]}
    ]
    assert second == {"path": str(CORPUS / "valid" / "minimal.jsonl"), "ok": True, "errors": 0, "warnings": 0,
                      "problems": []}
    assert report["schema"]["origin"] in ("bundled copy", "--schema") or report["schema"]["origin"].startswith("Lerim")
    assert "schema:" in err


def test_command_usage_errors(tmp_path, capsys):
    assert run_validate(str(tmp_path / "missing.jsonl")) == 2
    _, err = capsys.readouterr()
    assert "missing.jsonl: no such file or folder" in err and err.count("\n") == 1
    bad = tmp_path / "schema.json"
    bad.write_text("{not json")
    assert run_validate(str(CORPUS / "valid"), "--schema", str(bad)) == 2
    _, err = capsys.readouterr()
    assert f"{bad}:1: the schema is not valid JSON" in err
    assert run_validate(str(CORPUS / "valid"), "--schema", str(tmp_path / "nope.json")) == 2
    _, err = capsys.readouterr()
    assert "nope.json: schema file not found" in err
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    assert run_validate(str(empty)) == 2
    _, err = capsys.readouterr()
    assert "no .jsonl files" in err
    assert "Traceback" not in err


def test_command_schema_that_cannot_be_applied(tmp_path, capsys, bundled_schema):
    schema = json.loads(json.dumps(bundled_schema))
    schema["$defs"]["tool"]["properties"]["ok"] = {"$ref": "https://example.invalid/ok.json"}
    path = tmp_path / "remote.schema.json"
    path.write_text(json.dumps(schema))
    assert run_validate(str(CORPUS / "valid"), "--schema", str(path)) == 2
    _, err = capsys.readouterr()
    assert f"error: {path}: the schema cannot be applied: " in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_command_says_when_schema_differs(tmp_path, capsys, bundled_schema):
    schema = json.loads(json.dumps(bundled_schema))
    schema["$defs"]["meta"]["properties"]["team"] = {"type": "string"}
    path = tmp_path / "custom.schema.json"
    path.write_text(json.dumps(schema))
    trace = tmp_path / "run.jsonl"
    trace.write_text('{"role":"meta","source":"x","team":"ops"}\n{"role":"user","content":"q","timestamp":'
                     '"2026-05-16T09:00:00Z"}\n{"role":"assistant","content":"a","timestamp":"2026-05-16T09:00:01Z"}\n')
    assert run_validate(str(trace), "--schema", str(path)) == 0
    _, err = capsys.readouterr()
    assert f"schema: {path} (--schema)" in err
    assert err.count("differs from the schema bundled") == 1
    assert run_validate(str(trace)) == 1  # the bundled schema rejects the extra key
    capsys.readouterr()


def test_command_uses_lerim_data_dir(tmp_path, monkeypatch, capsys, bundled_schema):
    data = tmp_path / "lerim-data"
    target = data / "node" / "node_modules" / "@letta-ai" / "trajectory" / "schema"
    target.mkdir(parents=True)
    (target / "trajectory-v1.schema.json").write_text(json.dumps(bundled_schema))
    config = tmp_path / "config.toml"
    config.write_text(f'[data]\ndir = "{data}"\n')
    monkeypatch.setenv("LERIM_CONFIG", str(config))
    assert run_validate(str(CORPUS / "valid" / "minimal.jsonl")) == 0
    _, err = capsys.readouterr()
    assert f"(Lerim data dir ({data}))" in err
    assert "differs" not in err


def test_command_folder_recursion_and_dedup(capsys):
    assert run_validate(str(CORPUS / "valid"), str(CORPUS / "valid" / "minimal.jsonl")) == 0
    out, _ = capsys.readouterr()
    assert "15 files checked" in out


def test_command_caps_long_reports(tmp_path, capsys):
    trace = tmp_path / "long.jsonl"
    trace.write_text("\n" * 80 + '{"role":"meta","source":"x"}\n')
    assert run_validate(str(trace)) == 1
    out, _ = capsys.readouterr()
    assert "more problems (use --json to see all)" in out


# ---- Letta's own normalizer output passes ---------------------------------------------------


def upstream_expected_files() -> list:
    if not UPSTREAM_FIXTURES.is_dir():
        return []
    return sorted(UPSTREAM_FIXTURES.glob("*/*/expected.json"))


def test_upstream_fixture_records_pass(tmp_path, capsys):
    fixtures = upstream_expected_files()
    if not fixtures:
        pytest.skip("shared/reference/upstream-fixtures is not beside the repository")
    for fixture in fixtures:
        records = json.loads(fixture.read_text(encoding="utf-8"))["records"]
        out = tmp_path / f"{fixture.parent.parent.name}-{fixture.parent.name}.jsonl"
        out.write_text("".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records),
                       encoding="utf-8")
    for schema in ([], ["--schema", str(UPSTREAM_FIXTURES.parent / "trajectory-v1.schema.json")]):
        assert run_validate(str(tmp_path), "--strict", *schema) == 0, capsys.readouterr()
        out, _ = capsys.readouterr()
        assert f"{len(fixtures)} files checked: {len(fixtures)} passed" in out


def test_command_module_imports_alone():
    import subprocess
    import sys

    code = ("import generator.validate_cmd as v; rt = v.load_runtime(); "
            "print(rt.__name__, rt.TrajectoryValidator.__name__)")
    result = subprocess.run([sys.executable, "-c", code], check=False, cwd=REPO, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr
    assert "TrajectoryValidator" in result.stdout
