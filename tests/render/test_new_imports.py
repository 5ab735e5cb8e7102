"""`new --answers` imports only what it runs (#17: `new` under a second by honest means).

With a mapping given there is nothing to infer: the loss check it runs after the sample run
(``generator.infer.losses``) needs two helpers of the inspection package, not the planner, the
profile readers or the report. Both packages re-export their names lazily so that importing one
module of them does not import all of them; the names stay importable from the package.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "anthropic_messages" / "thinking_tools"


def test_new_with_answers_imports_no_inference(tmp_path: Path):
    code = ("import sys\nfrom generator.cli import main\n"
            f"code = main(['new', {str(FIXTURE / 'raw')!r}, '-o', {str(tmp_path / 'p')!r}, "
            f"'--answers', {str(FIXTURE / 'mapping.yml')!r}])\n"
            "print(code, sorted(m for m in ('generator.infer.core', 'generator.inspect.profile', "
            "'generator.inspect.report', 'generator.infer.losses') if m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "0 ['generator.infer.losses']"
    assert (tmp_path / "p" / ".copier-answers.yml").is_file()


def test_the_packages_still_export_their_names():
    import generator.infer
    import generator.inspect
    from generator.infer import CONFIDENT, Decision, Inference, infer, infer_profile
    from generator.infer.core import infer as core_infer
    from generator.inspect import report_text, values_at, words

    assert infer is core_infer and generator.infer.infer is core_infer
    assert all(callable(f) for f in (Decision, Inference, infer_profile, report_text, values_at, words))
    assert CONFIDENT == generator.infer.CONFIDENT
    for name in generator.inspect.__all__:
        assert getattr(generator.inspect, name) is not None
    for package in (generator.infer, generator.inspect):
        try:
            package.no_such_name  # noqa: B018 - the AttributeError is the point
        except AttributeError as exc:
            assert "no_such_name" in str(exc)
        else:
            raise AssertionError(f"{package.__name__}.no_such_name")
