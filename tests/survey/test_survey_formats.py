"""The real survey, in a pseudo-terminal, on formats of the golden corpus: answering only the
questions it asks (in the data's terms) gives the cleaner whose output is the hand-written one."""

from __future__ import annotations

from ..formats.support import FIXTURES, Case, only_output, run_cleaner
from .test_survey import DOWN, ENTER, _spawn, pexpect_eof


def _render(tmp_path, case: Case, answers: list[tuple[str, str]]) -> None:
    raw = case.raw_copy(tmp_path)
    child = _spawn(["new", str(raw), "--source", case.mapping["source"], "-o", str(tmp_path / "cleaner")], tmp_path)
    for question, keys in answers:
        child.expect_exact(question)
        child.send(keys)
    for prompt in ("Does this look right?", "Privacy settings?", "Lerim source profile", "Write the cleaner project to:",
                   "Render the cleaner?"):
        child.expect_exact(prompt)
        child.send(ENTER)
    child.expect_exact("rendered")
    child.expect(pexpect_eof())
    child.close()
    assert child.exitstatus == 0
    done = run_cleaner(tmp_path / "cleaner", raw, tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    assert only_output(tmp_path / "out").read_bytes() == case.expected.read_bytes()


def test_calls_embedded_in_model_response_events_render_right_with_no_question(tmp_path):
    # ops runner: model.response events hold reasoning, text and the calls; tool.invoke repeats them
    _render(tmp_path, Case(FIXTURES / "ops_runner" / "event_stream"), [])


def test_a_question_asked_in_the_data_s_terms_settles_the_zone(tmp_path):
    # helpdesk CSV: naive local times; the third zone offered is Europe/London
    _render(tmp_path, Case(FIXTURES / "helpdesk_csv" / "tickets"),
            [("Which time zone were they written in?", DOWN + DOWN + ENTER)])
