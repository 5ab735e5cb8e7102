"""Blocks whose text sits under a name that says nothing, and result records made of result blocks
(issue 35: kiro-cli's `{kind: text, data}` blocks were skipped, and its ToolResults' blocks lost their
outcome; a result's content was the object holding its link and status)."""

import json

from tests.infer.render_support import render_and_clean


def _session(n: int) -> list[dict]:
    return [
        {"kind": "Question", "id": f"m{n}1", "parts": [{"kind": "text", "data": f"Check the disk usage of volume {n}"}],
         "meta": {"at": 1736946000 + n * 100}},
        {"kind": "Answer", "id": f"m{n}2", "parts": [
            {"kind": "text", "data": "I will look at the volume now."},
            {"kind": "toolUse", "data": {"useId": f"u{n}", "name": "df", "input": {"volume": n}}}]},
        {"kind": "ToolReturns", "id": f"m{n}3", "parts": [{"kind": "toolResult", "data": {
            "useId": f"u{n}", "parts": [{"kind": "text", "data": f"volume {n}: 41% used"}],
            "status": "success" if n == 1 else "error"}}]},
        {"kind": "Answer", "id": f"m{n}4", "parts": [{"kind": "text", "data": f"Volume {n} is fine."}]},
    ]


def test_new_yes_reads_text_blocks_and_result_blocks_with_their_outcome(tmp_path):
    # before: the text blocks were skipped (their text lost, so `new --yes` refused); with them read,
    # the result's content was the whole `data` object and its `ok` was dropped
    samples = tmp_path / "raw"
    samples.mkdir()
    for n in (1, 2):
        (samples / f"s{n}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _session(n)), encoding="utf-8")
    written = render_and_clean(samples, "vol", tmp_path)
    at = {1: "2025-01-15T13:01:40.000Z", 2: "2025-01-15T13:03:20.000Z"}
    for n, ok, shown in ((1, True, "volume 1: 41% used"), (2, False, "Error: volume 2: 41% used")):
        records = written[f"s{n}.jsonl"]
        assert records[1:] == [
            {"role": "user", "content": f"Check the disk usage of volume {n}", "timestamp": at[n]},
            {"role": "assistant", "content": "I will look at the volume now.", "timestamp": at[n]},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"u{n}", "name": "df", "args": json.dumps({"volume": n}, separators=(",", ":"))}],
             "timestamp": at[n]},
            {"role": "tool", "tool_call_id": f"u{n}", "content": shown, "ok": ok, "timestamp": at[n]},
            {"role": "assistant", "content": f"Volume {n} is fine.", "timestamp": at[n]},
        ], n
