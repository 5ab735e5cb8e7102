"""Meta candidates: fields naming the working directory, the git branch and the model.

Why: formats name these in many ways: the plain name (``cwd``, ``model``), a qualified one whose
last words are the plain name (``repository_cwd``, ``ls_model_name``, ``gen_ai.response.model``),
or an object named for it holding its ``name`` or ``id`` (``agent.model.id``). All are offered, the
plain names first, so that a person can pick the one they mean and inference can tell when two
fields of the same standing disagree (a question, not a guess).

A field of a list's elements (``trajectory[].state.working_dir``, two lists deep at most) is offered too, read from the
first element (path ``trajectory.0.state.working_dir``), after the fields outside lists.

Contract: ``find_meta`` returns {"cwd" | "git_branch" | "model": [{path, fill, distinct, rank,
values, listed}]}, best first: by ``rank`` (0 the plain name, 1 a qualified name, 2 an object's name
or id), then outside lists, then fullest, then shallowest; prose fields, and cwd values that are not
paths, are left out.
"""

from __future__ import annotations

from generator.inspect.fieldpaths import LIST
from generator.inspect.fields import FieldStat
from generator.inspect.vocab import META_NAMES, words


def name_rank(path: tuple, key: str) -> int | None:
    """How plainly ``path`` names the meta ``key``: 0, 1, 2 (see the module's docstring), or None."""
    names = META_NAMES[key]
    ws = words(str(path[-1]))
    joined = "_".join(ws)
    if joined in names or joined.replace("_", "") in names or (key == "git_branch" and path[-1] == "branch"):
        return 0
    if any("_".join(ws[i:]) in names for i in range(1, len(ws))):
        return 1
    if key == "model" and joined in ("name", "id") and len(path) > 1 and path[-2] != LIST:
        parent = words(str(path[-2]))
        if any("_".join(parent[i:]) in names for i in range(len(parent))):
            return 2
    return None


def find_meta(stats: dict[tuple, FieldStat], total: int) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {"cwd": [], "git_branch": [], "model": []}
    for listed, stat in stats.items():
        if list(listed).count(LIST) > 2 or not stat.str_count:
            continue
        path = tuple(0 if part == LIST else part for part in listed)  # a list's: its first element's
        for key in META_NAMES:
            rank = name_rank(path, key)
            if rank is None:
                continue
            sample = [v for v in stat.values if isinstance(v, str)]
            if key == "cwd" and not any(v.startswith(("/", "~", "\\")) or v[1:3] == ":\\" for v in sample):
                continue
            if stat.prose > 0.3:
                continue
            out[key].append({"path": path, "fill": round(stat.records / total, 3), "distinct": stat.cardinality,
                             "rank": rank, "values": frozenset(sample), "listed": LIST in listed})
    for cands in out.values():
        cands.sort(key=lambda c: (c["rank"], c["listed"], -c["fill"], len(c["path"])))
    return out
