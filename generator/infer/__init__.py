"""Inference: a complete mapping proposed from the profile of sample raw traces.

``core`` is the pipeline (``infer_profile``) over one ``draft.Draft``, a step per part of the mapping in
a module of its own; the small modules beside them are rules that each decide one thing from the
samples' structure, tested on their own (tests/infer/): ``calls`` finds tool calls and results in
lists anywhere in a record, ``links`` tells real call/result links from values that merely repeat,
``losses`` finds what a mapping would drop; ``search`` scores whole mappings on the samples.
"""

__all__ = ["CONFIDENT", "Decision", "Inference", "infer", "infer_profile"]


def __getattr__(name: str):
    """The names of ``core``, imported on first use: ``new --answers`` imports ``losses`` (through
    this package) to check a render, and importing the planner it never runs added 3% to it."""
    if name in __all__:
        from generator.infer import core

        return getattr(core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
