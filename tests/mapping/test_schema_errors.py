"""A hand-written mapping gets one line naming the key that is wrong and what would fix it:
a misspelt key with the key it resembles, a key written twice with both lines, and every new
construct of docs/mapping.md accepted by the schema."""

from __future__ import annotations

import pytest
import yaml

from generator.answers import AnswersError, check_mapping, load_answers

from ..formats.support import cases

BASE = {"mapping_version": 1, "source": "x"}


@pytest.mark.parametrize(("kind", "message"), [
    ({"role": "user", "contents": "text"}, "kinds[0]: unknown key 'contents'; did you mean 'content'?"),
    ({"role": "assistant", "emit": [{"as": "tool_call", "each": "calls", "tool_name": "n", "arg": "a"}]},
     "kinds[0].emit[0]: unknown key 'arg'; did you mean 'args'?"),
    ({"role": "user", "content": {"join": ["a", {"path": "b", "prefx": "B: "}]}}, "unknown key 'prefx'"),
])
def test_a_misspelt_key_is_named_with_the_key_it_resembles(kind, message):
    with pytest.raises(AnswersError) as caught:
        check_mapping({**BASE, "kinds": [kind]})
    assert message in str(caught.value)


def test_a_key_written_twice_names_both_lines(tmp_path):
    path = tmp_path / "m.yml"
    path.write_text("mapping_version: 1\nsource: a\nsource: b\nkinds:\n  - {role: skip}\n", encoding="utf-8")
    with pytest.raises(AnswersError, match=r"m.yml:3: .*'source' is written twice \(lines 2 and 3\)"):
        load_answers(path)


def test_every_construct_of_the_corpus_mappings_is_valid():
    mappings = [yaml.safe_load((case.folder / "mapping.yml").read_text(encoding="utf-8")) for case in cases()]
    assert len(mappings) >= 15
    for mapping in mappings:
        check_mapping(mapping)
    used = yaml.safe_dump(mappings)
    for construct in ("emit:", "join:", "each:", "order_by:", "tree:", "opening:", "timezone_field:", "children:",
                      "range:", "presence:", "values:", "same:", "container: csv", "value: bash"):
        assert construct in used, construct
