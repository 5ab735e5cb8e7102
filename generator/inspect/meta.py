"""Meta candidates: fields naming the working directory, the git branch and the model.

Contract: ``find_meta`` returns {"cwd" | "git_branch" | "model": [{path, fill, distinct}]}, fullest
first; prose fields, and cwd values that are not paths, are left out.
"""

from __future__ import annotations

from generator.inspect.fieldpaths import LIST
from generator.inspect.fields import FieldStat
from generator.inspect.vocab import META_NAMES, words


def find_meta(stats: dict[tuple, FieldStat], total: int) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {"cwd": [], "git_branch": [], "model": []}
    for path, stat in stats.items():
        if LIST in path or not stat.str_count:
            continue
        joined = "_".join(words(str(path[-1])))
        flat = joined.replace("_", "")
        for key, names in META_NAMES.items():
            if joined in names or flat in names or (key == "git_branch" and path[-1] == "branch"):
                sample = [v for v in stat.values if isinstance(v, str)]
                if key == "cwd" and not any(v.startswith(("/", "~", "\\")) or v[1:3] == ":\\" for v in sample):
                    continue
                if stat.prose > 0.3:
                    continue
                out[key].append({"path": path, "fill": round(stat.records / total, 3), "distinct": stat.cardinality})
    for cands in out.values():
        cands.sort(key=lambda c: (-c["fill"], len(c["path"])))
    return out

