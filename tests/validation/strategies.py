"""Hypothesis strategies: trajectory records that are valid, nearly valid, or plainly wrong."""

from __future__ import annotations

from hypothesis import strategies as st

ROLES = ["meta", "system", "observation", "user", "reasoning", "assistant", "tool"]
ODD_ROLES = ["Meta", "agent", "", "assistant ", "tool\n"]

json_scalars = (
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, -1, 1.0, 0.0, 2.5, 10**20])
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=6)
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=6,
)

WEIRD_TIMESTAMPS = [
    "2026-05-16T09:00:00Z\n",
    "2026-05-16T09:00:00+02:00\n",
    "\u0662\u0660\u0662\u0666-05-16T09:00:00Z",
    "2026-05-16T09:00:\uff10\uff10Z",
    "2026-02-30T00:00:00Z",
    "2026-02-29T00:00:00Z",
    "2024-02-29T00:00:00Z",
    "2026-05-16T25:00:00Z",
    "2026-05-16T09:61:00Z",
    "2026-13-01T09:00:00Z",
    "0000-01-01T00:00:00Z",
    "2026-05-16T09:00:00",
    "2026-05-16 09:00:00Z",
    "2026-05-16T09:00:00+0200",
    "2026-05-16T09:00:00+25:00",
    "2026-05-16T09:00:00.Z",
    "2026-05-16T09:00:00.123456789Z",
    "x2026-05-16T09:00:00Z",
    "2026-05-16T09:00:00Zjunk",
    "\n2026-05-16T09:00:00Z",
    "2026-05-16T09:00:00z",
    "2026-05-16t09:00:00Z",
    "",
    "null",
]


@st.composite
def valid_timestamps(draw) -> str:
    year = draw(st.integers(1970, 2100))
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, 28))
    hour, minute, second = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    frac = draw(st.sampled_from(["", ".0", ".5", ".123", ".123456789"]))
    zone = draw(st.sampled_from(["Z", "+00:00", "+02:00", "-05:30", "+0100", "-1200"]))
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{frac}{zone}"


timestamps = (
    valid_timestamps()
    | st.sampled_from(WEIRD_TIMESTAMPS)
    | st.text(alphabet="0123456789-:TZ+.\u0662\n ", max_size=26)
    | json_scalars
)
texts = st.text(max_size=12) | st.sampled_from(["", " ", "hello", "\u65e5\u672c", "\U0001f680", "line\nbreak"])
args_values = st.sampled_from(["{}", '{"a":1}', '{"_raw":"x"}', "[1]", "not json", "", '"s"']) | json_values


def _mutate(draw, record: dict, pool: list[str]) -> dict:
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["drop", "set", "extra", "null"]))
        keys = sorted(record)
        if kind == "drop" and keys:
            record.pop(draw(st.sampled_from(keys)), None)
        elif kind == "set" and keys:
            record[draw(st.sampled_from(keys))] = draw(json_values)
        elif kind == "null" and keys:
            record[draw(st.sampled_from(keys))] = None
        elif kind == "extra":
            record[draw(st.sampled_from(pool))] = draw(json_values)
    return record


@st.composite
def tool_calls(draw) -> dict:
    call = {"id": draw(st.sampled_from(["c1", "c2", "", "call_\u00e9"]) | texts), "name": draw(texts | st.just("read")),
            "args": draw(args_values)}
    if draw(st.integers(0, 2)) == 0:
        _mutate(draw, call, ["extra", "type", "function", "arguments"])
    return call


@st.composite
def records(draw):
    if draw(st.integers(0, 40)) == 0:
        return draw(json_values)  # not an object at all
    role = draw(st.sampled_from(ROLES) | st.sampled_from(ODD_ROLES))
    if role in ("meta", "Meta"):
        record = {"role": role, "source": draw(st.sampled_from(["support-agent", "", " "]) | texts)}
        for key in ("cwd", "git_branch", "model"):
            if draw(st.booleans()):
                record[key] = draw(texts)
    elif role in ("tool", "tool\n"):
        record = {"role": role, "tool_call_id": draw(st.sampled_from(["c1", "c2", ""]) | texts),
                  "content": draw(texts), "timestamp": draw(timestamps)}
        if draw(st.booleans()):
            record["ok"] = draw(st.booleans() | json_scalars)
    elif role == "assistant" and draw(st.booleans()):
        record = {"role": role, "content": None, "tool_calls": draw(st.lists(tool_calls(), max_size=3)),
                  "timestamp": draw(timestamps)}
    else:
        record = {"role": role, "content": draw(texts | st.none()), "timestamp": draw(timestamps)}
    if draw(st.integers(0, 1)) == 0:
        _mutate(draw, record, ["role", "content", "timestamp", "tool_calls", "source", "ok", "extra", "type"])
    return record


record_lists = st.lists(records(), max_size=6)


@st.composite
def mostly_valid_lists(draw) -> list:
    """A well-formed session with at most one damaged record: the near-miss cases."""
    ts = draw(valid_timestamps())
    out: list = [{"role": "meta", "source": "agent"}, {"role": "user", "content": "q", "timestamp": ts},
                 {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "n", "args": "{}"}],
                  "timestamp": ts},
                 {"role": "tool", "tool_call_id": "c1", "content": "r", "timestamp": ts},
                 {"role": "assistant", "content": "done", "timestamp": ts}]
    if draw(st.booleans()):
        out[draw(st.integers(0, len(out) - 1))] = draw(records())
    return out
