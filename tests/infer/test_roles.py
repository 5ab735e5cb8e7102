"""roles.py: a kind's role from its own records, the first rule of the table that applies."""

from __future__ import annotations

import json

from generator.infer import infer
from generator.infer.roles import ROLE_RULES, guess


def write(tmp_path, records: list[dict]) -> list[str]:
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return [str(path)]


def role_of(inf, **match) -> tuple[str, float]:
    rule = next(k for k in inf.mapping["kinds"] if k.get("match") == match)
    decision = next(d for d in inf.decisions if d.key == f"kinds[{','.join(f'{k}={v}' for k, v in match.items())}].role")
    return rule["role"], decision.confidence


def chat(extra: list[dict]) -> list[dict]:
    out = []
    for i in range(3):
        out.append({"session": "s1", "kind": "user", "at": f"2026-05-16T09:0{i}:00Z",
                    "text": f"Please look at the failing build number {i} and tell me why."})
        out.append({"session": "s1", "kind": "assistant", "at": f"2026-05-16T09:0{i}:30Z",
                    "text": f"Build {i} fails because the cache key changed after the upgrade."})
    return out + extra


def test_the_guess_comes_last_and_always_applies():
    assert ROLE_RULES[-1] is guess


def test_a_debug_level_outweighs_a_role_name(tmp_path):
    debug = [{"session": "s1", "kind": "assistant_trace", "level": "debug", "at": "2026-05-16T09:05:00Z",
              "text": f"retrying the model call after a short pause ({i})"} for i in range(2)]
    inf = infer(write(tmp_path, chat(debug)))
    assert role_of(inf, kind="assistant_trace")[0] == "skip"
    assert role_of(inf, kind="assistant") == ("assistant", 0.9)


def test_a_kind_named_like_a_speaker_takes_that_role_with_confidence(tmp_path):
    inf = infer(write(tmp_path, chat([])))
    assert role_of(inf, kind="user") == ("user", 0.9)
