"""A large plain JSON Lines file read in byte ranges (``read_records(span=...)``, for the first
pass of sessions grouped by a field in several processes): the ranges together read every line
once, in order, exactly as one read of the whole file does, wherever the cuts fall (inside a
line, on its newline, inside a line too long to load, in a blank line or a byte order mark)."""

from __future__ import annotations

import gzip
import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cleaner_runtime import readers

LIMITS = readers.Limits(line_bytes=64)  # lines longer than 64 bytes are bad lines, not loaded

LINES = st.one_of(
    st.builds(lambda n, text: json.dumps({"run": f"r{n}", "text": text}, ensure_ascii=False) + "\n",
              st.integers(0, 5), st.text(max_size=12)),
    st.just("\n"),  # blank
    st.just("   \r\n"),  # blank, CRLF
    st.just('{"run": "r1", "text": "crlf"}\r\n'),
    st.just("{not json\n"),
    st.just("[1, 2]\n"),  # JSON, not an object
    st.builds(lambda n: json.dumps({"run": "long", "text": "x" * n}) + "\n", st.integers(60, 200)),  # too long
    st.just("\ufeff" + '{"run": "bom"}\n'),  # a byte order mark that is not at the start of the file
)


def _read(path, span=None):
    """(record or bad line's reason) in order; line numbers are the span's own, so they are left out."""
    item = readers.InputFile(path, path.relative_to(path.parent))
    return [entry.reason if isinstance(entry, readers.BadLine) else entry[1]
            for entry in readers.read_records(item, "jsonl", limits=LIMITS, span=span)]


def _spans(cuts, size):
    starts = [0, *sorted({cut for cut in cuts if 0 < cut < size})]
    return [(start, starts[i + 1] if i + 1 < len(starts) else None) for i, start in enumerate(starts)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, min_size=1, max_size=30), bom=st.booleans(), last_newline=st.booleans(),
       cuts=st.lists(st.integers(0, 4000), max_size=6))
def test_byte_ranges_read_every_line_once_as_one_read_does(tmp_path, lines, bom, last_newline, cuts):
    text = ("\ufeff" if bom else "") + "".join(lines)
    if not last_newline:
        text = text.rstrip("\n")
    path = tmp_path / "events.jsonl"
    data = text.encode("utf-8")
    path.write_bytes(data)
    whole = _read(path)
    assert [entry for span in _spans(cuts, len(data)) for entry in _read(path, span)] == whole
    # every cut on a byte of the file, one at a time
    for cut in range(1, len(data)):
        assert _read(path, (0, cut)) + _read(path, (cut, None)) == whole


def test_spans_split_only_a_large_plain_json_lines_file(tmp_path, monkeypatch):
    monkeypatch.setattr(readers, "SPAN_BYTES", 1000)
    line = json.dumps({"run": "r1", "text": "y" * 80}) + "\n"
    plain = tmp_path / "events.jsonl"
    plain.write_text(line * 60, encoding="utf-8")  # about 5.6 KB
    spans = readers.jsonl_spans(plain, readers.Limits(), 4)
    assert spans is not None and len(spans) == 4 and spans[0][0] == 0 and spans[-1][1] is None
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert readers.jsonl_spans(plain, readers.Limits(), 1) is None  # one process: nothing to split
    small = tmp_path / "small.jsonl"
    small.write_text(line * 5, encoding="utf-8")
    assert readers.jsonl_spans(small, readers.Limits(), 4) is None
    packed = tmp_path / "events.jsonl.gz"
    packed.write_bytes(gzip.compress((line * 60).encode("utf-8")))
    assert readers.jsonl_spans(packed, readers.Limits(), 4) is None  # no byte ranges in a gzip stream
    document = tmp_path / "export.json"
    document.write_text("[\n" + ",\n".join([line.strip()] * 60) + "\n]\n", encoding="utf-8")
    assert readers.jsonl_spans(document, readers.Limits(), 4) is None
    with pytest.raises(ValueError):
        list(readers.read_records(readers.InputFile(packed, packed.relative_to(tmp_path)), span=(0, 10)))


def test_a_range_inside_a_long_line_reads_no_further_than_its_own_end(tmp_path):
    """A line longer than a range belongs to the range it starts in; the ranges it runs through
    find that out without reading it to its end (a review measured twice the file read
    otherwise, on a file of one long line in three ranges)."""
    path = tmp_path / "one-line.jsonl"
    path.write_bytes(b'{"run": "r1", "text": "' + b"z" * (6 * readers.MIB) + b'"}')
    with open(path, "rb", buffering=readers.READ_BUFFER) as stream:
        readers._span_start(stream, 2 * readers.MIB, 3 * readers.MIB)
        assert 3 * readers.MIB <= stream.tell() <= 4 * readers.MIB
    assert _read(path, (2 * readers.MIB, 3 * readers.MIB)) == []
