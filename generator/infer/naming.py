"""The mapping's ``source`` and ``source_profile``.

Source name default: ``source=`` when given; else the harness when the format is one Letta reads
natively (``pi``, ``openclaw``, ``claude-code``, ``codex``); else the nearest file or folder name
of the inputs that is not a generic word (``input``, ``samples``, ``raw-traces``, dates and ids
removed), lower-cased with hyphens; else ``custom-agent``.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from generator.infer.draft import Draft
from generator.inspect import dotted, get, words

GENERIC_NAMES = {"input", "inputs", "data", "raw", "raw-traces", "raw_traces", "traces", "trace", "samples", "sample",
                 "logs", "log", "export", "exports", "dump", "sessions", "session", "records", "output", "events",
                 "transcripts", "transcript", "runs", "run", "files", "jsonl", "json", "tmp", "temp", "fixtures",
                 "fixture", "tests", "test", "examples", "example", "basic", "simple", "default", "case", "cases",
                 "reference", "shared", "work", "home", "users", "user", "src", "var", "downloads", "desktop",
                 "documents", "main", "history", "archive", "all", "new", "old", "chats", "chat", "conversations",
                 "messages", "dataset", "corpus", "upstream-fixtures", "raw-samples", "ndjson", "gz", "part", "day"}
PROFILE_WORDS = {
    "coding": {"cwd", "git", "branch", "repo", "commit", "diff", "patch", "bash", "shell", "exec", "read_file",
               "write_file", "edit", "pytest", "file_path", "filepath", "grep", "apply_patch", "code", "workspace"},
    "support": {"ticket", "customer", "refund", "order", "account", "csat", "escalation", "escalate", "requester",
                "helpdesk", "support", "billing", "subscription", "renewal", "macro", "zendesk", "intercom"},
    "research": {"search", "paper", "papers", "citation", "citations", "arxiv", "browse", "web_search", "sources",
                 "research", "pubmed", "scholar", "fetch_url", "bibliography", "findings", "hypothesis"},
    "ops": {"incident", "deploy", "deployment", "pipeline", "job", "build", "alert", "runbook", "pod", "k8s",
            "kubectl", "ci", "stage", "step", "runner", "oncall", "pager", "rollback", "cluster", "workflow"},
    "compliance": {"audit", "policy", "control", "controls", "evidence", "regulation", "compliance", "gdpr", "sox",
                   "attestation", "risk"},
}
_DATEISH = re.compile(r"^(\d{4}[-_]?\d{2}[-_]?\d{2}|\d+|[0-9a-f]{8,}(-[0-9a-f]{4,})*)$", re.IGNORECASE)


def derive_source(inputs: list[str]) -> tuple[str | None, str]:
    """The nearest file or folder name of the inputs that is not a generic word."""
    for given in inputs:
        path = Path(given.split("*")[0].rstrip("/") or ".")
        parts: list[tuple[str, str]] = []
        if path.suffix or (path.exists() and path.is_file()):
            stem = path.name
            for suffix in (".gz", ".jsonl", ".ndjson", ".json", ".log", ".txt"):
                stem = stem.removesuffix(suffix)
            parts.append((stem, "file"))
            path = path.parent
        resolved = path.resolve() if str(path) else Path.cwd()
        parts += [(name, "folder") for name in [resolved.name, *[p.name for p in resolved.parents]] if name]
        for name, where in parts:
            tokens = [t for t in re.split(r"[^A-Za-z0-9]+", name) if t and not _DATEISH.match(t)]
            clean = "-".join(t.lower() for t in tokens)
            if len(clean) < 3 or clean in GENERIC_NAMES or all(t.lower() in GENERIC_NAMES for t in tokens):
                continue
            return clean[:40].strip("-"), where
    return None, ""


def source_name(draft: Draft) -> str:
    if draft.source_arg:
        return draft.decide("source", draft.source_arg, 1.0, "given with --source")
    if draft.native:
        return draft.decide("source", draft.native.source, 0.9, f"a {draft.native.source} session format: "
                            f"{draft.native.evidence}")
    name, where = derive_source(draft.p.inputs)
    if name:
        return draft.decide("source", name, 0.85, f"from the {where} name `{name}`; any non-empty name works")
    return draft.decide("source", "custom-agent", 0.8, "no telling file or folder name; a placeholder name")


def source_profile(draft: Draft, mapping: dict) -> str:
    bag: Counter = Counter()
    for path in draft.p.stats:
        for w in words(dotted(path)):
            bag[w] += 1
        bag["_".join(words(str(path[-1])))] += 1
    for kind in draft.p.kinds:
        for v in kind.names():
            bag.update(words(v))
            bag["_".join(words(v))] += 1
    for plan in draft.plans:
        if plan.tool_name:
            for rec in plan.kind.recs[:200]:
                value = get(rec.data, plan.tool_name)
                if isinstance(value, str):
                    bag["_".join(words(value))] += 1
    for bt in draft.p.blocks.types.values():
        stat = bt.stats.get(("name",))
        if stat:
            for v in stat.values:
                if isinstance(v, str):
                    bag["_".join(words(v))] += 1
    bag.update(words(mapping["source"]))
    scores = {name: sum(1 for w in vocab if bag[w]) for name, vocab in PROFILE_WORDS.items()}
    best = max(scores, key=lambda k: scores[k])
    if scores[best] >= 2 and sorted(scores.values())[-2] < scores[best]:
        hits = sorted(w for w in PROFILE_WORDS[best] if bag[w])[:5]
        return draft.decide("source_profile", best, 0.85, f"names in the samples: {', '.join(hits)}")
    return draft.decide("source_profile", "generic", 0.8, "no clear domain vocabulary; the generic profile")
