"""What an old cleaner script writes, read from its syntax tree (nothing is executed).

``migrate script`` must say where the old script builds the pre-trajectory shape, whether it
has the --input/--output interface ``--run-old`` needs, and which redaction of its own the new
cleaner should keep; the script is the user's code, so it is parsed, never imported.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from generator.migrate.errors import MigrateError
from generator.migrate.script_ast import assignments, call_name, const_str, dict_keys, parent_map, scope
from generator.migrate.script_redaction import read_redaction

OLD_KEYS = {"type", "message"}
DUMPS = ("json.dumps", "json.dump", "dumps", "dump")


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


def read_script(path: str) -> ScriptFacts:
    """What the old script writes and how, read from its syntax tree; MigrateError when unreadable."""
    text, tree = _parse(path)
    facts = ScriptFacts(path, text)
    parents = parent_map(tree)
    assigned = assignments(tree)
    built = _built_by_subscript(tree, parents)
    seen_lines = _literal_sites(tree, parents, facts)
    for (_, name), (keys, line) in built.items():
        if OLD_KEYS <= keys and line not in seen_lines:
            facts.sites.append(Site(line, f"record built key by key in {name}[...] (type, message"
                                          + (", timestamp)" if "timestamp" in keys else ")")))
    _dump_sites(tree, assigned, built, facts)
    facts.sites.sort(key=lambda s: s.line)
    read_redaction(tree, parents, assigned, facts)
    return facts


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


def _literal_sites(tree: ast.AST, parents: dict, facts: ScriptFacts) -> set[int]:
    """Dict literals of the old shape, of its message, and of trajectory-v1; the old-shape lines."""
    seen_lines: set[int] = set()
    for node in ast.walk(tree):
        keys = dict_keys(node)
        if OLD_KEYS <= keys:
            what = "dict literal with keys " + ", ".join(k for k in ("type", "message", "timestamp") if k in keys)
            facts.sites.append(Site(node.lineno, what))
            seen_lines.add(node.lineno)
        elif {"role", "content"} <= keys:
            _role_content_site(node, keys, parents, facts)
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if const_str(k) == "role" and const_str(v) == "meta":
                    facts.trajectory_sites.append(Site(node.lineno, 'a {"role": "meta"} record'))
    return seen_lines


def _role_content_site(node: ast.AST, keys: set[str], parents: dict, facts: ScriptFacts) -> None:
    """A dict with role and content: a trajectory-v1 record, or the old shape's message."""
    parent = parents.get(node)
    under_message = isinstance(parent, ast.Dict) and any(
        const_str(k) == "message" and v is node for k, v in zip(parent.keys, parent.values))
    if "timestamp" in keys or "tool_calls" in keys or "tool_call_id" in keys:
        facts.trajectory_sites.append(Site(node.lineno, "trajectory-v1 style record (role, content, timestamp)"))
    else:
        what = "message dict with keys role, content" + (" (the old shape's message)" if under_message else "")
        facts.message_sites.append(Site(node.lineno, what))


def _dump_sites(tree: ast.AST, assigned: dict, built: dict, facts: ScriptFacts) -> None:
    """json.dump(s) of an old-shape record, and the script's --input/--output arguments."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and call_name(node) in DUMPS and node.args:
            arg = node.args[0]
            target = assigned.get(arg.id) if isinstance(arg, ast.Name) else arg
            by_key = isinstance(arg, ast.Name) and any(
                OLD_KEYS <= keys for (_, name), (keys, _) in built.items() if name == arg.id)
            if (target is not None and OLD_KEYS <= dict_keys(target)) or by_key:
                facts.sites.append(Site(node.lineno, f"{call_name(node)}(...) of an old-shape record"))
        if isinstance(node, ast.Call) and call_name(node).endswith("add_argument"):
            for arg in node.args:
                flag = const_str(arg)
                if flag in ("--input", "--output"):
                    facts.cli[flag] = node.lineno
