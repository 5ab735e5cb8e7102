"""The equivalence check: is everything the old output had still in the new cleaner's output?

Regenerating a cleaner must not lose messages. Each old session is paired with the new session
sharing most of its messages; then every old record is looked up in it - user and assistant
text in order, tool steps anywhere - allowing for different redaction placeholders, and
flagging text the old script had redacted that the new output shows.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from generator.migrate.text_match import TextMatcher
from generator.migrate.times import instant

RUNTIME_PLACEHOLDER = re.compile(r"\[REDACTED:[A-Za-z0-9_-]+\]")
ORDERED = ("user", "assistant")


@dataclass
class SessionCompare:
    old: str
    new: str | None
    texts: int = 0
    same: int = 0
    redaction: list[str] = field(default_factory=list)  # present, the placeholders differ
    reordered: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)  # new output shows what the old script redacted
    times: list[str] = field(default_factory=list)
    added: Counter = field(default_factory=Counter)
    added_examples: list[str] = field(default_factory=list)

    @property
    def present(self) -> int:
        """Old user and assistant messages found in the new output."""
        return self.texts - sum(1 for m in self.missing if m.startswith(("user ", "assistant ")))

    @property
    def passed(self) -> bool:
        return self.new is not None and not (self.missing or self.reordered or self.leaks)

    def added_text(self) -> str:
        """What the new cleaner adds, e.g. "2 reasoning, 1 tool call"; "" when nothing."""
        return ", ".join(f"{n} {k}" for k, n in sorted(self.added.items()))


def new_output(expected: Path) -> dict[str, list[dict]]:
    """The new cleaner's output on the samples (its tests/expected/), by relative file name."""
    new: dict[str, list[dict]] = {}
    for path in sorted(expected.rglob("*.jsonl")):
        try:
            new[path.relative_to(expected).as_posix()] = [
                json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        except (OSError, ValueError):
            continue
    return new


def _texts(records: list[dict]) -> list[tuple[int, str, str]]:
    return [(i, r["role"], r["content"]) for i, r in enumerate(records)
            if r.get("role") in ORDERED and isinstance(r.get("content"), str)]


def _items(records: list[dict]) -> list[tuple[int, str, str]]:
    """(record index, kind, comparable text) of every non-meta record; one item per tool call."""
    out = []
    for index, record in enumerate(records):
        role = record.get("role")
        if role == "meta":
            continue
        if role == "assistant" and record.get("tool_calls"):
            for call in record["tool_calls"]:
                out.append((index, "tool call", f"{call.get('name')} {call.get('args')}"))
        elif role == "tool":
            out.append((index, "tool result", str(record.get("content") or "")))
        elif isinstance(record.get("content"), str):
            out.append((index, str(role), record["content"]))
    return out


def _equivalent(old: str, new: str, matcher: TextMatcher) -> str | None:
    """None, "same", "redaction" (old placeholders hide the same spans in new) or "leak"."""
    a, b = TextMatcher.norm(old), TextMatcher.norm(new)
    if a == b:
        return "same"
    pattern = matcher.pattern(old)
    if pattern is None:
        return None
    match = pattern.fullmatch(b)
    if match is None:
        return None
    if all(RUNTIME_PLACEHOLDER.search(gap) or matcher.marker.fullmatch(gap) for gap in match.groups()):
        return "redaction"
    return "leak"


def _short(text: str, limit: int = 70) -> str:
    text = TextMatcher.norm(text)
    return json.dumps(text if len(text) <= limit else text[: limit - 3] + "...", ensure_ascii=False)


def compare_session(old_name: str, old: list[dict], new_name: str | None, new: list[dict] | None,
                    matcher: TextMatcher) -> SessionCompare:
    """Every old record looked up in the new output: user and assistant text in order, the rest present."""
    result = SessionCompare(old_name, new_name)
    old_items = _items(old)
    result.texts = sum(1 for _, kind, _ in old_items if kind in ORDERED)
    if new is None:
        result.missing = [f"{kind} {_short(text)}" for _, kind, text in old_items]
        return result
    new_items = _items(new)
    matched: set[int] = set()
    cursor = 0
    for old_index, kind, text in old_items:
        ordered = kind in ORDERED
        found = _find(kind, text, new_items, matched, cursor if ordered else None, matcher)
        if found is None:
            result.missing.append(f"{kind} {_short(text)}")
            continue
        k, verdict = found
        matched.add(k)
        index = new_items[k][0]
        if ordered:
            if k < cursor:
                result.reordered.append(f"{kind} {_short(text)} (now record {index}, before an earlier message)")
            else:
                cursor = k + 1
        _note_verdict(result, verdict, kind, ordered, new_items[k][2], index)
        _note_time(result, kind, text, old[old_index].get("timestamp"), new[index].get("timestamp"))
    for k, (_, kind, text) in enumerate(new_items):
        if k in matched:
            continue
        result.added[kind] += 1
        if len(result.added_examples) < 8:
            result.added_examples.append(f"{kind}: {_short(text, 60)}")
    return result


def _find(kind: str, text: str, new_items: list[tuple[int, str, str]], matched: set[int], cursor: int | None,
          matcher: TextMatcher) -> tuple[int, str] | None:
    """(new item, verdict) of the first unmatched new item of the same kind equivalent to ``text``.

    With a cursor (user and assistant text) the search starts there and wraps around, so a
    match before it shows up as reordered; without one (tool steps) it starts at the top.
    """
    order = list(range(cursor, len(new_items))) + list(range(cursor)) if cursor is not None else range(len(new_items))
    for k in order:
        _, new_kind, new_text = new_items[k]
        if k in matched or new_kind != kind:
            continue
        verdict = _equivalent(text, new_text, matcher)
        if verdict is not None:
            return k, verdict
    return None


def _note_verdict(result: SessionCompare, verdict: str, kind: str, ordered: bool, new_text: str, index: int) -> None:
    if verdict == "same":
        result.same += 1 if ordered else 0
    elif verdict == "redaction":
        result.redaction.append(f"{kind} {_short(new_text)}")
    else:
        result.leaks.append(f"{kind} record {index}: shows text the old script had redacted")


def _note_time(result: SessionCompare, kind: str, text: str, old_ts, new_ts) -> None:
    """A matched record whose time moved (compared as instants when both parse)."""
    if isinstance(old_ts, str) and isinstance(new_ts, str):
        try:
            differs = instant(old_ts) != instant(new_ts)
        except ValueError:
            differs = old_ts != new_ts
        if differs:
            result.times.append(f"{kind} {_short(text, 40)}: old {old_ts}, new {new_ts}")


def _present(role: str, text: str, exact: set, texts: list[tuple[int, str, str]], joined: str,
             matcher: TextMatcher) -> bool:
    """Is an old message in a new session? Exact text by lookup; the slow placeholder match only if needed."""
    if (role, TextMatcher.norm(text)) in exact:
        return True
    if matcher.pattern(text) is None or (matcher.key(text) or "") not in joined:
        return False
    return any(r == role and _equivalent(text, t, matcher) for _, r, t in texts)


def pair_sessions(old: dict[str, list[dict]], new: dict[str, list[dict]], matcher: TextMatcher
                  ) -> list[tuple[str, str | None]]:
    """Pair each old session with the new session sharing the most messages (each used once)."""
    scores = []
    texts = {name: _texts(records) for name, records in new.items()}
    exact = {name: {(role, TextMatcher.norm(text)) for _, role, text in items} for name, items in texts.items()}
    joined = {name: "\n".join(TextMatcher.norm(text) for _, _, text in items) for name, items in texts.items()}
    for old_name, old_records in old.items():
        old_texts = _texts(old_records)
        for new_name in new:
            hits = sum(1 for _, role, text in old_texts
                       if _present(role, text, exact[new_name], texts[new_name], joined[new_name], matcher))
            if hits:
                scores.append((hits, old_name, new_name))
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    for _, old_name, new_name in sorted(scores, key=lambda s: (-s[0], s[1], s[2])):
        if old_name not in pairs and new_name not in taken:
            pairs[old_name] = new_name
            taken.add(new_name)
    return [(name, pairs.get(name)) for name in old]
