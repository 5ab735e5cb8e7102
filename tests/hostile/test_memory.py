"""Peak memory stays under 512 MB on every hostile input (issue 36, acceptance of items 8-10, 12).

Each command runs in a child process whose address space is capped with ``RLIMIT_AS`` at
``LIMIT_MB``: past it an allocation fails (a MemoryError, or a crash), so the child's clean,
non-zero exit with the expected message is the proof that the input was bounded, not a timing.
The interpreter and the imports of ``validate``, ``inspect`` and ``new`` take 21-25 MB resident
(measured on a trivial input under the same cap); the cap is the issue's 512 MB. Each child's
own peak resident size (``os.wait4``) is printed (``pytest -s``) and checked against the cap.
"""

from __future__ import annotations

import gzip
import os
import resource
import subprocess
import sys
import tempfile
import threading
import zlib
from pathlib import Path

import pytest

from tests.hostile.samples import ANSWERS, MINIMAL, REPO

LIMIT_MB = 512

pytestmark = pytest.mark.skipif(not hasattr(resource, "RLIMIT_AS") or sys.platform == "darwin",
                                reason="needs RLIMIT_AS (Linux)")


#: The child caps its own address space, then runs ``python -m generator ARGS`` (no preexec_fn:
#: it is unsafe beside the timer thread).
_CAPPED = """import resource, runpy, sys
limit = int(sys.argv[1]) << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.argv = ["trajectory-cleaner", *sys.argv[2:]]
runpy.run_module("generator", run_name="__main__", alter_sys=True)
"""


def run_capped(*args: str, timeout: float = 120) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak resident MB) of ``python -m generator ARGS`` under the cap."""
    with open(os.devnull, "rb") as stdin, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen([sys.executable, "-c", _CAPPED, str(LIMIT_MB), *args], cwd=REPO, stdin=stdin,
                                 stdout=out, stderr=err)
        timer = threading.Timer(timeout, child.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, not all children's
        finally:
            timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        if not timer.finished.is_set() or child.returncode == -9:
            assert child.returncode != -9, f"{' '.join(args)}: killed (still running after {timeout} s?)"
        out.seek(0)
        err.seek(0)
        return (child.returncode, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                usage.ru_maxrss // 1024)


def _clean_failure(code: int, stderr: str) -> None:
    assert code not in (0, -9, -11), f"exit {code}: {stderr[-2000:]}"
    assert "MemoryError" not in stderr and "Traceback" not in stderr, stderr[-2000:]


def _report(name: str, peak: int) -> None:
    print(f"\n{name}: peak resident {peak} MB (cap {LIMIT_MB} MB)")
    assert peak < LIMIT_MB


# ---- the hostile inputs ---------------------------------------------------------------------

def _gzip_line_bomb(path: Path, decompressed: int) -> None:
    """A .jsonl.gz whose second line holds ``decompressed`` bytes of one JSON string (about 1/1000
    of that on disk), between two ordinary lines."""
    first, last = b'{"role":"user","text":"hi"}\n', b'{"role":"assistant","text":"ok"}\n'
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)  # 31: a gzip header
    with open(path, "wb") as out:
        out.write(compressor.compress(first + b'{"role":"user","text":"'))
        piece = b"a" * (16 << 20)
        out.writelines(compressor.compress(piece) for _ in range(decompressed // len(piece)))
        out.write(compressor.compress(b'"}\n' + last))
        out.write(compressor.flush())


def test_validate_a_symlink_to_dev_zero(tmp_path):
    link = tmp_path / "zero.jsonl"
    link.symlink_to("/dev/zero")
    code, _, err, peak = run_capped("validate", str(link), timeout=60)
    _clean_failure(code, err)
    assert code == 2 and f"{link}: not a regular file (a character device)" in err
    _report("validate /dev/zero", peak)


def test_validate_a_line_of_150_mb(tmp_path):
    path = tmp_path / "long.jsonl"
    lines = MINIMAL.split(b"\n")
    with open(path, "wb") as out:
        out.write(lines[0] + b"\n" + b'{"role":"user","content":"')
        piece = b"x" * (10 << 20)
        out.writelines(piece for _ in range(15))
        out.write(b'","timestamp":"2026-05-16T09:00:00Z"}\n' + lines[1] + b"\n" + lines[2] + b"\n")
    code, out, err, peak = run_capped("validate", str(path))
    _clean_failure(code, err)
    assert code == 1
    assert f"{path}:2: unreadable: the line is longer than the {64 << 20}-byte limit (64 MiB)" in out
    _report("validate 150 MB line", peak)


def test_validate_a_gzip_bomb(tmp_path):
    path = tmp_path / "bomb.jsonl.gz"
    _gzip_line_bomb(path, 1 << 30)
    code, out, err, peak = run_capped("validate", str(path))
    _clean_failure(code, err)
    assert code == 1 and f"{path}: unreadable: the file is gzip-compressed" in out
    _report("validate gzip bomb", peak)


def test_inspect_a_gzip_bomb_line(tmp_path):
    folder = tmp_path / "raw"
    folder.mkdir()
    _gzip_line_bomb(folder / "bomb.jsonl.gz", 1 << 30)
    code, out, err, peak = run_capped("inspect", str(folder), "--json")
    assert "MemoryError" not in err and "Traceback" not in err, err[-2000:]
    assert code in (0, 1), err[-2000:]
    assert "bomb.jsonl.gz:2" in out and "line longer than 64 MiB (the per-line limit); skipped" in out
    _report("inspect 1 GiB gzip line", peak)


def _new_with(tmp_path: Path, answers: str) -> tuple[int, str, str, int, Path]:
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.jsonl").write_text('{"role":"user","text":"hi"}\n{"role":"assistant","text":"ok"}\n')
    path = tmp_path / "answers.yml"
    path.write_text(answers, encoding="utf-8")
    code, out, err, peak = run_capped("new", str(raw), "-o", str(tmp_path / "out"), "--answers", str(path))
    assert not (tmp_path / "out").exists()
    return code, out, err, peak, path


def test_answers_alias_bomb(tmp_path):
    """Under a real key (privacy.allowlist), where every check of the mapping would walk it."""
    levels = [f"  - &l0 [{', '.join(['x'] * 9)}]"]
    levels += [f"  - &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, 10)]
    bomb = "prompt_context:\n" + "\n".join(levels) + "\n" + ANSWERS + "privacy:\n  allowlist: *l9\n"
    code, _, err, peak, path = _new_with(tmp_path, bomb)
    _clean_failure(code, err)
    assert code == 2 and f"{path}:" in err and "aliases (*name) here expand to more than 100,000 values" in err
    _report("answers alias bomb", peak)


def test_answers_5000_deep(tmp_path):
    code, _, err, peak, path = _new_with(tmp_path, ANSWERS + "input:\n  records_path: " + "[" * 5000 + "]" * 5000 + "\n")
    _clean_failure(code, err)
    assert code == 2 and f"{path}:7: nested more than 100 levels deep" in err
    _report("answers 5,000 deep", peak)


def test_gzip_bomb_fixture_is_what_it_says(tmp_path):
    """The bomb really decompresses to over a GiB from a few MB (so the tests above mean something)."""
    path = tmp_path / "bomb.jsonl.gz"
    _gzip_line_bomb(path, 1 << 30)
    assert path.stat().st_size < 8 << 20
    with gzip.open(path, "rb") as stream:
        stream.readline()
        total = 0
        while chunk := stream.read(64 << 20):
            total += len(chunk)
    assert total > 1 << 30


def test_inspect_a_symlink_to_dev_zero(tmp_path):
    link = tmp_path / "zero.jsonl"
    link.symlink_to("/dev/zero")
    code, _, err, peak = run_capped("inspect", str(link), timeout=60)
    _clean_failure(code, err)
    assert code == 2 and f"{link}: not a regular file (a character device)" in err
    _report("inspect /dev/zero", peak)
