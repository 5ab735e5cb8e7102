"""Secret redaction: the privacy boundary of a cleaner.

Copied verbatim into every rendered cleaner project with the rest of ``cleaner_runtime`` and
imported by the generator. Standard-library only (Python >= 3.11): its modules import nothing
but the standard library and each other, so what protects a user's secrets never depends on
what else happens to be installed. One optional speed-up: when ``hyperscan`` is installed
(``requirements-fast.txt``), ``engine`` finds the detectors' start anchors with it; the positions,
and so every output and count, are the same as without it (``tests/redaction/test_redaction_native.py``).

Public API
----------

``Redactor(*, extra_patterns=None, allowlist=(), personal_data=False)``
    ``redact(text) -> str`` replaces every detected secret with
    ``[REDACTED:<class>]``; ``counts`` is a ``collections.Counter`` of
    redactions per class (never the values).

``CLASSES`` / ``PERSONAL_CLASSES``
    The placeholder names, always on / opt-in (listed in ``detectors``).

Callers redact *before* truncating (``cleaner_runtime.truncate``), so a truncation boundary
can never cut a secret in half and leave the other half readable.

Modules, in the order a match passes through them
-------------------------------------------------

* ``patterns``: regex building blocks (boundaries, quotes and unquoted values in every
  encoding a trace uses), the value heuristics (placeholders, random-looking tokens), which keys
  name a secret and which values they hold, and the vendor a generic key's value belongs to;
* ``checks``: the check each detector runs on its match (a vendor token's shape, Luhn, mod 97,
  a credential on a command line, a credential file, a Kubernetes Secret, ...);
* ``markup``: keys and values written as markup (elements, name/value attributes, property lists);
* ``detectors``: the detector record and the table of every detector, in match order, with the
  class names;
* ``engine``: the detectors' regexes, the prefilter that decides where each runs, and ``Redactor``.
"""

from .detectors import CLASSES, PERSONAL_CLASSES
from .engine import Redactor

__all__ = [
    "CLASSES",
    "PERSONAL_CLASSES",
    "Redactor",
]
