"""Hostile inputs must be bounded and reported, never crash (issue 36, items 8-11)."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cleaner_runtime.timestamps import TimestampError, to_iso

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
MINIMAL = (REPO / "tests" / "validation" / "corpus" / "valid" / "minimal.jsonl").read_bytes()


@pytest.mark.parametrize("value", [10**400, "1" * 401, "9" * 5000, -(10**400)])
def test_huge_epoch_is_a_bad_value_not_a_crash(value):
    # issue 36 item 11: a 401-digit epoch raised OverflowError out of to_iso.
    with pytest.raises(TimestampError):
        to_iso(value)


# ---- item 8: validate reads regular files only, by stream, within a size cap ----------------------

def _validate(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-m", "generator", "validate", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, check=False)


@pytest.fixture()
def validator():
    from cleaner_runtime import validate

    schema = json.loads(validate.BUNDLED_SCHEMA.read_text(encoding="utf-8"))
    return validate.TrajectoryValidator(schema)


def test_validate_refuses_a_fifo_instead_of_hanging(tmp_path):
    # issue 36 item 8: a FIFO named x.jsonl made validate block forever on read_bytes.
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    done = _validate(str(fifo), timeout=20)
    assert done.returncode == 2, done.stderr
    assert f"{fifo}: not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


def test_validate_refuses_a_device_behind_a_symlink(tmp_path):
    """A symlink to a character device (here /dev/null: /dev/zero is the memory test's) is refused
    by name, exit 2, before anything is read."""
    link = tmp_path / "null.jsonl"
    link.symlink_to(os.devnull)
    done = _validate(str(link))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"{link}: not a regular file (a character device)" in done.stderr


def test_check_file_reports_a_non_regular_file_without_reading_it(tmp_path, validator):
    """The runtime's check_file (every rendered cleaner ships it) never blocks on a FIFO either."""
    from cleaner_runtime import validate

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)

    def hung(*_):
        raise TimeoutError("check_file blocked on a FIFO")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        problems = validate.check_file(fifo, validator)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert [(p.line, p.rule) for p in problems] == [(None, "unreadable")]
    assert "not a regular file (a FIFO)" in problems[0].message


def test_validate_refuses_a_file_over_the_size_cap(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(MINIMAL)
    done = _validate(str(path), "--max-size", "100")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"{path}: {len(MINIMAL)} bytes, over the --max-size limit of 100 bytes" in done.stderr
    assert _validate(str(path), "--max-size", "1K").returncode == 0


def test_validate_help_states_the_limits():
    done = _validate("--help")
    assert "--max-size" in done.stdout and "1 GiB" in done.stdout and "64 MiB" in done.stdout


def test_check_file_skips_an_overlong_line_and_checks_the_rest(tmp_path, validator):
    """A line over the per-line cap is one counted, named problem; the lines after it are still read."""
    from cleaner_runtime import validate

    lines = MINIMAL.split(b"\n")
    path = tmp_path / "long.jsonl"
    long_line = b'{"role":"user","content":"' + b"x" * 5000 + b'","timestamp":"2026-05-16T09:00:00Z"}'
    path.write_bytes(b"\n".join([lines[0], long_line, lines[1], lines[2], b"{bad"]) + b"\n")
    problems = validate.check_file(path, validator, max_line=1000)
    assert [(p.line, p.rule) for p in problems] == [(2, "unreadable"), (5, "json")]
    assert "longer than the 1000-byte limit" in problems[0].message


def test_check_file_stops_at_the_size_cap(tmp_path, validator):
    from cleaner_runtime import validate

    path = tmp_path / "grown.jsonl"
    path.write_bytes(MINIMAL * 3)
    problems = validate.check_file(path, validator, max_bytes=len(MINIMAL))
    assert [(p.line, p.rule) for p in problems] == [(None, "unreadable")]
    assert f"over the {len(MINIMAL)}-byte limit" in problems[0].message


# ---- item 9: YAML aliases in an answers file ---------------------------------------------------

BOMB = "".join(
    [f"l{0}: &l0 [x, x, x, x, x, x, x, x, x]\n"]
    + [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]\n" for n in range(1, 10)]
)


def test_alias_bomb_in_answers_is_refused_before_expanding(tmp_path):
    # issue 36 item 9: nine levels of nine aliases (9**10 strings) took 14 GB to load and check.
    from generator.answers import AnswersError, load_answers

    path = tmp_path / "bomb.yml"
    path.write_text(BOMB, encoding="utf-8")
    with pytest.raises(AnswersError) as info:
        load_answers(path)
    message = str(info.value)
    assert message.startswith(f"{path}:")
    assert "alias" in message and "write the values out" in message


def test_a_few_harmless_aliases_still_load(tmp_path):
    """An alias that repeats a small value (as a YAML dumper writes a shared list) is fine."""
    from generator.answers import load_answers

    text = ("mapping_version: 1\nsource: demo\n"
            "kinds:\n  - {name: user, match: {role: user}, role: user, content: &c [text, body]}\n"
            "  - {name: assistant, match: {role: assistant}, role: assistant, content: *c}\n")
    path = tmp_path / "ok.yml"
    path.write_text(text, encoding="utf-8")
    assert load_answers(path)["kinds"][1]["content"] == ["text", "body"]


# ---- item 10: inspect reads one line within a cap --------------------------------------------------

def test_inspect_skips_an_overlong_line_and_goes_on(tmp_path, monkeypatch):
    # issue 36 item 10: inspect read a whole line however long (a gzip bomb's line grew memory without bound).
    from generator.inspect import jsonl
    from generator.inspect.records import FileReport

    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "long.jsonl"
    good = b'{"role":"user","content":"hi"}\n'
    path.write_bytes(good + b'{"role":"user","content":"' + b"x" * 5000 + b'"}\n' + good + good)
    report = FileReport("long.jsonl", path.stat().st_size)
    records = jsonl.read_jsonl(report, path, 10**6, 0, 100)
    assert report.bad_count == 1
    assert report.bad_lines == [("long.jsonl:2", "line longer than 1000 bytes (the per-line limit); skipped")]
    assert len(records) == 3
    assert report.bytes_read == path.stat().st_size


def test_validate_folder_says_it_skips_a_fifo(tmp_path):
    """In a folder, a *.jsonl that is not a regular file is skipped with a notice, never read, never silent."""
    (tmp_path / "a.jsonl").write_bytes(MINIMAL)
    os.mkfifo(tmp_path / "pipe.jsonl")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    done = _validate(str(tmp_path), timeout=20)
    assert done.returncode == 0, done.stderr
    assert f"notice: {tmp_path / 'pipe.jsonl'}: not a regular file (a FIFO); skipped" in done.stderr
    assert f"notice: {tmp_path / 'zero.jsonl'}: not a regular file (a character device); skipped" in done.stderr
    assert "1 file checked: 1 passed" in done.stdout


def test_an_alias_to_the_value_holding_it_is_refused(tmp_path):
    """``&a [*a]`` is a list that holds itself: every walk of it would recurse forever."""
    from generator.answers import AnswersError, load_answers

    path = tmp_path / "loop.yml"
    path.write_text("mapping_version: 1\nsource: demo\nprivacy:\n  allowlist: &a [x, *a]\nkinds: []\n",
                    encoding="utf-8")
    with pytest.raises(AnswersError, match=r"loop\.yml:4: an alias \(\*name\) here refers to the value that holds it"):
        load_answers(path)


def test_a_typed_survey_answer_holding_an_alias_bomb_is_kept_as_text():
    # survey.parse_value used yaml.safe_load: 9**9 strings built from one typed line
    from generator.survey import parse_value

    assert parse_value(BOMB) == BOMB


def test_update_set_with_an_alias_bomb_is_refused_naming_the_key():
    from generator.answers import AnswersError
    from generator.update import set_value

    with pytest.raises(AnswersError, match=r"--set privacy\.allowlist:\d+: the aliases"):
        set_value({}, "privacy.allowlist=" + BOMB)


# ---- inspect reads regular files only, as validate does -----------------------------------------

def _inspect(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-m", "generator", "inspect", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, check=False)


def test_inspect_refuses_a_named_fifo_instead_of_hanging(tmp_path):
    # before: inspect opened the FIFO to sniff its first byte and blocked forever
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    done = _inspect(str(fifo), timeout=20)
    assert done.returncode == 2, done.stderr
    assert f"{fifo}: not a regular file (a FIFO); inspect reads regular files only" in done.stderr
    assert "Traceback" not in done.stderr


def test_inspect_folder_reports_the_special_files_it_skips(tmp_path):
    # before: a folder's FIFO and /dev/zero link were dropped without a word
    (tmp_path / "a.jsonl").write_bytes(MINIMAL)
    os.mkfifo(tmp_path / "pipe.jsonl")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    done = _inspect(str(tmp_path), "--json", timeout=30)
    assert done.returncode == 0, done.stderr
    problems = json.loads(done.stdout)["profile"]["problems"]
    assert any(str(tmp_path / "pipe.jsonl") in p and "not a regular file" in p for p in problems), problems
    assert any(str(tmp_path / "zero.jsonl") in p and "not a regular file" in p for p in problems), problems
