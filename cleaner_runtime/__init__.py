"""The runtime every rendered cleaner shares: reading, mapping, redaction, validation, writing.

This package is copied verbatim into each rendered project by trajectory-cleaner. The generated
``clean_to_trajectory_jsonl.py`` calls ``run.main`` with the project's answers file (the mapping's
one copy, read by ``mapping.read_answers``) and its ``cleaner_hooks`` (checked and called by
``hooks``); the logic lives here so that it is tested once, in the generator's repository, for
every format.
"""

RUNTIME_VERSION = 1
