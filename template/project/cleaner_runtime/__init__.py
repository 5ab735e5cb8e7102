"""The runtime every rendered cleaner shares: reading, mapping, redaction, validation, writing.

This package is copied verbatim into each rendered project by trajectory-cleaner. The generated
``clean_to_trajectory_jsonl.py`` holds the mapping as literal tables and calls ``run.main``; the
logic lives here so that it is tested once, in the generator's repository, for every format.
"""

RUNTIME_VERSION = 1
