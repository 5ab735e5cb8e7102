"""Output names are a bijection of (input file, session id): nothing lost, nothing shared, no
secret in a file name (issue 36, items 1, 2 and 6, and its naming rule).

Each test drives the real runtime (``cleaner_runtime.run.main``, the rendered script's entry
point) on raw traces written here, then counts what is on disk: one file per session, each file
holding exactly the session it is named for, and the summary's "sessions written" equal to both.
The helpers are shared with ``test_overwrite.py`` and ``test_names_property.py``.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import re
import unicodedata
from pathlib import Path

import pytest

from cleaner_runtime import run

# Every test below failed on the code before the fix (each was run and seen failing for the reason
# it names, under a strict xfail mark, removed with the fix of run.py/writer.py/summary.py).

RECORD_KINDS = [
    {"name": "message", "match": {"actor": "customer"}, "role": "user", "content": "body"},
    {"name": "reply", "match": {"actor": "agent"}, "role": "assistant", "content": "body"},
]
BASE = {
    "mapping_version": 1,
    "source": "ops-agent",
    "source_profile": "ops",
    "timestamps": {"fields": ["at"], "format": "iso"},
    "kinds": RECORD_KINDS,
    "unknown_kinds": "fail",
}
BY_FIELD = {**BASE, "input": {"container": "jsonl", "include": ["*.jsonl"]},
            "session": {"by": "field", "field": "run"}}
BY_FILE = {**BASE, "input": {"container": "jsonl", "include": ["*.jsonl", "*.jsonl.gz", "*.ndjson"]}}
BY_ELEMENT = {**BASE, "input": {"container": "json_array", "records_path": "*.events", "document_key": "document",
                                "include": ["*.json"]},
              "session": {"by": "element", "field": "document.id"}}
WINDOWS_RESERVED = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])", re.IGNORECASE)
SECRET = "ghp_" + "Zq8Xv2Lm5Np7Rt1Wy4Bc6Df9Gh3Jk0Ms2Qa"  # a GitHub token's shape


def marker(n: int) -> str:
    """The text that identifies session ``n`` in its output (its user message)."""
    return f"hello from session number {n}"


def records(n: int, run_id: str | None = None) -> list[dict]:
    """Session ``n``'s two raw records (``run_id``: its session field, when grouped by field)."""
    extra = {} if run_id is None else {"run": run_id}
    return [{**extra, "actor": "customer", "body": marker(n), "at": "2026-05-16T09:00:00Z"},
            {**extra, "actor": "agent", "body": f"reply {n}", "at": "2026-05-16T09:00:01Z"}]


def jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode("utf-8")


def write_ids(raw: Path, ids: list[str], name: str = "events.jsonl") -> None:
    """One file holding one session per id (grouped by the ``run`` field)."""
    raw.mkdir(parents=True, exist_ok=True)
    (raw / name).write_bytes(jsonl([row for n, key in enumerate(ids) for row in records(n, key)]))


def write_files(raw: Path, names: list[str]) -> None:
    """One session per input file; a name ending in .gz is gzipped."""
    for n, name in enumerate(names):
        path = raw / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = jsonl(records(n))
        path.write_bytes(gzip.compress(data, mtime=0) if name.endswith(".gz") else data)


def clean(mapping: dict, raw: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    """One run of the cleaner: exit code, stdout, stderr."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = run.main(mapping, None, ["--input", str(raw), "--output", str(out), "--jobs", "1", *extra])
    return code, stdout.getvalue(), stderr.getvalue()


def sessions_written(stdout: str) -> int:
    found = re.search(r"^sessions written: +(\d+)$", stdout, re.MULTILINE)
    assert found, stdout
    return int(found.group(1))


def outputs(out: Path) -> list[Path]:
    """Every file under ``out`` (a temporary file left behind counts too: it fails the checks)."""
    return sorted(p for p in out.rglob("*") if p.is_file()) if out.exists() else []


def fold(path: Path) -> str:
    """A path as a case-insensitive, normalising file system (macOS, Windows) compares it."""
    return unicodedata.normalize("NFC", path.as_posix()).casefold()


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` and a digest of its bytes."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def assert_bijective(out: Path, stdout: str, sessions: int) -> dict[int, Path]:
    """Each of ``sessions`` sessions in a file of its own, no name equal to another in any case,
    the summary's count equal to the files on disk; returns each session's file."""
    files = outputs(out)
    names = [p.relative_to(out) for p in files]
    assert all(p.suffix == ".jsonl" and not p.name.startswith(".") for p in names), names
    assert len({fold(p) for p in names}) == len(names), f"names equal on a case-insensitive disk: {names}"
    found: dict[int, Path] = {}
    for path in files:
        held = [int(m) for m in re.findall(r"hello from session number (\d+)", path.read_text(encoding="utf-8"))]
        assert len(held) == 1, f"{path.relative_to(out)} holds sessions {held}"
        assert held[0] not in found, f"session {held[0]} written twice: {found[held[0]]} and {path}"
        found[held[0]] = path
    assert sorted(found) == list(range(sessions)), f"sessions on disk {sorted(found)} of {sessions}: {names}"
    assert sessions_written(stdout) == len(files) == sessions, stdout
    return found


# -- item 1 and the collision kinds of session ids --------------------------------------------

def test_dotted_session_ids_each_get_their_own_file(tmp_path: Path):
    # issue 36 item 1: v1.2 and v1.3 were both written to v1.jsonl (with_suffix cut the id)
    ids = ["v1.2", "v1.3", "v1.4", "v1", "release.2026.05"]
    write_ids(tmp_path / "raw", ids)
    code, stdout, stderr = clean(BY_FIELD, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    found = assert_bijective(tmp_path / "out", stdout, len(ids))
    # ordinary ids stay readable: the id is the name
    assert [found[n].name for n in range(len(ids))] == [f"{key}.jsonl" for key in ids]


COLLIDING_IDS = {
    "dot": ["v1.2", "v1.3", "v1"],
    "slash": ["runs/a.1", "runs/a.2", "runs\\a.1", "runs_a.1"],
    "dotdot": ["..", "../..", "../x.y", "../x.z", "x.y"],
    "nul": ["a\x00.1", "a\x00.2", "a\x00", "a"],
    "300 characters": ["a." + "1" * 300, "a." + "2" * 300, "b" * 300, "b" * 301, "é" * 300],
    "windows reserved": ["CON", "con.txt", "nul.txt", "aux", "COM1", "lpt9.log", "prn.1"],
    "case only": ["Ab.1", "aB.2", "run-1", "RUN-1", "Run-1"],
}


@pytest.mark.parametrize("kind", sorted(COLLIDING_IDS))
def test_session_ids_that_once_shared_a_file_each_get_their_own(tmp_path: Path, kind: str):
    # issue 36, the naming rule: distinct sessions never share a file, whatever their ids hold
    ids = COLLIDING_IDS[kind]
    write_ids(tmp_path / "raw", ids)
    code, stdout, stderr = clean(BY_FIELD, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    found = assert_bijective(tmp_path / "out", stdout, len(ids))
    for path in found.values():
        name = path.relative_to(tmp_path / "out")
        assert len(name.parts) == 1, f"an id made a folder: {name}"
        assert len(name.name.encode("utf-8")) <= 200, name
        assert not WINDOWS_RESERVED.fullmatch(name.name.split(".")[0].rstrip(" ")), f"reserved on Windows: {name}"


def test_a_crafted_id_equal_to_another_ids_hashed_name_does_not_take_its_file(tmp_path: Path):
    # "x/y" is written as x_y-<hash>; an id spelled exactly so must not overwrite it
    from cleaner_runtime.writer import stem_for_key

    crafted = stem_for_key(Path(), "x/y").name
    ids = ["x/y", crafted, crafted + ".jsonl", crafted.upper()]
    write_ids(tmp_path / "raw", ids)
    code, stdout, stderr = clean(BY_FIELD, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    assert_bijective(tmp_path / "out", stdout, len(ids))


def test_an_id_that_takes_another_ids_hashed_name_first_does_not_share_its_file(tmp_path: Path):
    # the crafted id comes first and takes "x_y-<hash>": "x/y" must then find another name (a salted digest)
    from cleaner_runtime.writer import stem_for_key

    crafted = stem_for_key(Path(), "x/y").name
    write_ids(tmp_path / "raw", [crafted, "x/y"])
    code, stdout, stderr = clean(BY_FIELD, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    found = assert_bijective(tmp_path / "out", stdout, 2)
    assert found[0].name == crafted + ".jsonl" and found[1].name.startswith("x_y-")


def test_element_labels_with_dots_each_get_their_own_file(tmp_path: Path):
    # sessions by element are named by their document id: the same with_suffix cut them
    raw = tmp_path / "raw"
    raw.mkdir()
    ids = ["conv.1", "conv.2", "conv", "CONV.1"]
    docs = [{"id": key, "events": records(n)} for n, key in enumerate(ids)]
    (raw / "export.json").write_text(json.dumps(docs), encoding="utf-8")
    code, stdout, stderr = clean(BY_ELEMENT, raw, tmp_path / "out")
    assert code == 0, stderr
    assert_bijective(tmp_path / "out", stdout, len(ids))


# -- item 2: input names ----------------------------------------------------------------------

def test_input_names_that_strip_to_one_stem_each_get_their_own_file(tmp_path: Path):
    # issue 36 item 2: a.jsonl, a.jsonl.gz and a.jsonl.jsonl mapped to one output
    names = ["a.jsonl", "a.jsonl.gz", "a.jsonl.jsonl", "a.ndjson"]
    write_files(tmp_path / "raw", names)
    code, stdout, stderr = clean(BY_FILE, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    found = assert_bijective(tmp_path / "out", stdout, len(names))
    assert found[0].name == "a.jsonl"  # the first keeps its plain name


def test_input_names_that_differ_only_in_case_each_get_their_own_file(tmp_path: Path):
    names = ["A.jsonl", "a.jsonl", "sub/B.jsonl", "SUB/b.jsonl", "sub/b.jsonl.gz"]
    write_files(tmp_path / "raw", names)
    code, stdout, stderr = clean(BY_FILE, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    assert_bijective(tmp_path / "out", stdout, len(names))


def test_an_input_name_near_the_length_limit_is_written(tmp_path: Path):
    # a 246-byte name is a valid file, but its temporary name beside the output was not (> 255 bytes)
    names = ["é" * 120 + ".jsonl", "x" * 240 + ".jsonl.gz"]
    write_files(tmp_path / "raw", names)
    code, stdout, stderr = clean(BY_FILE, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    assert_bijective(tmp_path / "out", stdout, len(names))


def test_an_input_folder_named_like_an_output_does_not_block_a_session(tmp_path: Path):
    # a.json's output a.jsonl and the folder a.jsonl/ the outputs of a.jsonl/b.jsonl go in
    names = ["a.jsonl.gz", "a.jsonl/b.jsonl"]
    write_files(tmp_path / "raw", names)
    code, stdout, stderr = clean(BY_FILE, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    assert_bijective(tmp_path / "out", stdout, len(names))


def test_windows_reserved_input_names_are_not_output_names(tmp_path: Path):
    names = ["CON.jsonl", "nul.txt.jsonl", "aux/x.jsonl"]
    write_files(tmp_path / "raw", names)
    code, stdout, stderr = clean(BY_FILE, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    for path in assert_bijective(tmp_path / "out", stdout, len(names)).values():
        for part in path.relative_to(tmp_path / "out").parts:
            assert not WINDOWS_RESERVED.fullmatch(part.split(".")[0]), path


# -- item 6: secrets in names -----------------------------------------------------------------

def test_a_session_id_that_holds_a_secret_is_not_a_file_name(tmp_path: Path):
    # issue 36 item 6: the id became the file name verbatim
    # a token glued by `_` (no word boundary to the detector) is found too
    ids = [SECRET, f"user-{SECRET}.1", "plain", f"user_{SECRET}"]
    write_ids(tmp_path / "raw", ids)
    code, stdout, stderr = clean(BY_FIELD, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    found = assert_bijective(tmp_path / "out", stdout, len(ids))
    assert found[2].name == "plain.jsonl"
    for n in (0, 1, 3):
        assert SECRET not in str(found[n]) and SECRET[:12] not in str(found[n])
        assert re.fullmatch(r"redacted-[0-9a-f]{16}\.jsonl", found[n].name), found[n].name
    assert "names hidden:      3" in stdout, stdout
    # stable: a second run names them alike
    assert clean(BY_FIELD, tmp_path / "raw", tmp_path / "out2")[0] == 0
    assert sorted(p.name for p in outputs(tmp_path / "out2")) == sorted(p.name for p in found.values())


def test_an_input_name_or_folder_that_holds_a_secret_is_not_an_output_name(tmp_path: Path):
    names = [f"{SECRET}.jsonl", f"{SECRET}/run.jsonl", "plain.jsonl"]
    write_files(tmp_path / "raw", names)
    code, stdout, stderr = clean(BY_FILE, tmp_path / "raw", tmp_path / "out")
    assert code == 0, stderr
    found = assert_bijective(tmp_path / "out", stdout, len(names))
    assert found[2].name == "plain.jsonl"
    assert not [p for p in found.values() if SECRET[:12] in str(p.relative_to(tmp_path / "out"))]
    assert "names hidden:      2" in stdout, stdout


# -- the end-of-run count ---------------------------------------------------------------------

@pytest.mark.parametrize("few", [256, 1], ids=["each-file-stated", "folders-listed"])
def test_a_session_counted_as_written_but_missing_from_disk_fails_the_run(tmp_path: Path, monkeypatch, few: int):
    # the summary's count is checked against the disk at the end: a lost file is an error, not exit 0
    # (a small run stats its own files; past summary.FEW outputs, their folders are listed)
    from cleaner_runtime import summary, writer

    monkeypatch.setattr(summary, "FEW", few)

    write_ids(tmp_path / "raw", ["one", "two", "three"])
    replace = writer.os.replace

    def losing(src, dst):
        replace(src, dst)
        if str(dst).endswith("two.jsonl"):
            writer.os.unlink(dst)  # as if another program removed it, or a bug overwrote it

    monkeypatch.setattr(writer.os, "replace", losing)
    code, stdout, stderr = clean(BY_FIELD, tmp_path / "raw", tmp_path / "out")
    assert code == 1, stdout + stderr
    assert re.search(r"^error: .*1 of the 3 sessions counted as written (is|are) not on disk", stderr, re.MULTILINE), stderr


# -- item 7, where this fix prints input paths: the inspect report ---------------------------

def test_the_inspect_report_does_not_print_a_secret_in_an_input_name(tmp_path: Path):
    # the report listed each input file by its path, verbatim (generator/inspect/report.py)
    from generator.inspect import profile_paths, report_text

    write_files(tmp_path / "raw", [f"{SECRET}/run.jsonl", f"user-{SECRET}.jsonl", "plain.jsonl"])
    text = report_text(profile_paths([str(tmp_path / "raw")]))
    assert "plain.jsonl" in text and "run.jsonl" in text, text
    assert SECRET[:12] not in text, text


def test_errors_and_the_summary_do_not_print_a_secret_in_an_input_name(tmp_path: Path):
    # item 7 where the runtime prints input paths: a usage error, and a session's error in the summary
    code, stdout, stderr = clean(BY_FILE, tmp_path / SECRET / "missing", tmp_path / "out")
    assert code == 2 and "no such file or folder" in stderr, stderr
    assert SECRET[:12] not in stdout + stderr, stderr
    raw = tmp_path / "raw"
    write_files(raw, [f"{SECRET}/run.jsonl", "plain.jsonl"])
    (raw / SECRET / "run.jsonl").write_text('{"actor": "customer", "body": "hi", "at": "2026-05-16T09:00:00Z"}\n'
                                            '{"actor": "robot", "body": "?", "at": "2026-05-16T09:00:01Z"}\n',
                                            encoding="utf-8")
    code, stdout, stderr = clean(BY_FILE, raw, tmp_path / "out")
    assert code == 1 and "unknown record kind" in stderr, stdout + stderr
    assert SECRET[:12] not in stdout + stderr, stdout + stderr
