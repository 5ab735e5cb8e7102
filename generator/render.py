"""Render a cleaner project: copier renders the template, then Python adds what copier cannot.

Copier is used only as a renderer, through its public API (see docs and ../shared notes):
`run_copy` into a fresh temporary folder beside the destination, never `run_recopy`/`run_update`.
We then copy in the runtime package (the ``cleaner_runtime`` the generator itself imports: it lives
outside the template, and copier refuses links that leave a template), copy the samples, run the
rendered cleaner on them to record the expected outputs, write the agent prompt and a manifest of
generated files, and only then move the finished project into place, so an error at any step
leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cleaner_runtime.model import Mapping
from generator import TEMPLATE_VERSION, __version__
from generator.answers import MAPPING_KEYS, load_mapping
from generator.paths import runtime_dir, template_dir
from generator.prompt import render_prompt, resolved_schema

ANSWERS_FILE = ".copier-answers.yml"
MANIFEST = ".trajectory-cleaner/manifest.json"
USER_OWNED = ("cleaner_hooks.py", "tests/test_cleaner_hooks.py")
SAMPLE_DIRS = ("tests/samples", "tests/expected")


class RenderError(Exception):
    """Rendering failed; nothing was written to the destination."""


class LossesFound(RenderError):
    """The cleaner ran on the samples but drops structures they hold (``infer.losses``); nothing is
    rendered when the caller asked for that check (``new --yes``)."""

    def __init__(self, losses: list, summary: str):
        super().__init__(f"the cleaner would lose {len(losses)} structure(s) the samples hold")
        self.losses = losses
        self.summary = summary


class SessionsFailed(RenderError):
    """Some sessions fail on the samples (the cleaner exits 1): the project's own tests would fail on
    arrival, so nothing is rendered; ``output`` is the cleaner's summary and errors."""

    def __init__(self, output: str):
        super().__init__("the cleaner fails on some sessions of the samples")
        self.output = output


class NothingWritten(RenderError):
    """The cleaner ran cleanly on the samples and wrote no trajectory: every session was skipped.

    Such a project has nothing to test (its golden tests would fail out of the box), so it is
    not rendered; ``summary`` is the cleaner's report of what it skipped and why.
    """

    def __init__(self, summary: str):
        super().__init__("the cleaner wrote no trajectory for these samples: every session was skipped")
        self.summary = summary


@dataclass
class Rendered:
    path: Path
    cleaner_exit: int
    cleaner_output: str
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (sample, its copy) when not UTF-8
    losses: list = field(default_factory=list)  # what the cleaner drops of the samples (infer.losses.Loss)
    summary: str = ""  # the cleaner's summary on the samples, naming them as the user gave them


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def copier_data(mapping: dict, prompt_context: dict | None = None) -> dict:
    data = {key: mapping[key] for key in MAPPING_KEYS if key in mapping}
    data.setdefault("source_profile", "generic")
    data["generator_version"] = __version__
    data["template_version"] = TEMPLATE_VERSION
    data["prompt_context"] = prompt_context or {}
    return data


# What is never copied from the runtime package into a project (caches of whoever ran it).
RUNTIME_EXCLUDED = ("__pycache__", "*.py[co]", ".ruff_cache", ".pytest_cache", ".mypy_cache")


def copy_runtime(dest: Path) -> None:
    """Copy the ``cleaner_runtime`` package the generator imports into the project as plain files
    (no caches): the project runs its own copy, and never needs trajectory-cleaner installed."""
    shutil.copytree(runtime_dir(), dest / "cleaner_runtime", ignore=shutil.ignore_patterns(*RUNTIME_EXCLUDED))


def render_template(mapping: dict, dest: Path, prompt_context: dict | None = None) -> None:
    """copier.run_copy of the packaged template into ``dest`` (an empty folder), then the runtime
    package and the agent prompt."""
    import copier

    copier.run_copy(
        str(template_dir()),
        str(dest),
        data=copier_data(mapping, prompt_context),
        answers_file=ANSWERS_FILE,
        defaults=True,
        overwrite=True,
        unsafe=True,
        settings=copier.Settings(),
        quiet=True,
    )
    copy_runtime(dest)
    script = dest / "clean_to_trajectory_jsonl.py"
    script.chmod(script.stat().st_mode | 0o111)
    # A minimal agent prompt needs only the mapping; `prompt` and `new` pass richer context.
    context = prompt_context or {}
    schema = resolved_schema()
    if schema[1] == "bundled copy":
        # Machine-independent, and true for whoever runs this project: the project's own copy.
        schema = ("cleaner_runtime/trajectory-v1.schema.json",
                  "the copy bundled with this project; Lerim's copy was not found when it was rendered")
    (dest / "AGENT_PROMPT.md").write_text(
        render_prompt(
            schema=schema,
            source=mapping["source"],
            source_profile=mapping.get("source_profile", "generic"),
            mapping=mapping,
            inspection=context.get("inspection"),
            questions=context.get("questions"),
            embedded=True,
        ),
        # The inspection summary quotes sample values and file names; a lone surrogate among
        # them is written as its escape (\udce9), as in every other message.
        encoding="utf-8",
        errors="backslashreplace",
    )


def _unique_names(files: list[Path]) -> dict[Path, Path]:
    """The shortest trailing part of each path that tells same-named files apart."""
    names: dict[Path, Path] = {}
    for file in files:
        parts = file.resolve().parts
        depth = 1
        while True:
            candidate = Path(*parts[-depth:])
            clash = [f for f in files if f != file and f.resolve().parts[-depth:] == parts[-depth:]]
            if not clash or depth >= len(parts):
                break
            depth += 1
        names[file] = candidate
    return names


def safe_name(name: str) -> str:
    """A file name that is valid UTF-8: bytes that were not (surrogate-escaped by Python) as %XX.

    A rendered project is committed, zipped and shared; a name that is not UTF-8 breaks git on
    some systems and every tool that writes the name as text, so the sample is copied under
    this name (and its expected output follows it).
    """
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        pass
    return "".join(f"%{ord(c) - 0xDC00:02X}" if 0xDC80 <= ord(c) <= 0xDCFF
                   else f"%u{ord(c):04X}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in name)


@dataclass
class SampleCopy:
    """Where each sample went under tests/samples, and which were renamed on the way."""

    mtimes: dict[str, int]
    renamed: list[tuple[str, str]]
    origins: dict[str, str]  # copy -> the sample as given

    def as_given(self, text: str) -> str:
        """``text`` (the cleaner's report on the copies) naming the samples as the user gave them."""
        if not self.origins:
            return text
        copies = sorted(self.origins, key=len, reverse=True)
        pattern = re.compile("|".join(re.escape(copy) for copy in copies))
        return pattern.sub(lambda match: self.origins[match.group()], text)


class _Namer:
    """Destination paths with every part made safe; a made-up name never takes an existing one."""

    def __init__(self, target: Path):
        self.target = target
        self.used: set[Path] = set()
        self.renamed: list[tuple[str, str]] = []
        self.origins: dict[str, str] = {}

    def __call__(self, src: Path, rel: Path) -> Path:
        parts = [safe_name(part) for part in rel.parts]
        dst = self.target.joinpath(*parts)
        if list(rel.parts) != parts:
            stem, n, own = parts[-1], 1, parts[-1] == rel.parts[-1]
            while dst in self.used or (not own and (src.parent / parts[-1]).exists()):
                n, own = n + 1, False
                parts[-1] = f"{n}~{stem}"
                dst = self.target.joinpath(*parts)
            self.renamed.append((str(src), str(Path("tests", "samples", *parts))))
        self.used.add(dst)
        self.origins[str(dst)] = str(src)
        return dst


def copy_samples(samples: list[Path], dest: Path) -> SampleCopy:
    """Copy the samples into tests/samples: their modification times by relative path, and the
    samples whose names had to change."""
    target = dest / "tests" / "samples"
    target.mkdir(parents=True, exist_ok=True)
    mtimes: dict[str, int] = {}
    namer = _Namer(target)
    unique_names = _unique_names([s for s in samples if not s.is_dir()])
    for sample in samples:
        if sample.is_dir():
            root = Path(sample.resolve().name)
            for folder, dirs, files in os.walk(sample, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if name.startswith("."):
                        continue
                    src = Path(folder) / name
                    if not src.is_file():
                        continue
                    dst = namer(src, root / src.relative_to(sample))
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, dst)
                    mtimes[str(dst.relative_to(target))] = int(src.stat().st_mtime)
        else:
            dst = namer(sample, unique_names[sample])
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(sample, dst)
            mtimes[str(dst.relative_to(target))] = int(sample.stat().st_mtime)
    for rel, mtime in mtimes.items():
        os.utime(target / rel, (mtime, mtime))
    return SampleCopy(mtimes, namer.renamed, namer.origins)


def run_cleaner(project: Path, input_dir: Path, output_dir: Path, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    schema = project / "cleaner_runtime" / "trajectory-v1.schema.json"
    return subprocess.run(
        [sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input", str(input_dir),
         "--output", str(output_dir), "--schema", str(schema), *extra],
        capture_output=True, text=True, timeout=1800, check=False,
    )


def clean_samples(project: Path, input_dir: Path, output_dir: Path) -> subprocess.CompletedProcess:
    """The rendered cleaner's run on the samples, in this process: what ``run_cleaner`` runs (the
    project's answers file, hooks and generated code, ``--jobs 1``), with the runtime package the project's copy was
    copied from, byte for byte. No second interpreter to start, no runtime to import again."""
    from cleaner_runtime.run import load_module, main

    hooks = load_module(project / "cleaner_hooks.py", "cleaner_hooks")
    adapter = load_module(project / "clean_to_trajectory_jsonl.py", "clean_to_trajectory_jsonl")
    argv = ["--input", str(input_dir), "--output", str(output_dir),
            "--schema", str(project / "cleaner_runtime" / "trajectory-v1.schema.json"), "--jobs", "1"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(project / ANSWERS_FILE, hooks, argv=argv, agent_prompt=project / "AGENT_PROMPT.md", adapter=adapter)
    return subprocess.CompletedProcess(["clean_to_trajectory_jsonl.py", *argv], code, out.getvalue(), err.getvalue())


def generated_files(project: Path) -> list[str]:
    """Every file the template owns: all but user-owned files, samples and expected outputs."""
    out = []
    for path in sorted(project.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(project).as_posix()
        if rel in USER_OWNED or rel == MANIFEST or rel.startswith(SAMPLE_DIRS) or "__pycache__" in rel:
            continue
        out.append(rel)
    return out


def write_manifest(project: Path) -> None:
    manifest = {
        "generator_version": __version__,
        "template_version": TEMPLATE_VERSION,
        "files": {rel: sha256(project / rel) for rel in generated_files(project)},
    }
    path = project / MANIFEST
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _remove_pycache(project: Path) -> None:
    for cache in project.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


def complete(mapping: Mapping | dict, origin: str = "mapping") -> dict:
    """The mapping with every default written out, so the answers file says everything that holds
    something and a later change of a default in the runtime can never silently change what a
    cleaner does (entries that hold nothing are left out of the file: ``jinja_ext``).

    Checked and completed by the typed model (``load_mapping``); a plain dict comes back because
    copier's data and the answers file are written from one."""
    return load_mapping(mapping, origin).to_dict()


def render_new(mapping: dict, samples: list[Path], dest: Path, prompt_context: dict | None = None,
               require_output: bool = False, refuse_losses: bool = False) -> Rendered:
    """Render a complete project at ``dest`` (which must not exist or be empty).

    With ``require_output``, a render whose cleaner writes nothing for the samples (and fails
    nowhere) raises NothingWritten and leaves nothing behind. With ``refuse_losses``, a render
    whose cleaner drops a structure the samples hold (``infer.losses``) raises LossesFound and
    leaves nothing behind; otherwise the losses are in ``Rendered.losses``.
    """
    mapping = complete(mapping)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        if (dest / ANSWERS_FILE).exists():
            raise RenderError(f"{dest}: already a rendered cleaner; use `trajectory-cleaner update {dest}`")
        raise RenderError(f"{dest}: exists and is not empty; choose a new --output folder")
    parent = dest.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{dest.name}.render-", dir=parent))
    except OSError as exc:
        raise RenderError(f"{dest}: cannot write there ({exc.strerror or exc})") from None
    try:
        # The samples and their outputs go beside the project copier renders, and into it after.
        early = work / "early"
        try:
            copied = copy_samples(samples, early)
        except OSError as exc:
            name = exc.filename or "a sample"
            raise RenderError(f"{name}: cannot read the sample ({exc.strerror or exc}); nothing was rendered") from None
        inputs, expected = early / "tests" / "samples", early / "tests" / "expected"
        project = work / "project"
        render_template(mapping, project, prompt_context)
        result = clean_samples(project, inputs, expected)
        output = (result.stdout + result.stderr).replace(str(early), str(dest)).replace(str(project), str(dest))
        if result.returncode not in (0, 1):
            raise RenderError(f"the rendered cleaner could not run on the samples (exit {result.returncode}):\n{output}")
        if require_output and result.returncode == 1:
            raise SessionsFailed(copied.as_given(output))
        if require_output and result.returncode == 0 and not any(expected.rglob("*.jsonl")):
            raise NothingWritten(copied.as_given(result.stdout))
        from generator.infer.losses import find_losses

        losses = find_losses(mapping, inputs, expected, result.stdout) if result.returncode == 0 else []
        if losses and refuse_losses:
            raise LossesFound(losses, copied.as_given(result.stdout))
        expected.mkdir(parents=True, exist_ok=True)
        (expected / "_mtimes.json").write_text(json.dumps(copied.mtimes, indent=2, sort_keys=True) + "\n",
                                               encoding="utf-8")
        for folder in (inputs, expected):
            os.replace(folder, project / "tests" / folder.name)
        _remove_pycache(project)
        write_manifest(project)
        if dest.exists():
            dest.rmdir()
        os.replace(project, dest)
        return Rendered(dest, result.returncode, output, copied.renamed, losses, copied.as_given(result.stdout))
    finally:
        shutil.rmtree(work, ignore_errors=True)
