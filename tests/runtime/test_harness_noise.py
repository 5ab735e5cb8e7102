"""sessions.harness_noise: the user texts a coding CLI writes itself (a local slash command, its output,
a background task's notice) are the harness's, not the person's. Letta's normalizer core drops them for
every source (`noise_record_dropped`); a cleaner that wrote them would hand Lerim a "user" who never
spoke. Dropped and counted, never silently; the list is the mapping's to change."""

from __future__ import annotations

from cleaner_runtime import convert, readers
from generator.render import complete

CHAT = {"kinds": [{"name": "user", "match": {"role": "user"}, "role": "user", "content": "text"},
                  {"name": "assistant", "match": {"role": "assistant"}, "role": "assistant", "content": "text"}],
        "timestamps": {"fields": ["ts"]}}
RECORDS = [
    {"role": "user", "text": "Review the parser.", "ts": 1},
    {"role": "user", "text": "  \n<command-name>/status</command-name>\n<command-args></command-args>", "ts": 2},
    {"role": "user", "text": "<local-command-stdout>ok</local-command-stdout>", "ts": 3},
    {"role": "user", "text": "<task-notification>\n<status>failed</status>\n</task-notification>", "ts": 4},
    {"role": "user", "text": "Why does <command-name> show up in my logs?", "ts": 5},
    {"role": "assistant", "text": "<command-name> is markup the CLI writes.", "ts": 6},
]


def _session(extra: dict) -> tuple[list[dict], convert.SessionBuilder]:
    full = complete({"mapping_version": 1, "source": "t", **CHAT, **extra})
    session = convert.Converter(full, convert.Privacy(full["privacy"])).session("s")
    for n, record in enumerate(RECORDS, 1):
        session.add(readers.Where("f.jsonl", n), record)
    return session.finish(), session


def test_user_texts_opening_with_harness_markup_are_dropped_and_counted():
    out, session = _session({})
    assert [r.get("content") for r in out[1:]] == [
        "Review the parser.", "Why does <command-name> show up in my logs?", "<command-name> is markup the CLI writes."]
    assert session.stats.skipped["harness-noise user record (sessions.harness_noise)"] == 3


def test_an_empty_list_keeps_every_user_text():
    out, session = _session({"sessions": {"harness_noise": []}})
    assert [r["role"] for r in out[1:]] == ["user"] * 5 + ["assistant"]
    assert not session.stats.skipped


def test_a_mapping_may_name_its_own_prefixes():
    out, _ = _session({"sessions": {"harness_noise": ["Why does"]}})
    assert "Why does <command-name> show up in my logs?" not in [r.get("content") for r in out]
    assert "<local-command-stdout>ok</local-command-stdout>" in [r.get("content") for r in out]
