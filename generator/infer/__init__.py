"""Inference: a complete mapping proposed from the profile of sample raw traces.

``core`` holds the kind-by-kind planner; the small modules beside it are rules that each decide
one thing from the samples' structure, tested on their own (tests/infer/): ``calls`` finds tool
calls and results in lists anywhere in a record, ``links`` tells real call/result links from
values that merely repeat, ``losses`` finds what a mapping would drop.
"""

__all__ = ["CONFIDENT", "Decision", "Inference", "Inferrer", "infer", "infer_profile"]


def __getattr__(name: str):
    """The names of ``core``, imported on first use: ``new --answers`` imports ``losses`` (through
    this package) to check a render, and importing the planner it never runs added 3% to it."""
    if name in __all__:
        from generator.infer import core

        return getattr(core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
