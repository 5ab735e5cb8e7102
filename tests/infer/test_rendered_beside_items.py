"""A chat UI's export that keeps each assistant turn twice: as structured items (`output`: reasoning,
a call, its result, the reply) and as the HTML it showed (`content`, with folded `<details>` steps).
Open WebUI writes this; `new --yes` refused it (issue 35), for six reasons, each a rule of its own:

- the records are a node map of messages two objects deep in each chat (``documents.nested_path``);
- a call and its result both say `status: completed`, which is no link (``fields.CATEGORY_NAMES``)
  and no outcome (``outcomes.LIFECYCLE_WORDS``);
- reading the HTML instead of the items keeps every word and writes no call: candidates are scored
  on the calls any of them writes (``search._calls_alike``);
- the folded steps of the HTML are display chrome, not text to keep (``losses.visible_text``);
- a turn with no items has its text in `content` only: the items first, the text where they are
  absent (``content.plan_content`` looks past fields inside the items for the fallback);
- a reasoning item holds its own start time (``timing.block_times``).
"""

import json

from generator.infer.losses import visible_text
from generator.infer.outcomes import outcome, success_values
from generator.inspect.documents import nested_path
from tests.infer.render_support import render_and_clean

T0 = 1_780_000_000  # 2026-05-28T20:26:40Z


def _chat(ident: str, messages: list[dict]) -> dict:
    nodes = {}
    for n, message in enumerate(messages):
        mid = f"{ident}-m{n}"
        nodes[mid] = {"id": mid, "parentId": f"{ident}-m{n - 1}" if n else None,
                      "childrenIds": [f"{ident}-m{n + 1}"] if n + 1 < len(messages) else [], **message}
    return {"id": ident, "title": f"chat {ident}", "chat": {"history": {"currentId": f"{ident}-m{len(messages) - 1}",
                                                                          "messages": nodes}},
            "created_at": T0, "updated_at": T0 + 60}


def _tool_turn(n: int) -> dict:
    city = ["Paris", "Lagos", "Lima"][n]
    return {"role": "assistant", "model": "model-a", "timestamp": T0 + 20,
            "content": f'<details type="tool_calls" done="true"><summary>Tool Executed</summary>"{city}: 18C"'
                       f"</details>It is 18C in {city} today, with light rain expected.",
            "output": [
                {"type": "reasoning", "id": f"r{n}", "status": "completed", "started_at": T0 + 11,
                 "ended_at": T0 + 14, "content": [{"type": "output_text", "text": f"The user wants the weather in {city}."}]},
                {"type": "function_call", "id": f"fc{n}", "call_id": f"call_{n}", "name": "get_weather",
                 "arguments": json.dumps({"city": city}), "status": "completed"},
                {"type": "function_call_output", "id": f"fco{n}", "call_id": f"call_{n}", "status": "completed",
                 "output": [{"type": "input_text", "text": f"{city}: 18C"}]},
                {"type": "message", "id": f"m{n}", "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": f"It is 18C in {city} today, with light rain expected."}]},
            ]}


def _export() -> list[dict]:
    chats = [_chat(f"c{n}", [{"role": "user", "content": f"What is the weather in {city} right now?",
                              "timestamp": T0 + 10}, _tool_turn(n)])
             for n, city in enumerate(["Paris", "Lagos"])]
    chats.append(_chat("plain", [{"role": "user", "content": "Hello there, are you awake today?", "timestamp": T0},
                                 {"role": "assistant", "content": "I am here and ready to help you.",
                                  "model": "model-a", "timestamp": T0 + 5}]))
    return chats


def test_new_yes_reads_the_items_and_the_text_where_there_are_none(tmp_path):
    samples = tmp_path / "exports"
    samples.mkdir()
    (samples / "all-chats.json").write_text(json.dumps(_export()), encoding="utf-8")
    written = render_and_clean(samples, "chat-ui", tmp_path)
    assert sorted(written) == ["all-chats/c0.jsonl", "all-chats/c1.jsonl", "all-chats/plain.jsonl"]
    assert written["all-chats/c0.jsonl"] == [
        {"role": "meta", "source": "chat-ui", "model": "model-a"},
        {"role": "user", "content": "What is the weather in Paris right now?", "timestamp": "2026-05-28T20:26:50.000Z"},
        {"role": "reasoning", "content": "The user wants the weather in Paris.", "timestamp": "2026-05-28T20:26:51.000Z"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_0", "name": "get_weather", "args": "{\"city\":\"Paris\"}"}], "timestamp": "2026-05-28T20:27:00.000Z"},
        {"role": "tool", "tool_call_id": "call_0", "content": "Paris: 18C", "timestamp": "2026-05-28T20:27:00.000Z"},
        {"role": "assistant", "content": "It is 18C in Paris today, with light rain expected.",
         "timestamp": "2026-05-28T20:27:00.000Z"},
    ]
    assert written["all-chats/plain.jsonl"][1:] == [
        {"role": "user", "content": "Hello there, are you awake today?", "timestamp": "2026-05-28T20:26:40.000Z"},
        {"role": "assistant", "content": "I am here and ready to help you.", "timestamp": "2026-05-28T20:26:45.000Z"},
    ]


def test_a_node_map_two_objects_deep_in_each_element_is_its_records():
    assert nested_path(_export()) == ("chat", "history", "messages")
    # a message list directly under each element is found as before
    assert nested_path([{"id": "a", "messages": [{"role": "user"}]}, {"id": "b", "messages": [{"role": "user"}]}]) == (
        "messages",)
    # elements that are messages themselves hold no records
    assert nested_path([{"role": "user", "content": "hi", "meta": {"x": {"id": "x"}, "y": {"id": "y"}}}]) is None


def test_a_status_that_only_says_completed_is_no_outcome():
    assert success_values(["completed", "completed"]) == []
    assert success_values(["completed", "failed"]) == ["completed"]
    assert success_values(["success"]) == ["success"]
    assert outcome([{"status": "completed"}, {"status": "completed"}]) is None
    assert outcome([{"status": "done"}, {"status": "error"}]) == {"path": "status", "values": ["done"]}


def test_a_folded_rendered_step_is_not_text_to_keep():
    html = '<details type="reasoning" done="true"><summary>Thought for 3 seconds</summary>&gt; Let me see</details>255'
    assert visible_text(html).strip() == "255"
    # a <details> a person wrote (no type: not a UI's rendering of a step) stays text
    typed_by_hand = "<details><summary>Logs</summary>the build failed at step 3</details>"
    assert visible_text(typed_by_hand) == typed_by_hand


def test_a_category_both_sides_hold_is_no_call_link():
    from generator.infer.fields import id_link
    from generator.inspect.links import Link

    by_status = Link("block:function_call", ("status",), "block:function_call_output", ("status",), 1.0, 1.0, 1)
    by_id = Link("block:function_call", ("call_id",), "block:function_call_output", ("call_id",), 1.0, 1.0, 1)
    assert not id_link(by_status) and id_link(by_id)


def test_a_regenerated_answer_beside_the_kept_one_is_refused(tmp_path):
    import subprocess
    import sys

    chats = _export()
    nodes = chats[0]["chat"]["history"]["messages"]
    nodes["c0-m1b"] = {**nodes["c0-m1"], "id": "c0-m1b", "content": "ABANDONED BRANCH: it is sunny.", "output": []}
    nodes["c0-m0"]["childrenIds"].append("c0-m1b")
    samples = tmp_path / "exports"
    samples.mkdir()
    (samples / "all-chats.json").write_text(json.dumps(chats), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "generator", "new", str(samples), "--yes", "--json", "--source",
                           "chat-ui", "-o", str(tmp_path / "p")], capture_output=True, text=True, check=False,
                          timeout=300, cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2]))
    assert done.returncode == 1, done.stdout[-1500:] + done.stderr[-1500:]
    report = json.loads(done.stdout)  # refused on the branches, or on what reading both would lose
    assert report.get("doubts") or report.get("questions") or report.get("losses"), report
    assert not (tmp_path / "p").exists()
