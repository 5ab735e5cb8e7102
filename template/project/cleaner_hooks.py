"""Your customisations of the rendered cleaner. trajectory-cleaner creates this file once and
never overwrites it, so edits here survive `trajectory-cleaner update`.

The cleaner calls these functions, when defined, at two points:

- ``transform_record(record, where)``: each raw record (a dict, as parsed: one element of the
  record list, one CSV row with string values, with the document's fields under
  ``input.document_key`` when the mapping sets one) before it is mapped. Return the record
  (changed or not), or ``None`` to drop it (the summary counts drops). ``where`` is a string:
  ``"file:line"``, ``"file (record N)"`` or ``"file (element E, record N)"``. The record you
  return is mapped, redacted and truncated like any other.
- ``transform_session(records, info)``: the finished trajectory-v1 records of one session (meta
  first, already redacted and truncated) before validation and writing. Return the list to write.
  ``info`` holds the session ``key`` and its input ``files``. Whatever you return is validated like
  the rest, and every string you add or change (content, tool names, args, the meta record's cwd,
  git_branch, model) is redacted, truncated and counted like the mapped ones: the privacy
  boundary holds around your hooks. Never write raw data anywhere else.

A hook that raises fails its session. With ``--jobs`` hooks run in several processes: keep them
deterministic. Delete or rename a function to switch it off. Keep the rendered tests passing:
``python -m pytest``; when a change of output is intended, ``trajectory-cleaner update .
--accept-output`` refreshes ``tests/expected/``.
"""

HOOKS_API = 1


def transform_record(record, where):
    return record


def transform_session(records, info):
    return records
