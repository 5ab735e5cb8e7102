"""Tests of your hooks (created once by trajectory-cleaner; yours to edit, never overwritten)."""

import cleaner_hooks
from cleaner_runtime.hooks import Hooks, RecordContext

CTX = RecordContext(file="sample.jsonl", line=1, where="sample.jsonl:1")


def test_the_cleaner_accepts_the_hooks():
    Hooks(cleaner_hooks)  # raises HooksError for a misspelt hook or a wrong HOOKS_API


def test_transform_record_keeps_records():
    if hasattr(cleaner_hooks, "transform_record") and getattr(cleaner_hooks, "HOOKS_API", 1) >= 2:
        assert cleaner_hooks.transform_record({"example": "value"}, CTX) is not None
