"""inspect: an array of conversations whose messages sit in a map keyed by their own ids (a ChatGPT
data export's ``mapping``) is read as each conversation's record list, in a tree by ``parent``."""

from __future__ import annotations

import json

from generator.infer import infer
from generator.inspect import profile_paths
from generator.inspect.documents import node_map


def conversation(n: int) -> dict:
    nodes = {
        f"root-{n}": {"id": f"root-{n}", "message": None, "parent": None, "children": [f"a-{n}"]},
        f"b-{n}": {"id": f"b-{n}", "parent": f"a-{n}", "children": [],
                   "message": {"author": {"role": "assistant"}, "create_time": 1778922005.0 + n,
                               "content": {"content_type": "text", "parts": ["Seven people pay 221.84 each."]}}},
        f"a-{n}": {"id": f"a-{n}", "parent": f"root-{n}", "children": [f"b-{n}"],
                   "message": {"author": {"role": "user"}, "create_time": 1778922000.0 + n,
                               "content": {"content_type": "text", "parts": ["How much does each of us pay?"]}}},
    }
    return {"id": f"conv-{n}", "title": "Splitting a bill", "mapping": nodes}


def test_a_map_of_objects_keyed_by_their_ids_is_a_node_map():
    assert node_map(conversation(1)["mapping"])
    assert not node_map({"a": {"x": 1}, "b": {"x": 2}})  # keyed by something else: settings, not records
    assert not node_map({"only": {"id": "only"}})


def test_each_conversation_is_a_session_of_its_nodes_in_a_tree(tmp_path):
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([conversation(1), conversation(2)]), encoding="utf-8")
    profile = profile_paths([str(path)])
    assert profile.files[0].records_path == ("*", "mapping") and len(profile.recs) == 6
    mapping = infer([str(path)]).mapping
    assert mapping["input"]["records_path"] == "*.mapping"
    assert mapping["session"]["by"] == "element" and mapping["session"]["field"] == "document.id"
    assert mapping["session"]["tree"] == {"id": "id", "parent": "parent"}
