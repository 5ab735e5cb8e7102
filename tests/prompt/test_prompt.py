"""The agent prompt states every requirement of the user's documents, for `prompt` and for the
version embedded in a rendered project, and never carries a secret from the samples."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "support-desk" / "raw"

# requirement -> markers that must all appear (meaning-bearing phrases, not the whole text)
REQUIREMENTS = {
    "goal": ["trajectory-v1 JSONL", "one output file per completed run"],
    "format authority": ["github.com/letta-ai/trajectory", "the schema wins", "loading all of its lines into a list"],
    "boundary": ["will not compact, rewrite, normalise, redact or repair", "privacy boundary"],
    "input": ["what one completed run or session is", "one output `.jsonl` file per run or session"],
    "output records": ['{"role":"meta","source":', '{"role":"user","content":', '{"role":"reasoning","content":',
                       '"content":null,"tool_calls":[{"id":', '{"role":"tool","tool_call_id":',
                       "Record 0 is always the only meta record", "ISO-8601 timestamp with a zone"],
    "hard constraints": ["null if and only if `tool_calls` is present", "JSON object serialised to a string",
                         "matches the id of an earlier", "No keys beyond the ones listed",
                         "never a list of content blocks", "Exactly one record per line"],
    "mapping guidance": ["`user`: the human, customer", "`assistant`: the agent", "`reasoning`: the agent's private",
                         "Never invent a tool call", "Preserve the chronology", "Drop binary blobs",
                         "keep the head and the tail", "Redact secrets", "Do not invent facts",
                         "never fabricate a plausible time", "keyword matching"],
    "script requirements": ["clean_to_trajectory_jsonl.py", "--input <raw-trace-folder-or-file>",
                            "--output <clean-output-folder>", "creates the output folder",
                            "loading all lines of a file into a list", "fails loudly on unknown source shapes",
                            "files read, sessions written, rows written, skipped items", "redaction count"],
    "after writing": ["Run it on the sample traces", "output tree", "two short sample output lines",
                      "schema-validation output for one generated file", "every source field you dropped"],
    "register with lerim": ["lerim project add", "--type custom --source-profile support",
                            "lerim ingest --agent custom --no-extract", "lerim ingest --agent custom"],
    "specialisation": ["Record kinds", "lookup_result", "timestamps:", "format: epoch_s", "```yaml"],
}
EMBEDDED_ONLY = ["cleaner_hooks.py", "transform_record", "python -m pytest", "Do not start over",
                 ".copier-answers.yml"]


def flat(text: str) -> str:
    """Whitespace folded, so a marker does not depend on where the prose wraps."""
    return " ".join(text.split())


def cli(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO), **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True, env=env,
                          timeout=300, check=False)


@pytest.fixture(scope="module")
def lerim_home(tmp_path_factory) -> dict:
    """A Lerim data dir with its own schema, found through LERIM_CONFIG as Lerim finds it."""
    root = tmp_path_factory.mktemp("lerim")
    data = root / "data"
    schema_dir = data / "node" / "node_modules" / "@letta-ai" / "trajectory" / "schema"
    schema_dir.mkdir(parents=True)
    bundled = REPO / "cleaner_runtime" / "trajectory-v1.schema.json"
    (schema_dir / "trajectory-v1.schema.json").write_text(bundled.read_text())
    config = root / "config.toml"
    config.write_text(f'[data]\ndir = "{data}"\n')
    return {"LERIM_CONFIG": str(config), "schema": str(schema_dir / "trajectory-v1.schema.json")}


@pytest.fixture(scope="module")
def standalone(lerim_home) -> str:
    result = cli("prompt", str(EXAMPLE), "--source-profile", "support",
                 env_extra={"LERIM_CONFIG": lerim_home["LERIM_CONFIG"]})
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def embedded(tmp_path_factory, lerim_home) -> str:
    dest = tmp_path_factory.mktemp("project") / "cleaner"
    result = cli("new", str(EXAMPLE), "-o", str(dest), "--yes", "--source-profile", "support",
                 env_extra={"LERIM_CONFIG": lerim_home["LERIM_CONFIG"]})
    assert result.returncode == 0, result.stdout + result.stderr
    text = (dest / "AGENT_PROMPT.md").read_text()
    printed = subprocess.run([sys.executable, str(dest / "clean_to_trajectory_jsonl.py"), "--agent-prompt"],
                             capture_output=True, text=True, timeout=60, check=False)
    assert printed.returncode == 0 and printed.stdout == text
    return text


@pytest.mark.parametrize("requirement", sorted(REQUIREMENTS))
def test_standalone_prompt_states(standalone, requirement):
    missing = [m for m in REQUIREMENTS[requirement] if flat(m) not in flat(standalone)]
    assert not missing, f"{requirement}: missing {missing}"


@pytest.mark.parametrize("requirement", sorted(REQUIREMENTS))
def test_embedded_prompt_states(embedded, requirement):
    missing = [m for m in REQUIREMENTS[requirement] if flat(m) not in flat(embedded)]
    assert not missing, f"{requirement}: missing {missing}"


def test_embedded_prompt_extends_the_rendered_project(embedded):
    missing = [m for m in EMBEDDED_ONLY if flat(m) not in flat(embedded)]
    assert not missing


def test_schema_path_is_the_one_resolved_on_this_machine(standalone, embedded, lerim_home):
    assert lerim_home["schema"] in standalone
    assert lerim_home["schema"] in embedded


def test_standalone_carries_structure_not_prose(standalone):
    assert "Refunds above EUR 500 need the billing manager" not in standalone
    assert "Sample records" not in standalone


SECRETS = {
    "github": "ghp_" + "R8d2kXq7Lm4Np9Vt3Yz6Bc1Wf5Hj0Ks8Ue2A",
    "openai": "sk-proj-" + "Zq4Tn8Vw2Xy6Ab1Cd5Ef9Gh3Ij7Kl0Mn4Op8Qr2St6Uv",
    "aws": "AKIA" + "Q7ZL2M4N6P8R3T5V",
    "password": "Tr0ub4dor&3-horse-battery",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1LTQ0MjEiLCJyb2xlIjoiYWRtaW4ifQ.c2lnbmF0dXJlLXZhbHVlLWZha2UtMTIz",
}


def leaks(text: str) -> list[str]:
    found = []
    for name, secret in SECRETS.items():
        for start in range(len(secret) - 7):
            if secret[start:start + 8] in text:
                found.append(name)
                break
    return found


@pytest.fixture(scope="module")
def secret_samples(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("secrets") / "raw"
    root.mkdir()
    records = [
        {"role": "user", "content": f"deploy failed, my token is {SECRETS['github']}", "ts": "2026-05-01T10:00:00Z",
         "api_key": SECRETS["openai"]},
        {"role": "assistant", "content": "Checking the pipeline config.", "ts": "2026-05-01T10:00:05Z",
         "auth": f"Bearer {SECRETS['jwt']}"},
        {"role": "tool", "name": "shell", "input": {"cmd": f"export AWS_ACCESS_KEY_ID={SECRETS['aws']}"},
         "output": f"DB_PASSWORD={SECRETS['password']}", "ts": "2026-05-01T10:00:09Z"},
        {"role": "assistant", "content": "Rotated; the old credentials are revoked.", "ts": "2026-05-01T10:00:20Z",
         "password": SECRETS["password"]},
    ]
    for n in range(3):
        (root / f"run-{n}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


def test_no_secret_survives_into_any_prompt_variant(secret_samples, tmp_path):
    variants = {}
    for flags in ([], ["--include-samples"]):
        result = cli("prompt", str(secret_samples), *flags)
        assert result.returncode == 0, result.stderr
        variants[f"prompt {flags}"] = result.stdout
    assert "Sample records" in variants["prompt ['--include-samples']"]
    dest = tmp_path / "cleaner"
    answers = tmp_path / "mapping.yml"
    inspect = cli("inspect", str(secret_samples), "--mapping", str(answers))
    assert inspect.returncode == 0, inspect.stderr
    variants["inspect report"] = inspect.stdout
    variants["mapping"] = answers.read_text()
    rendered = cli("new", str(secret_samples), "-o", str(dest), "--answers", str(answers))
    assert rendered.returncode == 0, rendered.stdout + rendered.stderr
    variants["embedded"] = (dest / "AGENT_PROMPT.md").read_text()
    for name, text in variants.items():
        assert not leaks(text), f"{name} leaks {leaks(text)}"
