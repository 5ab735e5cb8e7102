"""Every fast path of the runtime gives exactly what its plain path gives (property tests).

* writer: with orjson (the optional fast extra) a record is written with the same bytes as
  ``json.dumps(ensure_ascii=False, separators=(",", ":"))``, lone surrogates included;
* convert: the classification cache returns the kind the rules give, whatever the values;
* validate: tool arguments parsed by orjson get the verdict json.loads gives.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cleaner_runtime import convert, readers, validate, writer
from cleaner_runtime import mapping as mapping_module

# Any text, lone surrogates and control characters included.
TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=40)
SCALARS = st.one_of(
    st.none(), st.booleans(), TEXT,
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
)
JSONISH = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=20,
)
SURROGATE = re.compile("[\ud800-\udfff]")


def reference_line(record) -> tuple[bytes, int]:
    """What the writer wrote before it had a fast path: json.dumps, lone surrogates as U+FFFD."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    line, n = SURROGATE.subn("\ufffd", line)
    # U+2028, U+2029 and U+0085 are written as JSON escapes (one record per line for splitlines()).
    line = line.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\x85", "\\u0085")
    return line.encode("utf-8"), n


@given(JSONISH)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_encode_line_equals_json_dumps(record):
    assert writer.encode_line(record) == reference_line(record)


@given(st.lists(st.dictionaries(TEXT, JSONISH, max_size=5), max_size=6))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_serialise_with_and_without_orjson_is_the_same(records):
    if writer.orjson is None:
        pytest.skip("orjson (the fast extra) is not installed")
    fast = writer.serialise(records)
    saved = writer.orjson
    writer.orjson = None
    try:
        slow = writer.serialise(records)
    finally:
        writer.orjson = saved
    assert fast == slow
    expected = [reference_line(r) for r in records]
    assert fast == (b"".join(line + b"\n" for line, _ in expected), sum(n for _, n in expected))


@given(JSONISH)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_compact_equals_json_dumps(value):
    """Tool arguments and structured content are serialised by compact(): orjson's text where it
    is json's, lone surrogates and numbers included."""
    assert convert.compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("number", [0, -1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30])
def test_integers_at_orjsons_limits_are_written_as_json_writes_them(number):
    value = {"offset": number, "items": [number, "x"]}
    assert convert.compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert writer.encode_line(value) == reference_line(value)


@pytest.mark.parametrize("text", ["\u2028\u2029\x85", "\x7f\x1f\x00\t", "\ud800 lone", "</script>", "\\\"/", "é𝄞"])
def test_compact_escapes_like_json(text):
    value = {"command": text, "args": [text, None, True], text: {"k": text}}
    assert convert.compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# Plain JSON as a session builder makes it: strings (any, lone surrogates and line breaks included),
# nulls, booleans, and lists and string-keyed objects of them.
PLAIN = st.recursive(
    st.one_of(st.none(), st.booleans(), TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=20,
)


@given(st.lists(st.dictionaries(TEXT, PLAIN, max_size=5), max_size=8), st.integers(1, 4))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_plain_lines_are_the_bytes_json_writes(records, chunk):
    """``Lines(plain=True)`` skips plain_json and escapes line breaks once per chunk: the same
    bytes and repair count as json.dumps line by line, whatever the chunk size."""
    saved = writer.Lines.CHUNK
    writer.Lines.CHUNK = chunk
    try:
        lines = writer.Lines(list(records), plain=True)
        written = b"".join(lines)
    finally:
        writer.Lines.CHUNK = saved
    expected = [reference_line(r) for r in records]
    assert written == b"".join(line + b"\n" for line, _ in expected)
    assert lines.replaced == sum(n for _, n in expected)


def test_lines_are_written_in_chunks_with_a_final_newline(tmp_path):
    records = [{"role": "user", "content": f"message {i}"} for i in range(writer.Lines.CHUNK * 2 + 3)]
    target = tmp_path / "out.jsonl"
    lines = writer.Lines(records)
    writer.write_atomic(target, lines)
    text = target.read_text(encoding="utf-8")
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert [json.loads(line) for line in text.splitlines()] == records
    assert lines.replaced == 0
    writer.write_atomic(tmp_path / "empty.jsonl", writer.Lines([]))
    assert (tmp_path / "empty.jsonl").read_bytes() == b""


def test_released_lines_are_the_same_bytes_and_let_each_record_go(tmp_path):
    records = [{"role": "user", "content": f"message {i} \u00e9\u2028"} for i in range(writer.Lines.CHUNK + 5)]
    kept = writer.Lines(list(records))
    writer.write_atomic(tmp_path / "kept.jsonl", kept)
    released_list = list(records)
    released = writer.Lines(released_list, release=True)
    writer.write_atomic(tmp_path / "released.jsonl", released)
    assert (tmp_path / "released.jsonl").read_bytes() == (tmp_path / "kept.jsonl").read_bytes()
    assert released_list == [None] * len(records)  # each record let go once written
    assert kept.records == records  # without release the list is left alone


# -- classification cache ------------------------------------------------------------------------

DISCRIMINATOR_VALUES = st.one_of(
    st.sampled_from(["message", "session", "user", "assistant", "1", "", "true"]),
    st.sampled_from([0, 1, 2, 1.0, 2.5, True, False, None]),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.sampled_from(["role", "x"]), st.sampled_from(["user", 1]), max_size=2),
)


def _record(draw_values: dict) -> dict:
    record: dict = {}
    for path, value in draw_values.items():
        node = record
        for key in path[:-1]:
            node = node.setdefault(key, {})
            if not isinstance(node, dict):
                break
        else:
            node[path[-1]] = value
    return record


KINDS = [
    {"name": "header", "match": {"type": "session"}, "role": "meta"},
    {"name": "user", "match": {"type": "message", "message.role": "user"}, "role": "user", "content": "message.content"},
    {"name": "tool", "match": {"type": "message", "message.role": ["toolResult", 1]}, "has": ["message.id"],
     "role": "tool_result", "content": "message.content"},
    {"name": "numbered", "match": {"type": [1, True]}, "lacks": ["message.id"], "role": "skip"},
    {"name": "one point oh", "match": {"type": 1.0, "message.role": None}, "role": "skip"},
    {"name": "any message", "match": {"type": "message"}, "role": "assistant", "content": "message.content"},
]
PATHS = [("type",), ("message", "role"), ("message", "id")]


@given(st.lists(st.dictionaries(st.sampled_from(PATHS), DISCRIMINATOR_VALUES, max_size=3), min_size=1, max_size=40))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_cached_classification_equals_the_rules(drawn):
    mapping = mapping_module.with_defaults({"mapping_version": 1, "source": "t", "kinds": KINDS})
    converter = convert.Converter(mapping, convert.Privacy({"redact": False}))
    for values in drawn:
        record = _record(values)
        expected = converter.classify_uncached(record)
        assert converter.classify(record) is expected
        assert converter.classify(record) is expected  # and again, from the cache
    assert len(converter.kind_cache) <= convert.KIND_CACHE_SIZE


def test_true_and_one_are_kept_apart_by_the_cache():
    kinds = [{"name": "flag", "match": {"type": True}, "role": "skip"},
             {"name": "number", "match": {"type": 1}, "role": "skip"},
             {"name": "text", "match": {"type": "1"}, "role": "skip"}]
    mapping = mapping_module.with_defaults({"mapping_version": 1, "source": "t", "kinds": kinds})
    converter = convert.Converter(mapping, convert.Privacy({"redact": False}))
    values = (1, True, 1.0, "1", 1, True, 1.0, "1", 0, False)
    names = [getattr(converter.classify({"type": value}), "name", None) for value in values]
    assert names == ["number", "flag", "number", "text", "number", "flag", "number", "text", None, None]


# -- reading: orjson's parse is used only where it equals json.loads ------------------------------

LIMITS = readers.Limits()
NUMBER_LITERALS = st.one_of(
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.from_regex(r"-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-0", "-0.0", "1.5e-400", "01", "1.", ".5"]),
)
STRING_LITERALS = st.one_of(
    TEXT.map(lambda t: json.dumps(t, ensure_ascii=False)),
    TEXT.map(json.dumps),
    st.sampled_from(['"\\ud800"', '"\\udc00x"', '"\\u00e9"', '"a\\/b"', '"\x01"', '"\\x"', '"\x7f"']),
)


@st.composite
def json_lines(draw) -> bytes:
    """Object lines, mostly valid, with odd numbers, escapes, spacing, duplicates and damage."""
    members = draw(st.lists(st.tuples(STRING_LITERALS, st.one_of(NUMBER_LITERALS, STRING_LITERALS,
                                                                   st.sampled_from(["true", "null", "[]", "{}"]))),
                            max_size=5))
    space = draw(st.sampled_from(["", " ", "\t", "\r"]))
    body = "{" + ("," + space).join(f"{k}:{space}{v}" for k, v in members) + "}"
    if draw(st.booleans()):
        body = draw(st.sampled_from(["[", "[[", '{"a":'])) * draw(st.integers(0, 3)) + body
    raw = body.encode("utf-8", "surrogatepass") + draw(st.sampled_from([b"\n", b"\r\n", b"", b" \n", b"\x0c\n"]))
    cut = draw(st.one_of(st.none(), st.integers(0, max(len(raw) - 1, 0))))
    if cut is not None:
        raw = raw[:cut]
    if draw(st.integers(0, 9)) == 0:
        raw = draw(st.sampled_from([b"\xef\xbb\xbf", b"\xff", b"\x00"])) + raw
    return raw


def _parse(raw: bytes, fast: bool):
    saved = readers.orjson
    if not fast:
        readers.orjson = None
    try:
        result = readers._parse_line(raw, readers.Where("f.jsonl", 1), LIMITS)
    finally:
        readers.orjson = saved
    return repr(result)  # repr keeps 1 apart from 1.0 and True, -0.0 from 0.0, and key order


@given(json_lines())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_parse_line_with_orjson_equals_json(raw):
    if readers.orjson is None:
        pytest.skip("orjson (the fast extra) is not installed")
    assert _parse(raw, fast=True) == _parse(raw, fast=False)


@pytest.mark.parametrize("raw", [
    b'{"big":123456789012345678901234}\n',  # orjson would read a float
    b'{"big":-9223372036854775809}\n',
    b'{"edge":18446744073709551615,"n":999999999999999999}\n',
    b'{"s":"\\ud800"}\n', b'{"n":NaN}\n', b'{"n":1e400}\n', b'{"a":1,"a":2,"b":3}\n',
    b"[" * 300 + b"]" * 300 + b"\n", b'{"deep":' + b"[" * 600 + b"]" * 600 + b"}\n",
])
def test_known_differences_of_orjson_take_the_json_path(raw):
    if readers.orjson is None:
        pytest.skip("orjson (the fast extra) is not installed")
    assert _parse(raw, fast=True) == _parse(raw, fast=False)


# -- validation: tool arguments parsed by orjson get json's verdict -------------------------------


def _args_verdict(text: str, fast: bool) -> str:
    """What the args-object rule sees: the kind of value, or that the text is not JSON."""
    saved = validate.orjson
    if not fast:
        validate.orjson = None
    try:
        return type(validate._load_json(text)).__name__
    except (ValueError, RecursionError):
        return "error"
    finally:
        validate.orjson = saved


@given(json_lines())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_args_parsed_with_orjson_get_the_json_verdict(raw):
    if validate.orjson is None:
        pytest.skip("orjson (the fast extra) is not installed")
    text = raw.decode("utf-8", "surrogateescape")  # undecodable bytes become lone surrogates
    assert _args_verdict(text, fast=True) == _args_verdict(text, fast=False)


@pytest.mark.parametrize("text, verdict", [
    ('{"s":"\\ud800"}', "dict"), ('{"n":1e400}', "dict"), ('{"n":NaN}', "error"), ("[]", "list"),
    ('{"big":123456789012345678901234}', "dict"), ("\ufeff{}", "error"), ('{"a":"\ud800"}', "dict"),
    ('{"a":' + "[" * 2000 + "]" * 2000 + "}", "error"),
])
def test_args_that_orjson_rejects_are_decided_by_json(text, verdict):
    assert _args_verdict(text, fast=True) == verdict == _args_verdict(text, fast=False)


# -- redaction of short strings is remembered, counts included ------------------------------------

SHORT_POOL = st.sampled_from([
    "bash", "command", "path", "ok", "Done.", "token", "password", "password=Zq8rT2xLk9Wm",
    "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5", "AKIAQWERTYUIOP123456", "Bearer abcDEF123ghiJKL456mno",
    "api_key: 'sk-live-9fJ2kL4mN6pQ8rS0tU2v'", "[REDACTED:password]", "",
])


@given(st.lists(st.one_of(SHORT_POOL, TEXT), max_size=60), st.booleans())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_remembered_short_redactions_equal_fresh_ones(texts, personal):
    settings_ = {"redact": True, "personal_data": personal, "extra_patterns": {"ticket-id": r"TCK-[0-9]{4}"}}
    cached = convert.Privacy(settings_)
    plain = convert.Privacy(settings_)
    plain.short = None
    for text in texts + texts:  # every text twice: the second time from the cache
        assert cached.redact(text) == plain.redact(text)
        assert cached.text(text, tool=True) == plain.text(text, tool=True)
        assert cached.counts == plain.counts
