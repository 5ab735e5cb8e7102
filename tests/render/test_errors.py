"""Bad answers files, missing samples and unwritable outputs: one clear line, non-zero, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ANSWERS, REPO, cli

EXAMPLE = REPO / "examples" / "support-desk" / "raw"


def one_line_error(result, *needles: str, code: int = 2) -> None:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]


@pytest.mark.parametrize(("text", "needles"), [
    ("source: x\nkinds: [\n", ["mapping.yml:", "not valid YAML"]),
    ("- just\n- a list\n", ["mapping.yml", "YAML mapping"]),
    ("mapping_version: 1\nsource: x\nkinds: []\n", ["kinds", "should be non-empty"]),
    ("mapping_version: 1\nsource: ''\nkinds: [{role: user, content: text}]\n", ["source"]),
    ("mapping_version: 1\nsource: x\nkinds: [{role: speaker, content: text}]\n", ["kinds[0].role", "speaker"]),
    ("mapping_version: 1\nsource: x\nkinds: [{role: user}]\n", ["kinds[0]", "content"]),
    ("mapping_version: 1\nsource: x\nkinds: [{role: user, content: t}]\ntimestamps: {format: strptime}\n",
     ["timestamps", "layout"]),
    ("mapping_version: 1\nsource: x\nkinds: [{role: user, content: t}]\ntimestamps: {timezone: Mars/Olympus}\n",
     ["timestamps.timezone", "Mars/Olympus"]),
    ("mapping_version: 1\nsource: x\nkinds: [{role: user, content: t}]\nsesion: {by: file}\n",
     ["unknown key", "sesion"]),
    ("mapping_version: 2\nsource: x\nkinds: [{role: user, content: t}]\n", ["mapping_version"]),
])
def test_bad_answers_file(tmp_path: Path, text: str, needles: list[str]):
    answers = tmp_path / "mapping.yml"
    answers.write_text(text, encoding="utf-8")
    result = cli("new", str(EXAMPLE), "--answers", str(answers), "-o", str(tmp_path / "out"))
    one_line_error(result, *needles)
    assert not (tmp_path / "out").exists()


def test_missing_answers_file(tmp_path: Path):
    one_line_error(cli("new", str(EXAMPLE), "--answers", str(tmp_path / "nope.yml"), "-o", str(tmp_path / "o")),
                   "nope.yml", "no such answers file")


def test_missing_samples(tmp_path: Path):
    one_line_error(cli("new", str(tmp_path / "missing"), "--answers", str(ANSWERS / "support-desk.yml"), "-o",
                       str(tmp_path / "out")), "missing", "no such file or folder")


def test_output_that_is_a_file(tmp_path: Path):
    target = tmp_path / "taken"
    target.write_text("x")
    one_line_error(cli("new", str(EXAMPLE), "--answers", str(ANSWERS / "support-desk.yml"), "-o", str(target)),
                   "taken", "exists")
    assert target.read_text() == "x"


def test_unwritable_output(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_line_error(cli("new", str(EXAMPLE), "--answers", str(ANSWERS / "support-desk.yml"), "-o",
                       str(blocker / "sub" / "out")), "cannot write")


def test_existing_project_points_to_update(tmp_path: Path):
    dest = tmp_path / "p"
    assert cli("new", str(EXAMPLE), "--answers", str(ANSWERS / "support-desk.yml"), "-o", str(dest)).returncode == 0
    one_line_error(cli("new", str(EXAMPLE), "--answers", str(ANSWERS / "support-desk.yml"), "-o", str(dest)),
                   "trajectory-cleaner update")


def test_failed_render_leaves_nothing(tmp_path: Path):
    """A mapping that cannot run on the samples (no session timestamps, no fallback) renders nothing
    (its project's own tests would fail on arrival), exits 1 naming the key to change, and leaves no
    temporary folder."""
    answers = tmp_path / "m.yml"
    answers.write_text((ANSWERS / "support-desk.yml").read_text().replace("fields: [at]", "fields: [nowhere]"))
    result = cli("new", str(EXAMPLE), "--answers", str(answers), "-o", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "timestamps.fallback" in result.stderr and "nothing was rendered" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.yml"]
