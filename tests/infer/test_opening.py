"""opening.py and the attachment rules beside it, on small ticket documents: the input and the
decision expected of it."""

from __future__ import annotations

import json

from generator.infer import CONFIDENT, infer
from generator.infer.losses import _call_items
from generator.infer.opening import request_fields


def ticket(n: int, first_repeats: bool = True, **extra) -> dict:
    description = f"Our nightly export number {n} fails with AccessDenied since this morning."
    return {"id": str(n), "url": f"https://desk.example.com/api/tickets/{n}.json", "created_at": "2026-05-16T09:00:00Z",
            "subject": f"Exports fail since this morning ({n})", "raw_subject": f"Exports fail since this morning ({n})",
            "description": description, "title": "Export problem", **extra,
            "comments": [
                {"id": 1, "author": {"role": "end-user"}, "created_at": "2026-05-16T09:00:00Z",
                 "body": description if first_repeats else "Any news on my export problem, please?",
                 "attachments": []},
                {"id": 2, "author": {"role": "agent"}, "created_at": "2026-05-16T09:05:00Z",
                 "body": "Your bucket policy dropped our role; please add it back.",
                 "attachments": [{"file_name": "policy.json", "content_type": "application/json",
                                  "content_url": "https://desk.example.com/attachments/token/abc/policy.json"}]},
            ]}


def write(tmp_path, docs: list[dict]) -> list[str]:
    paths = []
    for doc in docs:
        path = tmp_path / f"ticket-{doc['id']}.json"
        path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        paths.append(str(path))
    return paths


def test_request_fields_are_the_prose_fields_named_like_a_request_in_document_order():
    docs = [ticket(1), ticket(2)]
    assert request_fields(docs) == [("subject",), ("description",)]  # not the url, the title or raw_subject


def test_a_field_that_is_not_prose_in_every_document_is_not_the_request():
    docs = [ticket(1), {**ticket(2), "description": "n/a"}]
    assert request_fields(docs) == [("subject",)]


def test_the_document_request_opens_the_session_and_the_comment_repeating_it_is_skipped(tmp_path):
    inf = infer(write(tmp_path, [ticket(1), ticket(2)]))
    opening = inf.mapping["session"]["opening"]
    assert opening == [{"as": "text", "role": "user", "timestamp": "document.created_at",
                        "field": {"join": ["document.subject", "document.description"], "sep": "\n\n"}}]
    first = inf.mapping["kinds"][0]
    assert first["role"] == "skip" and first["same"] == {"body": "document.description"}
    assert inf.mapping["input"]["document_key"] == "document"


def test_no_skip_rule_when_no_record_repeats_the_request(tmp_path):
    inf = infer(write(tmp_path, [ticket(1, first_repeats=False), ticket(2, first_repeats=False)]))
    assert inf.mapping["session"]["opening"]
    assert not any("same" in kind for kind in inf.mapping["kinds"])


def test_attachments_typed_by_media_type_are_not_content_blocks(tmp_path):
    inf = infer(write(tmp_path, [ticket(1), ticket(2)]))
    assert not inf.mapping["blocks"]["types"]
    assert not [q for q in inf.questions if q.key.startswith("blocks")]
    assert all(d.confidence >= CONFIDENT for d in inf.decisions if d.key.startswith("session.opening"))


def test_a_call_and_the_result_answering_it_count_as_one_call():
    calls = {"content": [{"id": "c1", "name": "lookup", "arguments": "{}"}]}
    results = {"content": [{"call_id": "c1", "name": "lookup", "content": "found"}]}
    anonymous = {"calls": [{"name": "lookup", "arguments": {"q": 1}}]}
    assert _call_items(calls) == ["c1"] and _call_items(results) == ["c1"]
    assert _call_items(anonymous) == [None]
