"""The layout issue 35 asks of generator/infer/: short modules, each saying what it is for.

A module over 600 lines is where one concept's code starts absorbing the next one's (core.py held the
whole planner in 1,600 lines, one class of ~70 methods); each module opens with a docstring that says
why it exists, so a reader knows which one to open.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

INFER = Path(__file__).resolve().parents[2] / "generator" / "infer"
MODULES = sorted(INFER.glob("*.py"))


@pytest.mark.parametrize("module", MODULES, ids=[m.name for m in MODULES])
def test_no_module_over_600_lines(module: Path):
    lines = module.read_text(encoding="utf-8").count("\n")
    assert lines <= 600, f"{module.name}: {lines} lines"


@pytest.mark.parametrize("module", MODULES, ids=[m.name for m in MODULES])
def test_every_module_says_what_it_is_for(module: Path):
    doc = ast.get_docstring(ast.parse(module.read_text(encoding="utf-8")))
    assert doc and len(doc.split()) >= 8, f"{module.name}: no docstring saying what it is for"
