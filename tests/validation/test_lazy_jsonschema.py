"""Validation imports jsonschema only when something needs it (#17: a cleaner's start-up).

The bundled schema is known good (``validate._KNOWN_GOOD``): a valid JSON Schema that jsonschema
applies without error, so a run that loads it skips the meta-schema check and jsonschema's trial
run, and imports jsonschema only to explain a record that fails. These tests prove the claim the
digest stands for, and fail when the bundled schema changes without the digest.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema

from cleaner_runtime import validate

REPO = Path(__file__).resolve().parents[2]


def test_the_bundled_schema_is_the_known_good_one():
    schema = validate.load_schema(validate.BUNDLED_SCHEMA)
    digest = hashlib.sha256(json.dumps(schema, sort_keys=True).encode("utf-8")).hexdigest()
    assert digest in validate._KNOWN_GOOD, f"the bundled schema changed: put {digest} in validate._KNOWN_GOOD"


def test_what_the_digest_stands_for_holds():
    """What a known-good schema skips: the meta-schema check and jsonschema's trial run."""
    schema = json.loads(validate.BUNDLED_SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    checker = validate.TrajectoryValidator(schema)
    assert checker._known_good and checker.mode == "compiled" and checker.fallback_nodes == 0
    checker._known_good = False
    checker._trial_run()  # jsonschema applies it, as a run of another schema tries


def test_an_edited_schema_is_still_checked_by_jsonschema():
    schema = json.loads(validate.BUNDLED_SCHEMA.read_text(encoding="utf-8"))
    schema["items"] = {"type": 12}
    try:
        validate.TrajectoryValidator(schema)
    except validate.SchemaError as exc:
        assert "not a valid JSON Schema" in str(exc)
    else:
        raise AssertionError("an invalid edit of the bundled schema was accepted")


def _modules_after(code: str) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(sorted(m for m in sys.modules "
                             "if m.split('.')[0] == 'jsonschema')[:1])"],
                            capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_valid_records_are_judged_without_jsonschema_and_a_failure_is_explained_by_it():
    records = ("[{'role': 'meta', 'source': 'a'}, {'role': 'user', 'content': 'q', "
               "'timestamp': '2026-05-16T09:00:00Z'}, {'role': 'assistant', 'content': 'a', "
               "'timestamp': '2026-05-16T09:00:00Z'}]")
    setup = ("from cleaner_runtime.validate import TrajectoryValidator, load_schema, BUNDLED_SCHEMA\n"
             f"v = TrajectoryValidator(load_schema(BUNDLED_SCHEMA))\nrecords = {records}\n")
    assert _modules_after(setup + "print(v.check_records(records))") == ["[]", "[]"]
    out = _modules_after(setup + "records[1]['stray'] = 1\nprint([p.message for p in v.check_records(records)])")
    assert out[-1] == "['jsonschema']" and "unknown key 'stray'" in out[0]
