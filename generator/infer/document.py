"""What sits around the record list of a JSON document: the document key, an element's id, meta.

Why: exports often keep the session's facts (model, cwd, title, a start time) beside the records
rather than in them; the mapping reads them through ``input.document_key``.

Contract: ``meta_section(draft)`` returns the mapping's ``meta``; ``document_fallback`` names a
document-level time when the records have none; the others locate the documents.
"""

from __future__ import annotations

from typing import Any

from generator.infer.draft import Draft
from generator.infer.fields import norm
from generator.inspect import (
    LIST,
    dotted,
    find_meta,
    get,
    mapping_path,
    profile_fields,
    session_key,
    time_name_rank,
    words,
)


def document_key(draft: Draft) -> str:
    used = {k for r in draft.p.recs for k in r.data}
    return next(k for k in ("document", "_document", "__document", "_document_fields") if k not in used)


def envelopes(draft: Draft) -> list[dict]:
    """The fields around the record list, one per document; empty unless every record has them."""
    if not draft.p.recs or any(r.envelope is None for r in draft.p.recs):
        return []
    seen: dict[int, dict] = {}
    for r in draft.p.recs:
        seen.setdefault(id(r.envelope), r.envelope)
    return list(seen.values())


def document_path(draft: Draft, path: tuple) -> Any:
    return mapping_path((document_key(draft), *path))


def element_id(draft: Draft) -> tuple | None:
    """A field that names each element of a nested record list (its ``id``), distinct across elements."""
    envs = envelopes(draft)
    if len(envs) < 1:
        return None
    stats = profile_fields(envs, times=False)
    names = ["id", "conversation_id", "uuid", "thread_id", "session_id", "chat_id", "conv_id", "key", "name"]
    best = None
    for path, stat in stats.items():
        if LIST in path or len(path) > 2 or stat.records < len(envs) or not stat.tokenish:
            continue
        if stat.cardinality < len(envs) or norm(path[-1]) not in names:
            continue
        rank = (names.index(norm(path[-1])), len(path))
        if best is None or rank < best[0]:
            best = (rank, path)
    return best[1] if best else None


def document_fallback(draft: Draft, out: dict, why: str) -> bool:
    """A creation time beside every record list as the session's fallback time."""
    envs = envelopes(draft)
    if not envs:
        return False
    stats = profile_fields(envs)
    found = []
    for path, stat in stats.items():
        fmt, share = stat.time_format()
        if LIST in path or stat.records < len(envs) or not fmt or share < 0.8 or time_name_rank(path) > 2:
            continue
        if fmt.startswith("strptime") or (out["format"] != "auto" and fmt.removesuffix("_string").replace(
                "iso_naive", "iso") != out["format"]):
            continue
        found.append((time_name_rank(path), len(path), path, fmt))
    if not found:
        return False
    _, _, path, fmt = min(found, key=lambda f: f[:2])
    out["fallback"] = draft.decide("timestamps.fallback", "field", 0.9,
                                   f"{why}; `{dotted(path)}` beside the records of each of {len(envs)} "
                                   f"document(s) holds a time ({fmt})", ["file_mtime", "none"])
    out["fallback_field"] = draft.decide("timestamps.fallback_field", document_path(draft, path), 0.9,
                                         f"`{dotted(path)}` outside the record list, reached under "
                                         "input.document_key")
    draft.document_used.append(f"`{dotted(path)}`")
    return True


def meta_section(draft: Draft) -> dict:
    """Where each session's cwd, git branch and model are read: the plainest-named field, from the
    records or from beside them. Fields of the same standing whose values differ (a request's model
    and a response's) are a question; the others, and writing none, stay the offered choices."""
    out: dict[str, list] = {"cwd": [], "git_branch": [], "model": []}
    envs = envelopes(draft)
    around = find_meta(profile_fields(envs, times=False), len(envs)) if envs else {}
    for key, cands in draft.p.meta.items():
        outside = around.get(key) or []
        others = [[mapping_path(c["path"])] for c in cands[1:3]] + [[]]
        if outside and outside[0]["fill"] >= 1.0 and not (cands and sessions_have(draft, cands[0]["path"])):
            best, conf, why = outside[0], 0.9, ""
            if rivals(best, outside):
                best, conf, why = answering(outside) or (best, 0.6, "; other fields name it differently")
            paths = [mapping_path(c["path"]) for c in cands[:1]] + [document_path(draft, best["path"])]
            out[key] = draft.decide(f"meta.{key}", paths, conf,
                                    f"`{dotted(best['path'])}` beside the records of every document{why}",
                                    [[document_path(draft, c["path"])] for c in outside if c is not best][:2] + others)
            for c in outside[:3]:
                note_document(draft, out[key], c["path"])
            continue
        if not cands:
            continue
        best = cands[0]
        chosen = [best["path"]]
        for other in cands[1:]:
            if other["rank"] == best["rank"] and not other["listed"] and any(
                    get(r.data, best["path"]) is None and get(r.data, other["path"]) is not None
                    for r in draft.p.recs) and not sessions_have(draft, best["path"]):
                chosen.append(other["path"])
        paths = [mapping_path(c) for c in chosen]
        if outside:  # some documents name it beside their records: where a session's records do not
            paths.append(document_path(draft, outside[0]["path"]))
        conf, why = 0.9, ""
        if rivals(best, [c for c in cands if c["path"] not in chosen]):
            conf, why = 0.6, "; another field of the same kind of name holds other values"
            picked = answering(cands)
            if picked:
                best, conf, why = picked
                paths = [mapping_path(best["path"]), *paths[len(chosen):]]
        # the fields beside the records are choices too (a run's `extra.metadata.ls_model_name`)
        beside = [[document_path(draft, c["path"])] for c in outside[:2]]
        others = [[mapping_path(c["path"])] for c in cands if c is not best][:2] + [[]]
        out[key] = draft.decide(f"meta.{key}", paths, conf,
                                f"`{dotted(best['path'])}` (in {best['fill']:.0%} of records){why}",
                                others[:-1] + [b for b in beside if b != paths] + others[-1:])
        for c in outside[:2]:
            note_document(draft, out[key], c["path"])
    return out


def note_document(draft: Draft, value: list, path: tuple) -> None:
    """A meta path read beside the records (``document.<path>``) needs ``input.document_key``."""
    if document_path(draft, path) in value:
        draft.document_used.append(f"`{dotted(path)}`")


REQUEST_WORDS = {"request", "requested", "input", "inputs", "params", "parameters"}
ANSWER_WORDS = {"response", "responses", "output", "outputs", "answer", "result"}


def answering(cands: list[dict]) -> tuple[dict, float, str] | None:
    """Of rival fields, the one naming the model that answered, when every rival whose values differ
    names what was requested (OTel GenAI's `gen_ai.response.model` against `gen_ai.request.model` and
    the request body's `input.model`; LangSmith's `outputs.model` against `inputs.model`, and the
    `extra.metadata.ls_model_name` that repeats it): the request names an alias (`gpt-4`), the response the model
    that wrote the assistant's records (`gpt-4-0613`), which is what a trajectory's meta records."""
    def named(c: dict, vocab: set) -> bool:
        return any(set(words(str(part))) & vocab for part in c["path"])

    answers = [c for c in cands if not c["listed"] and named(c, ANSWER_WORDS) and not named(c, REQUEST_WORDS)]
    if len(answers) != 1:
        return None
    best = answers[0]
    differing = [c for c in cands if c is not best and not c["listed"] and c["values"] and c["values"] != best["values"]]
    requests = [c for c in differing if named(c, REQUEST_WORDS)]
    # a field repeating what a request names (LangSmith's `extra.metadata.ls_model_name` beside
    # `inputs.model`) names the request too
    if not requests or not all(c in requests or any(c["values"] <= r["values"] for r in requests) for c in differing):
        return None
    requested = ", ".join(f"`{dotted(c['path'])}`" for c in differing)
    return best, 0.85, f"; it names the model that answered, where {requested} name the one requested"


def rivals(best: dict, cands: list[dict]) -> bool:
    """Another candidate outside lists whose values are not ``best``'s: a request's model and the
    model that answered (``gen_ai.request.model`` / ``gen_ai.response.model``) are both named
    plainly enough that which one the session means is the format's call, not the name's. A field
    holding only values ``best`` holds too (Codex's `collaboration_mode.settings.model` repeating
    `turn_context`'s model) names the same thing, not a rival."""
    return any(c is not best and not c["listed"] and c["values"] and not c["values"] <= best["values"]
               for c in cands)


def sessions_have(draft: Draft, path: tuple) -> bool:
    have: dict[Any, bool] = {}
    for r in draft.p.recs:
        key = session_key(r, draft.p.session)
        have[key] = have.get(key, False) or get(r.data, path) is not None
    return all(have.values())
