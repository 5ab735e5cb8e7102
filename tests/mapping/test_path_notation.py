"""``path_notation`` writes a compiled path back as the mapping writes it: reading that notation
again gives the same path, whatever its keys hold (dots, digits, selections, fixed values)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cleaner_runtime.mapping import Const, Select, compile_path, compile_paths, path_notation, paths_notation

key = st.one_of(st.text(max_size=6), st.sampled_from(["a.b", "0", "05", "²", "", "[key=x]"]))
step = st.one_of(key, st.integers(0, 3), st.builds(Select, st.sampled_from(["key", "name"]),
                                                  st.one_of(st.text(max_size=5), st.integers(0, 2))))
path = st.one_of(st.lists(step, min_size=1, max_size=4).map(tuple),
                 st.one_of(st.text(max_size=5), st.integers(0, 3)).map(lambda v: (Const(v),)))


def test_selections_and_fixed_values_are_written_so_that_they_read_back():
    selected = ("attributes", Select("key", "gen_ai.tool.call.id"), "value", "stringValue")
    assert path_notation(selected) == ["attributes", {"key": "gen_ai.tool.call.id"}, "value", "stringValue"]
    assert path_notation((Const("bash"),)) == {"value": "bash"}
    assert path_notation(("message", "content")) == "message.content"
    assert path_notation(("a.b", "c")) == ["a.b", "c"]


@given(path)
def test_a_path_reads_back_from_its_notation(compiled):
    assert compile_path(path_notation(compiled)) == compiled


@given(st.lists(path, min_size=1, max_size=3))
def test_several_paths_read_back_from_their_notation(compiled):
    assert compile_paths(paths_notation(compiled)) == tuple(compiled)
