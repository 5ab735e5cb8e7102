"""Small readers of a Python syntax tree, shared by the old-script readers.

The old cleaner is never imported or executed to find out what it writes (it is the user's
code); these helpers answer the few questions asked of its tree: string constants, dict keys,
call names, enclosing scopes and what a name was assigned.
"""

from __future__ import annotations

import ast


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
