"""Inference: a complete mapping proposed from the profile of sample raw traces.

``core`` holds the kind-by-kind planner; the small modules beside it are rules that each decide
one thing from the samples' structure, tested on their own (tests/infer/): ``calls`` finds tool
calls and results in lists anywhere in a record, ``links`` tells real call/result links from
values that merely repeat, ``losses`` finds what a mapping would drop.
"""

from generator.infer.core import CONFIDENT, Decision, Inference, Inferrer, infer, infer_profile

__all__ = ["CONFIDENT", "Decision", "Inference", "Inferrer", "infer", "infer_profile"]
