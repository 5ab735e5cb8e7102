"""run.py's messages: where a validation problem is, said only when it is one record's."""

from __future__ import annotations

from cleaner_runtime.run import where_problem
from cleaner_runtime.validate import Problem


def test_a_record_problem_names_its_line_and_a_session_problem_names_none():
    assert where_problem(Problem(3, "schema", "content must be a string")) == " at record line 3"
    assert where_problem(Problem(None, "letta-no-user", "no user record")) == ""


def test_a_hand_edited_answers_file_with_a_misspelt_key_fails_loudly(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    from generator.answers import load_answers
    from generator.render import complete, render_template

    repo = Path(__file__).resolve().parents[2]
    project = tmp_path / "p"
    render_template(complete(load_answers(repo / "examples" / "answers" / "pi.yml")), project)
    answers = project / ".copier-answers.yml"
    lines = answers.read_text(encoding="utf-8").splitlines()
    header = [line for line in lines if line.lstrip().startswith("#")]
    data = json.loads("\n".join(line for line in lines if not line.lstrip().startswith("#")))
    data["kinds"][0]["contents"] = data["kinds"][0].pop("content", "text")  # the typo a person makes
    answers.write_text("\n".join(header) + "\n" + json.dumps(data, indent=1) + "\n", encoding="utf-8")
    (tmp_path / "raw").mkdir()
    done = subprocess.run([sys.executable, str(project / "clean_to_trajectory_jsonl.py"), "--input",
                           str(tmp_path / "raw"), "--output", str(tmp_path / "out")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stderr
    assert "kinds[0]: unknown key 'contents'; did you mean 'content'?" in done.stderr
    assert not (tmp_path / "out").exists()
