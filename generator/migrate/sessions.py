"""How the raw records group into sessions, learned from how the old script grouped them.

Most old cleaners wrote one session per raw file; when one wrote several from one file (or one
from several), the field whose value is constant within each old session and differs between
them is what the new cleaner must group by.
"""

from __future__ import annotations

import json

from generator.migrate.notation import paths_out
from generator.migrate.records import RawRec, Target
from generator.paths import runtime_module


def learn_session(raws: list[RawRec], pairs: list[tuple[RawRec, Target]], exclude: set
                  ) -> tuple[dict, tuple | None, list[str]]:
    """One session per raw file, or a grouping field when the old script split or merged files."""
    if _one_session_per_file(pairs):
        return {"by": "file"}, None, []
    candidates = _grouping_fields(raws, pairs, exclude)
    if not candidates:
        return {"by": "file"}, None, [(
            "the old script split or merged the raw files into sessions by a rule this migration could not find; "
            "sessions are one raw file each (set session.by: field in .copier-answers.yml if that is wrong)")]
    fill, _, _, path = max(candidates)
    session = {"by": "field", "field": paths_out([path])}
    if fill < len(raws):
        session["missing"] = "skip"
    return session, path, []


def _one_session_per_file(pairs: list[tuple[RawRec, Target]]) -> bool:
    per_file: dict[int, set] = {}
    per_session: dict[int, set] = {}
    for rec, target in pairs:
        per_file.setdefault(rec.file, set()).add(target.session)
        per_session.setdefault(target.session, set()).add(rec.file)
    return all(len(v) == 1 for v in per_file.values()) and all(len(v) == 1 for v in per_session.values())


def _grouping_fields(raws: list[RawRec], pairs: list[tuple[RawRec, Target]], exclude: set) -> list[tuple]:
    """(records that have it, -depth, name, path) of each shallow field with one value per old session."""
    convert = runtime_module("convert")
    candidates = []
    for path in {p for rec, _ in pairs for p, v in rec.leaves if isinstance(v, (str, int)) and not isinstance(v, bool)}:
        if path in exclude or any(isinstance(p, int) for p in path) or len(path) > 2:
            continue
        by_session: dict[int, set] = {}
        for rec, target in pairs:
            value = convert.get_path(rec.record, path)
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                by_session = {}
                break
            by_session.setdefault(target.session, set()).add(json.dumps(value))
        values = list(by_session.values())
        if values and all(len(v) == 1 for v in values) and len({next(iter(v)) for v in values}) == len(values):
            fill = sum(1 for rec in raws if convert.get_path(rec.record, path) not in (convert.MISSING, None))
            candidates.append((fill, -len(path), str(path), path))
    return candidates
