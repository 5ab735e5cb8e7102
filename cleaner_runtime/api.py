"""Cleaning as a function over one input file, for engines that spread files over machines.

    from cleaner_runtime.api import clean_file

    result = clean_file("raw/2026-05/a.jsonl", "clean", root="raw")
    result.exit_code, result.written, result.errors

``clean_file`` cleans the sessions of one file with this project's mapping (``.copier-answers.yml``
beside ``cleaner_runtime/``) and hooks (``cleaner_hooks.py``), and writes their outputs atomically,
the same bytes under the same names as ``clean_to_trajectory_jsonl.py --input ROOT --output
OUTPUT_DIR`` writes them: it runs the command's own code (``run._run``), with the file as the only
entry of ``--files-from``. Sessions are independent, so calling it once per file, on any number of
processes or machines (Ray Data, Spark, a job queue), writes what one run over the folder writes.

The output name is the file's path relative to ``root`` (default: the file's folder, so the output
is named after the file, as ``--input FILE`` names it); give the folder the command would be given
as ``--input`` to get the same layout.

With ``session.by: field`` a session may be spread over several files: ``clean_file`` groups
sessions only within the file it is given, so a session whose records are in several files is
written once per file, each time with only that file's records (the last write wins). For such a
mapping, give the files of one session to one call of the command (``--files-from``) instead.

Bad paths or configuration raise ``UsageError`` (the command's exit code 2); a session that fails
is in ``result.errors`` and ``result.exit_code`` is 1, as the command's.
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from .hooks import Hooks, HooksError
from .mapping import MappingError, read_mapping
from .model import Mapping
from .run import Outcome, UsageError, _run, build_parser, load_module

PROJECT = Path(__file__).resolve().parent.parent

__all__ = ["CleanResult", "UsageError", "clean_file"]


@dataclass
class CleanResult:
    """What one ``clean_file`` call did: the command's exit code and summary, and per session."""

    exit_code: int
    input: str
    written: list[str] = field(default_factory=list)  # output paths, relative to output_dir
    rows: int = 0
    errors: list[str] = field(default_factory=list)
    summary: str = ""  # the summary the command prints
    outcomes: list[Outcome] = field(default_factory=list, repr=False)


@lru_cache(maxsize=8)
def _project(project: str) -> tuple[Mapping, ModuleType | None, ModuleType | None]:
    """The mapping, the hooks module and the script's generated code of a rendered project (read
    once per process)."""
    folder = Path(project)
    mapping = read_mapping(folder / ".copier-answers.yml")
    hooks_file, script = folder / "cleaner_hooks.py", folder / "clean_to_trajectory_jsonl.py"
    module = load_module(hooks_file, "cleaner_hooks") if hooks_file.is_file() else None
    adapter = load_module(script, "clean_to_trajectory_jsonl") if script.is_file() else None
    return mapping, module, adapter


def clean_file(input_path: str | os.PathLike, output_dir: str | os.PathLike, *, root: str | os.PathLike | None = None,
               schema: str | os.PathLike | None = None, project: str | os.PathLike | None = None,
               jobs: int = 1, quiet: bool = True, print_summary: bool = False) -> CleanResult:
    """Clean the sessions of one input file into ``output_dir``, as the command would.

    ``root``: the folder the output names are relative to (the command's ``--input``); default
    the file's own folder. ``schema``: as ``--schema``. ``project``: the rendered project whose
    mapping and hooks to use (default the one this package belongs to). ``jobs``: as ``--jobs``
    (default 1: engines run one call per core). ``print_summary``: also print the summary to
    stdout (it is always in ``result.summary``).
    """
    path = Path(input_path)
    base = Path(root) if root is not None else path.parent
    try:
        mapping, module, adapter = _project(str(Path(project).resolve() if project is not None else PROJECT))
    except (MappingError, OSError) as exc:
        raise UsageError(f"cannot read the project's mapping: {exc}") from exc
    try:
        hooks = Hooks(module)
    except HooksError as exc:
        raise UsageError(str(exc)) from exc
    argv = ["--input", str(base), "--output", str(output_dir), "--jobs", str(jobs)]
    if schema is not None:
        argv += ["--schema", str(schema)]
    if quiet:
        argv.append("--quiet")
    args = build_parser("clean_file").parse_args(argv)
    args.file_list = [str(path.resolve())]  # a relative input_path is relative to the cwd, as in Python
    args.report = {}
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        code = _run(args, mapping, hooks, adapter)
    if print_summary:
        print(text.getvalue(), end="")
    outcomes = args.report.get("outcomes", [])
    totals = args.report.get("totals")
    errors = [o.error for o in outcomes if o.error] + ([totals.error] if totals is not None and totals.error else [])
    return CleanResult(code, str(path), [o.output for o in outcomes if o.output], sum(o.rows for o in outcomes if o.output),
                       errors, text.getvalue(), outcomes)
