"""Records that hold their replies as records of the same shape (a chat export's message tree) are
read as records, after their parent (issue 35: librechat-export's `children` were never read, so every
reply's text was lost; its model sits beside the tree in the document)."""

import json

from generator.inspect.nesting import child_lists
from tests.infer.render_support import render_and_clean


def _msg(n: int, who: str, text: str, replies: list | None = None) -> dict:
    return {"uid": f"t{n}", "author": who, "body": text, "sent": f"2026-02-0{n}T08:00:00Z",
            "up": f"t{n - 1}" if n > 1 else None, "answers": replies or []}


def test_a_list_of_same_shape_objects_is_replies_and_a_call_list_is_not():
    tree = _msg(1, "person", "Hi", [_msg(2, "bot", "Hello", [_msg(3, "person", "Bye")])])
    tree["calls"] = [{"name": "lookup", "args": {"q": "x"}}]
    assert child_lists([tree]) == [("answers",)]


def test_new_yes_reads_the_reply_chain_and_the_model_beside_it(tmp_path):
    # before: only the root message was a record; the replies' text reached no output and --yes refused
    samples = tmp_path / "exports"
    samples.mkdir()
    for c in (1, 2):
        doc = {"conversation": f"conv-{c}", "settings": {"model": f"model-{c}"},
               "thread": [_msg(1, "person", f"Plan a trip {c}", [
                   _msg(2, "bot", f"Where to, trip {c}?", [_msg(3, "person", "Lisbon", [
                       _msg(4, "bot", "Lisbon it is.")])])])]}
        (samples / f"conv{c}.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    written = render_and_clean(samples, "chats", tmp_path)
    records = written["conv2.jsonl"]
    assert [(r["role"], r.get("content")) for r in records[1:]] == [
        ("user", "Plan a trip 2"), ("assistant", "Where to, trip 2?"), ("user", "Lisbon"),
        ("assistant", "Lisbon it is.")]
    assert records[0]["model"] == "model-2"
