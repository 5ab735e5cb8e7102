"""Beyond one machine (#19): --shard K/N, --files-from FILE|-, and clean_file() per input file.

Shards partition the files (every file in exactly one, the same on every run and machine); the
sharded runs together, the listed files, and one clean_file() call per file all write the same
bytes as one run over the folder. The Ray Data and Spark examples of docs/scale-out.md run only
where those engines are installed: they are not in the CI extras (too heavy).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import ANSWERS, REPO, cli

EXAMPLE = REPO / "examples" / "support-desk" / "raw"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("scale") / "proj"
    result = cli("new", str(EXAMPLE), "--answers", str(ANSWERS / "support-desk.yml"), "-o", str(dest))
    assert result.returncode == 0, result.stderr
    return dest


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    """A folder of 30 tickets, some nested, some with non-ASCII names."""
    root = tmp_path_factory.mktemp("raw") / "raw"
    samples = sorted(EXAMPLE.rglob("*.json"))
    for n in range(30):
        folder = root / ("" if n % 3 == 0 else f"d{n % 3}") / ("deep" if n % 5 == 0 else "")
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(samples[n % len(samples)], folder / (f"t{n:02d}.json" if n % 7 else f"ticket-é{n}.json"))
    return root


def run(project: Path, *args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), *args], input=stdin,
                          capture_output=True, text=True, timeout=300, check=False, cwd=cwd)


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def files_read(result: subprocess.CompletedProcess) -> int:
    line = next(line for line in result.stdout.splitlines() if line.startswith("files read:"))
    return int(line.split(":")[1])


@pytest.fixture(scope="module")
def whole(project: Path, raw: Path, tmp_path_factory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("whole") / "out"
    result = run(project, "--input", str(raw), "--output", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    assert files_read(result) == 30
    return tree(out)


@pytest.mark.parametrize("count", [1, 2, 3, 7, 40])
def test_shards_together_write_one_run(project: Path, raw: Path, whole: dict, tmp_path: Path, count: int):
    together: dict[str, bytes] = {}
    total = 0
    for k in range(1, count + 1):
        out = tmp_path / f"shard{k}"
        result = run(project, "--input", str(raw), "--output", str(out), "--shard", f"{k}/{count}", "--quiet")
        assert result.returncode == 0, result.stderr
        total += files_read(result)
        part = tree(out) if out.exists() else {}
        assert not set(part) & set(together), "a file cleaned by two shards"
        together.update(part)
    assert total == 30  # every file in exactly one shard
    assert together == whole  # byte-identical to one unsharded run


def test_shard_of_is_stable(project: Path):
    """A SHA-256 of the relative path with forward slashes: the same in any process, machine or
    Python (PYTHONHASHSEED does not matter), and spread over the shards."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); from cleaner_runtime.run import shard_of; "
            "print(json.dumps([shard_of(f'd{n}/t{n}.json', 4) for n in range(200)]))")
    outs = {subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED=seed)).stdout for seed in ("0", "1", "random")}
    assert len(outs) == 1
    shards = json.loads(outs.pop())
    expected = [documented_shard(f"d{n}/t{n}.json", 4) for n in range(200)]
    assert shards == expected
    assert set(shards) == {1, 2, 3, 4}


def test_files_from_stdin(project: Path, raw: Path, whole: dict, tmp_path: Path):
    names = sorted(p.relative_to(raw).as_posix() for p in raw.rglob("*.json"))
    listing = "\n".join(reversed(names)) + "\n\n"  # any order; blank lines ignored
    result = run(project, "--input", str(raw), "--output", str(tmp_path / "out"), "--files-from", "-", "--quiet",
                 stdin=listing)
    assert result.returncode == 0, result.stderr
    assert tree(tmp_path / "out") == whole
    assert result.stdout == run(project, "--input", str(raw), "--output", str(tmp_path / "again"), "--quiet").stdout


def test_files_from_file_subset_and_absolute(project: Path, raw: Path, whole: dict, tmp_path: Path):
    chosen = sorted(raw.rglob("*.json"))[:4]
    listing = tmp_path / "list.txt"
    listing.write_text("\n".join([str(chosen[0])] + [p.relative_to(raw).as_posix() for p in chosen[1:]]) + "\n",
                       encoding="utf-8")
    result = run(project, "--input", str(raw), "--output", str(tmp_path / "out"), "--files-from", str(listing),
                 "--shard", "1/1", "--quiet")
    assert result.returncode == 0, result.stderr
    got = tree(tmp_path / "out")
    assert len(got) == 4 and all(whole[name] == data for name, data in got.items())


@pytest.mark.parametrize(("args", "stdin", "needle"), [
    (["--shard", "3/2"], None, "1 <= K <= N"),
    (["--shard", "0/2"], None, "1 <= K <= N"),
    (["--shard", "2"], None, "is not K/N"),
    (["--shard", "a/b"], None, "is not K/N"),
    (["--files-from", "no-such-list.txt"], None, "cannot read the --files-from list"),
    (["--files-from", "-"], "d1/missing.json\n", "d1/missing.json: listed in --files-from but not a readable file"),
    (["--files-from", "-"], "/etc/hostname\n", "outside --input"),
    (["--files-from", "-"], "\n\n", "names no file"),
])
def test_bad_values_exit_2(project: Path, raw: Path, tmp_path: Path, args: list, stdin: str | None, needle: str):
    result = run(project, "--input", str(raw), "--output", str(tmp_path / "out"), *args, stdin=stdin, cwd=tmp_path)
    assert result.returncode == 2
    assert needle in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.jsonl"))


def test_files_from_needs_a_folder(project: Path, raw: Path, tmp_path: Path):
    one = next(raw.rglob("*.json"))
    result = run(project, "--input", str(one), "--output", str(tmp_path / "out"), "--files-from", "-", stdin=str(one))
    assert result.returncode == 2 and "needs --input to be the folder" in result.stderr


CLEAN_EACH = """
import json, sys
sys.path.insert(0, sys.argv[1])
from cleaner_runtime.api import clean_file
raw, out = sys.argv[2], sys.argv[3]
results = [clean_file(path, out, root=raw) for path in sys.argv[4:]]
print(json.dumps([[r.exit_code, r.written, r.rows, r.errors] for r in results]))
"""


def test_clean_file_writes_the_commands_bytes(project: Path, raw: Path, whole: dict, tmp_path: Path):
    paths = [str(p) for p in sorted(raw.rglob("*.json"))]
    result = subprocess.run([sys.executable, "-c", CLEAN_EACH, str(project), str(raw), str(tmp_path / "out"), *paths],
                            capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    reports = json.loads(result.stdout)
    assert all(code == 0 and len(written) == 1 and rows > 0 and not errors for code, written, rows, errors in reports)
    assert tree(tmp_path / "out") == whole
    assert "schema:" not in result.stderr  # quiet by default: an engine calling per file gets no line per call


def test_clean_file_without_root_names_the_output_after_the_file(project: Path, raw: Path, whole: dict,
                                                                  tmp_path: Path):
    code = textwrap.dedent("""
        import sys
        sys.path.insert(0, sys.argv[1])
        from cleaner_runtime.api import UsageError, clean_file
        r = clean_file(sys.argv[2], sys.argv[3])
        print(r.exit_code, r.written)
        try:
            clean_file(sys.argv[3] + "-missing.json", sys.argv[3])
        except UsageError as exc:
            print("usage error:", exc)
    """)
    nested = min(raw.glob("d1/*.json"))
    result = subprocess.run([sys.executable, "-c", code, str(project), str(nested), str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"0 ['{nested.stem}.jsonl']"
    assert "usage error:" in result.stdout and "missing.json" in result.stdout
    assert (tmp_path / "out" / f"{nested.stem}.jsonl").read_bytes() == whole[f"d1/{nested.stem}.jsonl"]


def test_rendered_code_passes_ruff(project: Path):
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    result = subprocess.run([ruff, "check", "cleaner_runtime/api.py", "cleaner_runtime/run.py"], cwd=project,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout


def test_ray_data_example(project: Path, raw: Path, whole: dict, tmp_path: Path):
    """docs/scale-out.md's Ray Data example, as written there (needs ray; not in the CI extras)."""
    pytest.importorskip("ray")
    code = ENGINE_PREAMBLE + textwrap.dedent("""
        import ray
        ray.init(num_cpus=2)

        def clean(row):
            import sys
            sys.path.insert(0, PROJECT)  # on the worker (a PYTHONPATH in runtime_env replaces the worker's own)
            from cleaner_runtime.api import clean_file
            result = clean_file(row["path"], OUT, root=RAW)
            return {"path": row["path"], "exit_code": result.exit_code, "written": result.written}

        rows = ray.data.from_items([{"path": p} for p in paths]).map(clean).take_all()
        assert all(row["exit_code"] == 0 for row in rows), rows
    """)
    engine_run(code, project, raw, tmp_path)
    assert tree(tmp_path / "out") == whole


def test_spark_example(project: Path, raw: Path, whole: dict, tmp_path: Path):
    """docs/scale-out.md's Spark example (needs pyspark and Java; not in the CI extras)."""
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("pyspark needs Java")
    code = ENGINE_PREAMBLE + textwrap.dedent("""
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.master("local[2]").config("spark.executorEnv.PYTHONPATH", PROJECT).getOrCreate()

        def clean(path):
            import sys
            sys.path.insert(0, PROJECT)
            from cleaner_runtime.api import clean_file
            result = clean_file(path, OUT, root=RAW)
            return (path, result.exit_code, result.written)

        rows = spark.sparkContext.parallelize(paths, 4).map(clean).collect()
        assert all(code == 0 for _, code, _ in rows), rows
        spark.stop()
    """)
    engine_run(code, project, raw, tmp_path)
    assert tree(tmp_path / "out") == whole


ENGINE_PREAMBLE = """
import pathlib, sys
PROJECT, RAW, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
paths = sorted(str(p) for p in pathlib.Path(RAW).rglob("*.json"))
"""


def engine_run(code: str, project: Path, raw: Path, tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-c", code, str(project), str(raw), str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]


@pytest.fixture(scope="module")
def field_project(tmp_path_factory) -> Path:
    """The benchmarks' flat format: sessions grouped by the field ``run``."""
    from ..performance.conftest import render

    return render("flat", tmp_path_factory.mktemp("field") / "cleaner")


@pytest.fixture(scope="module")
def spread(tmp_path_factory) -> Path:
    """Twelve sessions, each spread over two files: every other line of each file moved to a second."""
    from ..performance.conftest import make_corpus

    root = make_corpus(tmp_path_factory.mktemp("spread") / "raw", "flat", 12, 30, secrets=0.05, unicode=0.3)
    for path in sorted(root.rglob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(lines[0::2]), encoding="utf-8")
        (path.parent / "more" / path.name).parent.mkdir(exist_ok=True)
        (path.parent / "more" / path.name).write_text("".join(lines[1::2]), encoding="utf-8")
    return root


@pytest.mark.parametrize(("count", "jobs"), [(2, "1"), (3, "2")])
def test_shards_of_sessions_grouped_by_field_together_write_one_run(field_project: Path, spread: Path,
                                                                    tmp_path: Path, count: int, jobs: str):
    """With ``session.by: field`` a session may be spread over files, so a shard is a share of the
    sessions, not of the files: each shard reads every file and cleans the sessions whose id falls
    in it (a SHA-256 of the id, as for a path), and the shards together write one run's bytes."""
    whole = tmp_path / "whole"
    result = run(field_project, "--input", str(spread), "--output", str(whole), "--jobs", "1")
    assert result.returncode == 0, result.stderr
    files = len(list(spread.rglob("*.jsonl")))
    assert files_read(result) == files
    expected = tree(whole)
    assert len(expected) == 12
    together: dict[str, bytes] = {}
    for k in range(1, count + 1):
        out = tmp_path / f"shard{k}"
        result = run(field_project, "--input", str(spread), "--output", str(out), "--shard", f"{k}/{count}",
                     "--jobs", jobs)
        assert result.returncode == 0, result.stderr
        assert files_read(result) == files  # every shard reads every file
        part = tree(out) if out.exists() else {}
        assert all(documented_shard(Path(name).stem, count) == k for name in part), "a session outside its shard"
        assert not set(part) & set(together), "a session written by two shards"
        together.update(part)
    assert together == expected


def test_a_shard_without_sessions_says_so(field_project: Path, spread: Path, tmp_path: Path):
    whole = tmp_path / "whole"
    result = run(field_project, "--input", str(spread), "--output", str(whole), "--jobs", "1")
    assert result.returncode == 0, result.stderr
    count = 1000
    taken = {documented_shard(path.stem, count) for path in whole.rglob("*.jsonl")}  # named after the ids
    empty = min(set(range(1, count + 1)) - taken)
    out = tmp_path / "empty"
    result = run(field_project, "--input", str(spread), "--output", str(out), "--shard", f"{empty}/{count}")
    assert result.returncode == 0, result.stderr
    assert f"notice: shard {empty}/{count} holds none of the sessions" in result.stderr
    assert not out.exists() or tree(out) == {}


def documented_shard(text: str, count: int) -> int:
    """The shard docs/scale-out.md gives a path or session id: int(sha256(text)[:8 bytes],
    big-endian) % N + 1."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") % count + 1
