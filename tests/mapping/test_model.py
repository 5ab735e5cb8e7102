"""The typed mapping (cleaner_runtime.model): its field defaults are the mapping's only defaults, it
gives back exactly the dicts with_defaults and without_empty_defaults give (keys and their order:
the answers file is written from them), and a misspelt key still fails naming it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from cleaner_runtime import model
from cleaner_runtime.mapping import DEFAULTS, MappingError, with_defaults, without_empty_defaults
from cleaner_runtime.model import KindRule, Mapping
from generator.answers import mapping_from

REPO = Path(__file__).resolve().parents[2]
MAPPINGS = sorted([*REPO.glob("tests/fixtures/*/*/mapping.yml"), *REPO.glob("examples/answers/*.yml"),
                   REPO / "benchmarks" / "flat.yml"])
BASE = {"mapping_version": 1, "source": "s", "kinds": [{"role": "user", "content": "text"}]}


def ordered(value):
    """A value with its dicts' key order made visible to ==: two dicts equal in another order differ."""
    return json.dumps(value, ensure_ascii=False)


def read(path: Path) -> dict:
    return mapping_from(yaml.safe_load(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", MAPPINGS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.stem}")
def test_round_trip_gives_back_with_defaults_and_without_empty_defaults(path: Path):
    data = read(path)
    before = copy.deepcopy(data)
    loaded = Mapping.load(data, str(path))
    assert data == before  # loading does not edit what it was given
    assert ordered(loaded.to_dict()) == ordered(with_defaults(data))
    assert ordered(loaded.to_dict(compact=True)) == ordered(without_empty_defaults(with_defaults(data)))
    # and back: a completed or a compacted mapping loads to the same model
    assert Mapping.load(loaded.to_dict()) == loaded
    assert Mapping.load(loaded.to_dict(compact=True)) == loaded


def test_to_dict_is_a_copy():
    loaded = Mapping.load(copy.deepcopy(BASE))
    out = loaded.to_dict()
    out["kinds"][0]["content"] = "changed"
    out["input"]["include"].append("*.txt")
    assert loaded.kinds[0].content == "text"
    assert "*.txt" not in loaded.input.include


def test_the_defaults_are_the_models_fields():
    assert DEFAULTS == model.defaults()
    loaded = Mapping.load(copy.deepcopy(BASE))
    assert loaded.input.container == "auto" and loaded.input.records_path is None
    assert loaded.session.by == "file" and loaded.session.tree is None
    assert loaded.timestamps.fields == ["timestamp"] and loaded.timestamps.timezone == "UTC"
    assert loaded.privacy.redact is True and loaded.privacy.truncate.tool == 20000
    assert loaded.privacy.truncate.other == 50000
    assert loaded.tools.orphan_results == "skip" and loaded.sessions.without_user == "skip"
    assert loaded.unknown_kinds == "fail" and loaded.source_profile == "generic"


def test_the_default_include_is_written_once():
    """The default globs were written out again by inference and migration: now they read DEFAULTS."""
    literal = '"*.jsonl", "*.json", "*.ndjson"'
    holders = [path.relative_to(REPO).as_posix() for folder in ("cleaner_runtime", "generator")
               for path in sorted((REPO / folder).rglob("*.py")) if literal in path.read_text(encoding="utf-8")]
    assert holders == ["cleaner_runtime/model.py"]


def test_attributes_and_written_order():
    data = {"kinds": [{"content": "text", "role": "user", "match": {"type": "u"}}], "source": "s",
            "mapping_version": 1,
            "session": {"by": "field", "field": "sid", "tree": {"parent": "p", "id": "i"}},
            "privacy": {"truncate": {"other": 900}}, "blocks": {"types": {"t": {"as": "text", "field": "x"}}}}
    loaded = Mapping.load(data)
    assert loaded.source == "s" and loaded.mapping_version == 1
    assert loaded.kinds == (KindRule(role="user", content="text", match={"type": "u"}),)
    assert loaded.kinds[0].tool_name is None
    assert loaded.session.field == "sid" and loaded.session.tree.id == "i" and loaded.session.tree.parent == "p"
    assert loaded.privacy.truncate.other == 900 and loaded.privacy.truncate.tool == 20000
    assert loaded.blocks.types == {"t": {"as": "text", "field": "x"}}
    assert ordered(loaded.to_dict()) == ordered(with_defaults(data))
    assert list(loaded.to_dict()["kinds"][0]) == ["content", "role", "match"]
    assert list(loaded.to_dict()["session"]["tree"]) == ["parent", "id"]


def test_polymorphic_values_are_kept_as_written():
    paths = {"mapping_version": 1, "source": "s",
             "kinds": [{"role": "tool_call", "tool_name": {"value": "bash"}, "args": [["a.b", "c"]],
                        "content": {"join": ["x", {"text": "-"}], "sep": ""}}],
             "timestamps": {"fields": "meta.ts"}, "meta": {"model": ["m", "n.o"]}}
    loaded = Mapping.load(copy.deepcopy(paths))
    assert loaded.kinds[0].tool_name == {"value": "bash"} and loaded.kinds[0].args == [["a.b", "c"]]
    assert loaded.timestamps.fields == "meta.ts" and loaded.meta.model == ["m", "n.o"]
    assert loaded.to_dict()["kinds"] == paths["kinds"]


@pytest.mark.parametrize(("change", "named"), [
    (lambda m: m["kinds"][0].update(contents="text"), "kinds[0]: unknown key 'contents'; did you mean 'content'?"),
    (lambda m: m.update(privacy={"redcat": False}), "privacy: unknown key 'redcat'; did you mean 'redact'?"),
    (lambda m: m.update(sesion={}), "unknown key 'sesion'; did you mean 'session'?"),
])
def test_a_misspelt_key_raises_mapping_error_naming_it(change, named):
    data = copy.deepcopy(BASE)
    change(data)
    with pytest.raises(MappingError) as caught:
        Mapping.load(data, "answers.yml")
    assert str(caught.value).startswith("answers.yml: ") and named in str(caught.value)


def test_a_loaded_mapping_loads_as_itself_and_pickles():
    import pickle

    loaded = Mapping.load(copy.deepcopy(BASE))
    assert Mapping.load(loaded) is loaded
    again = pickle.loads(pickle.dumps(loaded))
    assert again == loaded and ordered(again.to_dict()) == ordered(loaded.to_dict())


def test_the_runtime_reads_the_model_not_dicts():
    """The converter's set-up and the runner read typed attributes: no ``.get(key, default)`` that
    could hold a default of its own, no ``mapping[...]`` lookup."""
    import ast

    tree = ast.parse((REPO / "cleaner_runtime" / "convert.py").read_text(encoding="utf-8"))
    converter = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Converter")
    setup = next(n for n in converter.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    assert not [n for n in ast.walk(setup) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "get"]
    run = (REPO / "cleaner_runtime" / "run.py").read_text(encoding="utf-8")
    assert "mapping[" not in run and 'settings["' not in run and "settings.get(" not in run


def test_the_runner_and_the_converter_take_a_model_or_a_dict():
    from cleaner_runtime.convert import Converter, Privacy

    loaded = Mapping.load(copy.deepcopy(BASE))
    assert Converter(loaded).mapping is loaded
    assert Converter(copy.deepcopy(BASE)).mapping == loaded
    with pytest.raises(MappingError):
        Converter({**BASE, "sesion": {}})
    assert Privacy({"truncate": {"tool": 300}}).other_limit == 50000
    assert Privacy(loaded.privacy).tool_limit == 20000


@pytest.mark.parametrize("path", MAPPINGS[:3] + MAPPINGS[-2:], ids=lambda p: p.stem if p.stem != "mapping" else p.parent.name)
def test_the_generator_loads_through_the_model(path: Path):
    """``complete`` (what copier and the answers file are written from) is the model's dict, the
    ``with_defaults`` dict it always was; ``load_answers`` still gives the mapping as written."""
    from generator.answers import load_answers, load_answers_model
    from generator.render import complete

    written = load_answers(path)
    assert written == read(path)
    assert ordered(complete(written)) == ordered(with_defaults(written))
    assert load_answers_model(path) == Mapping.load(written)


def test_the_generator_names_a_misspelt_key():
    from generator.answers import AnswersError
    from generator.render import complete

    with pytest.raises(AnswersError, match="unknown key 'contents'; did you mean 'content'"):
        complete({**BASE, "kinds": [{"role": "user", "contents": "x"}]})
