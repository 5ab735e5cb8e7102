"""The old script's own redaction, carried over to the new cleaner as ``privacy.extra_patterns``.

An old cleaner that hid account numbers or emails with its own regexes must not leak them once
regenerated. Its ``re.sub``/``re.compile`` calls are read from the syntax tree; a regex counts
as redaction when it is replaced by a marker (``<hidden>``, ``[REDACTED]`` ...) or named so. The
runtime's Redactor joins extra patterns into one regex, so each is rewritten to stand alone.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from generator.migrate.script_ast import call_name, const_str
from generator.paths import runtime_module

if TYPE_CHECKING:
    from generator.migrate.script_reading import ScriptFacts

REDACTION_NAME = re.compile(r"secret|token|redact|email|mail|pii|sensitive|password|passwd|key|mask|scrub|cred|"
                            r"privacy|private|account|phone|card", re.IGNORECASE)
REDACTION_MARK = re.compile(r"redact|\*\*\*|mask|remov|hidden|scrub|censor|<[^>]+>|\[[A-Z_ -]+\]", re.IGNORECASE)
FLAG_LETTERS = {"I": "i", "IGNORECASE": "i", "S": "s", "DOTALL": "s", "M": "m", "MULTILINE": "m", "X": "x",
                "VERBOSE": "x", "A": "a", "ASCII": "a"}


def read_redaction(tree: ast.AST, parents: dict, assigned: dict, facts: ScriptFacts) -> None:
    """The old script's own redaction: its regexes and the markers it replaced matches with."""
    markers: list[str] = []
    found: list[tuple[str, str, int, bool]] = []  # (owner, regex, line, used in a redacting sub)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = call_name(node)
        if name.rsplit(".", 1)[-1] in ("sub", "subn") and node.args:
            _read_sub(node, name, parents, assigned, markers, found)
        elif name in ("re.compile", "compile") and node.args:
            _read_compile(node, parents, assigned, found)
    facts.markers = markers
    if not markers:
        return
    _keep_patterns(found, facts)
    _check_patterns(facts)


def _resolve(node: ast.AST, assigned: dict) -> ast.AST:
    if isinstance(node, ast.Name) and node.id in assigned:
        return assigned[node.id]
    return node


def _read_sub(node: ast.Call, name: str, parents: dict, assigned: dict, markers: list[str], found: list) -> None:
    """``x.sub(repl, ...)`` / ``re.sub(pattern, repl, ...)``: a redaction marker, and re.sub's regex."""
    repl_index = 1 if name in ("re.sub", "re.subn") else 0
    if len(node.args) <= repl_index:
        return
    repl = const_str(_resolve(node.args[repl_index], assigned))
    if repl is not None and REDACTION_MARK.search(repl) and repl not in markers:
        markers.append(repl)
    if name in ("re.sub", "re.subn"):
        pattern = const_str(_resolve(node.args[0], assigned))
        if pattern is not None:
            found.append((_owner_name(node, parents) or "sub", pattern, node.lineno,
                          repl is not None and bool(REDACTION_MARK.search(repl))))


def _read_compile(node: ast.Call, parents: dict, assigned: dict, found: list) -> None:
    """``re.compile(pattern, flags)``: the regex, its flags written inline."""
    pattern = const_str(_resolve(node.args[0], assigned))
    if pattern is None:
        return
    flags = _flags(node.args[1]) if len(node.args) > 1 else _flags(
        next((kw.value for kw in node.keywords if kw.arg == "flags"), None))
    if flags:
        pattern = f"(?{flags})" + pattern
    found.append((_owner_name(node, parents) or "pattern", pattern, node.lineno, False))


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


def _keep_patterns(found: list[tuple[str, str, int, bool]], facts: ScriptFacts) -> None:
    """The redacting regexes that survive as one alternative each, under a readable class name."""
    used: set[str] = set()
    for owner, pattern, line, direct in found:
        if not (direct or REDACTION_NAME.search(owner)):
            continue
        portable = portable_pattern(pattern)
        if portable is None or portable in facts.patterns.values():
            if portable is None:
                facts.skipped_patterns.append(f"{facts.path}:{line}: {pattern!r} (not usable as one alternative)")
            continue
        cls = _class_name(_pattern_hint(pattern) or owner, used)
        facts.patterns[cls] = portable
        facts.pattern_lines[cls] = line


def _check_patterns(facts: ScriptFacts) -> None:
    """Drop any pattern the runtime Redactor refuses, with a note, rather than fail the migration."""
    redact = runtime_module("redaction")
    for cls in list(facts.patterns):
        try:
            redact.Redactor(extra_patterns={cls: facts.patterns[cls]})
        except (ValueError, re.error) as exc:
            facts.skipped_patterns.append(f"{facts.path}:{facts.pattern_lines[cls]}: {facts.patterns[cls]!r} ({exc})")
            del facts.patterns[cls]


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
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "pattern"
    base = "old-script-" + re.sub(r"-?(re|regex|pattern|pat)$", "", base).strip("-")
    name = base.rstrip("-") or "old-script"
    n = 2
    while name in used:
        name = f"{base}-{n}"
        n += 1
    used.add(name)
    return name
