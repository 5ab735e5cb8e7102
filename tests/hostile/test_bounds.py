"""Hostile inputs must be bounded and reported, never crash (issue 36, items 8-11)."""

import pytest

from cleaner_runtime.timestamps import TimestampError, to_iso


@pytest.mark.parametrize("value", [10**400, "1" * 401, "9" * 5000, -(10**400)])
def test_huge_epoch_is_a_bad_value_not_a_crash(value):
    # issue 36 item 11: a 401-digit epoch raised OverflowError out of to_iso.
    with pytest.raises(TimestampError):
        to_iso(value)
