"""Old scripts: what an old cleaner script writes and how it redacts, read without trusting it.

``migrate script`` must say where the old script builds the pre-trajectory shape, whether it has
the --input/--output interface ``--run-old`` needs, and which redaction of its own the new
cleaner should keep. The script is the user's code, so:

* ``read_script`` parses it and reads its syntax tree - it is never imported or executed - and
  returns everything found as one ``ScriptFacts``; MigrateError when it cannot be read;
* its own redaction (``re.sub``/``re.compile`` calls whose regex is replaced by a marker such as
  ``<hidden>`` or ``[REDACTED]``, or is named so) is carried over as ``privacy.extra_patterns``,
  each regex rewritten by ``portable_pattern`` to stand alone, because the runtime's Redactor
  joins extra patterns into one regex;
* ``run_old_script`` runs it only when asked (``--run-old``): in a subprocess, in a scratch
  folder, with no stdin and a timeout per sample, through the ``--input``/``--output`` interface
  the old cleaners shared. It never raises for the script's failures: they are in ``OldRun``.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from generator.migrate.old_traces import OLD_INCLUDE, MigrateError

OLD_KEYS = {"type", "message"}
DUMPS = ("json.dumps", "json.dump", "dumps", "dump")
REDACTION_NAME = re.compile(r"secret|token|redact|email|mail|pii|sensitive|password|passwd|key|mask|scrub|cred|"
                            r"privacy|private|account|phone|card", re.IGNORECASE)
REDACTION_MARK = re.compile(r"redact|\*\*\*|mask|remov|hidden|scrub|censor|<[^>]+>|\[[A-Z_ -]+\]", re.IGNORECASE)
FLAG_LETTERS = {"I": "i", "IGNORECASE": "i", "S": "s", "DOTALL": "s", "M": "m", "MULTILINE": "m", "X": "x",
                "VERBOSE": "x", "A": "a", "ASCII": "a"}


@dataclass
class Site:
    """A place in the old script that writes the old shape."""

    line: int
    what: str


@dataclass
class ScriptFacts:
    path: str
    text: str
    sites: list[Site] = field(default_factory=list)
    message_sites: list[Site] = field(default_factory=list)
    trajectory_sites: list[Site] = field(default_factory=list)
    cli: dict = field(default_factory=dict)  # "--input"/"--output" -> line
    patterns: dict = field(default_factory=dict)  # class name -> regex (the old script's own redaction)
    pattern_lines: dict = field(default_factory=dict)
    markers: list[str] = field(default_factory=list)  # what the old script put where it redacted
    skipped_patterns: list[str] = field(default_factory=list)

    @property
    def emits_old_shape(self) -> bool:
        return bool(self.sites or (self.message_sites and not self.trajectory_sites))


@dataclass
class Redaction:
    """The old script's own redaction: the markers it replaced matches with, and its regexes."""

    markers: list[str] = field(default_factory=list)
    patterns: dict = field(default_factory=dict)  # class name -> portable regex
    pattern_lines: dict = field(default_factory=dict)  # class name -> line
    skipped: list[str] = field(default_factory=list)  # regexes that could not be carried over, and why


# --- what it writes ---------------------------------------------------------------------------

def read_script(path: str) -> ScriptFacts:
    """What the old script writes and how, read from its syntax tree; MigrateError when unreadable."""
    text, tree = _parse(path)
    parents = parent_map(tree)
    assigned = assignments(tree)
    built = _built_by_subscript(tree, parents)
    sites, message_sites, trajectory_sites = _literal_sites(tree, parents)
    seen_lines = {s.line for s in sites}
    for (_, name), (keys, line) in built.items():
        if OLD_KEYS <= keys and line not in seen_lines:
            sites.append(Site(line, f"record built key by key in {name}[...] (type, message"
                                    + (", timestamp)" if "timestamp" in keys else ")")))
    dumped, cli = _dump_sites(tree, assigned, built)
    sites = sorted(sites + dumped, key=lambda s: s.line)
    redaction = read_redaction(tree, parents, assigned, path)
    return ScriptFacts(path, text, sites, message_sites, trajectory_sites, cli, patterns=redaction.patterns,
                       pattern_lines=redaction.pattern_lines, markers=redaction.markers,
                       skipped_patterns=redaction.skipped)


def _parse(path: str) -> tuple[str, ast.AST]:
    file = Path(path)
    if not file.is_file():
        raise MigrateError(f"{path}: no such file (give the old cleaner script, e.g. clean_to_lerim_jsonl.py)")
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MigrateError(f"{path}: cannot read ({exc})") from None
    try:
        return text, ast.parse(text, filename=path)
    except SyntaxError as exc:
        raise MigrateError(f"{path}:{exc.lineno}: not valid Python ({exc.msg}); give the old cleaner script") from None


def _built_by_subscript(tree: ast.AST, parents: dict) -> dict[tuple[int, str], tuple[set[str], int]]:
    """Records built key by key (``rec["type"] = ...``): (scope, name) -> (keys, first line)."""
    built: dict[tuple[int, str], tuple[set[str], int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                key = const_str(target.slice)
                if key:
                    where = (id(scope(node, parents)), target.value.id)
                    keys, line = built.get(where, (set(), node.lineno))
                    keys.add(key)
                    built[where] = (keys, min(line, node.lineno))
    return built


def _literal_sites(tree: ast.AST, parents: dict) -> tuple[list[Site], list[Site], list[Site]]:
    """Dict literals of the old shape, of its message, and of trajectory-v1 (in that order)."""
    sites: list[Site] = []
    message_sites: list[Site] = []
    trajectory_sites: list[Site] = []
    for node in ast.walk(tree):
        keys = dict_keys(node)
        if OLD_KEYS <= keys:
            what = "dict literal with keys " + ", ".join(k for k in ("type", "message", "timestamp") if k in keys)
            sites.append(Site(node.lineno, what))
        elif {"role", "content"} <= keys:
            trajectory, site = _role_content_site(node, keys, parents)
            (trajectory_sites if trajectory else message_sites).append(site)
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if const_str(k) == "role" and const_str(v) == "meta":
                    trajectory_sites.append(Site(node.lineno, 'a {"role": "meta"} record'))
    return sites, message_sites, trajectory_sites


def _role_content_site(node: ast.AST, keys: set[str], parents: dict) -> tuple[bool, Site]:
    """A dict with role and content: (True, site) for a trajectory-v1 record, (False, site) for the
    old shape's message."""
    parent = parents.get(node)
    under_message = isinstance(parent, ast.Dict) and any(
        const_str(k) == "message" and v is node for k, v in zip(parent.keys, parent.values))
    if "timestamp" in keys or "tool_calls" in keys or "tool_call_id" in keys:
        return True, Site(node.lineno, "trajectory-v1 style record (role, content, timestamp)")
    what = "message dict with keys role, content" + (" (the old shape's message)" if under_message else "")
    return False, Site(node.lineno, what)


def _dump_sites(tree: ast.AST, assigned: dict, built: dict) -> tuple[list[Site], dict]:
    """json.dump(s) of an old-shape record, and the script's --input/--output arguments (flag -> line)."""
    sites: list[Site] = []
    cli: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and call_name(node) in DUMPS and node.args:
            arg = node.args[0]
            target = assigned.get(arg.id) if isinstance(arg, ast.Name) else arg
            by_key = isinstance(arg, ast.Name) and any(
                OLD_KEYS <= keys for (_, name), (keys, _) in built.items() if name == arg.id)
            if (target is not None and OLD_KEYS <= dict_keys(target)) or by_key:
                sites.append(Site(node.lineno, f"{call_name(node)}(...) of an old-shape record"))
        if isinstance(node, ast.Call) and call_name(node).endswith("add_argument"):
            for arg in node.args:
                flag = const_str(arg)
                if flag in ("--input", "--output"):
                    cli[flag] = node.lineno
    return sites, cli


# --- its own redaction ------------------------------------------------------------------------

def read_redaction(tree: ast.AST, parents: dict, assigned: dict, path: str) -> Redaction:
    """The old script's own redaction: its regexes and the markers it replaced matches with."""
    markers: list[str] = []
    found: list[tuple[str, str, int, bool]] = []  # (owner, regex, line, used in a redacting sub)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = call_name(node)
        if name.rsplit(".", 1)[-1] in ("sub", "subn") and node.args:
            marker, regex = _read_sub(node, name, parents, assigned)
            if marker is not None and marker not in markers:
                markers.append(marker)
            if regex is not None:
                found.append(regex)
        elif name in ("re.compile", "compile") and node.args:
            regex = _read_compile(node, parents, assigned)
            if regex is not None:
                found.append(regex)
    if not markers:
        return Redaction(markers)
    patterns, lines, skipped = _keep_patterns(found, path)
    kept, refused = _check_patterns(patterns, lines, path)
    return Redaction(markers, kept, lines, skipped + refused)


def _resolve(node: ast.AST, assigned: dict) -> ast.AST:
    if isinstance(node, ast.Name) and node.id in assigned:
        return assigned[node.id]
    return node


def _read_sub(node: ast.Call, name: str, parents: dict, assigned: dict
              ) -> tuple[str | None, tuple[str, str, int, bool] | None]:
    """``x.sub(repl, ...)`` / ``re.sub(pattern, repl, ...)``: (a redaction marker, re.sub's regex), each or None."""
    repl_index = 1 if name in ("re.sub", "re.subn") else 0
    if len(node.args) <= repl_index:
        return None, None
    repl = const_str(_resolve(node.args[repl_index], assigned))
    marker = repl if repl is not None and REDACTION_MARK.search(repl) else None
    regex = None
    if name in ("re.sub", "re.subn"):
        pattern = const_str(_resolve(node.args[0], assigned))
        if pattern is not None:
            regex = (_owner_name(node, parents) or "sub", pattern, node.lineno,
                     repl is not None and bool(REDACTION_MARK.search(repl)))
    return marker, regex


def _read_compile(node: ast.Call, parents: dict, assigned: dict) -> tuple[str, str, int, bool] | None:
    """``re.compile(pattern, flags)``: the regex, its flags written inline."""
    pattern = const_str(_resolve(node.args[0], assigned))
    if pattern is None:
        return None
    flags = _flags(node.args[1]) if len(node.args) > 1 else _flags(
        next((kw.value for kw in node.keywords if kw.arg == "flags"), None))
    if flags:
        pattern = f"(?{flags})" + pattern
    return (_owner_name(node, parents) or "pattern", pattern, node.lineno, False)


def _flags(node: ast.AST | None) -> str:
    """Inline flags for re.compile's flags argument (re.I, re.IGNORECASE | re.S ...)."""
    found = ""
    for sub in ast.walk(node) if node is not None else ():
        if isinstance(sub, ast.Attribute) and sub.attr in FLAG_LETTERS and FLAG_LETTERS[sub.attr] not in found:
            found += FLAG_LETTERS[sub.attr]
    return found


def _owner_name(node: ast.AST, parents: dict) -> str | None:
    """The name a regex is known by: its assignment target, or the dict key / container it sits in."""
    child = node
    while child in parents:
        parent = parents[child]
        if isinstance(parent, ast.Dict):
            for k, v in zip(parent.keys, parent.values):
                if v is child and const_str(k):
                    return const_str(k)
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    return target.id
                if isinstance(target, ast.Attribute):
                    return target.attr
            return None
        if isinstance(parent, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Call, ast.Starred)):
            child = parent
            continue
        return None
    return None


def _keep_patterns(found: list[tuple[str, str, int, bool]], path: str) -> tuple[dict, dict, list[str]]:
    """(class name -> regex, class name -> line, skipped): the redacting regexes that survive as one
    alternative each, under a readable class name."""
    patterns: dict[str, str] = {}
    lines: dict[str, int] = {}
    skipped: list[str] = []
    used: set[str] = set()
    for owner, pattern, line, direct in found:
        if not (direct or REDACTION_NAME.search(owner)):
            continue
        portable = portable_pattern(pattern)
        if portable is None or portable in patterns.values():
            if portable is None:
                skipped.append(f"{path}:{line}: {pattern!r} (not usable as one alternative)")
            continue
        cls = _class_name(_pattern_hint(pattern) or owner, used)
        used.add(cls)
        patterns[cls] = portable
        lines[cls] = line
    return patterns, lines, skipped


def _check_patterns(patterns: dict, lines: dict, path: str) -> tuple[dict, list[str]]:
    """(the patterns the runtime Redactor accepts, a note for each it refuses) - dropped with a note
    rather than fail the migration."""
    from cleaner_runtime import redaction as redact
    kept: dict[str, str] = {}
    refused: list[str] = []
    for cls, pattern in patterns.items():
        try:
            redact.Redactor(extra_patterns={cls: pattern})
        except (ValueError, re.error) as exc:
            refused.append(f"{path}:{lines[cls]}: {pattern!r} ({exc})")
            continue
        kept[cls] = pattern
    return kept, refused


def portable_pattern(pattern: str, flags: str = "") -> str | None:
    """The regex as one self-contained alternative: no capturing groups, no global flags.

    The runtime's Redactor joins extra patterns into one combined regex, so a pattern may not
    carry its own group numbering or leading ``(?i)``; None when that cannot be done safely.
    """
    lead = re.match(r"\(\?([aiLmsux]+)\)", pattern)
    if lead:
        flags += lead.group(1)
        pattern = pattern[lead.end():]
    if re.search(r"\\[1-9]|\(\?P[=<]|\(\?<[A-Za-z]", pattern):
        return None
    body = _without_groups(pattern)
    flags = "".join(sorted(set(flags.replace("u", "").replace("L", ""))))
    result = f"(?{flags}:{body})" if flags else body
    try:
        compiled = re.compile(result)
    except re.error:
        return None
    if compiled.fullmatch("") is not None or compiled.groups:
        return None
    return result


def _without_groups(pattern: str) -> str:
    """Every capturing ``(`` made ``(?:``, escapes and character classes left alone."""
    out = []
    i = 0
    in_class = False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]" or pattern[i + 1:i + 3] == "^]":
                step = 2 if pattern[i + 1] == "]" else 3
                out.append(pattern[i:i + step])
                i += step
                continue
        elif ch == "(" and pattern[i + 1:i + 2] != "?":
            out.append("(?:")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _pattern_hint(pattern: str) -> str | None:
    """A readable class name for a regex: "email" for address patterns, else its first literal word."""
    if "@" in pattern:
        return "email"
    bare = re.sub(r"\(\?[a-zA-Z]*:?|\[(?:\\.|[^\]])*\]|\\.|\{[0-9,]*\}", " ", pattern)
    words = re.findall(r"[A-Za-z]{3,}", bare)
    return words[0].lower() if words else None


def _class_name(name: str, used: set[str]) -> str:
    """A class name for a regex known as ``name``, not one of those ``used`` already."""
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "pattern"
    base = "old-script-" + re.sub(r"-?(re|regex|pattern|pat)$", "", base).strip("-")
    name = base.rstrip("-") or "old-script"
    n = 2
    while name in used:
        name = f"{base}-{n}"
        n += 1
    return name


# --- syntax-tree helpers ----------------------------------------------------------------------

def const_str(node: ast.AST | None) -> str | None:
    """The value of a string constant; None for anything else (f-strings included)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def dict_keys(node: ast.AST) -> set[str]:
    """The constant string keys of a dict literal or a ``dict(key=...)`` call."""
    if isinstance(node, ast.Dict):
        return {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return {kw.arg for kw in node.keywords if kw.arg}
    return set()


def call_name(node: ast.Call) -> str:
    """A call's dotted name (``json.dumps``, ``pattern.sub``); "" when it is not a plain name."""
    func = node.func
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def parent_map(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    """Every node's parent (the tree only links downwards)."""
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def assignments(tree: ast.AST) -> dict[str, ast.AST]:
    """The value last assigned to each plain name, anywhere in the tree (walk order)."""
    assigned: dict[str, ast.AST] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    assigned[target.id] = node.value
    return assigned


def scope(node: ast.AST, parents: dict) -> ast.AST:
    """The function or class a node sits in (the module when none)."""
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return node
    return node


# --- running it (opt-in) ----------------------------------------------------------------------

@dataclass
class OldRun:
    """The old script's run on the samples: its output files, or why there are none."""

    files: list[tuple[Path, str]] = field(default_factory=list)  # (path, name shown in reports)
    error: str | None = None
    log: list[str] = field(default_factory=list)


def run_old_script(script: Path, shown: str, samples: list[Path], timeout: float, work: Path) -> OldRun:
    """Run ``python OLD --input SAMPLE --output DIR`` per sample in a subprocess with a timeout."""
    files: list[tuple[Path, str]] = []
    log: list[str] = []
    cwd = work / "cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    for k, sample in enumerate(samples, 1):
        out = work / "old-output" / f"{k}"
        error, logged = _run_on(script, shown, sample, out, cwd, env, timeout)
        if logged is not None:
            log.append(logged)
        if error is not None:
            return OldRun(files, error, log)
        for path in _written(out):
            rel = path.relative_to(out).as_posix()
            files.append((path, rel if len(samples) == 1 else f"{sample.name}/{rel}"))
    error = None if files else f"{shown}: wrote no .jsonl files to --output for the samples"
    return OldRun(files, error, log)


def _run_on(script: Path, shown: str, sample: Path, out: Path, cwd: Path, env: dict,
            timeout: float) -> tuple[str | None, str | None]:
    """One run of the old script: (why it hung, crashed or failed, or None; its log line, or None)."""
    command = [sys.executable, str(script.resolve()), "--input", str(sample.resolve()), "--output", str(out)]
    try:
        proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                              check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"{shown}: still running after {timeout:g}s on {sample}; raise --timeout or check the script", None
    except OSError as exc:
        return f"{shown}: cannot run ({exc.strerror or exc})", None
    tail = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or [""])[-1]
    logged = (f"python {shown} --input {sample} --output OUT: exit {proc.returncode}"
              + (f" ({tail[:200]})" if tail else ""))
    if proc.returncode != 0:
        return f"{shown}: exited {proc.returncode} on {sample}" + (f": {tail[:300]}" if tail else ""), logged
    return None, logged


def _written(out: Path) -> list[Path]:
    """The trace files the old script wrote under ``out``, sorted."""
    return sorted(p for p in out.rglob("*") if p.is_file()
                  and any(fnmatch.fnmatch(p.name.lower(), pattern) for pattern in OLD_INCLUDE))
