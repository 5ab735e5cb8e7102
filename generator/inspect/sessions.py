"""Sessions: what one session is (a file, one element of a nested record list, or one value of a
grouping field) and the facts that decided it.

Contract: ``find_sessions`` decides from the sampled records, field stats and file reports;
``session_key`` is a record's session under that decision.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from generator.inspect.fieldpaths import LIST, dotted, get
from generator.inspect.fields import FieldStat
from generator.inspect.records import FileReport, Rec
from generator.inspect.vocab import SESSION_RANK, SESSION_WORDS, words


@dataclass
class SessionInfo:
    """What one session is: a file, or a grouping field; with the facts that decided it."""

    by: str = "file"
    path: tuple | None = None
    candidates: list = field(default_factory=list)  # dicts: path, fill, distinct, per_file_max, ...
    sessions: int = 0
    interleaved: bool = False
    across_files: bool = False
    missing_kinds: list = field(default_factory=list)
    evidence: str = ""

    def to_dict(self) -> dict:
        return {
            "by": self.by, "field": dotted(self.path) if self.path else None, "sessions": self.sessions,
            "interleaved": self.interleaved, "across_files": self.across_files,
            "candidates": self.candidates, "evidence": self.evidence,
        }


def session_key(rec: Rec, session: SessionInfo) -> Any:
    if session.by == "element":
        return (rec.file, rec.element)
    if session.by == "field" and session.path:
        value = get(rec.data, session.path)
        if isinstance(value, (dict, list)):  # a key must be hashable; the runtime reports such an id
            value = json.dumps(value, sort_keys=True, default=str)
        return (None, value) if value is not None else (rec.file, None)
    return (rec.file, None)


def find_sessions(recs: list[Rec], stats: dict[tuple, FieldStat], files: list[FileReport]) -> SessionInfo:
    nested = [f for f in files if f.records_path and "*" in f.records_path and not f.grouped]
    if nested:
        info = SessionInfo(by="element")
        path = nested[0].records_path
        at = path.index("*")
        outer = f"`{dotted(path[:at])}`" if at else "the array"
        info.evidence = (f"each element of {outer} holds one conversation's records at `{dotted(path[at + 1:])}`"
                         f" ({len({(r.file, r.element) for r in recs})} elements in {len(nested)} file(s))")
        info.sessions = len({session_key(r, info) for r in recs})
        return info
    info = SessionInfo()
    total = len(recs)
    candidates = []
    for path, stat in stats.items():
        if LIST in path or not stat.records or stat.main_type not in ("string", "int"):
            continue
        name_words = set(words(str(path[-1])))
        hits = name_words & SESSION_WORDS
        if not hits or name_words & {"parent", "prev", "previous", "root", "type", "kind", "status", "name",
                                      "title", "count", "index", "seq", "number", "step", "start", "end"}:
            continue
        if stat.time_format()[1] >= 0.8 and stat.cardinality > 0.5 * stat.records:
            continue  # a time, not a grouping (thread_ts-style ids repeat)
        values_by_file: dict[int, set] = defaultdict(set)
        files_by_value: dict[Any, set] = defaultdict(set)
        sequence: dict[int, list] = defaultdict(list)
        present = 0
        for rec in recs:
            value = get(rec.data, path)
            if value is None or isinstance(value, (dict, list, bool)):
                continue
            present += 1
            values_by_file[rec.file].add(value)
            files_by_value[value].add(rec.file)
            seq = sequence[rec.file]
            if not seq or seq[-1] != value:
                seq.append(value)
        if not present:
            continue
        distinct = len(files_by_value)
        per_file_max = max(len(v) for v in values_by_file.values())
        if distinct >= 0.9 * present and present > len(values_by_file):
            continue  # a value per record: record ids, not sessions
        switches = sum(len(seq) - len(set(seq)) for seq in sequence.values())
        rank = min(SESSION_RANK.get(w, 3) for w in hits)
        candidates.append({
            "path": path, "fill": round(present / total, 3), "distinct": distinct, "per_file_max": per_file_max,
            "across_files": sum(1 for v in files_by_value.values() if len(v) > 1), "interleaved": switches > 0,
            "rank": rank,
        })
    candidates.sort(key=lambda c: (c["per_file_max"] <= 1 and not c["across_files"], c["rank"], -c["fill"]))
    info.candidates = [{**c, "path": dotted(c["path"])} for c in candidates]
    # one value in every file is a label (a pipeline or project name), not a session id
    grouping = [c for c in candidates if (c["per_file_max"] > 1 or c["across_files"])
                and not (c["distinct"] == 1 and len(files) > 1)]
    outer = [c for c in candidates if c not in grouping and c["per_file_max"] == 1 and not c["across_files"]]
    if grouping and not grouping[0]["across_files"] and any(
            c["rank"] < grouping[0]["rank"] and c["fill"] >= grouping[0]["fill"] for c in outer):
        # runs (`run_id`) inside one conversation per file (`thread_id`): parts of the session
        best = next(c for c in outer if c["rank"] < grouping[0]["rank"] and c["fill"] >= grouping[0]["fill"])
        info.evidence = (f"`{dotted(best['path'])}` has one value per file; `{dotted(grouping[0]['path'])}` "
                         "splits it into parts")
        info.sessions = len({session_key(r, info) for r in recs})
        return info
    if grouping:
        best = grouping[0]
        info.by, info.path = "field", best["path"]
        info.interleaved = best["interleaved"]
        info.across_files = bool(best["across_files"])
        info.evidence = (
            f"`{dotted(best['path'])}` groups records: {best['distinct']} values, up to {best['per_file_max']} in "
            f"one file" + (", interleaved" if best["interleaved"] else "")
            + (f", {best['across_files']} continuing across files" if best["across_files"] else "")
        )
    else:
        info.evidence = (
            f"`{dotted(candidates[0]['path'])}` has one value per file" if candidates
            else "no session, conversation, thread or run id field"
        )
    info.sessions = len({session_key(r, info) for r in recs})
    return info

