"""The hooks of ``cleaner_hooks.py``: checked once when the cleaner starts, then called with typed contexts.

Four hooks, at four points of the pipeline, each optional (``HOOKS_API = 2``):

- ``transform_document(document, ctx)``: one whole input file, before its records are found;
- ``transform_record(record, ctx)``: each raw record, before it is mapped;
- ``transform_kind(record, ctx)``: each raw record that a rule of the mapping's ``kinds`` matches,
  with that rule's name in ``ctx.kind``;
- ``transform_session(records, ctx)``: one session's finished trajectory-v1 records.

What a hook returns goes on through the pipeline like everything else: records are mapped, redacted,
truncated, counted and validated (``run.guard_hook_output`` holds the privacy boundary around
``transform_session``). Any other public function whose name looks like a hook (``transform_*``, or
close to a hook's name) is an error: a misspelt hook is never silently ignored.

``HOOKS_API = 1`` (the first version, and what a file that declares no version gets):
``transform_record(record, where)`` with ``where`` a string and ``transform_session(records, info)``
with ``info`` a dict ``{"key", "files"}``; the two newer hooks need version 2.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .convert import SessionFailed
from .readers import Where

HOOKS_API = 2
HOOK_NAMES = ("transform_document", "transform_record", "transform_kind", "transform_session")
SINCE = {"transform_document": 2, "transform_kind": 2}  # the hooks API version that introduced a hook
ARGUMENTS = {"transform_document": "(document, ctx)", "transform_record": "(record, ctx)",
             "transform_kind": "(record, ctx)", "transform_session": "(records, ctx)"}
LINE_CONTAINERS = ("jsonl", "csv", "tsv")  # read line by line: their document is the list of records
Skip = Callable[[str, str], None]  # counts a skip: (reason, where)


class HooksError(Exception):
    """cleaner_hooks.py cannot be used as it is: the run does not start (exit 2)."""


@dataclass(frozen=True)
class DocumentContext:
    """What ``transform_document`` is told about the document it receives."""

    file: str  # the input file, as found under --input
    container: str  # how it was read: "jsonl", "json_array", "json_object", "csv" or "tsv"


@dataclass(frozen=True)
class RecordContext:
    """Where a raw record was read, for ``transform_record`` and ``transform_kind``."""

    file: str  # the input file, as found under --input
    line: int  # its line (JSONL, CSV), or its position in the record list (JSON documents), from 1
    where: str  # both as messages write them: "file:line", "file (record N)", "file (element E, record N)"
    kind: str | None = None  # transform_kind: the name of the rule of `kinds` the record matches


@dataclass(frozen=True)
class SessionContext:
    """Which session ``transform_session`` receives."""

    key: str  # the session: its input file, or the value of session.field
    files: tuple[str, ...]  # its input files


class Hooks:
    """The hooks a ``cleaner_hooks`` module defines, checked; each attribute is the function or None."""

    def __init__(self, module: ModuleType | None = None):
        self.module = module
        self.api = 1
        self.document: Callable | None = None
        self.record: Callable | None = None
        self.kind: Callable | None = None
        self.session: Callable | None = None
        if module is not None:
            self._check(module)
        self.per_record = self.record is not None or self.kind is not None

    def _check(self, module: ModuleType) -> None:
        name = f"cleaner_hooks.py ({getattr(module, '__file__', None) or module.__name__})"
        api = getattr(module, "HOOKS_API", 1)
        if isinstance(api, bool) or not isinstance(api, int) or not 1 <= api <= HOOKS_API:
            newer = isinstance(api, int) and api > HOOKS_API
            raise HooksError(f"{name}: HOOKS_API = {api!r}" + (
                f" is newer than this cleaner's {HOOKS_API}; run `trajectory-cleaner update .`" if newer
                else f"; set HOOKS_API = {HOOKS_API} (or 1 for hooks written for the first version)"))
        self.api = api
        for attr, value in vars(module).items():
            if attr.startswith("_") or not callable(value) or isinstance(value, type) or attr in HOOK_NAMES:
                continue
            if looks_like_a_hook(attr):
                close = _closest(attr)
                raise HooksError(
                    f"{name}: {attr} is not a hook" + (f" (did you mean {close}?)" if close else "")
                    + f"; the hooks are {', '.join(HOOK_NAMES)}. Rename it, or start a helper's name with _")
        for hook in HOOK_NAMES:
            function = getattr(module, hook, None)
            if function is None:
                continue
            if not callable(function):
                raise HooksError(f"{name}: {hook} is a {type(function).__name__}, not a function")
            if api < SINCE.get(hook, 1):
                raise HooksError(f"{name}: {hook} needs HOOKS_API = {SINCE[hook]} (this file declares {api}); "
                                 "set HOOKS_API = 2, and see the docstring of cleaner_hooks.py for what the "
                                 "hooks receive in version 2")
            _check_arguments(name, hook, function)
            setattr(self, hook.removeprefix("transform_"), function)

    # -- the calls: a hook that raises or returns something else than it may fails its session
    def transform_document(self, document: Any, ctx: DocumentContext, skip: Skip) -> Any:
        """The document ``transform_document`` returns; None when it dropped the file (counted)."""
        try:
            out = self.document(document, ctx)
        except Exception as exc:
            raise _raised("transform_document", ctx.file, exc) from exc
        if out is None:
            skip("file dropped by cleaner_hooks.transform_document", ctx.file)
            return None
        if ctx.container in LINE_CONTAINERS:
            if not isinstance(out, (list, tuple)):
                raise SessionFailed(f"{ctx.file}: cleaner_hooks.transform_document returned {type(out).__name__}, "
                                    f"not a list of records (a {ctx.container} file's document is its list of "
                                    "records); fix cleaner_hooks.py")
            _check_records(out, "transform_document", ctx.file)
        return out

    def transform_records(self, record: dict, where: Where, kind_of: Callable[[dict], str | None],
                          skip: Skip) -> list[dict]:
        """The records ``transform_record`` and then ``transform_kind`` make of one raw record."""
        records = [record]
        if self.record is not None:
            arg = RecordContext(where.file, where.line, str(where)) if self.api > 1 else str(where)
            records = self._call("transform_record", self.record, record, arg, where, skip)
        if self.kind is not None:
            out = []
            for item in records:
                kind = kind_of(item)
                if kind is None:  # no rule matches: the mapping's unknown_kinds decides
                    out.append(item)
                    continue
                ctx = RecordContext(where.file, where.line, str(where), kind)
                out.extend(self._call("transform_kind", self.kind, item, ctx, where, skip))
            records = out
        return records

    @staticmethod
    def _call(hook: str, function: Callable, record: dict, arg: Any, where: Where, skip: Skip) -> list[dict]:
        try:
            out = function(record, arg)
        except Exception as exc:
            raise _raised(hook, str(where), exc) from exc
        if out is None or (isinstance(out, (list, tuple)) and not out):
            skip(f"dropped by cleaner_hooks.{hook}", str(where))
            return []
        if isinstance(out, dict):
            return [out]
        if not isinstance(out, (list, tuple)):
            raise SessionFailed(f"{where}: cleaner_hooks.{hook} returned {type(out).__name__}, not a record (dict), "
                                "a list of records or None; fix cleaner_hooks.py")
        _check_records(out, hook, str(where))
        return list(out)

    def transform_session(self, records: list[dict], key: str, files: list[str]) -> list[dict]:
        """The records ``transform_session`` returns for one session, as a list."""
        arg: Any = SessionContext(key, tuple(files)) if self.api > 1 else {"key": key, "files": list(files)}
        try:
            out = self.session(records, arg)
        except Exception as exc:
            raise SessionFailed(f"session {key}: cleaner_hooks.transform_session raised "
                                f"{exc.__class__.__name__}: {exc}; fix cleaner_hooks.py") from exc
        if isinstance(out, tuple):
            out = list(out)
        if not isinstance(out, list):
            raise SessionFailed(f"session {key}: cleaner_hooks.transform_session returned {type(out).__name__}, "
                                "not a list of records; fix cleaner_hooks.py (return the records, changed or not)")
        return out


def looks_like_a_hook(name: str) -> bool:
    """A public name a hook could have been meant by: ``transform...``, or one close to a hook's name."""
    return name.startswith("transform") or _closest(name) is not None


def _closest(name: str) -> str | None:
    import difflib

    close = difflib.get_close_matches(name, HOOK_NAMES, n=1, cutoff=0.8)
    return close[0] if close else None


def _check_arguments(name: str, hook: str, function: Callable) -> None:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin or a callable object without one: called as it is
        return
    try:
        signature.bind(None, None)
    except TypeError:
        raise HooksError(f"{name}: {hook}{signature} cannot be called with two arguments {ARGUMENTS[hook]}; "
                         "fix cleaner_hooks.py") from None


def _check_records(records: list | tuple, hook: str, where: str) -> None:
    for index, record in enumerate(records, 1):
        if not isinstance(record, dict):
            raise SessionFailed(f"{where}: cleaner_hooks.{hook} returned a list whose item {index} is a "
                                f"{type(record).__name__}, not a record (dict); fix cleaner_hooks.py")


def _raised(hook: str, where: str, exc: Exception) -> SessionFailed:
    return SessionFailed(f"{where}: cleaner_hooks.{hook} raised {exc.__class__.__name__}: {exc}; fix cleaner_hooks.py")
