"""Render a cleaner project: copier renders the template, then Python adds what copier cannot.

Copier is used only as a renderer (see docs and ../shared notes): `run_copy` into a fresh
temporary folder beside the destination, never `run_recopy`/`run_update`. We copy the samples,
run the cleaner on them to record the expected outputs, write the agent prompt and a manifest
of generated files, and only then move the finished project into place, so an error at any step
leaves nothing behind.

`new` should answer in well under a second, and importing copier and rendering take most of
one; the cleaner's run on the samples, in its own process, takes most of the rest. So the
cleaner starts first, from the runtime package and the template's hooks (the very files copied
into the project) with the mapping the project's answers file holds, and runs while copier renders.
Once the project exists, the mapping its cleaner reads from the answers file is checked against
the one the cleaner ran with; were they ever to differ, the rendered cleaner itself runs again
on the samples.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cleaner_runtime import mapping as runtime_mapping
from generator import TEMPLATE_VERSION, __version__
from generator.answers import MAPPING_KEYS, check_mapping
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


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# What copier imports only to ask questions, which it never does here (every question is
# `ask: false` and rendering runs with defaults=True): (module, names imported from it). They are
# two fifths of the cost of importing copier, so they load when first used (by the survey, say).
_PROMPTING = {
    "questionary": ("confirm", "unsafe_prompt"),
    "questionary.prompts.common": ("Choice",),
    "prompt_toolkit.lexers": ("PygmentsLexer",),
    "pygments.lexers.data": ("JsonLexer", "YamlLexer"),
}
_LAZY = ("dunamai",)  # used by copier for git-hosted templates only


class _Deferred:
    """Stands for ``module.name`` until called (or looked into): then imports the real one."""

    def __init__(self, module: str, name: str):
        self._where = (module, name)

    def _real(self):
        import importlib

        module, name = self._where
        return getattr(importlib.import_module(module), name)

    def __call__(self, *args, **kwargs):
        return self._real()(*args, **kwargs)

    def __getattr__(self, attr: str):
        return getattr(self._real(), attr)


class _Placeholders:
    """A meta path finder that serves placeholder modules for _PROMPTING and lazy ones for _LAZY."""

    def __init__(self):
        import importlib.machinery
        import importlib.util
        import types

        self.util, self.machinery, self.types = importlib.util, importlib.machinery, types
        self.names = {prefix for name in _PROMPTING for prefix in _prefixes(name)} - set(sys.modules)
        self.lazy = set(_LAZY) - set(sys.modules)
        self.served: list[str] = []

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.lazy:
            self.lazy.discard(fullname)  # find the real module once, below this finder
            spec = self.util.find_spec(fullname)
            if spec is None or spec.loader is None:
                return None
            spec.loader = self.util.LazyLoader(spec.loader)
            return spec
        if fullname in self.names:
            self.served.append(fullname)
            return self.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = self.types.ModuleType(spec.name)
        module.__path__ = []
        for name in _PROMPTING.get(spec.name, ()):
            setattr(module, name, _Deferred(spec.name, name))
        return module

    def exec_module(self, module):
        pass


def _prefixes(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts) + 1)]


def import_copier():
    """``import copier``, without loading the prompting libraries it imports but never uses here.

    If copier ever imports something else from them, the placeholders are dropped and copier
    is imported the ordinary way.
    """
    if "copier" in sys.modules:
        return sys.modules["copier"]
    finder = _Placeholders()
    sys.meta_path.insert(0, finder)
    try:
        import copier
    except Exception:  # noqa: BLE001 - whatever went wrong, the ordinary import below decides
        for name in [n for n in sys.modules if n == "copier" or n.startswith("copier.")]:
            del sys.modules[name]
        copier = None
    finally:
        sys.meta_path.remove(finder)
        for name in finder.served:  # later imports (the survey's) get the real modules
            placeholder = sys.modules.pop(name, None)
            parent, _, attr = name.rpartition(".")
            if parent in sys.modules and getattr(sys.modules[parent], attr, None) is placeholder:
                delattr(sys.modules[parent], attr)
    if copier is None:
        import copier
    return copier


def copier_data(mapping: dict, prompt_context: dict | None = None) -> dict:
    data = {key: mapping[key] for key in MAPPING_KEYS if key in mapping}
    data.setdefault("source_profile", "generic")
    data["generator_version"] = __version__
    data["template_version"] = TEMPLATE_VERSION
    data["prompt_context"] = prompt_context or {}
    return data


def _template_config() -> dict | None:
    """The template's copier.yml (None when it cannot be read)."""
    import yaml

    try:
        return yaml.safe_load((template_dir() / "copier.yml").read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return None


# What is never copied into a project, should copier.yml not say (it names the same and more).
RUNTIME_EXCLUDED = ["__pycache__", "*.py[co]", ".ruff_cache", ".pytest_cache", ".mypy_cache"]


def _static_parts(dest: Path) -> tuple[list[Path], list[str]]:
    """The template's top-level entries that hold no template, and copier's exclusion patterns.

    Copier would copy these files verbatim, spawning `git config` for each (to keep executable
    bits in a git index); we copy them ourselves, the same bytes and mode, and copier renders the
    rest. An entry holding a link or a templated name is left to copier, and so is everything
    when the destination exists or an exclusion pattern is not a plain name pattern.
    """
    config = _template_config()
    if config is None:
        return [], []
    root = template_dir()
    excluded = config.get("_exclude") or []
    suffix = config.get("_templates_suffix", ".jinja")
    source = root / str(config.get("_subdirectory", ""))
    # Names matched the same by copier's gitignore rules and by fnmatch: no paths, negations,
    # escapes or templates.
    simple = all(isinstance(p, str) and p and not set(p) & set("/{%!\\") for p in excluded)
    if dest.exists() or not suffix or not simple:
        return [], []
    static = []
    for entry in sorted(source.iterdir()):
        if _is_excluded(entry.name, excluded):
            continue
        inside = [entry, *entry.rglob("*")] if entry.is_dir() and not entry.is_symlink() else [entry]
        if not any(p.is_symlink() or "{" in p.name or p.name.endswith(suffix) for p in inside):
            static.append(entry)
    return static, excluded


def _is_excluded(name: str, patterns: list[str]) -> bool:
    from fnmatch import fnmatchcase

    return any(fnmatchcase(name, pattern) for pattern in patterns)


def _copy_static(entry: Path, target: Path, excluded: list[str]) -> None:
    """Copy a template entry as copier would: the bytes, and the permission bits of the source."""
    if entry.is_dir():
        target.mkdir(exist_ok=True)
        for child in sorted(entry.iterdir()):
            if not _is_excluded(child.name, excluded):
                _copy_static(child, target / child.name, excluded)
    else:
        shutil.copyfile(entry, target)
        target.chmod(entry.stat().st_mode & 0o7777)


def copy_runtime(dest: Path) -> None:
    """Copy the ``cleaner_runtime`` package the generator imports into the project as plain files
    (no caches): the project runs its own copy, and never needs trajectory-cleaner installed."""
    config = _template_config() or {}
    excluded = [p for p in config.get("_exclude") or [] if isinstance(p, str) and "/" not in p] or RUNTIME_EXCLUDED
    _copy_static(runtime_dir(), dest / "cleaner_runtime", excluded)


def render_template(mapping: dict, dest: Path, prompt_context: dict | None = None) -> None:
    """copier.run_copy of the packaged template into ``dest`` (an empty folder)."""
    static, excluded = _static_parts(dest)
    copier = import_copier()
    copier.run_copy(
        str(template_dir()),
        str(dest),
        data=copier_data(mapping, prompt_context),
        answers_file=ANSWERS_FILE,
        exclude=[f"/{entry.name}" for entry in static],
        defaults=True,
        overwrite=True,
        unsafe=True,
        settings=copier.Settings(),
        quiet=True,
    )
    for entry in static:
        _copy_static(entry, dest / entry.name, excluded)
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


# What `python clean_to_trajectory_jsonl.py ARGS` does, with the template's project folder in the
# place of the rendered one and the runtime package beside it: first on sys.path, so `cleaner_hooks`
# and `cleaner_runtime` are the files copied into the project, and the mapping the one its answers
# file records.
_CLEAN = """\
import ast, sys
project, runtime_parent, mapping_file, *argv = sys.argv[1:]
sys.path[:0] = [project, runtime_parent]
with open(mapping_file, encoding="utf-8") as file:
    mapping = ast.literal_eval(file.read())
import cleaner_hooks
from cleaner_runtime.run import main
sys.exit(main(mapping, cleaner_hooks, argv=argv))
"""


def cleaner_mapping(mapping: dict) -> dict:
    """The mapping a rendered cleaner reads from its answers file: the mapping's keys in their order,
    without the entries that hold nothing but their default."""
    pruned = runtime_mapping.without_empty_defaults(mapping)
    return {key: pruned[key] for key in MAPPING_KEYS if key in pruned}


def rendered_mapping(project: Path) -> dict | None:
    """The mapping a rendered project's cleaner reads from its answers file (None if unreadable)."""
    try:
        return runtime_mapping.read_answers(project / ANSWERS_FILE)
    except runtime_mapping.MappingError:
        return None


def start_cleaner(mapping: dict, input_dir: Path, output_dir: Path, work: Path) -> subprocess.Popen:
    """The cleaner a project rendered from ``mapping`` would be, started on ``input_dir`` in a child process."""
    mapping_file = work / "mapping.py-literal"
    mapping_file.write_text(repr(cleaner_mapping(mapping)), encoding="utf-8")
    runtime = runtime_dir()
    return subprocess.Popen(
        [sys.executable, "-P", "-c", _CLEAN, str(template_dir() / "project"), str(runtime.parent), str(mapping_file),
         "--input", str(input_dir), "--output", str(output_dir), "--schema", str(runtime / "trajectory-v1.schema.json")],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def finish_cleaner(child: subprocess.Popen, project: Path) -> subprocess.CompletedProcess:
    """Wait for a start_cleaner child; its messages name the project's schema, as the rendered cleaner's do."""
    try:
        out, err = child.communicate(timeout=1800)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    template_schema = str(runtime_dir() / "trajectory-v1.schema.json")
    project_schema = str(project / "cleaner_runtime" / "trajectory-v1.schema.json")
    return subprocess.CompletedProcess(child.args, child.returncode, out.replace(template_schema, project_schema),
                                       err.replace(template_schema, project_schema))


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


def complete(mapping: dict) -> dict:
    """The mapping with every default written out, so the answers file says everything that holds
    something and a later change of a default in the runtime can never silently change what a
    cleaner does (entries that hold nothing are left out of the file: ``cleaner_mapping``)."""
    check_mapping(mapping)
    return check_mapping(runtime_mapping.with_defaults(mapping))


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
    child = None
    try:
        # The samples and their outputs go beside the project copier renders, and into it after.
        early = work / "early"
        try:
            copied = copy_samples(samples, early)
        except OSError as exc:
            name = exc.filename or "a sample"
            raise RenderError(f"{name}: cannot read the sample ({exc.strerror or exc}); nothing was rendered") from None
        inputs, expected = early / "tests" / "samples", early / "tests" / "expected"
        child = start_cleaner(mapping, inputs, expected, work)
        project = work / "project"
        render_template(mapping, project, prompt_context)
        result = finish_cleaner(child, early)
        if repr(rendered_mapping(project)) != repr(cleaner_mapping(mapping)):
            shutil.rmtree(expected, ignore_errors=True)
            result = run_cleaner(project, inputs, expected)
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
        return Rendered(dest, result.returncode, output, copied.renamed, losses)
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        shutil.rmtree(work, ignore_errors=True)
