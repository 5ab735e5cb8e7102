"""run.py's messages: where a validation problem is, said only when it is one record's."""

from __future__ import annotations

from cleaner_runtime.run import where_problem
from cleaner_runtime.validate import Problem


def test_a_record_problem_names_its_line_and_a_session_problem_names_none():
    assert where_problem(Problem(3, "schema", "content must be a string")) == " at record line 3"
    assert where_problem(Problem(None, "letta-no-user", "no user record")) == ""
