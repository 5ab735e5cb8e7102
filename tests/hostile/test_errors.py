"""Errors that say what is wrong: the file, the key or line, and the fix (issue 36 item 12)."""

import gzip
import json
import subprocess
import sys

import pytest

from cleaner_runtime.mapping import MappingError
from cleaner_runtime.mapping_check import check_mapping
from generator.answers import AnswersError, load_answers
from tests.hostile.samples import ANSWERS, MINIMAL, REPO


def _mapping(content) -> dict:
    return {"mapping_version": 1, "source": "demo",
            "kinds": [{"name": "user", "match": {"role": "user"}, "role": "user", "content": content}]}


def test_bad_extra_pattern_is_an_answers_error_naming_the_file(tmp_path):
    # it used to pass loading and fail the run later with "unexpected ValueError"
    path = tmp_path / "answers.yml"
    path.write_text(ANSWERS + "privacy:\n  extra_patterns:\n    ticket-token: 'TKT-(\\d+'\n", encoding="utf-8")
    with pytest.raises(AnswersError) as info:
        load_answers(path)
    message = str(info.value)
    assert message.startswith(f"{path}: privacy.extra_patterns.ticket-token: 'TKT-(\\d+' is not a valid regular")
    assert "missing )" in message and "fix:" in message


def test_bad_extra_pattern_class_name_is_named(tmp_path):
    path = tmp_path / "answers.yml"
    path.write_text(ANSWERS + "privacy:\n  extra_patterns:\n    Ticket Token: 'TKT-\\d+'\n", encoding="utf-8")
    with pytest.raises(AnswersError) as info:
        load_answers(path)
    assert str(info.value).startswith(f"{path}: privacy.extra_patterns: 'Ticket Token' is not a kebab-case")


def test_bad_extra_pattern_through_the_cli_exits_2_without_unexpected(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.jsonl").write_text('{"role":"user","text":"hi"}\n{"role":"assistant","text":"ok"}\n')
    path = tmp_path / "answers.yml"
    path.write_text(ANSWERS + "privacy:\n  extra_patterns:\n    ticket-token: 'TKT-(\\d+'\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "generator", "new", str(raw), "-o", str(tmp_path / "out"),
                           "--answers", str(path)], cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "unexpected" not in done.stderr
    assert f"{path}: privacy.extra_patterns.ticket-token" in done.stderr


def test_deep_yaml_answers_say_where_and_how_deep(tmp_path):
    # a 5,000-deep answers file said "unexpected RecursionError"
    path = tmp_path / "deep.yml"
    path.write_text(ANSWERS + "input:\n  records_path: " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(AnswersError) as info:
        load_answers(path)
    assert str(info.value).startswith(f"{path}:7: nested more than 100 levels deep")


@pytest.mark.parametrize("content, expected", [
    ({"join": 5}, "kinds[0].content.join: 5 is not a list; `join` takes a list of pieces"),
    ({"join": []}, "kinds[0].content.join: the list is empty; `join` takes a list of pieces"),
    ({"join": "stdout"}, "kinds[0].content.join: 'stdout' is not a list; `join` takes a list of pieces"),
])
def test_join_with_a_wrong_value_says_what_join_takes(content, expected):
    # `content: {join: 5}` said "unknown key 'join' (known: value)", as if join were not a key
    with pytest.raises(MappingError) as info:
        check_mapping(_mapping(content), "m.yml")
    message = str(info.value)
    assert message.startswith(f"m.yml: {expected}")
    assert "{path: stderr, prefix:" in message and "docs/mapping.md" in message
    assert "unknown key 'join'" not in message


def test_content_of_the_wrong_type_says_what_content_takes():
    with pytest.raises(MappingError) as info:
        check_mapping(_mapping(5), "m.yml")
    message = str(info.value)
    assert message.startswith("m.yml: kinds[0].content: 5 is not a path or a join;")
    assert "{join: [" in message


def test_misspelt_join_is_still_named():
    with pytest.raises(MappingError, match=r"unknown key 'jion'; did you mean 'join'\?"):
        check_mapping(_mapping({"jion": ["a"]}), "m.yml")


def test_validate_on_a_gzip_file_says_decompress_it(tmp_path):
    # it said "byte 2 ... is not valid UTF-8; write the file as UTF-8"
    path = tmp_path / "x.jsonl.gz"
    path.write_bytes(gzip.compress(MINIMAL))
    done = subprocess.run([sys.executable, "-m", "generator", "validate", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert f"{path}: unreadable: the file is gzip-compressed" in done.stdout
    assert "gunzip -k" in done.stdout and "UTF-8" not in done.stdout
    report = json.loads(subprocess.run([sys.executable, "-m", "generator", "validate", str(path), "--json"],
                                       cwd=REPO, capture_output=True, text=True, timeout=60, check=False).stdout)
    assert [p["rule"] for p in report["files"][0]["problems"]] == ["unreadable"]


def test_validate_folder_names_the_gzip_files_it_does_not_check(tmp_path):
    """A folder's .jsonl.gz files are not checked (Lerim reads plain .jsonl); say so, and how to check them."""
    (tmp_path / "a.jsonl").write_bytes(MINIMAL)
    (tmp_path / "b.jsonl.gz").write_bytes(gzip.compress(MINIMAL))
    done = subprocess.run([sys.executable, "-m", "generator", "validate", str(tmp_path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert (f"notice: {tmp_path / 'b.jsonl.gz'}: gzip-compressed, not checked; decompress it "
            "(gunzip -k) to validate it") in done.stderr
