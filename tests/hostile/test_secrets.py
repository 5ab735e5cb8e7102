"""Secrets that escape redaction, and redaction settings that fail unclearly (#36 items 5, 7, 12)."""

import pytest

from cleaner_runtime.redaction import Redactor


def test_bad_extra_pattern_names_key_pattern_reason_and_fix():
    """#36 item 12: a bad ``extra_patterns`` regex used to surface as a bare re.error/ValueError;
    the message must name the key, the class, the pattern, re's reason and how to fix it."""
    with pytest.raises(ValueError) as info:
        Redactor(extra_patterns={"ticket-token": "TKT-(\\d+"})
    msg = str(info.value)
    assert "extra_patterns" in msg
    assert "ticket-token" in msg
    assert "TKT-(\\d+" in msg
    assert "missing )" in msg
    assert "fix" in msg.lower()


CHAT = {
    "kinds": [
        {"name": "user", "match": {"role": "user"}, "role": "user", "content": "content"},
        {"name": "assistant", "match": {"role": "assistant"}, "role": "assistant", "content": ["content", "tool_calls"]},
        {"name": "tool", "match": {"role": "tool"}, "role": "tool_result", "content": "content",
         "result_link": "tool_call_id"},
    ],
    "blocks": {"type_field": "type", "types": {
        "function": {"as": "tool_call", "call_id": "id", "tool_name": "function.name", "args": "function.arguments"},
    }},
    "timestamps": {"fields": ["ts"]},
}
# synthetic, GitHub-token shaped (never a real secret)
TOKEN_ID = "ghp_" + "Zq7Lm2Xv9Rt4Wk8Np3Bc6Hd1Fs5Gj0Ay2Ue"


def _built(records: list[dict]) -> tuple[list[dict], dict]:
    from cleaner_runtime import convert, readers
    from generator.render import complete

    full = complete({"mapping_version": 1, "source": "t", **CHAT})
    privacy = convert.Privacy(full["privacy"])
    session = convert.Converter(full, privacy).session("s")
    for n, record in enumerate(records, 1):
        session.add(readers.Where("f.jsonl", n), record)
    return session.finish(), dict(privacy.counts)


def test_a_call_id_that_is_a_token_is_replaced_stably_and_counted():
    """#36 item 5: tool-call ids were written verbatim, so an id that is a token leaked."""
    out, counts = _built([
        {"role": "user", "content": "go", "ts": 1},
        {"role": "assistant", "content": "", "ts": 2, "tool_calls": [
            {"id": TOKEN_ID, "type": "function", "function": {"name": "ls", "arguments": "{}"}},
            {"id": "call_abc123", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": TOKEN_ID, "content": "a.txt", "ts": 3},
        {"role": "tool", "tool_call_id": "call_abc123", "content": "b.txt", "ts": 4},
    ])
    text = "\n".join(map(str, out))
    assert TOKEN_ID not in text and TOKEN_ID[4:] not in text
    ids = [c["id"] for c in out[2]["tool_calls"]]
    assert ids[1] == "call_abc123"  # ordinary ids stay
    assert ids[0].startswith("call_") and ids[0] != TOKEN_ID
    assert [r["tool_call_id"] for r in out if r["role"] == "tool"] == ids  # results still link
    assert sum(counts.values()) >= 1
    again, _ = _built([
        {"role": "user", "content": "go", "ts": 1},
        {"role": "assistant", "content": "", "ts": 2, "tool_calls": [
            {"id": TOKEN_ID, "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
    ])
    assert again[2]["tool_calls"][0]["id"] == ids[0]  # stable: a digest of the id


def test_shown_path_redacts_a_secret_in_a_file_or_folder_name():
    """#36 item 7 (the helper the summary and error messages call): a path naming a secret is shown
    redacted; an ordinary path is shown as typed."""
    from cleaner_runtime.redaction.names import shown_path

    assert shown_path("raw/a.jsonl") == "raw/a.jsonl"
    shown = shown_path(f"raw/{TOKEN_ID}/a.jsonl")
    assert TOKEN_ID not in shown and TOKEN_ID[4:] not in shown
    assert shown.startswith("raw/") and shown.endswith("/a.jsonl") and "REDACTED" in shown
