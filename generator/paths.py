"""Where the template, prompts and runtime live: inside the wheel, or beside the package in a checkout."""

from __future__ import annotations

from pathlib import Path

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


def runtime_dir() -> Path:
    """The ``cleaner_runtime`` package folder: the generator imports it by name, and every rendered
    project gets a copy of it (``render.render_template``), so previews and reports can never
    drift from what a cleaner does."""
    import cleaner_runtime

    return Path(cleaner_runtime.__file__).resolve().parent


def shown_inputs(given: list) -> str:
    """The sample paths a person typed, joined for a message, each with any secret in it redacted
    (a token in a folder name never reaches the terminal, a report or an error: issue 36 item 7)."""
    from cleaner_runtime.redaction.names import shown_path

    return " ".join(shown_path(str(g)) for g in given)
