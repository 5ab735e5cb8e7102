"""Where the template, prompts and runtime live: inside the wheel, or beside the package in a checkout."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

PACKAGE = Path(__file__).resolve().parent


def _locate(name: str) -> Path:
    for candidate in (PACKAGE / name, PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"trajectory-cleaner is installed without its {name}/ folder")


def template_dir() -> Path:
    """The copier template (copier.yml and the project/ subdirectory)."""
    return _locate("template")


def prompts_dir() -> Path:
    return _locate("prompts")


@cache
def runtime() -> ModuleType:
    """The cleaner runtime package from the template, loaded once under a private name.

    The generator uses the very code every rendered cleaner ships (redaction, validation,
    reading), so previews and reports can never drift from what a cleaner does.
    """
    name = "_trajectory_cleaner_runtime"
    if name in sys.modules:
        return sys.modules[name]
    root = template_dir() / "project" / "cleaner_runtime"
    spec = importlib.util.spec_from_file_location(name, root / "__init__.py", submodule_search_locations=[str(root)])
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def runtime_module(submodule: str) -> ModuleType:
    """``runtime_module("redaction")`` -> the template's cleaner_runtime.redaction."""
    runtime()
    return importlib.import_module(f"_trajectory_cleaner_runtime.{submodule}")
