"""`migrate traces`: old-shape folders become valid trajectory-v1 files that keep every message, in order."""

from __future__ import annotations

import json
import os
import shutil

from .conftest import FIXTURES, SHARED, needs_shared, read_jsonl, run_cli

OLD = FIXTURES / "old-traces"
EDGE = FIXTURES / "old-edge"
SECRETS = (
    "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",
    "AKIAZDOC9IS0J8HT9LGM",
    "xoxb-862527601895-559797114710-UStPKR0CsTy4Qwb8DwkNhFdn",
)


def problems(path):
    from cleaner_runtime import validate

    schema, _ = validate.find_schema(None)
    validator = validate.TrajectoryValidator(validate.load_schema(schema))
    return [p for p in validate.check_file(path, validator) if p.severity == "error"]


def old_messages(path) -> list[tuple[str, str]]:
    """(role, text) of every old row with string content, read straight from the old file."""
    names = {"human": "user", "user": "user", "assistant": "assistant"}
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        role = row["message"].get("role") or names[row["type"]]
        out.append((role, row["message"]["content"]))
    return out


def test_reference_old_shape_is_valid_and_keeps_every_message(tmp_path, capsys):
    needs_shared()
    out = tmp_path / "clean"
    code, stdout, stderr = run_cli(capsys, "migrate", "traces", SHARED / "old-shape", "-o", out, "--source",
                                   "support-agent")
    assert code == 0, stderr
    old_files = sorted((SHARED / "old-shape").glob("*.jsonl"))
    assert old_files
    for old in old_files:
        new = out / old.name
        assert problems(new) == [], new
        records = read_jsonl(new)
        assert records[0] == {"role": "meta", "source": "support-agent"}
        assert [(r["role"], r["content"]) for r in records[1:]] == old_messages(old)
        old_times = [json.loads(line)["timestamp"] for line in old.read_text().splitlines()]
        assert [r["timestamp"] for r in records[1:]] == old_times
    assert "files written:     3" in stdout


def test_fixture_folders_are_mirrored_split_derived_and_redacted(tmp_path, capsys):
    out = tmp_path / "clean"
    code, stdout, _ = run_cli(capsys, "migrate", "traces", OLD, "-o", out, "--source", "support-agent")
    # run-003 has a heartbeat row and a torn line: reported, and the exit code says so
    assert code == 1
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.jsonl"))
    assert written == ["ops/nightly/run-003.jsonl", "ops/nightly/run-004.jsonl", "support/run-001.jsonl",
                       "support/run-002.jsonl"]
    for path in out.rglob("*.jsonl"):
        assert problems(path) == [], path
        text = path.read_text(encoding="utf-8")
        for secret in SECRETS:
            assert secret not in text
    assert f"{OLD / 'ops/nightly/run-003.jsonl'}:3: no 'message' object" in stdout
    assert f"{OLD / 'ops/nightly/run-003.jsonl'}:8: invalid JSON" in stdout
    assert "redactions:        3" in stdout


def test_block_lists_split_into_the_records_they_mean(tmp_path, capsys):
    out = tmp_path / "clean"
    run_cli(capsys, "migrate", "traces", OLD / "support" / "run-001.jsonl", "-o", out, "--source", "support-agent")
    records = read_jsonl(out / "run-001.jsonl")
    shape = [(r["role"], "calls" if r.get("tool_calls") else r.get("tool_call_id")) for r in records]
    assert shape == [
        ("meta", None), ("user", None), ("reasoning", None), ("assistant", None), ("assistant", "calls"),
        ("tool", "toolu_01"), ("assistant", "calls"), ("tool", "toolu_02"), ("user", None), ("assistant", None),
        ("user", None), ("assistant", None),
    ]
    assert records[2]["content"].startswith("Charge captured but plan inactive")
    call = records[4]["tool_calls"][0]
    assert call["id"] == "toolu_01" and call["name"] == "billing_lookup"
    assert json.loads(call["args"]) == {"customer_id": "4421"}
    assert records[5]["content"] == "plan status: inactive; last charge captured EUR 640"
    # a tool_result whose content is itself a block list, and is_error false -> ok true
    assert records[7]["content"] == "PAYMENT_GATEWAY_TIMEOUT twice; capture succeeded on attempt 2"
    assert records[7]["ok"] is True
    # text + image: the image is dropped, the text kept; two text blocks flatten to one string
    assert records[8]["content"] == "Here is the screenshot the customer sent."
    assert records[10]["content"] == "Thanks.\nPlease close the ticket once approved."
    assert "iVBOR" not in (out / "run-001.jsonl").read_text()


def test_null_timestamps_at_start_middle_and_end_come_from_neighbours(tmp_path, capsys):
    out = tmp_path / "clean"
    code, stdout, _ = run_cli(capsys, "migrate", "traces", OLD / "support" / "run-001.jsonl", "-o", out,
                              "--source", "s")
    assert code == 0
    times = [r["timestamp"] for r in read_jsonl(out / "run-001.jsonl")[1:]]
    assert times == [
        "2026-05-16T09:01:00Z",  # line 1 (null, start): the next record's time
        "2026-05-16T09:01:00Z", "2026-05-16T09:01:00Z", "2026-05-16T09:01:00Z",
        "2026-05-16T09:01:00Z",  # line 3 (null, middle): the previous record's
        "2026-05-16T09:02:10Z", "2026-05-16T09:02:12Z", "2026-05-16T09:03:00Z",
        "2026-05-16T09:03:00Z",  # line 7 (null, middle)
        "2026-05-16T09:05:00Z",
        "2026-05-16T09:05:00Z",  # line 9 (null, end)
    ]
    assert "line(s) 1, 3, 7, 9" in stdout
    assert "image block" in stdout and "split:             1" in stdout


def test_zoneless_timestamps_are_read_in_the_given_zone(tmp_path, capsys):
    src = OLD / "support" / "run-002.jsonl"
    code, stdout, _ = run_cli(capsys, "migrate", "traces", src, "-o", tmp_path / "utc", "--source", "s")
    assert code == 0
    assert "time zone:         UTC" in stdout and "(3 found" in stdout
    utc = [r["timestamp"] for r in read_jsonl(tmp_path / "utc" / "run-002.jsonl")[1:]]
    assert utc == ["2026-05-17T10:00:00.000Z", "2026-05-17T10:00:30.000Z", "2026-05-17T10:02:00.250Z",
                   "2026-05-17T10:02:30+02:00"]
    code, stdout, _ = run_cli(capsys, "migrate", "traces", src, "-o", tmp_path / "berlin", "--source", "s",
                              "--timezone", "Europe/Berlin")
    berlin = [r["timestamp"] for r in read_jsonl(tmp_path / "berlin" / "run-002.jsonl")[1:]]
    assert berlin[0] == "2026-05-17T10:00:00.000+02:00"
    assert berlin[3] == "2026-05-17T10:02:30+02:00"  # a zone the old row already had is kept verbatim
    records = read_jsonl(tmp_path / "utc" / "run-002.jsonl")
    assert [r["role"] for r in records] == ["meta", "user", "assistant", "user", "assistant"]


def test_system_tool_rows_and_unknown_blocks(tmp_path, capsys):
    out = tmp_path / "clean"
    code, stdout, _ = run_cli(capsys, "migrate", "traces", OLD / "ops", "-o", out, "--source", "ops-runner")
    assert code == 1  # the heartbeat row and the torn line
    records = read_jsonl(out / "nightly" / "run-003.jsonl")
    roles = [r["role"] for r in records]
    assert roles == ["meta", "system", "user", "assistant", "assistant", "tool", "observation", "assistant"]
    assert records[6]["content"] == "disk usage on backup volume: 71%"
    assert records[7]["content"] == "Backup verified; the restore test passed."
    assert "message.role=tool -> observation" in stdout


def test_json_report_lists_everything(tmp_path, capsys):
    code, stdout, _ = run_cli(capsys, "migrate", "traces", OLD, "-o", tmp_path / "clean", "--source", "s", "--json")
    assert code == 1
    report = json.loads(stdout)
    assert report["timezone"] == "UTC" and report["files_written"] == 4
    by_name = {os.path.basename(f["input"]): f for f in report["files"]}
    assert by_name["run-001.jsonl"]["derived_timestamp_lines"] == [1, 3, 7, 9]
    assert by_name["run-001.jsonl"]["split"][0].endswith("run-001.jsonl:2: 1 row -> reasoning, assistant, "
                                                        "assistant(tool_calls)")
    assert by_name["run-001.jsonl"]["redactions"]
    assert by_name["run-002.jsonl"]["zoneless_timestamps"] == 3
    assert by_name["run-002.jsonl"]["roles"] == {"type=human -> user": 2, "type=assistant -> assistant": 2}
    assert len(by_name["run-003.jsonl"]["not_old_shape"]) == 2
    assert any("citation_marker" in reason for reason in by_name["run-003.jsonl"]["dropped"])


def test_a_file_without_any_time_fails_unless_a_fallback_is_given(tmp_path, capsys):
    src = tmp_path / "old" / "all-null.jsonl"
    src.parent.mkdir()
    shutil.copy(EDGE / "all-null.jsonl", src)
    os.utime(src, (1747382400, 1747382400))  # 2025-05-16T08:00:00Z
    out = tmp_path / "clean"
    out.mkdir()
    (out / "all-null.jsonl").write_text("previous content\n")
    code, _, stderr = run_cli(capsys, "migrate", "traces", src.parent, "-o", out, "--source", "s")
    assert code == 1
    assert "--fallback-mtime" in stderr and "all-null.jsonl" in stderr
    assert (out / "all-null.jsonl").read_text() == "previous content\n"  # nothing half-written
    code, stdout, _ = run_cli(capsys, "migrate", "traces", src.parent, "-o", out, "--source", "s", "--fallback-mtime")
    assert code == 0
    records = read_jsonl(out / "all-null.jsonl")
    assert [r["timestamp"] for r in records[1:]] == ["2025-05-16T08:00:00.000Z"] * 2
    assert "modification time" in stdout


def test_a_file_that_is_already_trajectory_v1_is_reported(tmp_path, capsys):
    code, stdout, stderr = run_cli(capsys, "migrate", "traces", EDGE / "already-new.jsonl", "-o", tmp_path / "o",
                                   "--source", "s")
    assert code == 1
    assert "already-new.jsonl:1: already a trajectory-v1 record" in stdout
    assert "no old-shape rows" in stderr and "validate" in stderr
    assert not (tmp_path / "o" / "already-new.jsonl").exists()


def test_usage_errors_exit_2_with_one_line(tmp_path, capsys):
    code, _, stderr = run_cli(capsys, "migrate", "traces", tmp_path / "missing", "-o", tmp_path / "o", "--source", "s")
    assert code == 2 and stderr.strip().endswith("missing: no such file or folder")
    code, _, stderr = run_cli(capsys, "migrate", "traces", OLD, "-o", tmp_path / "o", "--source", "s",
                              "--timezone", "Mars/Olympus")
    assert code == 2 and "--timezone" in stderr and len(stderr.strip().splitlines()) == 1
    code, _, stderr = run_cli(capsys, "migrate", "traces", OLD, "-o", tmp_path / "o", "--source", " ")
    assert code == 2 and "--source" in stderr
    code, _, stderr = run_cli(capsys, "migrate")
    assert code == 2 and "migrate traces" in stderr
