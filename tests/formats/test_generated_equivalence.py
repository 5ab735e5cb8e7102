"""For every mapping in the repository, the generated adapter writes what the mapping means.

Each golden fixture's mapping and each example answers file is run over its raw samples twice, in
this process, by the runtime's own command: once with the script's generated code (``kind_of`` and
a function per kind and block type), once with the mapping interpreted by ``convert.Kind`` (the
meaning the code is generated from). Every output file and the summary must be the same bytes.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
from pathlib import Path

import pytest
import yaml

from cleaner_runtime.run import main
from generator.adapter_code import load_source, script_source
from generator.render import complete

from .support import FIXTURES, MTIME, REPO

SHARED = REPO.parent / "shared" / "reference"
PAIRS = [(f"{m.parent.parent.name}/{m.parent.name}", m, m.parent / "raw") for m in sorted(FIXTURES.glob("*/*/mapping.yml"))]
PAIRS += [(f"examples/{name}", REPO / "examples" / "answers" / f"{name}.yml", raw) for name, raw in (
    ("support-desk", REPO / "examples" / "support-desk" / "raw"),
    ("pi", SHARED / "upstream-fixtures" / "pi"),
    ("openclaw", SHARED / "upstream-fixtures" / "openclaw"),
    ("codex-payload", SHARED / "raw-samples"),
    ("opencode-export", SHARED / "raw-samples"),
    ("role-content", SHARED / "raw-samples"),
)]


def clean(mapping: dict, raw: Path, out: Path, adapter) -> tuple[int, str, dict]:
    argv = ["--input", str(raw), "--output", str(out), "--jobs", "1"]
    text = io.StringIO()
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(io.StringIO()):
        code = main(mapping, None, argv=argv, adapter=adapter)
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*.jsonl"))}
    return code, text.getvalue().replace(str(out), "OUT"), files


@pytest.mark.parametrize(("name", "mapping_file", "raw"), PAIRS, ids=[p[0] for p in PAIRS])
def test_generated_code_writes_what_the_mapping_means(name, mapping_file, raw, tmp_path):
    if not raw.is_dir():
        pytest.skip(f"{raw} is not present")
    copy = tmp_path / "raw"
    shutil.copytree(raw, copy)
    for path in copy.rglob("*"):
        os.utime(path, (MTIME, MTIME))
    mapping = complete(yaml.safe_load(mapping_file.read_text(encoding="utf-8")))
    generated = clean(mapping, copy, tmp_path / "generated", load_source(script_source(mapping)))
    interpreted = clean(mapping, copy, tmp_path / "interpreted", None)
    assert generated[2], f"{name}: nothing written"
    assert generated == interpreted
