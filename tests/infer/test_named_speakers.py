"""roles.named_text: a kind whose values name two speakers. Claude Code test files write
`type: assistant` beside `userType: human` (the account type, on every row of one file and absent from
the next): the kind named itself by its finer value, `human`, and an assistant's replies were written as
the person's, under `--yes`, with no question (issue 35: a wrong render with exit 0)."""

from __future__ import annotations

import json

from generator.infer import infer

ASKS = ["Please check why the nightly build failed.", "Can you rerun the flaky integration tests?",
        "What changed in the cache config last week?"]
SAYS = ["The nightly build failed because the cache key changed.",
        "I reran them; two tests still time out on the mock server.",
        "Someone raised the eviction limit and renamed the bucket."]


def _write(tmp_path) -> list[str]:
    flagged, plain = [], []
    for i in range(3):
        flagged += [{"type": "user", "userType": "human", "ts": f"2026-05-16T09:0{i}:00Z", "message": {"content": ASKS[i]}},
                    {"type": "assistant", "userType": "human", "ts": f"2026-05-16T09:0{i}:30Z",
                     "message": {"content": SAYS[i]}}]
        plain += [{"type": "user", "ts": f"2026-05-17T09:0{i}:00Z", "message": {"content": SAYS[i][::-1]}},
                  {"type": "assistant", "ts": f"2026-05-17T09:0{i}:30Z", "message": {"content": ASKS[i][::-1]}}]
    for name, records in (("a.jsonl", flagged), ("b.jsonl", plain)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return [str(tmp_path)]


def test_replies_are_never_written_as_the_person_s(tmp_path):
    inference = infer(_write(tmp_path))
    rule = next(k for k in inference.mapping["kinds"] if k.get("match") == {"type": "assistant", "userType": "human"})
    question = next((q for q in inference.questions if q.key == "kinds[type=assistant,userType=human].role"), None)
    assert rule["role"] == "assistant" or question is not None, rule

