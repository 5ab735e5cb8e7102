"""The profiler: containers, bad lines, bounded sampling, time formats, privacy, the report."""

from __future__ import annotations

import gzip
import json

from generator.inspect import profile_paths, report_text, sample_records, time_formats


def _lines(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def _msgs(n=4, **extra):
    out = []
    for i in range(n):
        out.append({"role": "user" if i % 2 == 0 else "assistant", "content": f"message number {i} with words",
                    "ts": f"2026-05-16T09:00:{i:02d}Z", **extra})
    return out


def test_containers_are_detected_like_the_cleaner_reads_them(tmp_path):
    (tmp_path / "a.jsonl").write_text(_lines(_msgs()))
    (tmp_path / "b.json").write_text(json.dumps(_msgs(), indent=2))
    (tmp_path / "c.json").write_text(json.dumps({"meta": {"v": 1}, "data": {"items": _msgs()}}, indent=2))
    (tmp_path / "d.jsonl.gz").write_bytes(gzip.compress(_lines(_msgs()).encode()))
    (tmp_path / "e.json.gz").write_bytes(gzip.compress(json.dumps(_msgs()).encode()))
    (tmp_path / "notes.txt").write_text("not json at all\n")
    profile = profile_paths([str(tmp_path)])
    by_name = {f.path.rsplit("/", 1)[-1]: f for f in profile.files}
    assert by_name["a.jsonl"].container == "jsonl"
    assert by_name["b.json"].container == "json_array"
    assert by_name["c.json"].container == "json_object"
    assert by_name["c.json"].records_path == ("data", "items")
    assert by_name["d.jsonl.gz"].compressed and by_name["d.jsonl.gz"].container == "jsonl"
    assert by_name["e.json.gz"].compressed and by_name["e.json.gz"].container == "json_array"
    assert by_name["notes.txt"].container == "not_json"
    assert profile.records == 20


def test_torn_and_invalid_lines_are_counted_with_line_numbers(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(_lines(_msgs(2)) + "{broken json\n" + _lines(_msgs(2)) + "[1, 2]\n" + '{"role": "us')
    profile = profile_paths([str(path)])
    f = profile.files[0]
    assert f.bad_count == 3
    where = {w.rsplit(":", 1)[-1]: reason for w, reason in f.bad_lines}
    assert "invalid JSON" in where["3"]
    assert "not an object" in where["6"]
    assert "torn" in where["7"]
    assert profile.records == 4


def test_a_junk_first_line_does_not_hide_a_jsonl_file(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("not-json\n" + _lines(_msgs()))
    profile = profile_paths([str(path)])
    assert profile.files[0].container == "jsonl"
    assert profile.records == 4 and profile.files[0].bad_count == 1


def test_globs_and_missing_paths(tmp_path):
    (tmp_path / "x.jsonl").write_text(_lines(_msgs()))
    profile = profile_paths([str(tmp_path / "*.jsonl"), str(tmp_path / "missing.jsonl")])
    assert profile.records == 4
    assert any("missing.jsonl" in p for p in profile.problems)


def test_bounded_sampling_reads_head_middle_and_tail_and_says_so(tmp_path):
    path = tmp_path / "big.jsonl"
    filler = {"role": "assistant", "content": "x " * 200, "ts": "2026-05-16T09:00:00Z"}
    with path.open("w") as out:
        out.write(json.dumps({"role": "user", "content": "first", "ts": "2026-05-16T09:00:00Z"}) + "\n")
        for _ in range(8000):
            out.write(json.dumps(filler) + "\n")
        out.write(json.dumps({"role": "heartbeat", "ts": "2026-05-16T10:00:00Z"}) + "\n")
    budget = 256 * 1024
    profile = profile_paths([str(path)], max_bytes=budget)
    f = profile.files[0]
    assert not profile.complete and not f.complete
    assert f.bytes_read <= budget
    assert "middle" in f.read and "tail" in f.read
    assert any(k.key == "role=heartbeat" for k in profile.kinds), "a kind only in the tail is still found"
    assert "bounded sample" in report_text(profile)


def test_big_gzip_is_read_from_its_head_only(tmp_path):
    path = tmp_path / "big.jsonl.gz"
    data = _lines(_msgs(2)) * 4000
    path.write_bytes(gzip.compress(data.encode()))
    profile = profile_paths([str(path)], max_bytes=64 * 1024)
    f = profile.files[0]
    assert not f.complete and "decompressed" in f.read
    assert 0 < profile.records < 8000


def test_time_formats():
    assert time_formats("2026-05-16T09:00:00Z") == {"iso"}
    assert time_formats("2026-05-16T11:00:00.123+02:00") == {"iso"}
    assert time_formats("2026-05-16 09:00:00") == {"iso_naive"}
    assert time_formats(1778922000) == {"epoch_s"}
    assert time_formats(1778922000.25) == {"epoch_s"}
    assert time_formats(1778922000123) == {"epoch_ms"}
    assert time_formats(1778922000123456) == {"epoch_us"}
    assert time_formats("1778922000.000100") == {"epoch_s_string"}
    assert time_formats(42) == set()
    assert "strptime:%d/%m/%Y %H:%M:%S" in time_formats("16/05/2026 09:00:00")
    assert "strptime:%m/%d/%Y %H:%M:%S" not in time_formats("16/05/2026 09:00:00")
    both = time_formats("04/03/2026 09:00:00")
    assert {"strptime:%d/%m/%Y %H:%M:%S", "strptime:%m/%d/%Y %H:%M:%S"} <= both
    assert "strptime:%a, %d %b %Y %H:%M:%S %z" in time_formats("Sat, 16 May 2026 09:00:00 +0000")
    assert time_formats("hello world") == set()


def test_report_is_privacy_safe_by_default(tmp_path):
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    prose = "My card ending 4242 was charged twice, please refund the second charge today."
    records = [{"role": "user", "content": prose, "api_token": secret, "ts": "2026-05-16T09:00:00Z"},
               {"role": "assistant", "content": "Refund issued.", "ts": "2026-05-16T09:01:00Z"}]
    path = tmp_path / "s.jsonl"
    path.write_text(_lines(records))
    profile = profile_paths([str(path)])
    for show in (False, True):
        text = report_text(profile, show_values=show)
        dumped = json.dumps(profile.to_dict(show_values=show))
        assert secret not in text and secret not in dumped
    assert prose[:30] not in report_text(profile)
    assert "text (avg" in report_text(profile)


def test_report_names_the_shapes(tmp_path):
    path = tmp_path / "s.jsonl"
    records = [{"session_id": "s-1" if i < 4 else "s-2", "type": "message", "role": r, "text": "hello there",
                "created_at": 1778922000 + i} for i, r in enumerate(["user", "assistant"] * 4)]
    path.write_text(_lines(records))
    profile = profile_paths([str(path)])
    assert profile.session.by == "field" and profile.session.path == ("session_id",)
    text = report_text(profile)
    assert "session_id" in text and "epoch_s" in text and "role=user" in text
    data = profile.to_dict()
    assert data["session"]["field"] == "session_id"
    assert data["timestamps"][0]["path"] == "created_at"
    json.dumps(data)


def test_interleaved_and_cross_file_sessions(tmp_path):
    a = [{"conv": "c1", "role": "user", "content": "hi one"}, {"conv": "c2", "role": "user", "content": "hi two"},
         {"conv": "c1", "role": "assistant", "content": "hello one"}]
    b = [{"conv": "c2", "role": "assistant", "content": "hello two"}]
    (tmp_path / "1.jsonl").write_text(_lines(a))
    (tmp_path / "2.jsonl").write_text(_lines(b))
    profile = profile_paths([str(tmp_path)])
    assert profile.session.by == "field"
    assert profile.session.interleaved and profile.session.across_files
    assert profile.session.sessions == 2


def test_sample_records_gives_one_of_each_kind_first(tmp_path):
    records = [{"type": "message", "role": "user", "content": "q"}] * 5 + [{"type": "heartbeat"}] + [
        {"type": "message", "role": "assistant", "content": "a"}] * 5
    path = tmp_path / "s.jsonl"
    path.write_text(_lines(records))
    got = sample_records([str(path)], n=3)
    assert len(got) == 3
    assert {r.get("role", r["type"]) for r in got} == {"user", "assistant", "heartbeat"}


def test_documents_bigger_than_the_budget_are_read_in_part(tmp_path):
    array = tmp_path / "big.json"
    array.write_text(json.dumps(_msgs(2) * 6000, indent=1))
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"export": {"version": 2, "messages": _msgs(2) * 6000}}))  # one line
    for path, container, records_path in ((array, "json_array", None),
                                          (wrapped, "json_object", ("export", "messages"))):
        profile = profile_paths([str(path)], max_bytes=128 * 1024)
        f = profile.files[0]
        assert (f.container, f.records_path, f.complete) == (container, records_path, False)
        assert 100 < f.records < 12000 and "first" in f.read
        assert {k.key for k in profile.kinds} == {"role=user", "role=assistant"}


def test_a_one_line_json_object_is_a_document(tmp_path):
    path = tmp_path / "conv.json"
    path.write_text(json.dumps({"conversation": {"id": "c1"}, "messages": _msgs(4)}))
    profile = profile_paths([str(path)])
    f = profile.files[0]
    # read as the document it is, as the cleaner's auto-detection now reads it: nothing to name
    assert (f.container, f.records_path, f.one_line) == ("json_object", ("messages",), False)
    assert profile.records == 4
