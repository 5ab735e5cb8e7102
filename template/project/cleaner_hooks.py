"""Your customisations of the rendered cleaner. trajectory-cleaner creates this file once and
never overwrites it, so edits here survive `trajectory-cleaner update`.

No hook is defined yet, so the cleaner does no hook work at all. Define any of these four
functions (``HOOKS_API = 2``); the cleaner calls each one it finds, in this order:

- ``transform_document(document, ctx)``: one whole input file, before its records are found.
  ``document`` is the parsed JSON of a JSON file (as read: before ``input.records_path`` is
  applied), or the ``list`` of records of a JSONL, CSV or TSV file (invalid lines are already
  reported and left out). Return the document to read instead (changed in place or new: flatten
  a tree, sort records, add records), or ``None`` to read nothing from this file (counted). For a
  JSONL/CSV/TSV file return a list of records (dicts). ``ctx.file`` is the file, ``ctx.container``
  how it was read (``jsonl``, ``json_array``, ``json_object``, ``csv``, ``tsv``). The whole file is
  in memory while it runs (``--max-document-mb`` applies), and with ``session.by: field`` every
  file is read twice (once more by each further process of ``--jobs``), so it runs that often per
  file: it must return the same for the same file every time.
- ``transform_record(record, ctx)``: each raw record (a ``dict`` as parsed: one element of the
  record list, one CSV row with string values, each nested child of ``input.children`` on its
  own, with the document's fields under ``input.document_key`` when the mapping sets one) before
  it is mapped. Return the record (changed in place, or a new ``dict``), a ``list`` of records
  (several records from one; ``[]`` drops it), or ``None`` to drop it (drops are counted as
  "dropped by cleaner_hooks.transform_record"). ``ctx.file`` and ``ctx.line`` say where it was
  read (``line`` is the record's position in its list for a JSON document, and for a record
  ``transform_document`` added), ``ctx.where`` says both as messages do: ``"file:line"``,
  ``"file (record N)"`` or ``"file (element E, record N)"``.
- ``transform_kind(record, ctx)``: like ``transform_record`` (after it), for each raw record a
  rule of the mapping's ``kinds`` matches; ``ctx.kind`` is that rule's ``name`` (``kinds[N]``
  when it has none). A record no rule matches is not passed: ``unknown_kinds`` decides for it.
  Return what ``transform_record`` may return; the records you return are matched against
  ``kinds`` again when they are mapped, so a change may give a record another kind.
- ``transform_session(records, ctx)``: one session's finished trajectory-v1 records (a ``list``
  of dicts: the meta record first, times filled, call ids linked, every string already redacted
  and truncated) before validation and writing. Return the list (or tuple) to write: add, drop,
  reorder or change records. ``ctx.key`` is the session (its file, or the value of
  ``session.field``), ``ctx.files`` its input files (a tuple of paths).

The privacy boundary holds around every hook: whatever a hook returns is mapped, redacted,
truncated, counted in the summary and validated like the rest. Records the first three return
go through the mapping (``privacy.drop_fields``, the kinds, redaction, truncation) like any raw
record; every string ``transform_session`` adds or changes (content, tool names, args, the meta
record's cwd, git_branch, model) is redacted, truncated and counted like the mapped ones, and
what the cleaner already made private is not counted twice. A hook may read raw data (the raw
file itself); never write raw data anywhere else (files, logs, the network).

A hook that raises, or returns something else than it may, fails its session, named with the hook
and the file:line. A public function whose name looks like a hook but is none (``transform_recrod``,
any ``transform_*``) stops the cleaner before it reads anything: start a helper's name with ``_``.
With ``--jobs`` hooks run in several processes: keep them deterministic and free of state shared
between sessions. Delete or rename a hook to switch it off. Keep the rendered tests passing:
``python -m pytest``; when a change of output is intended, ``trajectory-cleaner update .
--accept-output`` refreshes ``tests/expected/``. Test your hooks in ``tests/test_cleaner_hooks.py``.

Examples (copy one below and adapt it)::

    def transform_document(document, ctx):
        # a run tree: every run and its children, depth first, as one record list
        def walk(run):
            yield {key: value for key, value in run.items() if key != "child_runs"}
            for child in run.get("child_runs") or []:
                yield from walk(child)
        return {"records": list(walk(document))}

    def transform_record(record, ctx):
        if record.get("type") == "heartbeat":
            return None  # dropped, and counted
        if record.get("type") == "batch":  # one raw record holding several messages
            return [dict(message, ts=record["ts"]) for message in record["messages"]]
        return record

    def transform_kind(record, ctx):
        if ctx.kind == "tool output":
            record["output"] = record.get("stdout", "") + record.get("stderr", "")
        return record

    def transform_session(records, ctx):
        return [r for r in records if r.get("content") != "(no content)"]

``HOOKS_API = 1`` (hooks written for the first version) still works: ``transform_record(record,
where)`` then receives ``where`` as the string ``ctx.where`` holds, ``transform_session(records,
info)`` a dict ``{"key": ..., "files": [...]}``, and the two other hooks need version 2.
"""

HOOKS_API = 2
