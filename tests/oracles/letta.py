"""Letta's own runtime validator (``validateTranscript``) as a test oracle.

``agent-trajectory`` (the ``bench`` extra) ships Letta's normaliser as one JavaScript bundle whose
command line exposes normalisation only. The oracle loads that very bundle in Node with its
command-line entry point cut off and ``validateTranscript`` exported, so the verdicts are Letta's
code, not a re-implementation. ``available()`` is false (tests skip) without the package or Node.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

_RUNNER = r"""
import { readFileSync } from "node:fs";
const { validateTranscript } = await import(process.argv[2]);
const files = JSON.parse(readFileSync(0, "utf8"));
const verdicts = [];
for (const file of files) {
  try {
    const records = readFileSync(file, "utf8").split("\n").filter((line) => line.length > 0)
      .map((line) => JSON.parse(line));
    validateTranscript(records, { partial: false });
    verdicts.push(null);
  } catch (error) {
    verdicts.push(error instanceof Error ? error.message : String(error));
  }
}
process.stdout.write(JSON.stringify(verdicts));
"""


def _bundle() -> Path | None:
    try:
        import trajectory
    except ImportError:
        return None
    path = Path(trajectory.__file__).parent / "_vendor" / "trajectory-cli.mjs"
    return path if path.is_file() else None


@cache
def _module_dir() -> Path | None:
    bundle = _bundle()
    if bundle is None or shutil.which("node") is None:
        return None
    text = bundle.read_text(encoding="utf-8")
    entry = text.rfind("\nmain().catch(")
    if entry < 0 or "function validateTranscript(" not in text:
        return None
    folder = Path(tempfile.mkdtemp(prefix="letta-oracle-"))
    (folder / "letta.mjs").write_text(text[:entry] + "\nexport { validateTranscript };\n", encoding="utf-8")
    (folder / "run.mjs").write_text(_RUNNER, encoding="utf-8")
    return folder


def available() -> bool:
    return _module_dir() is not None


def verdicts(files: list[Path]) -> list[str | None]:
    """Letta's verdict on each trajectory file: None when it accepts it, else its error message."""
    folder = _module_dir()
    if folder is None:
        raise RuntimeError("Letta's validator needs agent-trajectory and Node.js")
    done = subprocess.run(
        ["node", str(folder / "run.mjs"), (folder / "letta.mjs").as_uri()],
        input=json.dumps([str(Path(f).resolve()) for f in files]), capture_output=True, text=True, timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"Letta's validator did not run: {done.stderr.strip()}")
    return json.loads(done.stdout)
