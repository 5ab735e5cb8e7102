"""The one exception of the migration, so the CLI can tell bad input (exit 2) from a crash."""

from __future__ import annotations


class MigrateError(Exception):
    """Bad input or configuration (exit 2); the message names the file and the fix."""
