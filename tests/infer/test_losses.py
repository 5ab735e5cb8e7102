"""losses.py: what counts as text a mapping must keep, and how output is searched for it."""

from __future__ import annotations

from generator.infer.losses import _output_text, _windows, is_prose, prose_fields


def test_prose_is_three_words_or_more_and_not_a_time():
    assert is_prose("Restart the export worker.")
    assert not is_prose("ok")
    assert not is_prose("gpt-4o-2024-08-06")
    assert not is_prose("2026-05-16T09:00:00Z and more words")


def test_prose_fields_read_lists_and_json_text_and_skip_noise_keys():
    record = {"steps": ["Search the statistics office.", "Read the primary table."],
              "args": "{\"query\": \"heat pumps in new homes\"}",
              "tools": [{"description": "Searches the web for pages."}], "id": "call_1"}
    fields = sorted(pattern for pattern, _ in prose_fields(record))
    assert fields == ["args.query", "steps.[]", "steps.[]"]


def test_redacted_or_truncated_text_is_still_found_by_one_of_its_windows():
    text = "The nightly export failed because the token sk-live-abc expired at midnight yesterday."
    output = _output_text([{"role": "tool", "content": text.replace("sk-live-abc", "[REDACTED:api-key]")}])
    assert any(window in output for window in _windows(text))
    assert not any(window in output for window in _windows("A completely different sentence, never written."))
