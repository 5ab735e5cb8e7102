"""Your customisations of the rendered cleaner. trajectory-cleaner creates this file once and
never overwrites it, so edits here survive `trajectory-cleaner update`.

The cleaner calls these functions, when defined, at two points:

- ``transform_record(record, where)``: each raw record (a dict, as parsed) before it is mapped.
  Return the record (changed or not), or ``None`` to drop it (the summary counts drops).
  ``where`` is ``"file:line"``.
- ``transform_session(records, info)``: the finished trajectory-v1 records of one session
  (meta first) before validation and writing. Return the list to write. ``info`` holds the
  session ``key`` and its input ``files``. Whatever you return is validated like the rest.

Delete or rename a function to switch it off. Keep the rendered tests passing:
``python -m pytest``.
"""

HOOKS_API = 1


def transform_record(record, where):
    return record


def transform_session(records, info):
    return records
