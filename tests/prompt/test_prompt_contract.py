"""The embedded agent prompt and the rendered README tell an agent everything it needs to extend a
project without reading `cleaner_runtime/`: the hook contract (what each hook receives and may
return, and that its output stays inside the privacy boundary), the block vocabulary and `ok`, the
mapping constructs of docs/mapping.md, and the `update` steps (#18)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "support-desk" / "raw"
ANSWERS = REPO / "examples" / "answers" / "support-desk.yml"

HOOKS = [
    "transform_document(document, ctx)", "transform_record(record, ctx)", "transform_kind(record, ctx)",
    "transform_session(records, ctx)", "HOOKS_API = 2", "defines no hook", "`None` to drop it", "a list of records",
    "`[]` drops it", "file:line", "(record N)", "ctx.container", "ctx.where", "ctx.kind", "ctx.key", "ctx.files",
    "meta record first", "already redacted and truncated", "privacy boundary holds around every hook",
    "redacted and truncated exactly", "counted in the summary's redactions", "must not write raw data anywhere else",
    "looks like a hook", "`transform_recrod`", "fails its session", "deterministic", "HOOKS_API = 1",
    "transform_record(record, where)",
]
VOCABULARY = [
    "`text` (`field`)", "`reasoning` (`field`)", "`placeholder` (`text`", "`tool_call` (`call_id`, `tool_name`, `args`",
    "`tool_result` (`content`, `result_link`, `ok`", "`tool_exchange` (`call_id`", "`skip`",
    "`{path, negate: true}`", "`{path, values:", "`{path, range: [200, 399]}`", "`{path, presence: true}`",
]
CONSTRUCTS = ["emit", "each: <path>", "join", "children", "tree: {id", "order_by", "opening", "closing",
              "timezone_field", "csv", "docs/mapping.md"]
UPDATE = ["trajectory-cleaner update .", "trajectory-cleaner update . --accept-output", "`--check`", "`--diff`",
          "tests/expected/", "python -m pytest"]


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("contract") / "cleaner"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-m", "generator", "new", str(EXAMPLE), "--answers", str(ANSWERS),
                             "-o", str(dest)], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return dest


@pytest.mark.parametrize("document", ["AGENT_PROMPT.md", "README.md"])
@pytest.mark.parametrize("part", ["hooks", "vocabulary", "constructs", "update"])
def test_the_project_documents(project, document, part):
    markers = {"hooks": HOOKS, "vocabulary": VOCABULARY, "constructs": CONSTRUCTS, "update": UPDATE}[part]
    text = flat((project / document).read_text(encoding="utf-8"))
    missing = [m for m in markers if flat(m) not in text]
    assert not missing, f"{document} does not document {part}: {missing}"


def test_the_hooks_file_states_the_contract(project):
    text = flat((project / "cleaner_hooks.py").read_text(encoding="utf-8"))
    for marker in ("transform_document(document, ctx)", "transform_record(record, ctx)", "transform_kind(record, ctx)",
                   "transform_session(records, ctx)", "ctx.kind", "privacy boundary", "--accept-output",
                   "``None`` to drop it", "a ``list`` of records", "transform_recrod", "HOOKS_API = 1",
                   "transform_record(record, where)"):
        assert flat(marker) in text, marker
    assert "\ndef " not in (project / "cleaner_hooks.py").read_text(encoding="utf-8"), "no active hook as rendered"


def test_docs_describe_the_hooks_as_the_project_does():
    text = flat((REPO / "docs" / "hooks.md").read_text(encoding="utf-8"))
    missing = [m for m in ("transform_document(document, ctx)", "transform_record(record, ctx)",
                           "transform_kind(record, ctx)", "transform_session(records, ctx)", "DocumentContext",
                           "RecordContext", "SessionContext", "privacy boundary holds around every hook",
                           "HOOKS_API = 1") if flat(m) not in text]
    assert not missing, missing


def test_the_standalone_prompt_summarises_the_mapping_language():
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-m", "generator", "prompt", str(EXAMPLE)], capture_output=True, text=True,
                            env=env, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    text = flat(result.stdout)
    missing = [m for m in VOCABULARY + CONSTRUCTS if flat(m) not in text]
    assert not missing, missing
