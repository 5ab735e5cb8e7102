"""The mapping schema compiled into one Python check gives jsonschema's verdict on every mapping the
repository holds, completed or not, and on broken variants of them (cleaner_runtime.mapping_check._mapping_checks)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from cleaner_runtime.mapping import with_defaults
from cleaner_runtime.mapping_check import _mapping_checks

REPO = Path(__file__).resolve().parents[2]
MAPPINGS = sorted([*REPO.glob("tests/fixtures/*/*/mapping.yml"), *REPO.glob("examples/answers/*.yml")])


def variants(mapping: dict) -> list:
    """The mapping, completed, and broken in ways an author breaks one."""
    out = [mapping, with_defaults(mapping)]
    for change in (lambda m: m["kinds"].append({"role": "user", "contents": "text"}),
                   lambda m: m.update(source=3),
                   lambda m: m.setdefault("privacy", {}).update(redact="yes"),
                   lambda m: m["kinds"][0].update(role="speaker"),
                   lambda m: m.update(kinds=[]),
                   lambda m: m.setdefault("input", {}).update(container="xml"),
                   lambda m: m.pop("source")):
        broken = copy.deepcopy(mapping)
        change(broken)
        out.append(broken)
    return out


@pytest.mark.parametrize("path", MAPPINGS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.stem}")
def test_the_compiled_check_agrees_with_jsonschema(path: Path):
    validator, valid = _mapping_checks()
    assert valid is not None  # the compiler takes the mapping schema
    mapping = yaml.safe_load(path.read_text(encoding="utf-8"))
    verdicts = [(valid(m), validator.is_valid(m)) for m in variants(mapping)]
    assert all(a == b for a, b in verdicts), verdicts
    assert verdicts[0] == (True, True) and not any(b for _, b in verdicts[2:])
