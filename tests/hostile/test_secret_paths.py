"""A secret in a sample folder's name never leaves the generator verbatim (issue 36 item 7): not in
`inspect --json`, not in the text report, not in `new`'s errors. The runtime's own messages are
tested in test_names.py; these are the generator's."""

from __future__ import annotations

import json
from pathlib import Path

from tests.formats.support import generator

TOKEN = "ghp_" + "Zq7Lm2Xv9Rt4Wk8Np3Bc6Hd1Fs5Gj0Ay2Ue"


def _samples(tmp_path: Path, readable: bool) -> Path:
    folder = tmp_path / f"export-{TOKEN}"
    folder.mkdir()
    if readable:
        lines = [{"role": "user", "content": "Where is my parcel?", "ts": "2026-05-16T09:00:00Z"},
                 {"role": "assistant", "content": "It ships today.", "ts": "2026-05-16T09:00:05Z"},
                 "torn {"]
        text = "".join((json.dumps(line) if isinstance(line, dict) else line) + "\n" for line in lines)
    else:
        text = "not json at all\n"
    (folder / f"chat-{TOKEN}.jsonl").write_text(text, encoding="utf-8")
    return folder


def test_inspect_json_and_text_never_print_the_token(tmp_path):
    folder = _samples(tmp_path, readable=True)
    for flags in (["--json"], []):
        done = generator("inspect", str(folder), *flags)
        assert done.returncode == 0, done.stderr
        assert TOKEN not in done.stdout + done.stderr
        assert "[REDACTED" in done.stdout


def test_new_error_for_unreadable_samples_never_prints_the_token(tmp_path):
    folder = _samples(tmp_path, readable=False)
    done = generator("new", str(folder), "--yes", "-o", str(tmp_path / "proj"))
    assert done.returncode == 1 and "no record could be read" in done.stderr
    assert TOKEN not in done.stdout + done.stderr
