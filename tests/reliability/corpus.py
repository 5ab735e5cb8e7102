"""The bad-input corpus: every way raw input goes wrong, each with its documented outcome.

Inputs are built at test time (nothing large is committed). Each case names the row of the
rendered README's "Failure policy" table it belongs to (``policy``), the exit code, the exact
files the output folder must hold afterwards, the message lines that must appear (naming file
and line), and the answer or flag that would change the outcome (``fix``), which the message
must name too. tests/reliability/test_failure_policy.py checks these against the README.
"""

from __future__ import annotations

import gzip
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .support import BASE, BASE_OUT, META, OUT_ASSISTANT, OUT_CALL, OUT_RESULT, OUT_USER, jsonl, line

# The "what" column of the README's failure-policy table, one constant per row.
USAGE = "bad command line or paths"
BAD_LINE = "bad line"
NO_RECORDS = "nothing to write"
UNREADABLE_FILE = "unreadable file"
NOT_A_FILE = "not a regular file"
UNREADABLE_FOLDER = "unreadable folder"
UNKNOWN_KIND = "unknown record kind"
UNKNOWN_BLOCK = "unknown content block"
MISSING_FIELD = "missing field"
CALLS_LOST = "every call lost"
ORPHAN = "result without its call"
CALL_IDS = "call ids"
UNANSWERED = "call never answered"
BAD_TIME = "bad or missing time"
NAIVE_TIME = "naive time"
NO_TIME = "session without any time"
NO_USER = "session without user or assistant"
NO_SESSION_ID = "record without a session id"
WRONG_TYPE = "wrong value type"
SURROGATE = "unusual characters"
TOO_LARGE = "session too large"
HOOK = "hook error"
HOOKS_FILE = "hooks file unusable"
MAPPING_FILE = "bad mapping file"
INVALID_OUTPUT = "invalid output"
INTERRUPTED = "interrupted"
NOT_WRITTEN = "file cannot be written"
BUG = "cleaner bug"
EXISTING = "output already there"
INPUT_CHANGED = "input changed during the run"
NOISE = "kind the mapping skips"


@dataclass
class Case:
    id: str
    build: Callable[[Path], str]  # makes the input under the work folder; returns --input as typed
    exit: int
    policy: str
    out: dict[str, bytes] | None = field(default_factory=dict)  # exactly the files expected under --output
    check: Callable[[Path], None] | None = None  # more checks of the output folder
    stdout: tuple[str, ...] = ()
    stderr: tuple[str, ...] = ()
    fix: str | None = None  # the answer or flag the message must name
    mapping: str = "corpus"
    args: tuple[str, ...] = ()
    output: str = "out"
    runs: int = 1
    env: dict[str, str] = field(default_factory=dict)
    unreadable: tuple[str, ...] = ()  # paths made unreadable (chmod 000) before the run
    hooks: str | None = None  # cleaner_hooks.py source for a project copy
    generator: str | None = "same"  # "same": `new` on this input ends like the cleaner; else why not run


def put(work: Path, rel: str, content: str | bytes) -> Path:
    path = work / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def file_case(name: str, content: str | bytes | Callable[[], str | bytes]) -> Callable[[Path], str]:
    def build(work: Path) -> str:
        put(work, name, content() if callable(content) else content)
        return name

    return build


def records(*items: dict | str) -> str:
    """JSONL of records; a str item is written as a raw line (it must carry its own newline)."""
    return "".join(item if isinstance(item, str) else line(item) for item in items)


U, C, R, A = BASE
OUT = "out"


def nested(depth: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"n": value}
    return value


def deep_call(depth: int) -> str:
    """The base call with its args nested ``depth`` levels deep, as a raw line (written textually:
    json.dumps would itself run out of stack that deep)."""
    args = '{"n":' * (depth - 1) + '{"leaf":1}' + "}" * (depth - 1)
    head = json.dumps({k: v for k, v in C.items() if k != "args"})[:-1]
    return f'{head}, "args": {args}}}\n'


def with_time(record: dict, ts) -> dict:
    return {**record, "ts": ts}


def without(record: dict, *keys: str) -> dict:
    return {k: v for k, v in record.items() if k not in keys}


def _folder_with_links(work: Path) -> str:
    put(work, "in/good.jsonl", jsonl(BASE))
    os.symlink("..", work / "in" / "up")  # a link to a folder that contains it: a loop if followed
    os.symlink("b.jsonl", work / "in" / "a.jsonl")
    os.symlink("a.jsonl", work / "in" / "b.jsonl")
    os.symlink("missing.jsonl", work / "in" / "dangling.jsonl")
    return "in"


def _folder_with_fifo(work: Path) -> str:
    put(work, "in/good.jsonl", jsonl(BASE))
    os.mkfifo(work / "in" / "pipe.jsonl")  # opening it would block forever
    return "in"


def _surrogate_name(work: Path) -> str:
    (work / "in").mkdir()
    (work / "in" / os.fsdecode(b"caf\xe9.jsonl")).write_text(jsonl(BASE) + TORN, encoding="utf-8")
    return "in"


def _torn_gzip() -> bytes:
    rows = [with_time({**(U if i % 2 == 0 else A), "text": f"message {i}"}, "2026-05-16T09:00:00Z") for i in range(400)]
    data = gzip.compress(jsonl(rows).encode(), mtime=0)
    return data[: len(data) // 2]


def _records_before_tear(out: Path) -> None:
    """Every record before the tear of a torn .gz is written, in order, and nothing after it."""
    rows = (out / "log.jsonl").read_text(encoding="utf-8").splitlines()
    assert rows[0] == META.strip() and len(rows) > 100
    for i, row in enumerate(rows[1:]):
        role = "user" if i % 2 == 0 else "assistant"
        assert row == f'{{"role":"{role}","content":"message {i}","timestamp":"2026-05-16T09:00:00Z"}}'


def _field_interleaved(work: Path) -> str:
    a = [{**r, "sid": "A"} for r in BASE]
    b = [{**r, "sid": "B"} for r in BASE]
    put(work, "in/part1.jsonl", records(a[0], b[0], a[1], b[1]))
    put(work, "in/part2.jsonl", records(b[2], a[2], b[3], a[3]))
    return "in"


def _field_hostile_ids(work: Path) -> str:
    rows = []
    for sid in ("../../escape", ".", "a/b", ".hidden", "x" * 300):
        rows.extend({**r, "sid": sid} for r in BASE)
    put(work, "in/all.jsonl", records(*rows))
    return "in"


def _five_safe_names(out: Path) -> None:
    """Session ids that are paths, dots or too long never name a file outside --output or a hidden one."""
    names = sorted(p.name for p in out.iterdir())
    assert len(names) == 5, names
    for name in names:
        assert not name.startswith(".") and name.endswith(".jsonl") and len(name) < 120, name
        assert (out / name).read_bytes() == BASE_OUT
    assert not (out.parent / "escape.jsonl").exists() and not (out.parent.parent / "escape.jsonl").exists()


def _input_is_output(work: Path) -> str:
    put(work, "in/s.jsonl", jsonl(BASE))
    return "in"


def _input_inside_output(work: Path) -> str:
    put(work, "out/raw/x.jsonl", jsonl(BASE))
    put(work, "out/raw/raw/x.jsonl", jsonl(BASE))
    return "out/raw"


def _output_is_file(work: Path) -> str:
    put(work, "s.jsonl", jsonl(BASE))
    put(work, "taken", "not a folder\n")
    return "s.jsonl"


def _big_document(work: Path) -> str:
    rows = [{**A, "text": "y" * 1000} for _ in range(2100)]
    put(work, "big.json", json.dumps({"records": [U, *rows]}, indent=1))
    return "big.json"


def _big_session(work: Path) -> str:
    rows = [{**A, "text": f"{i} " + "z" * 10_000} for i in range(150)]
    put(work, "big.jsonl", records(U, *rows))
    return "big.jsonl"


def _unreadable(work: Path) -> str:
    put(work, "in/good.jsonl", jsonl(BASE))
    put(work, "in/locked.jsonl", jsonl(BASE))
    return "in"


def _unreadable_field(work: Path) -> str:
    put(work, "in/good.jsonl", records(*({**r, "sid": "A"} for r in BASE)))
    put(work, "in/locked.jsonl", records(*({**r, "sid": "A"} for r in BASE)))
    return "in"


def _unreadable_folder(work: Path) -> str:
    put(work, "in/good.jsonl", jsonl(BASE))
    put(work, "in/locked/inner.jsonl", jsonl(BASE))
    return "in"


def _no_times_mtime(work: Path) -> str:
    path = put(work, "old.jsonl", records(*(without(r, "ts") for r in BASE)))
    stamp = 1778922000  # 2026-05-16T09:00:00Z
    os.utime(path, (stamp, stamp))
    return "old.jsonl"


def _pretty_array_with_bom(work: Path) -> str:
    put(work, "bom.json", b"\xef\xbb\xbf" + json.dumps(BASE, indent=2).encode())
    return "bom.json"


RAISING_HOOK = '''HOOKS_API = 1


def transform_record(record, where):
    if record.get("text") == "There are two files.":
        raise ValueError("cannot handle this record")
    return record
'''
MISSPELT_HOOK = '''HOOKS_API = 2


def transform_recrod(record, ctx):
    return record
'''
INVALID_OUTPUT_HOOK = '''HOOKS_API = 1


def transform_session(records, info):
    records[1]["extra"] = "not allowed by trajectory-v1"
    return records
'''

MID = '{"type": "user", "text": oops}\n'
TORN = '{"type":"assistant","te'
T1 = "2026-05-16T09:00:01Z"

CASES: list[Case] = [
    # -- framing and encoding --------------------------------------------------------------------
    Case("empty-file", file_case("empty.jsonl", b""), 0, NO_RECORDS,
         stdout=("sessions skipped:  1", "empty.jsonl: no records to write")),
    Case("blank-lines-only", file_case("blank.jsonl", b"\n\n   \n\t\r\n"), 0, NO_RECORDS,
         stdout=("blank.jsonl: no records to write",)),
    Case("torn-last-line", file_case("torn.jsonl", jsonl(BASE) + TORN), 0, BAD_LINE, {"torn.jsonl": BASE_OUT},
         stdout=("1 x invalid line: torn last line (no newline) (first at torn.jsonl:5)",)),
    Case("torn-last-line-strict", file_case("torn.jsonl", jsonl(BASE) + TORN), 1, BAD_LINE, mapping="strict",
         stderr=("torn.jsonl:5: torn last line (no newline); set input.invalid_lines: skip",),
         fix="input.invalid_lines"),
    Case("invalid-json-mid-file", file_case("mid.jsonl", records(U, C, MID, R, A)), 0, BAD_LINE,
         {"mid.jsonl": BASE_OUT},
         stdout=("1 x invalid line: invalid JSON (Expecting value at column 26) (first at mid.jsonl:3)",)),
    Case("invalid-json-first-line", file_case("first.jsonl", records(MID, U, C, R, A)), 0, BAD_LINE,
         {"first.jsonl": BASE_OUT}, stdout=("(first at first.jsonl:1)",)),
    Case("invalid-json-strict", file_case("mid.jsonl", records(U, C, MID, R, A)), 1, BAD_LINE, mapping="strict",
         stderr=("mid.jsonl:3: invalid JSON (Expecting value at column 26); set input.invalid_lines: skip",),
         fix="input.invalid_lines"),
    Case("invalid-utf8", file_case("latin1.jsonl", jsonl([U]).encode() + b'{"type":"assistant","text":"caf\xe9",'
                                   b'"ts":"2026-05-16T09:00:00Z"}\n' + jsonl([C, R, A]).encode()),
         0, BAD_LINE, {"latin1.jsonl": BASE_OUT},
         stdout=("1 x invalid line: invalid UTF-8 at byte 31 (first at latin1.jsonl:2)",)),
    Case("bom", file_case("bom.jsonl", b"\xef\xbb\xbf" + jsonl(BASE).encode()), 0, BAD_LINE, {"bom.jsonl": BASE_OUT},
         stdout=("items skipped:     0",)),
    Case("bom-pretty-json-array", _pretty_array_with_bom, 0, BAD_LINE, {"bom.jsonl": BASE_OUT},
         stdout=("items skipped:     0",)),
    Case("nul-block-after-crash", file_case("zeros.jsonl", jsonl(BASE).encode() + b"\0" * 4096), 0, BAD_LINE,
         {"zeros.jsonl": BASE_OUT},
         stdout=("1 x invalid line: NUL bytes (a zero-filled block, typically left by a crash) (first at zeros.jsonl:5)",)),
    # (nul.jsonl is a name Windows reserves: its output takes a _ and a digest of the input's name, issue 36)
    Case("nul-escaped-in-string", file_case("nul.jsonl", records({**U, "text": "a\u0000b"}, C, R, A)), 0, BAD_LINE,
         {"_nul-93e55f2656f5e1cb.jsonl": (META + OUT_USER.replace("Please list the files.", "a\\u0000b") + OUT_CALL + OUT_RESULT
                        + OUT_ASSISTANT).encode()}),
    Case("crlf", file_case("crlf.jsonl", jsonl(BASE).replace("\n", "\r\n")), 0, BAD_LINE, {"crlf.jsonl": BASE_OUT},
         stdout=("items skipped:     0",)),
    Case("cr-only-line-ends", file_case("mac.jsonl", jsonl(BASE).replace("\n", "\r")), 0, BAD_LINE,
         stdout=(("invalid line: records separated by CR only (old Mac line ends); convert line ends to LF "
                 "(first at mac.jsonl:1)"), "mac.jsonl: no records to write")),
    Case("not-objects", file_case("scalars.jsonl", records(*BASE, "[1, 2]\n", '"text"\n', "17\n", "null\n")), 0,
         BAD_LINE, {"scalars.jsonl": BASE_OUT},
         stdout=("invalid line: a JSON array, not an object (first at scalars.jsonl:5)",
                 "invalid line: a JSON string, not an object (first at scalars.jsonl:6)",
                 "invalid line: a JSON number, not an object (first at scalars.jsonl:7)",
                 "invalid line: a JSON null, not an object (first at scalars.jsonl:8)")),
    Case("random-bytes", file_case("noise.jsonl", random.Random(9).randbytes(4000)), 0, BAD_LINE,
         stdout=("noise.jsonl: no records to write", "invalid line: invalid UTF-8")),
    Case("line-over-limit", file_case("long.jsonl", records(U, {**C, "args": {"blob": "b" * 1_100_000}}, R, A)),
         0, BAD_LINE, {"long.jsonl": (META + OUT_USER + OUT_ASSISTANT).encode()}, args=("--max-line-mb", "1"),
         stdout=(("1 x invalid line: line longer than 1 MiB (not loaded; raise --max-line-mb to read it) "
                 "(first at long.jsonl:2)"), "1 x tool result with no earlier call (first at long.jsonl:3)"),
         fix="--max-line-mb", generator="cleaner flag: `new` reads the 1 MB line under the default limit"),
    Case("nested-100k-deep", file_case("deep.jsonl", lambda: records(
         U, '{"type":"call","args":' + "[" * 100_000 + "]" * 100_000 + "}\n", A)), 0, BAD_LINE,
         {"deep.jsonl": (META + OUT_USER + OUT_ASSISTANT).encode()},
         stdout=("1 x invalid line: invalid JSON (nested too deeply) (first at deep.jsonl:2)",)),
    Case("nested-950-deep", file_case("deep.jsonl", lambda: records(U, deep_call(950), R, A)), 0,
         BAD_LINE, {"deep.jsonl": (META + OUT_USER + OUT_ASSISTANT).encode()},
         stdout=("1 x invalid line: nested deeper than 200 levels (first at deep.jsonl:2)",)),
    Case("nested-150-deep-is-fine", file_case("deep.jsonl", lambda: records(U, {**C, "args": nested(150)}, R, A)),
         0, BAD_LINE, {"deep.jsonl": (META + OUT_USER + OUT_CALL.replace(
             '{\\"path\\":\\".\\"}', json.dumps(json.dumps(nested(150), separators=(",", ":")))[1:-1])
             + OUT_RESULT + OUT_ASSISTANT).encode()}),
    Case("torn-gzip", file_case("log.jsonl.gz", _torn_gzip), 0, BAD_LINE, out=None, check=_records_before_tear,
         stdout=("invalid line: torn compressed file", "the records before the tear are kept", "sessions written:  1")),
    Case("corrupt-gzip-header", file_case("bad.jsonl.gz", b"\x1f\x8b" + b"garbage" * 10), 1, UNREADABLE_FILE,
         stderr=("error: bad.jsonl.gz: cannot read (BadGzipFile", "fix or remove the file")),
    Case("torn-json-array", file_case("torn.json", json.dumps(BASE, indent=2)[:-40]), 0, BAD_LINE,
         stdout=("invalid line: invalid JSON document", "(first at torn.json)", "torn.json: no records to write")),
    Case("json-object-two-record-lists", file_case("two.json", json.dumps({"a": [U], "b": [A]}, indent=2)), 0,
         BAD_LINE, stdout=("several record lists ('a', 'b'); set input.records_path to one of them (first at two.json)",),
         fix="input.records_path"),
    Case("json-document-over-limit", _big_document, 1, UNREADABLE_FILE, args=("--max-document-mb", "1"),
         stderr=(("error: big.json: a JSON document larger than 1 MiB (not loaded); convert it to JSONL or raise "
                 "--max-document-mb"),), fix="--max-document-mb", generator="cleaner flag"),
    # -- values ----------------------------------------------------------------------------------
    Case("lone-surrogate-in-text", file_case("sur.jsonl", records(U, C, R, {**A, "text": "two \ud800 files"})), 0,
         SURROGATE, {"sur.jsonl": (META + OUT_USER + OUT_CALL + OUT_RESULT
                                   + OUT_ASSISTANT.replace("There are two files.", "two \ufffd files")).encode()},
         stdout=("1 x lone surrogates replaced by U+FFFD",)),
    Case("unicode-line-separators", file_case("sep.jsonl", records({**U, "text": "a\u2028b\u2029c\u0085d"}, C, R, A)),
         0, SURROGATE, {"sep.jsonl": (META + OUT_USER.replace("Please list the files.", "a\\u2028b\\u2029c\\u0085d")
                                      + OUT_CALL + OUT_RESULT + OUT_ASSISTANT).encode()}),
    Case("lone-surrogate-in-unknown-kind", file_case("sur.jsonl", records(*BASE, {"type": "x\udc80y", "ts": T1})),
         0, SURROGATE, {"sur.jsonl": BASE_OUT}, mapping="lenient", env={"PYTHONIOENCODING": "utf-8"},
         stdout=('1 x unknown kind (type="x\\udc80y") (first at sur.jsonl:5)',)),
    Case("undecodable-file-name", _surrogate_name, 0, SURROGATE, {os.fsdecode(b"in/caf\xe9.jsonl")[3:]: BASE_OUT},
         env={"PYTHONIOENCODING": "utf-8"}, stdout=("(first at in/caf\\udce9.jsonl:5)",)),
    Case("numbers-where-strings-belong", file_case("num.jsonl", records(
        {**U, "text": 42}, {**C, "id": 7, "name": "calc", "args": 5}, {**C, "id": 8, "name": 99},
        {**R, "call_id": 7, "output": 3.5}, {**A, "text": True})), 0, WRONG_TYPE,
        {"num.jsonl": (META + '{"role":"user","content":"42","timestamp":"2026-05-16T09:00:00Z"}\n'
                       '{"role":"assistant","content":null,"tool_calls":[{"id":"7","name":"calc","args":'
                       '"{\\"_raw\\":5}"}],"timestamp":"2026-05-16T09:00:01Z"}\n'
                       '{"role":"tool","tool_call_id":"7","content":"3.5","timestamp":"2026-05-16T09:00:02Z"}\n'
                       '{"role":"assistant","content":"true","timestamp":"2026-05-16T09:00:03Z"}\n').encode()},
        stdout=("1 x tool call without a tool name (first at num.jsonl:3)",)),
    Case("objects-where-strings-belong", file_case("obj.jsonl", records(
        {**U, "text": {"question": "files?"}}, {**A, "text": ["two", "files"]})), 0, WRONG_TYPE,
        {"obj.jsonl": (META + '{"role":"user","content":"{\\"question\\":\\"files?\\"}","timestamp":'
                       '"2026-05-16T09:00:00Z"}\n{"role":"assistant","content":"two\\nfiles","timestamp":'
                       '"2026-05-16T09:00:03Z"}\n').encode()}),
    # -- times -----------------------------------------------------------------------------------
    Case("huge-integer-timestamp", file_case("t.jsonl", records(with_time(U, 10**30), C, R, A)), 0, BAD_TIME,
         {"t.jsonl": BASE_OUT.replace(b"09:00:00Z", b"09:00:01Z")},
         stdout=("1 x unreadable timestamps replaced by a neighbour's",)),
    Case("integer-over-4300-digits", file_case("t.jsonl", records(U, '{"type":"call","ts":' + "9" * 5000 + "}\n",
                                                                   C, R, A)),
         0, BAD_LINE, {"t.jsonl": BASE_OUT}, stdout=("Exceeds the limit (4300 digits)", "(first at t.jsonl:2)")),
    Case("timestamps-out-of-range", file_case("t.jsonl", records(
        U, with_time(C, "0000-01-01T00:00:00Z"), with_time(R, "10000-01-01T00:00:00Z"),
        with_time({**A, "text": "x"}, -10**20), '{"type":"assistant","text":"y","ts":1e400}\n', A)), 0, BAD_TIME,
        {"t.jsonl": (META + OUT_USER + OUT_CALL.replace(T1, "2026-05-16T09:00:00Z")
                     + OUT_RESULT.replace("09:00:02Z", "09:00:00Z")
                     + '{"role":"assistant","content":"x","timestamp":"2026-05-16T09:00:00Z"}\n'
                     + '{"role":"assistant","content":"y","timestamp":"2026-05-16T09:00:00Z"}\n'
                     + OUT_ASSISTANT).encode()},
        stdout=("4 x unreadable timestamps replaced by a neighbour's",)),
    Case("naive-timestamps", file_case("t.jsonl", records(*(with_time(r, f"2026-05-16 09:00:0{i}")
                                                           for i, r in enumerate(BASE)))), 0, NAIVE_TIME,
         {"t.jsonl": BASE_OUT.replace(b':00Z"', b':00.000Z"').replace(b':01Z"', b':01.000Z"')
          .replace(b':02Z"', b':02.000Z"').replace(b':03Z"', b':03.000Z"')}),
    Case("impossible-dates", file_case("t.jsonl", records(U, with_time(C, "2026-02-30T09:00:00Z"),
                                                         with_time(R, "2026-05-16T25:00:00Z"), A)), 0, BAD_TIME,
         {"t.jsonl": BASE_OUT.replace(b"09:00:01Z", b"09:00:00Z").replace(b"09:00:02Z", b"09:00:00Z")},
         stdout=("2 x unreadable timestamps replaced by a neighbour's",)),
    Case("missing-times-derived", file_case("t.jsonl", records(U, without(C, "ts"), without(R, "ts"), A)), 0,
         BAD_TIME, {"t.jsonl": BASE_OUT.replace(b"09:00:01Z", b"09:00:00Z").replace(b"09:00:02Z", b"09:00:00Z")},
         stdout=("2 x timestamps derived from neighbouring records",)),
    Case("no-readable-time-at-all", file_case("t.jsonl", records(*(with_time(r, "2026-02-30T09:00:00Z")
                                                                  for r in BASE))), 1, NO_TIME,
         stderr=(("t.jsonl:1: '2026-02-30T09:00:00Z' is not a real date and time; no timestamp in this session could "
                 "be read (check timestamps.format"),), fix="timestamps.format"),
    Case("no-time-field-at-all", file_case("t.jsonl", records(*(without(r, "ts") for r in BASE))), 1, NO_TIME,
         stderr=("session t.jsonl: no record has a timestamp; set timestamps.fallback",), fix="timestamps.fallback"),
    Case("no-time-with-mtime-fallback", _no_times_mtime, 0, NO_TIME, mapping="mtime",
         out={"old.jsonl": BASE_OUT.replace(b"09:00:01Z", b"09:00:00Z").replace(b"09:00:02Z", b"09:00:00Z")
              .replace(b"09:00:03Z", b"09:00:00Z").replace(b'00Z"', b'00.000Z"')},
         stdout=("4 x timestamps from the session fallback (file_mtime)",), generator="the copied sample's "
         "modification time is the render time, checked by the rendered project's own tests"),
    # -- kinds and fields ------------------------------------------------------------------------
    Case("unknown-kind", file_case("k.jsonl", records(*BASE, {"type": "mystery", "ts": T1})), 1, UNKNOWN_KIND,
         stderr=(("k.jsonl:5: unknown record kind: type=\"mystery\"; add a rule for it to 'kinds' in the mapping, "
                 "or set unknown_kinds: skip"),), fix="unknown_kinds"),
    Case("unknown-kind-skipped", file_case("k.jsonl", records(*BASE, {"type": "mystery", "ts": T1})), 0,
         UNKNOWN_KIND, {"k.jsonl": BASE_OUT}, mapping="lenient",
         stdout=('1 x unknown kind (type="mystery") (first at k.jsonl:5)',)),
    Case("kind-field-missing", file_case("k.jsonl", records(U, {"text": "no type", "ts": T1})), 1, UNKNOWN_KIND,
         stderr=("k.jsonl:2: unknown record kind: type=<absent>",), fix="unknown_kinds"),
    Case("noise-kind-skipped", file_case("k.jsonl", records(U, {"type": "progress", "ts": T1}, C, R, A)), 0,
         NOISE, {"k.jsonl": BASE_OUT},
         stdout=("1 x kind 'progress' (skipped by the mapping) (first at k.jsonl:2)",)),
    Case("unknown-content-block", file_case("b.jsonl", records({**U, "text": [{"type": "image"}]}, A)), 1,
         UNKNOWN_BLOCK, stderr=(("b.jsonl:1: unknown content block type 'image'; add it to blocks.types in the "
                                "mapping, or set blocks.unknown: skip"),), fix="blocks.unknown"),
    Case("missing-content", file_case("c.jsonl", records(*BASE, without(A, "text"), {**A, "text": ""},
                                                         {**A, "text": []})), 0, MISSING_FIELD,
         {"c.jsonl": BASE_OUT}, stdout=("3 x assistant record with no content (first at c.jsonl:5)",)),
    # the session's only call has no name: every call it holds would be lost, so the session fails
    Case("call-missing-tool-name", file_case("c.jsonl", records(U, without(C, "name"), R, A)), 1, CALLS_LOST,
         stdout=("1 x tool call without a tool name (first at c.jsonl:2)",
                 "1 x tool result with no earlier call (first at c.jsonl:3)", "kept:              calls 0/1"),
         stderr=("c.jsonl: every one of its 1 tool call(s) was lost",), fix="tool_name"),
    Case("one-call-of-two-missing-tool-name", file_case("c.jsonl", records(U, without(C, "name"), C, R, A)), 0,
         MISSING_FIELD, {"c.jsonl": (META + OUT_USER + OUT_CALL + OUT_RESULT + OUT_ASSISTANT).encode()},
         stdout=("1 x tool call without a tool name (first at c.jsonl:2)", "kept:              calls 1/2",
                 "sessions losing calls or results: 1")),
    # -- tool calls ------------------------------------------------------------------------------
    Case("duplicate-call-ids", file_case("d.jsonl", records(U, C, C, R, R, A)), 0, CALL_IDS,
         {"d.jsonl": (META + OUT_USER + OUT_CALL + OUT_CALL.replace('"id":"call_1"', '"id":"call_1__2"') + OUT_RESULT
                      + OUT_RESULT.replace('"call_1"', '"call_1__2"') + OUT_ASSISTANT).encode()},
         stdout=("1 x duplicate call ids renamed",)),
    Case("calls-without-ids", file_case("d.jsonl", records(U, without(C, "id"), without(R, "call_id"), A)), 0,
         CALL_IDS, {"d.jsonl": BASE_OUT},
         stdout=("1 x call ids synthesised (the source has none)", "1 x results linked to the oldest unanswered call")),
    Case("result-without-call", file_case("o.jsonl", records(U, {**R, "call_id": "nope"}, A)), 0, ORPHAN,
         {"o.jsonl": (META + OUT_USER + OUT_ASSISTANT).encode()},
         stdout=("1 x tool result with no earlier call (first at o.jsonl:2)",)),
    Case("result-without-call-strict", file_case("o.jsonl", records(U, {**R, "call_id": "nope"}, A)), 1, ORPHAN,
         mapping="strict", stderr=("o.jsonl:2: tool result with no earlier call; set tools.orphan_results: skip",),
         fix="tools.orphan_results"),
    Case("duplicate-result", file_case("o.jsonl", records(U, C, R, R, A)), 0, ORPHAN, {"o.jsonl": BASE_OUT},
         stdout=("1 x duplicate tool result (first at o.jsonl:4)",)),
    Case("call-never-answered", file_case("n.jsonl", records(U, C, A)), 0, UNANSWERED,
         {"n.jsonl": (META + OUT_USER + OUT_CALL + OUT_ASSISTANT).encode()}),
    # -- sessions --------------------------------------------------------------------------------
    # Letta's validator rejects a session without a user or an assistant record: by default it is not written
    Case("session-without-user-skipped-by-default", file_case("s.jsonl", records(C, R, A)), 0, NO_USER,
         stdout=("s.jsonl: no user record (sessions.without_user: skip)",)),
    Case("session-without-user-skipped", file_case("s.jsonl", records(C, R, A)), 0, NO_USER, mapping="lenient",
         stdout=("s.jsonl: no user record (sessions.without_user: skip)",)),
    Case("session-without-assistant-skipped", file_case("s.jsonl", records(U)), 0, NO_USER, mapping="lenient",
         stdout=("s.jsonl: no assistant record (sessions.without_assistant: skip)",)),
    Case("only-noise-records", file_case("s.jsonl", records({"type": "progress", "ts": T1})), 0, NO_RECORDS,
         stdout=("s.jsonl: no records to write",)),
    Case("session-over-size-limit", _big_session, 1, TOO_LARGE, args=("--max-session-mb", "1"),
         stderr=("big.jsonl:", ("the session's cleaned output passes the 1 MiB limit (nothing written); split the "
                 "input, lower privacy.truncate, or raise --max-session-mb")), fix="--max-session-mb",
         generator="cleaner flag"),
    Case("field-record-without-session-id", lambda w: put(w, "in/x.jsonl", records(
        *({**r, "sid": "A"} for r in BASE[:2]), R)) and "in", 1, NO_SESSION_ID, mapping="field",
        stderr=(("in/x.jsonl:3: record has no session id at 'sid'; fix session.field or set session.missing: skip "
                "(the run stopped; nothing written)"),), fix="session.missing"),
    Case("field-record-without-session-id-skipped", lambda w: put(w, "in/x.jsonl", records(
        *({**r, "sid": "A"} for r in BASE), R)) and "in", 0, NO_SESSION_ID, mapping="field_skip",
        stdout=("1 x record without a session id (first at in/x.jsonl:5)",), out={"A.jsonl": BASE_OUT}),
    Case("field-sessions-interleaved-across-files", _field_interleaved, 0, NO_SESSION_ID, mapping="field",
         out={"A.jsonl": BASE_OUT, "B.jsonl": BASE_OUT}),
    Case("field-hostile-session-ids", _field_hostile_ids, 0, NO_SESSION_ID, mapping="field", out=None,
         check=_five_safe_names),
    # -- one session per element of a list (session.by: element) --------------------------------
    Case("element-bad-lines-and-elements", file_case("convs.jsonl", records(
        {"id": "a", "messages": BASE}, MID, {"id": "b"}, '"junk"\n', {"id": "c", "messages": [U, "text", C, R, A]})),
        0, BAD_LINE, {"convs/0001.jsonl": BASE_OUT, "convs/0005.jsonl": BASE_OUT}, mapping="element",
        stdout=("1 x invalid line: invalid JSON (Expecting value at column 26) (first at convs.jsonl:2)",
                ("1 x invalid line: input.records_path 'messages' not found in this element (first at convs.jsonl "
                "(element 3))"),
                "1 x invalid line: a JSON string, not an object (first at convs.jsonl:4)",
                ("1 x invalid line: record 2 is a JSON string, not an object (first at convs.jsonl (element 5, "
                "record 2))"))),
    Case("element-unknown-kind-fails-one-element", file_case("convs.jsonl", records(
        {"id": "a", "messages": BASE}, {"id": "b", "messages": [*BASE, {"type": "mystery", "ts": T1}]},
        {"id": "c", "messages": BASE})), 1, UNKNOWN_KIND,
        {"convs/0001.jsonl": BASE_OUT, "convs/0003.jsonl": BASE_OUT}, mapping="element",
        stderr=("convs.jsonl (element 2, record 5): unknown record kind: type=\"mystery\"",), fix="unknown_kinds"),
    # -- the file system -------------------------------------------------------------------------
    Case("symlink-loops-and-dangling-links", _folder_with_links, 0, NOT_A_FILE, {"good.jsonl": BASE_OUT},
         stdout=("2 x input entry not read: link loop (first at in/a.jsonl)",
                 "1 x input entry not read: dangling link (first at in/dangling.jsonl)",
                 "1 x input entry not read: link to a folder (not followed) (first at in/up)")),
    Case("fifo-in-input-folder", _folder_with_fifo, 0, NOT_A_FILE, {"good.jsonl": BASE_OUT},
         stdout=(("1 x input entry not read: not a regular file (a FIFO, socket or device is never opened) "
                 "(first at in/pipe.jsonl)"),)),
    Case("unreadable-file", _unreadable, 1, UNREADABLE_FILE, {"good.jsonl": BASE_OUT}, unreadable=("in/locked.jsonl",),
         stderr=("error: in/locked.jsonl: cannot read (Permission denied); fix or remove the file",),
         generator="`new` copies samples before cleaning; see test_generator_unreadable_sample"),
    Case("unreadable-file-by-field", _unreadable_field, 1, UNREADABLE_FILE, mapping="field",
         unreadable=("in/locked.jsonl",),
         stderr=(("error: in/locked.jsonl: cannot read (Permission denied); fix or remove the file (the run stopped; "
                 "nothing written)"),), generator="`new` copies samples before cleaning; see test_generator_unreadable_sample"),
    Case("unreadable-folder", _unreadable_folder, 1, UNREADABLE_FOLDER, {"good.jsonl": BASE_OUT},
         unreadable=("in/locked",),
         stderr=("error: in/locked: folder cannot be read (Permission denied); fix its permissions",),
         generator="`new` copies samples before cleaning; see test_generator_unreadable_sample"),
    Case("output-is-a-file", _output_is_file, 2, USAGE, output="taken",
         stderr=("error: taken: exists and is not a folder (choose another --output)",), fix="--output",
         generator="cleaner paths"),
    Case("output-under-a-file", _output_is_file, 2, USAGE, output="taken/sub",
         stderr=("error: taken/sub: cannot write there (Not a directory); choose another --output",), fix="--output", generator="cleaner paths"),
    Case("input-equals-output", _input_is_output, 2, USAGE, output="in",
         stderr=("error: in: --output must not be the same as --input",), generator="cleaner paths"),
    Case("input-equals-output-spelled-differently", _input_is_output, 2, USAGE, output="in/./",
         stderr=("error: in/./: --output must not be the same as --input",), generator="cleaner paths"),
    Case("output-would-overwrite-input-file", lambda w: put(w, "in/s.jsonl", jsonl(BASE)) and "in/s.jsonl", 2, USAGE,
         output="in", stderr=("error: in: writing here would overwrite the input file",), fix="--output",
         generator="cleaner paths"),
    # (issue 36 item 3: refused by _check_paths before anything is made, whatever the outputs' names)
    Case("input-inside-output-would-overwrite", _input_inside_output, 2, USAGE, output="out",
         stderr=("error: out: --output holds --input out/raw", "choose an --output outside --input"),
         fix="--output", generator="cleaner paths"),
    # issue 36 item 3: an output inside the input is refused before anything is made (it once ran, exit 0,
    # its outputs left out of the reading; but the same run over `in/2024` wrote over raw files)
    Case("output-inside-input-refused", lambda w: put(w, "in/s.jsonl", jsonl(BASE)) and "in", 2, USAGE,
         output="in/clean", stderr=("error: in/clean: --output is inside --input in", "choose an --output outside --input"),
         fix="--output", generator="cleaner paths"),
    Case("missing-input", lambda w: "nope", 2, USAGE, stderr=("error: nope: no such file or folder (check --input)",),
         fix="--input", generator="no samples: see test_generator_usage_errors"),
    Case("empty-input-folder", lambda w: (w / "in").mkdir() or "in", 2, USAGE,
         stderr=("error: in: no input files match",), fix="--input"),
    Case("bad-flag-value", file_case("s.jsonl", jsonl(BASE)), 2, USAGE, args=("--jobs", "0"),
         stderr=("argument --jobs: '0' must be greater than 0",), generator="cleaner flag"),
    # -- hooks -----------------------------------------------------------------------------------
    Case("hook-raises", file_case("h.jsonl", jsonl(BASE)), 1, HOOK, hooks=RAISING_HOOK,
         stderr=(("h.jsonl:4: cleaner_hooks.transform_record raised ValueError: cannot handle this record; fix "
                 "cleaner_hooks.py"),), generator="hooks are edited after rendering"),
    Case("hook-makes-invalid-output", file_case("h.jsonl", jsonl(BASE)), 1, INVALID_OUTPUT, hooks=INVALID_OUTPUT_HOOK,
         stderr=("output for h.jsonl fails validation at record line 2", "nothing written"),
         generator="hooks are edited after rendering"),
    Case("hook-name-misspelt", file_case("h.jsonl", jsonl(BASE)), 2, HOOKS_FILE, hooks=MISSPELT_HOOK,
         stderr=(("transform_recrod is not a hook (did you mean transform_record?); the hooks are transform_document, "
                  "transform_record, transform_kind, transform_session"),), generator="hooks are edited after rendering"),
]

# Rows covered by dedicated tests rather than by a corpus case.
COVERED_ELSEWHERE = {
    INTERRUPTED: "test_crash_safety.py (SIGKILL at random moments; SIGINT and SIGTERM exit 130)",
    NOT_WRITTEN: "test_crash_safety.py (a folder in the way of one output fails only that session)",
    BUG: "test_runtime_bug.py (a planted exception fails only its session)",
    "harness-noise user text": "tests/runtime/test_harness_noise.py (dropped and counted, [] keeps them, own "
                               "prefixes) and tests/formats/test_upstream_yes.py (Letta's own fixtures)",
    MAPPING_FILE: "tests/update/test_update.py (an answers file edited as YAML stops the cleaner, naming file:line:column)",
    EXISTING: "test_idempotence.py (results replaced atomically; failed sessions keep old output)",
    INPUT_CHANGED: "tests/performance/test_jobs.py (a hook changes each file after its first reading: a new "
                   "session, a record appended, removed, swapped with another, rewritten as another session's "
                   "or inserted again stops the run, --jobs 1 and 2)",
}
