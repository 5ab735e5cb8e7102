"""Raw input is never written, and a write that fails leaves nothing behind (issue 36, items 3
and 4).

An output folder that holds the input, or lies inside it, is refused with exit 2 before a byte
is written, however the paths are spelt (``..``, symlinks, a file of the folder). Each test
keeps a digest of every file of the work folder and checks that none changed and none appeared.
"""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import pytest

from tests.hostile.test_names import BY_FIELD, BY_FILE, assert_bijective, clean, outputs, snapshot, write_files


def refused(tmp_path: Path, source: str, output: str, mapping: dict = BY_FILE) -> str:
    """Run with ``--input source --output output`` (relative to tmp_path); assert exit 2 and that
    no file under tmp_path changed or appeared; return stderr."""
    before = snapshot(tmp_path)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code, stdout, stderr = clean(mapping, Path(source), Path(output))
    finally:
        os.chdir(cwd)
    assert code == 2, stdout + stderr
    assert snapshot(tmp_path) == before, "a file was written or changed"
    assert stderr.startswith("error: ") and len(stderr.strip().splitlines()) == 1, stderr
    return stderr


def test_a_file_input_inside_the_output_folder_is_refused(tmp_path: Path):
    # issue 36 item 3: --input r/a.jsonl.gz --output r overwrote the raw r/a.jsonl, exit 0
    write_files(tmp_path / "r", ["a.jsonl.gz", "a.jsonl"])
    stderr = refused(tmp_path, "r/a.jsonl.gz", "r")
    assert stderr.startswith("error: r: writing here would overwrite the input file"), stderr
    assert "choose an --output" in stderr


def test_a_folder_input_inside_the_output_folder_is_refused(tmp_path: Path):
    # issue 36 item 3: --input r/sub --output r overwrote the raw r/x.jsonl, exit 0
    write_files(tmp_path / "r", ["sub/x.jsonl", "x.jsonl"])
    stderr = refused(tmp_path, "r/sub", "r")
    assert "--output holds --input" in stderr and "choose an --output outside --input" in stderr, stderr


def test_an_output_folder_inside_the_input_folder_is_refused(tmp_path: Path):
    # --input r --output r/2024 wrote r/a.jsonl's output over the raw r/2024/a.jsonl (excluded from reading)
    write_files(tmp_path / "r", ["a.jsonl", "2024/a.jsonl"])
    stderr = refused(tmp_path, "r", "r/2024")
    assert "--output is inside --input" in stderr, stderr


def test_an_output_folder_not_yet_made_inside_the_input_is_refused(tmp_path: Path):
    write_files(tmp_path / "r", ["a.jsonl"])
    refused(tmp_path, "r", "r/clean/new")
    assert not (tmp_path / "r" / "clean").exists()


@pytest.mark.parametrize("output", ["r/sub/..", "./r/", "r/../r", "link-to-r", "link-to-r/sub/.."])
def test_every_spelling_of_a_folder_holding_the_input_is_refused(tmp_path: Path, output: str):
    write_files(tmp_path / "r", ["sub/x.jsonl", "x.jsonl"])
    (tmp_path / "link-to-r").symlink_to(tmp_path / "r")
    refused(tmp_path, "r/sub", output)


@pytest.mark.parametrize("source", ["r/sub/../a.jsonl.gz", "link-to-a.gz", "link-to-r/a.jsonl.gz"])
def test_every_spelling_of_a_file_inside_the_output_is_refused(tmp_path: Path, source: str):
    write_files(tmp_path / "r", ["a.jsonl.gz", "a.jsonl", "sub/b.jsonl"])
    (tmp_path / "link-to-r").symlink_to(tmp_path / "r")
    (tmp_path / "link-to-a.gz").symlink_to(tmp_path / "r" / "a.jsonl.gz")
    refused(tmp_path, source, "r")


def test_a_link_to_the_input_folder_as_output_is_refused_by_field(tmp_path: Path):
    from tests.hostile.test_names import write_ids

    write_ids(tmp_path / "r" / "sub", ["one", "two"])
    (tmp_path / "alias").symlink_to(tmp_path / "r")
    refused(tmp_path, "r/sub", "alias", BY_FIELD)


def test_an_output_beside_a_file_input_is_still_allowed(tmp_path: Path):
    # the rule refuses nesting only: a sibling folder of the input's is fine
    write_files(tmp_path / "r", ["a.jsonl.gz"])
    before = snapshot(tmp_path / "r")
    code, stdout, stderr = clean(BY_FILE, tmp_path / "r" / "a.jsonl.gz", tmp_path / "r-clean")
    assert code == 0, stderr
    assert snapshot(tmp_path / "r") == before
    assert_bijective(tmp_path / "r-clean", stdout, 1)


# -- item 4: a write that fails ---------------------------------------------------------------

class FullDisk(io.RawIOBase):
    """A file descriptor whose disk fills after ``room`` bytes: the buffered handle over it fails
    on flush, and again on close (the buffer still holds what did not fit)."""

    def __init__(self, fd: int, room: int):
        self.fd, self.room = fd, room

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def write(self, data) -> int:
        if self.room <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        written = os.write(self.fd, bytes(data[: self.room]))
        self.room -= written
        return written

    def close(self) -> None:
        if not self.closed:
            os.close(self.fd)
        super().close()


def test_a_write_that_fills_the_disk_leaves_no_temporary_file(tmp_path: Path, monkeypatch):
    # issue 36 item 4: the failed write's handle.close() raised again, and the .tmp stayed
    from cleaner_runtime import writer

    write_files(tmp_path / "raw", ["a.jsonl", "b.jsonl"])
    fdopen = os.fdopen

    def full(fd, mode="r", *args, **kwargs):
        if mode == "wb":
            return io.BufferedWriter(FullDisk(fd, 40))
        return fdopen(fd, mode, *args, **kwargs)

    monkeypatch.setattr(writer.os, "fdopen", full)
    code, stdout, stderr = clean(BY_FILE, tmp_path / "raw", tmp_path / "out")
    monkeypatch.undo()
    assert code == 1, stdout + stderr
    assert outputs(tmp_path / "out") == [], "a partial or temporary file was left"
    assert "sessions written:  0" in stdout and "sessions failed:   2" in stdout
    assert "could not write a.jsonl (No space left on device); nothing written for this session" in stderr


def test_a_write_that_fails_while_written_in_the_background_leaves_no_temporary_file(tmp_path: Path, monkeypatch):
    # the fsync (in the committer's threads) fails: the file is removed and the session failed
    from cleaner_runtime import writer

    write_files(tmp_path / "raw", ["a.jsonl", "b.jsonl"])
    fsync = os.fsync

    def failing(fd):
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(".b.jsonl."):
            raise OSError(errno.EIO, "Input/output error")
        return fsync(fd)

    monkeypatch.setattr(writer.os, "fsync", failing)
    code, stdout, stderr = clean(BY_FILE, tmp_path / "raw", tmp_path / "out")
    monkeypatch.undo()
    assert code == 1, stdout + stderr
    assert [p.name for p in outputs(tmp_path / "out")] == ["a.jsonl"]
    assert "sessions written:  1" in stdout
    assert "could not write b.jsonl (Input/output error)" in stderr
