"""Hostile samples: names and values that try to escape the template render inert and behave exactly.

A mapping's strings reach the rendered script, README, answers file and agent prompt. Quotes,
backslashes, `{{ }}`, `{% %}`, `'''`, newlines, very long names, Python keywords and names of
builtins must all come out as data: the script compiles, passes ruff, and cleans records whose
field names and values are those strings into exactly the records the mapping says. The
generator never evaluates anything from the mapping or the samples.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from .support import TIMEOUT, no_traceback, run_cleaner

PIECES = [
    "'", '"', "\\", "\\n", "{{", "}}", "{%", "%}", "{#", "#}", "'''", '"""', "\n", "\r\n", "\t", "#", "$x", "${x}",
    "{{ 7*7 }}", "{% raw %}", "{% endraw %}", "{{ cycler.__init__.__globals__.os.system('touch PWNED') }}",
    "__import__('os').system('touch PWNED')", "'); import os; os.system('touch PWNED') #", "class", "def", "None",
    "True", "lambda", "import", "print", "open", "exec", "eval", "__builtins__", "__file__", "sys", "MAPPING",
    "SOURCE", "é", "日本", "\u2028", "\u00a0", " ", "x" * 300, "-", "_", "a b", "[", "]", "|", "`", "---", ": ",
    "&anchor", "*alias", "!!python/object:os.system", "<script>", "0", "05", "7", "²", "٣", "1e3", "null", "~",
]
text = st.lists(st.sampled_from(PIECES), min_size=1, max_size=4).map("".join)
# A key used as a dotted path (the `match` keys): its segments are looked up in nested objects.
segment = text.filter(lambda s: "." not in s)
TS = "2026-05-16T09:00:00Z"


def nest(path: list[str], value) -> dict:
    """The record shape a dotted `match` key reads: segment by segment in nested objects."""
    for key in reversed(path):
        value = {key: value}
    return value


def contains(full, part) -> bool:
    """``part`` is ``full``, or (for mappings) a subset of it: the answers file adds the defaults."""
    if isinstance(part, dict) and isinstance(full, dict):
        return all(key in full and contains(full[key], value) for key, value in part.items())
    return full == part


def merge(a: dict, b: dict) -> dict:
    out = dict(a)
    for key, value in b.items():
        out[key] = merge(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else value
    return out


@st.composite
def hostile(draw):
    kind_key = draw(st.lists(segment, min_size=1, max_size=2))  # a dotted `match` key
    user_value, assistant_value = draw(st.lists(text, min_size=2, max_size=2, unique=True))
    content_keys = draw(st.lists(text, min_size=1, max_size=2))  # content as a list of keys
    time_key = draw(text)
    model_key = draw(text)
    keys = [kind_key[0], content_keys[0], time_key, model_key]
    if len(set(keys)) < len(keys):  # the sample record needs each at its own place
        content_keys = ["c\x01" + content_keys[0], *content_keys[1:]]
        time_key, model_key = "t\x01" + time_key, "m\x01" + model_key
    return {
        "source": draw(text.filter(lambda s: s.strip())),
        "name": draw(text),
        "kind_key": kind_key,
        "values": (user_value, assistant_value),
        "content_keys": content_keys,
        "time_key": time_key,
        "model_key": model_key,
        "model": draw(text.filter(lambda s: s.strip())),
        "texts": draw(st.lists(text, min_size=2, max_size=2)),
    }


def mapping_for(h: dict) -> dict:
    dotted = ".".join(h["kind_key"])
    return {
        "mapping_version": 1,
        "source": h["source"],
        "timestamps": {"fields": [[h["time_key"]]]},
        "meta": {"model": [[h["model_key"]]]},
        "kinds": [
            {"name": h["name"], "match": {dotted: h["values"][0]}, "role": "user", "content": [h["content_keys"]]},
            {"name": h["name"] + "'", "match": {dotted: [h["values"][1]]}, "role": "assistant",
             "content": [h["content_keys"]]},
        ],
        "privacy": {"redact": False},
    }


def records_for(h: dict) -> list[dict]:
    out = []
    for value, body in zip(h["values"], h["texts"]):
        record = merge(nest(h["kind_key"], value), nest(h["content_keys"], body))
        record[h["time_key"]] = TS
        record[h["model_key"]] = h["model"]
        out.append(record)
    return out


@settings(max_examples=15, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(h=hostile())
@example(h={  # found by this test: U+2028 in text once split a record across lines for splitlines()
    "source": "'", "name": "'''", "kind_key": ["'"], "values": ("'", "''''"), "content_keys": ["c\x01'"],
    "time_key": "t\x01''", "model_key": "m\x01'", "model": "''", "texts": ["'", "''\u2028"]})
@example(h={  # digits in dotted keys: "05", "²" and "٣" are keys, "7" indexes (or names the key "7")
    "source": "{{ 7*7 }}", "name": "{% raw %}", "kind_key": ["05", "²", "٣", "7"], "values": ("None", "class"),
    "content_keys": ["__builtins__", "\n"], "time_key": "print", "model_key": "'''", "model": "\"\"\"",
    "texts": ["{{", "\\"]})
def test_hostile_names_and_values_render_inert_and_clean_exactly(h, tmp_path_factory):
    from generator.answers import load_answers
    from generator.render import render_new

    work = tmp_path_factory.mktemp("hostile")
    sample = work / "sample.jsonl"
    sample.write_text("".join(json.dumps(r) + "\n" for r in records_for(h)), encoding="utf-8")
    mapping = mapping_for(h)
    rendered = render_new(mapping, [sample], work / "project")
    project = rendered.path
    assert rendered.cleaner_exit == 0, rendered.cleaner_output

    script = project / "clean_to_trajectory_jsonl.py"
    compile(script.read_text(encoding="utf-8"), str(script), "exec")
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=project,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    answers = load_answers(project / ".copier-answers.yml")
    for key, value in mapping.items():
        assert contains(answers[key], value), f"{key} did not survive the answers file: {answers[key]!r}"

    result = run_cleaner(project, "--input", str(sample), "--output", str(work / "out"))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = (work / "out" / "sample.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 4, "one record per line, whatever the text holds"
    written = [json.loads(line) for line in lines[:-1]]
    assert written == [
        {"role": "meta", "source": h["source"], "model": h["model"]},
        {"role": "user", "content": h["texts"][0], "timestamp": TS},
        {"role": "assistant", "content": h["texts"][1], "timestamp": TS},
    ]
    assert not list(work.rglob("PWNED")) and not Path("PWNED").exists()


def test_samples_are_data_never_code(tmp_path, answers_dir):
    """Samples whose keys and values are template and Python payloads are copied and cleaned as text."""
    payloads = ["{{ 7*7 }}", "{% for x in range(3) %}x{% endfor %}",
                "{{ cycler.__init__.__globals__.os.system('touch PWNED') }}",
                "__import__('os').system('touch PWNED')", "'''\n\"\"\"\\"]
    rows = [{"type": "user", "text": p, "ts": TS, p: p} for p in payloads]
    rows.append({"type": "assistant", "text": "ok", "ts": TS})
    sample = tmp_path / "payload.jsonl"
    sample.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    from .support import run_generator

    result = run_generator("new", str(sample), "--answers", str(answers_dir / "corpus.yml"), "-o", "proj",
                           cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    project = tmp_path / "proj"
    assert (project / "tests" / "samples" / "payload.jsonl").read_bytes() == sample.read_bytes()
    written = (project / "tests" / "expected" / "payload.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["content"] for line in written[1:]] == [*payloads, "ok"]
    assert not list(tmp_path.rglob("PWNED")) and not Path("PWNED").exists()
    no_traceback(result)


def test_keywords_and_builtins_stay_data(tmp_path):
    """Names that would shadow or break Python if they became identifiers stay data: in the generated
    script they are literals, its function names are made apart from every name the script uses, and
    the answers file it reads holds the values."""
    import sys as real_sys

    from cleaner_runtime.mapping import read_answers
    from cleaner_runtime.run import main as real_main
    from generator.adapter_code import load_source
    from generator.render import complete, render_template

    hostile = ["class", "print", "__builtins__", "MAPPING", "sys", "None", "main", "kind_of", "x" * 5000]
    kinds = [{"name": n, "match": {n: n}, "role": "user", "content": [[n]]} for n in hostile]
    mapping = complete({"mapping_version": 1, "source": hostile[0], "kinds": kinds})
    render_template(mapping, tmp_path / "hostile")
    recorded = read_answers(tmp_path / "hostile" / ".copier-answers.yml")
    assert recorded["source"] == hostile[0] and recorded["kinds"] == mapping["kinds"]
    script = load_source((tmp_path / "hostile" / "clean_to_trajectory_jsonl.py").read_text(encoding="utf-8"))
    assert script.sys is real_sys and script.main is real_main and callable(script.kind_of)
    for name in hostile:
        assert script.kind_of({name: name}).name == name
    assert script.kind_of({"other": 1}) is None