"""Output names are a bijection of (input file, session id), on random ids and input names
(issue 36, acceptance: the property test).

Hypothesis draws session ids (text with dots, slashes, backslashes, ``..``, NUL and other
controls, unicode, case variants of one another, names Windows reserves, ids up to 300
characters, ids shaped like another id's hashed name) and input file names (with the suffixes
the cleaner strips, case variants, subfolders); each run of the real runtime must leave exactly
one file per session, no file holding two sessions, the summary's count equal to the files on
disk, every name safe, and no input byte changed.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.test_names import BY_FIELD, BY_FILE, assert_bijective, clean, snapshot, write_files, write_ids

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

PIECES = st.sampled_from(["v1", ".", "..", "/", "\\", "\x00", "\x1f", "é", "e\u0301", "ß", "SS", "Run", "run",
                          "CON", "nul", "com1", ".txt", "-", " ", "_", "a", "ghp_", "x" * 40, ".jsonl"])
IDS = st.one_of(
    st.lists(PIECES, min_size=1, max_size=6).map("".join),
    st.text(min_size=1, max_size=12),
    st.text(alphabet="aAbB.", min_size=1, max_size=300),
)
STEMS = st.lists(st.sampled_from(["a", "A", "b", "é", "CON", "x.y", "sub/", "SUB/", "."]), min_size=1,
                 max_size=4).map("".join)
SUFFIXES = st.sampled_from([".jsonl", ".jsonl.gz", ".jsonl.jsonl", ".ndjson"])  # what BY_FILE reads


def _casings(ids: list[str]) -> list[str]:
    """The ids with an upper-case copy of each beside it: names equal but for case."""
    return list(dict.fromkeys([*ids, *(key.upper() for key in ids)]))


@FAST
@given(ids=st.lists(IDS, min_size=1, max_size=8, unique=True).map(_casings))
def test_random_session_ids_each_get_a_file_of_their_own(tmp_path_factory, ids):
    ids = [key for key in ids if key.strip()]  # a blank id is no session id (the mapping says so)
    if not ids:
        return
    work = tmp_path_factory.mktemp("ids")
    write_ids(work / "raw", ids)
    before = snapshot(work / "raw")
    code, stdout, stderr = clean(BY_FIELD, work / "raw", work / "out")
    assert code == 0, stderr
    assert_bijective(work / "out", stdout, len(ids))
    assert snapshot(work / "raw") == before, "an input byte changed"
    for path in (work / "out").rglob("*"):
        assert len(path.name.encode("utf-8", "surrogateescape")) <= 200, path


def _input_name(stem: str, suffix: str) -> str | None:
    """A relative input path of ``stem`` and ``suffix``, or None when it is no file name or one
    the cleaner does not read (a hidden file or folder)."""
    parts = (stem + suffix).split("/")
    if any(not part or part.startswith(".") for part in parts):
        return None
    return "/".join(parts)


@FAST
@given(names=st.lists(st.tuples(STEMS, SUFFIXES), min_size=1, max_size=8))
def test_random_input_names_each_get_a_file_of_their_own(tmp_path_factory, names):
    chosen: dict[str, str] = {}
    for stem, suffix in names:
        name = _input_name(stem, suffix)
        # one input file per path, and no path both a file and a folder (the disk allows one)
        if name is None or name in chosen or any(other.startswith(name + "/") or name.startswith(other + "/")
                                                 for other in chosen):
            continue
        chosen[name] = name
    if not chosen:
        return
    work = tmp_path_factory.mktemp("files")
    write_files(work / "raw", list(chosen))
    before = snapshot(work / "raw")
    code, stdout, stderr = clean(BY_FILE, work / "raw", work / "out")
    assert code == 0, stderr
    assert_bijective(work / "out", stdout, len(chosen))
    assert snapshot(work / "raw") == before, "an input byte changed"


def test_the_names_are_the_same_on_every_run(tmp_path: Path):
    # deterministic: the same inputs give the same names (hashed and redacted ones included)
    ids = ["v1.2", "V1.2", "a/b", "CON", "..", "ghp_" + "Zq8Xv2Lm5Np7Rt1Wy4Bc6Df9Gh3Jk0Ms2Qa", "x" * 300]
    write_ids(tmp_path / "raw", ids)
    runs = []
    for n in range(2):
        code, _, stderr = clean(BY_FIELD, tmp_path / "raw", tmp_path / f"out{n}")
        assert code == 0, stderr
        runs.append(sorted(p.name for p in (tmp_path / f"out{n}").iterdir()))
    assert runs[0] == runs[1] and len(runs[0]) == len(ids)
