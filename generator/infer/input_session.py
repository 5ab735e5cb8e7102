"""The mapping's ``input`` (container, records path, reading rules, file patterns) and ``session``.

Why: what one record is and what one session is come before anything about kinds: they follow
from how inspect read the samples, and are decided here from its findings.

Contract: ``input_section(draft)`` and ``session_section(draft)`` return the two sections.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from cleaner_runtime.mapping import DEFAULTS
from generator.infer.decisions import CONFIDENT
from generator.infer.document import document_path, element_id
from generator.infer.draft import Draft
from generator.infer.reading import reading_settings
from generator.inspect import DEFINITIONS_ONLY, dotted, get, mapping_path


def input_section(draft: Draft) -> dict:
    files = [f for f in draft.p.files if f.container in ("jsonl", "json_array", "json_object", "csv", "tsv")]
    containers = Counter(f.container + (" (gzip)" if f.compressed else "") for f in files)
    out: dict[str, Any] = {"container": "auto", "records_path": None}
    summary = "containers in the samples: " + (", ".join(
        f"{k} x{v}" for k, v in containers.most_common()) or "none readable")
    kinds = {f.container for f in files}
    if any(f.one_line for f in files) and len(kinds) == 1:
        # a document on one line looks like a one-record JSONL file to auto-detection
        out["container"] = draft.decide("input.container", files[0].container, 0.9,
                                        summary + "; written on one line, so named explicitly")
    elif any(f.one_line for f in files):
        out["container"] = draft.decide("input.container", "auto", 0.6, summary + "; some JSON documents are "
                                        "on one line and would be read as one JSONL record", ["json_object"])
    else:
        draft.decide("input.container", "auto", 0.95, summary + "; auto-detected per file")
    objects = [f for f in files if f.container == "json_object"]
    nested = [f for f in files if f.records_path and "*" in f.records_path]
    if nested:
        paths = Counter(f.records_path for f in nested)
        best, _ = paths.most_common(1)[0]
        at = best.index("*")
        conf = 0.9 if len(paths) == 1 and len(nested) == len(files) else 0.6
        out["records_path"] = draft.decide(
            "input.records_path", mapping_path(best), conf,
            f"each element of {'`' + dotted(best[:at]) + '`' if at else 'the array'} holds its own list of "
            f"records at `{dotted(best[at + 1:])}`" + ("" if conf >= CONFIDENT else "; not in every file"),
            [mapping_path(c) for c in paths if c != best] or [None])
        objects = []
    if objects:
        paths = Counter(f.records_path for f in objects)
        best, _ = paths.most_common(1)[0]
        # the lists offered, most files first, then in the order the files rank them (longest first);
        # never a set's order, which would follow the hash seed
        offered = Counter(c for f in objects for c in dict.fromkeys(f.records_path_choices))
        choices = [c for c, _ in offered.most_common()]
        auto_ok = len(best) == 1 and all(len(f.records_path_choices) == 1 for f in objects)
        value = None if auto_ok else mapping_path(best)
        definitions = DEFINITIONS_ONLY in choices
        choices = [c for c in choices if c != DEFINITIONS_ONLY]
        if auto_ok:
            conf, evidence = 0.95, f"each JSON object holds one record list (`{dotted(best)}`), found automatically"
        elif len(paths) == 1 and len(choices) == 1:
            conf, evidence = 0.9, f"the record list is at `{dotted(best)}` in every JSON object" + (
                "; the other lists define the run (tools, system prompt)" if definitions else "")
        elif len(paths) == 1 and all(continued_in_every_file(objects, c) for c in choices if c != best):
            rest = ", ".join(f"`{dotted(c)}`" for c in choices if c != best)
            conf, evidence = 0.9, (f"`{dotted(best)}` is continued by {rest} "
                                   "in every JSON object (the same records, or records of the same shape): read in "
                                   "document order")
        else:
            conf = 0.6
            evidence = f"several lists of objects ({', '.join(dotted(c) for c in sorted(choices, key=dotted))}); " \
                       f"`{dotted(best)}` is the longest"
        out["records_path"] = draft.decide("input.records_path", value, conf, evidence,
                                           [mapping_path(c) for c in choices if c != best])
    if children := [c for c, _ in Counter(c for f in draft.p.files for c in f.children).most_common()]:
        out["children"] = draft.decide(
            "input.children", [mapping_path(c) for c in children], 0.85,
            f"records hold their replies in `{dotted(children[0])}` (objects of the same shape): each read "
            "as a record of its own, after its parent")
    out.update(reading_settings(files))  # input.tagged / unflatten / decode, as inspect read the samples
    out["include"] = include_patterns(draft)
    bad = sum(f.bad_count for f in draft.p.files)
    out["invalid_lines"] = draft.decide(
        "input.invalid_lines", "skip", 0.9,
        f"{bad} torn or invalid line(s) in the samples; skipped and reported with file and line" if bad
        else "no invalid lines in the samples; a torn line would be skipped and reported")
    return out


def continued_in_every_file(files: list, path: tuple) -> bool:
    """Whether every file reads the list at ``path`` after its record list (``input.more_records``)."""
    return all(mapping_path(path) in (f.shaping.get("more_records") or ()) for f in files)


def include_patterns(draft: Draft) -> list:
    default = list(DEFAULTS["input"]["include"])
    extra = []
    for f in draft.p.files:
        if f.container not in ("jsonl", "json_array", "json_object", "csv", "tsv"):
            continue
        name = Path(f.path).name.lower()
        if not any(re.fullmatch(pattern.replace(".", r"\.").replace("*", ".*"), name) for pattern in default):
            suffixes = "".join(Path(name).suffixes[-2:]) if name.endswith(".gz") else Path(name).suffix
            pattern = f"*{suffixes}" if suffixes else name
            if pattern not in extra:
                extra.append(pattern)
    evidence = "the usual JSON file names" if not extra else f"the samples also use {', '.join(extra)}"
    return draft.decide("input.include", default + extra, 0.9, evidence)


def session_section(draft: Draft) -> dict:
    s = draft.p.session
    if s.by == "element":
        draft.decide("session.by", "element", 0.9, s.evidence + "; each element is one session")
        ident = element_id(draft)
        field_value = None
        if ident:
            field_value = draft.decide("session.field", document_path(draft, ident), 0.9,
                                       f"`{dotted(ident)}` names each element: the output files are named after it")
            draft.document_used.append(f"`{dotted(ident)}`")
        return {"by": "element", "field": field_value, "missing": "fail"}
    if s.by == "file":
        draft.decide("session.by", "file", 0.9, s.evidence + "; each file is one session")
        return {"by": "file", "field": None, "missing": "fail"}
    grouping = [c for c in s.candidates if (c["per_file_max"] > 1 or c["across_files"]) and c["distinct"] > 1]
    conf = 0.9
    alternatives = [c["path"] for c in grouping[1:]]
    if len(grouping) > 1 and grouping[1]["rank"] == grouping[0]["rank"] and not nested_fields(draft, grouping[0],
                                                                                              grouping[1]):
        conf = 0.6
    draft.decide("session.by", "field", 0.9, s.evidence)
    path = draft.decide("session.field", mapping_path(s.path), conf, s.evidence,
                        [mapping_path(tuple(a.split("."))) for a in alternatives])
    missing_recs = [r for r in draft.p.recs if get(r.data, s.path) is None]
    if not missing_recs:
        missing = draft.decide("session.missing", "fail", 0.9, "every sampled record carries the session id")
    else:
        share = len(missing_recs) / max(1, len(draft.p.recs))
        missing = draft.decide("session.missing", "skip", 0.85 if share < 0.2 else 0.6,
                               f"{len(missing_recs)} sampled record(s) ({share:.0%}) carry no session id; "
                               "they are skipped and counted", ["fail"])
    return {"by": "field", "field": path, "missing": missing}


def nested_fields(draft: Draft, a: dict, b: dict) -> bool:
    """Whether one grouping field's values always sit within one value of the other."""
    pa, pb = tuple(a["path"].split(".")), tuple(b["path"].split("."))
    seen: dict = {}
    for rec in draft.p.recs:
        va, vb = get(rec.data, pa), get(rec.data, pb)
        if va is None or vb is None:
            continue
        if seen.setdefault(vb, va) != va:
            return False
    return True
