"""cleaner_runtime.timestamps.to_iso: a value already in trajectory-v1 form is kept verbatim, through
the fast path, with the verdict and the message the full reader gives (reached here by a value with
spaces around it, which the fast path does not take)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cleaner_runtime.timestamps import TimestampError, to_iso

digits = st.integers(min_value=0, max_value=99).map(lambda n: f"{n:02d}")
zones = st.sampled_from(["Z", "+00:00", "-05:30", "+0200", "+14:00", "-99:99"])
fractions = st.sampled_from(["", ".1", ".123", ".123456", ".1234567"])


@st.composite
def instants(draw) -> str:
    """Strings of the trajectory-v1 form, some of them no real instant (month 13, hour 25, Feb 30)."""
    year = draw(st.integers(min_value=0, max_value=9999))
    return (f"{year:04d}-{draw(digits)}-{draw(digits)}T{draw(digits)}:{draw(digits)}:{draw(digits)}"
            f"{draw(fractions)}{draw(zones)}")


def reading(value: str) -> tuple[str, str]:
    try:
        return "ok", to_iso(value)
    except TimestampError as exc:
        return "error", str(exc)


@given(instants())
def test_the_fast_path_agrees_with_the_full_reader(value):
    verdict, text = reading(value)
    slow_verdict, slow_text = reading(f" {value}\n")  # stripped first: the full reader's path
    assert verdict == slow_verdict
    if verdict == "ok":
        assert text == slow_text == value
    else:
        assert slow_text == text.replace(repr(value), repr(f" {value}\n"))


def test_a_real_instant_is_kept_verbatim():
    assert to_iso("2026-05-28T20:26:42.909Z") == "2026-05-28T20:26:42.909Z"
    assert to_iso("2026-05-28T20:26:42+02:00") == "2026-05-28T20:26:42+02:00"


def test_an_instant_that_does_not_exist_is_refused_by_name():
    with pytest.raises(TimestampError, match=r"'2026-02-30T10:00:00Z' is not a real date and time"):
        to_iso("2026-02-30T10:00:00Z")
