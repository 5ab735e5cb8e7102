"""Secrets that escape redaction, and redaction settings that fail unclearly (#36 items 5, 7, 12)."""

import pytest

from cleaner_runtime.redaction import Redactor


def test_bad_extra_pattern_names_key_pattern_reason_and_fix():
    """#36 item 12: a bad ``extra_patterns`` regex used to surface as a bare re.error/ValueError;
    the message must name the key, the class, the pattern, re's reason and how to fix it."""
    with pytest.raises(ValueError) as info:
        Redactor(extra_patterns={"ticket-token": "TKT-(\\d+"})
    msg = str(info.value)
    assert "extra_patterns" in msg
    assert "ticket-token" in msg
    assert "TKT-(\\d+" in msg
    assert "missing )" in msg
    assert "fix" in msg.lower()
