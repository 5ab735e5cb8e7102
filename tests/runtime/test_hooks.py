"""The hooks of cleaner_hooks.py: checked before anything is read, called with typed contexts at four
points (a whole document, a record, a record of a known kind, a finished session), and whatever
they return goes on through the pipeline like the rest.

Each test runs cleaner_runtime in this process, as a rendered script runs it, with a hooks
module written to a temporary cleaner_hooks.py."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from cleaner_runtime import hooks, run
from generator.paths import runtime_dir, template_dir
from generator.render import complete

SCHEMA = runtime_dir() / "trajectory-v1.schema.json"
TS = "2026-05-16T09:00:0{}Z"
MAPPING = complete({
    "mapping_version": 1, "source": "hook-agent", "timestamps": {"fields": ["ts"]},
    "kinds": [
        {"name": "question", "match": {"type": "user"}, "role": "user", "content": "text"},
        {"name": "answer", "match": {"type": "assistant"}, "role": "assistant", "content": "text"},
        {"name": "noise", "match": {"type": "progress"}, "role": "skip"},
    ],
})
RECORDS = [
    {"type": "user", "text": "hello", "ts": TS.format(1)},
    {"type": "progress", "ts": TS.format(2)},
    {"type": "assistant", "text": "hi", "ts": TS.format(3)},
]


def jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def load_hooks(source: str, folder: Path) -> ModuleType:
    path = folder / "cleaner_hooks.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("cleaner_hooks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Run:
    code: int
    outputs: dict[str, list[dict]]  # output file -> its records
    summary: str  # stdout
    err: str
    hooks: ModuleType


def clean(folder: Path, capsys, source: str, files: dict[str, str] | None = None, mapping: dict | None = None,
          jobs: str = "1") -> Run:
    """Run the cleaner on ``files`` (name -> text, by default one session of RECORDS) with the hooks ``source``."""
    raw, out = folder / "raw", folder / "out"
    raw.mkdir(parents=True)
    for name, text in (files or {"s.jsonl": jsonl(RECORDS)}).items():
        (raw / name).write_text(text, encoding="utf-8")
    module = load_hooks(source, folder)
    code = run.main(mapping or MAPPING, module, argv=["--input", str(raw), "--output", str(out), "--schema",
                                                     str(SCHEMA), "--jobs", jobs])
    captured = capsys.readouterr()
    outputs = {p.relative_to(out).as_posix(): [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()]
               for p in sorted(out.rglob("*.jsonl"))} if out.exists() else {}
    return Run(code, outputs, captured.out, captured.err, module)


def contents(records: list[dict]) -> list[str]:
    return [r.get("content") for r in records[1:]]


# -- checked before anything is read

@pytest.mark.parametrize("name", ["transform_recrod", "transform_records", "transform_message", "transfrom_session"])
def test_a_function_that_looks_like_a_hook_but_is_none_stops_the_cleaner(tmp_path, capsys, name):
    done = clean(tmp_path, capsys, f"HOOKS_API = 2\n\n\ndef {name}(record, ctx):\n    return record\n")
    assert done.code == 2 and done.outputs == {}
    assert str(tmp_path / "cleaner_hooks.py") in done.err and f"{name} is not a hook" in done.err
    assert "transform_document, transform_record, transform_kind, transform_session" in done.err
    assert "Traceback" not in done.err


def test_the_closest_hook_is_suggested_and_helpers_are_left_alone(tmp_path, capsys):
    source = ("HOOKS_API = 2\n\n\ndef _transform_text(text):\n    return text\n\n\n"
              "def shorten(text):\n    return text[:10]\n\n\ndef transform_recrod(record, ctx):\n    return record\n")
    done = clean(tmp_path, capsys, source)
    assert done.code == 2 and "did you mean transform_record?" in done.err
    assert "_transform_text" not in done.err and "shorten" not in done.err


@pytest.mark.parametrize(("source", "message"), [
    ("HOOKS_API = 3\n", "newer than this cleaner's 2"),
    ("HOOKS_API = '2'\n", "HOOKS_API = '2'"),
    ("HOOKS_API = 1\n\n\ndef transform_kind(record, ctx):\n    return record\n", "transform_kind needs HOOKS_API = 2"),
    ("HOOKS_API = 2\n\n\ndef transform_record(record):\n    return record\n",
     "transform_record(record) cannot be called with two arguments (record, ctx)"),
    ("HOOKS_API = 2\ntransform_session = 'off'\n", "transform_session is a str, not a function"),
])
def test_a_hooks_file_the_cleaner_cannot_use_stops_it_naming_the_problem(tmp_path, capsys, source, message):
    done = clean(tmp_path, capsys, source)
    assert done.code == 2 and done.outputs == {} and message in done.err, done.err


def test_the_rendered_default_defines_no_hook_so_an_uncustomised_cleaner_does_no_hook_work(tmp_path):
    module = load_hooks((template_dir() / "project" / "cleaner_hooks.py").read_text(encoding="utf-8"), tmp_path)
    checked = hooks.Hooks(module)
    assert checked.api == hooks.HOOKS_API == 2
    assert (checked.document, checked.record, checked.kind, checked.session) == (None, None, None, None)
    assert not checked.per_record


# -- transform_record

def test_transform_record_gets_a_typed_context_and_may_return_several_records(tmp_path, capsys):
    source = '''HOOKS_API = 2


def transform_record(record, ctx):
    assert ctx.file.endswith("s.jsonl") and ctx.kind is None
    if record["type"] == "user":
        return [dict(record, text=f"{record['text']} at {ctx.line}"), dict(record, text=ctx.where.rsplit("/", 1)[-1])]
    return record
'''
    done = clean(tmp_path, capsys, source)
    assert done.code == 0, done.summary
    assert contents(done.outputs["s.jsonl"]) == ["hello at 1", "s.jsonl:1", "hi"]


def test_transform_record_drops_with_none_or_an_empty_list_and_the_summary_counts_it(tmp_path, capsys):
    source = '''HOOKS_API = 2


def transform_record(record, ctx):
    if record["type"] == "progress":
        return None
    if record.get("text") == "drop me":
        return []
    return record
'''
    records = [*RECORDS, {"type": "assistant", "text": "drop me", "ts": TS.format(4)}]
    done = clean(tmp_path, capsys, source, {"s.jsonl": jsonl(records)})
    assert done.code == 0 and contents(done.outputs["s.jsonl"]) == ["hello", "hi"]
    assert "2 x dropped by cleaner_hooks.transform_record (first at " in done.summary
    assert "s.jsonl:2)" in done.summary


@pytest.mark.parametrize(("returned", "message"), [
    ("'text'", "cleaner_hooks.transform_record returned str, not a record (dict), a list of records or None"),
    ("[record, 42]", "cleaner_hooks.transform_record returned a list whose item 2 is a int"),
])
def test_a_record_hook_returning_something_else_fails_its_session_naming_the_place(tmp_path, capsys, returned, message):
    source = f"HOOKS_API = 2\n\n\ndef transform_record(record, ctx):\n    return {returned}\n"
    done = clean(tmp_path, capsys, source)
    assert done.code == 1 and done.outputs == {}
    assert f"s.jsonl:1: {message}" in done.err and "fix cleaner_hooks.py" in done.err


# -- transform_kind

def test_transform_kind_sees_the_name_of_the_rule_that_matched(tmp_path, capsys):
    source = '''HOOKS_API = 2
SEEN = []


def transform_kind(record, ctx):
    SEEN.append((ctx.line, ctx.kind))
    if ctx.kind == "noise":  # turn what the mapping skips into an answer
        return dict(record, type="assistant", text="(working)")
    if ctx.kind == "answer":
        return [record, dict(record, text=record["text"] + "!")]
    return record
'''
    records = [*RECORDS, {"type": "unheard-of", "ts": TS.format(4)}]
    mapping = dict(MAPPING, unknown_kinds="skip")
    done = clean(tmp_path, capsys, source, {"s.jsonl": jsonl(records)}, mapping)
    assert done.code == 0, done.summary
    assert contents(done.outputs["s.jsonl"]) == ["hello", "(working)", "hi", "hi!"]
    assert done.hooks.SEEN == [(1, "question"), (2, "noise"), (3, "answer")]  # not the unknown record
    assert "1 x unknown kind" in done.summary


def test_transform_kind_comes_after_transform_record_and_sees_the_kind_of_what_it_returned(tmp_path, capsys):
    source = '''HOOKS_API = 2


def transform_record(record, ctx):
    return dict(record, type="assistant") if record["type"] == "progress" else record


def transform_kind(record, ctx):
    return dict(record, text=f"{ctx.kind}: {record.get('text', 'from progress')}")
'''
    done = clean(tmp_path, capsys, source)
    assert done.code == 0
    assert contents(done.outputs["s.jsonl"]) == ["question: hello", "answer: from progress", "answer: hi"]


# -- transform_document

def test_transform_document_sees_a_jsonl_files_records_and_may_reorder_and_add(tmp_path, capsys):
    source = '''HOOKS_API = 2


def transform_document(records, ctx):
    assert ctx.container == "jsonl" and ctx.file.endswith("s.jsonl")
    records = sorted(records, key=lambda r: r["ts"])
    return records + [{"type": "assistant", "text": f"{len(records)} records", "ts": records[-1]["ts"]}]
'''
    shuffled = [RECORDS[2], RECORDS[0], RECORDS[1]]
    done = clean(tmp_path, capsys, source, {"s.jsonl": jsonl(shuffled) + "not json\n"})
    assert done.code == 0, done.summary
    assert contents(done.outputs["s.jsonl"]) == ["hello", "hi", "3 records"]
    assert "1 x invalid line: invalid JSON" in done.summary and "s.jsonl:4)" in done.summary  # still named by its line


def test_a_record_transform_document_added_is_named_by_its_position_in_messages(tmp_path, capsys):
    source = '''HOOKS_API = 2


def transform_document(records, ctx):
    return records + [{"type": "mystery", "ts": records[0]["ts"]}]
'''
    done = clean(tmp_path, capsys, source)
    assert done.code == 1 and "s.jsonl (record 4): unknown record kind" in done.err


def test_transform_document_flattens_a_json_tree_before_the_records_are_found(tmp_path, capsys):
    source = '''HOOKS_API = 2


def transform_document(document, ctx):
    assert ctx.container == "json_object"

    def walk(run):
        yield {key: value for key, value in run.items() if key != "children"}
        for child in run.get("children", []):
            yield from walk(child)

    return {"records": list(walk(document))}
'''
    tree = {"type": "user", "text": "root", "ts": TS.format(1), "children": [
        {"type": "assistant", "text": "child", "ts": TS.format(2), "children": [
            {"type": "assistant", "text": "grandchild", "ts": TS.format(3)}]},
        {"type": "user", "text": "second", "ts": TS.format(4)}]}
    done = clean(tmp_path, capsys, source, {"tree.json": json.dumps(tree, indent=2)})
    assert done.code == 0, done.summary
    assert contents(done.outputs["tree.jsonl"]) == ["root", "child", "grandchild", "second"]


def test_transform_document_returning_none_reads_nothing_from_the_file_and_is_counted(tmp_path, capsys):
    source = '''HOOKS_API = 2


def transform_document(document, ctx):
    return None if ctx.file.endswith("b.jsonl") else document
'''
    done = clean(tmp_path, capsys, source, {"a.jsonl": jsonl(RECORDS), "b.jsonl": jsonl(RECORDS)})
    assert done.code == 0 and list(done.outputs) == ["a.jsonl"]
    assert "1 x file dropped by cleaner_hooks.transform_document (first at " in done.summary
    assert "b.jsonl)" in done.summary


def test_a_jsonl_document_hook_must_return_a_list_of_records(tmp_path, capsys):
    source = "HOOKS_API = 2\n\n\ndef transform_document(records, ctx):\n    return {'records': records}\n"
    done = clean(tmp_path, capsys, source)
    assert done.code == 1 and "cleaner_hooks.transform_document returned dict, not a list of records" in done.err


def test_a_document_hook_that_raises_fails_the_files_session(tmp_path, capsys):
    source = "HOOKS_API = 2\n\n\ndef transform_document(records, ctx):\n    raise KeyError('runs')\n"
    done = clean(tmp_path, capsys, source)
    assert done.code == 1
    assert "s.jsonl: cleaner_hooks.transform_document raised KeyError: 'runs'; fix cleaner_hooks.py" in done.err


# -- transform_session, the old API, and several processes

def test_transform_session_gets_the_session_key_and_its_files(tmp_path, capsys):
    source = '''HOOKS_API = 2


def transform_session(records, ctx):
    assert isinstance(ctx.files, tuple) and ctx.files[0].endswith("s.jsonl") and ctx.key == ctx.files[0]
    return records[:1] + [dict(records[1], content=f"{len(ctx.files)} file")] + records[2:]
'''
    done = clean(tmp_path, capsys, source)
    assert done.code == 0, done.summary
    assert contents(done.outputs["s.jsonl"]) == ["1 file", "hi"]


def test_hooks_written_for_the_first_api_keep_working(tmp_path, capsys):
    source = '''HOOKS_API = 1


def transform_record(record, where):
    assert isinstance(where, str)
    return dict(record, text=record.get("text", "") + " @" + where.rsplit(":", 1)[-1])


def transform_session(records, info):
    assert set(info) == {"key", "files"} and isinstance(info["files"], list)
    return records
'''
    done = clean(tmp_path, capsys, source)
    assert done.code == 0, done.summary
    assert contents(done.outputs["s.jsonl"]) == ["hello @1", "hi @3"]


def test_hooks_give_the_same_bytes_with_several_processes(tmp_path, capsys):
    source = '''HOOKS_API = 2


def transform_record(record, ctx):
    return [record, dict(record, text=f"{record.get('text')} ({ctx.line})")]
'''
    files = {f"s{i}.jsonl": jsonl(RECORDS) for i in range(4)}
    one = clean(tmp_path / "one", capsys, source, files, jobs="1")
    two = clean(tmp_path / "two", capsys, source, files, jobs="2")
    assert one.code == two.code == 0
    assert one.outputs == two.outputs and len(one.outputs) == 4
    assert contents(one.outputs["s0.jsonl"]) == ["hello", "hello (1)", "hi", "hi (3)"]
