"""trajectory-cleaner: render bespoke cleaners that turn raw agent traces into trajectory-v1 JSONL."""

__version__ = "0.1.0"
TEMPLATE_VERSION = 2
