"""The survey: every question type driven in-process with prompt_toolkit pipe input, and the
real command in a pseudo-terminal."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from generator.inspect import profile_paths
from generator.survey import Asker, State, survey

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CLEAR = HERE / "samples" / "clear"
AMBIGUOUS = HERE / "samples" / "ambiguous"
UP, DOWN, ENTER, SPACE, BACKSPACE, CTRL_C = "\x1b[A", "\x1b[B", "\r", " ", "\x7f", "\x03"


def drive(keys: str, samples: Path, output: Path):
    state = State(profile_paths([str(samples)]), None, output=str(output))
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        inp.send_text(keys)
        inp.close()  # keys run out -> EOFError: a survey asking other questions fails, never waits forever
        result = survey(state, [samples], Asker(state))
    return state, result


def test_fully_inferable_format_needs_five_keystroke_decisions(tmp_path):
    state, result = drive(ENTER * 5, CLEAR, tmp_path / "out")
    assert result is not None
    mapping, output = result
    assert output == str(tmp_path / "out")
    assert state.asked == 5
    roles = {k["match"]["role"]: k["role"] for k in mapping["kinds"] if k.get("match", {}).get("role")}
    assert roles == {"user": "user", "assistant": "assistant"}


def test_ambiguous_format_asks_exactly_its_open_questions(tmp_path):
    # speaker=A -> keep the best guess (user); speaker=B -> one down (assistant); then the 5 steps.
    state, result = drive(ENTER + DOWN + ENTER + ENTER * 5, AMBIGUOUS, tmp_path / "out")
    mapping, _ = result
    assert state.asked == 7
    roles = {k["match"]["speaker"]: k["role"] for k in mapping["kinds"] if "speaker" in k.get("match", {})}
    assert roles == {"A": "user", "B": "assistant"}
    assert state.inference.questions == [] or all(q.key in state.answers for q in state.inference.questions)


def test_typed_values_validation_and_confirm(tmp_path):
    keys = (ENTER                                   # summary: looks right
            + DOWN + ENTER                          # privacy: change
            + "y"                                   # redact personal data: yes (one key)
            + BACKSPACE * 5 + "50" + ENTER          # 50 is rejected by the validator; prompt stays open
            + BACKSPACE * 2 + "5000" + ENTER        # tool limit
            + ENTER                                 # other limit: keep the default
            + ENTER + ENTER + ENTER)                # profile, output, render
    _state, result = drive(keys, CLEAR, tmp_path / "out")
    mapping, _ = result
    assert mapping["privacy"]["personal_data"] is True
    assert mapping["privacy"]["truncate"] == {"tool": 5000, "other": 50000}


def test_going_back_from_the_preview_changes_one_answer(tmp_path):
    keys = (ENTER * 4                               # summary, privacy, profile, output
            + DOWN + ENTER                          # preview: go back
            + DOWN * 2 + ENTER                      # change: the Lerim source profile
            + UP * 3 + ENTER                        # from the inferred 'generic' up to 'research'
            + ENTER)                                # preview again: render
    _state, result = drive(keys, CLEAR, tmp_path / "out")
    mapping, _ = result
    assert mapping["source_profile"] == "research"


def test_checkbox_marks_a_kind_as_noise(tmp_path):
    keys = (DOWN * 2 + ENTER                        # summary: mark record kinds as noise
            + SPACE + ENTER                         # tick the first kind
            + ENTER * 5)                            # summary ok, privacy, profile, output, render
    _state, result = drive(keys, CLEAR, tmp_path / "out")
    mapping, _ = result
    assert sorted(k["role"] for k in mapping["kinds"]) == ["skip", "user"] or \
        sorted(k["role"] for k in mapping["kinds"]) == ["assistant", "skip"]


def test_change_one_decision_from_the_summary(tmp_path):
    state0 = State(profile_paths([str(CLEAR)]), None)
    state0.infer()
    index = next(i for i, d in enumerate(state0.inference.decisions) if d.key == "source")
    keys = (DOWN + ENTER                            # summary: change one decision
            + DOWN * index + ENTER                  # which decision: source
            + UP + ENTER                            # up from the first choice wraps to "type another value"
            + "ops-bot" + ENTER
            + ENTER * 5)
    _state, result = drive(keys, CLEAR, tmp_path / "out")
    mapping, _ = result
    assert mapping["source"] == "ops-bot"


def test_abort_from_the_preview_returns_nothing(tmp_path):
    _state, result = drive(ENTER * 4 + DOWN * 2 + ENTER, CLEAR, tmp_path / "out")
    assert result is None
    assert not (tmp_path / "out").exists()


def test_ctrl_c_raises_keyboard_interrupt(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        drive(CTRL_C, CLEAR, tmp_path / "out")


def _spawn(args: list[str], cwd: Path):
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", PYTHONPATH=str(REPO), NO_COLOR="1")
    return pexpect.spawn(sys.executable, ["-m", "generator", *args], cwd=str(cwd), env=env, encoding="utf-8",
                         timeout=60, dimensions=(50, 140))


def test_real_command_in_a_pseudo_terminal(tmp_path):
    child = _spawn(["new", str(AMBIGUOUS), "-o", str(tmp_path / "cleaner")], tmp_path)
    # the question shows what each choice writes, in the data's words, never the mapping key
    child.expect_exact("Where the choices differ")
    child.expect_exact("What are these records?")
    child.expect_exact('(a) user text "The nightly export job failed again')
    child.expect_exact('(b) assistant text "The nightly export job failed again')
    assert "mapping key" not in child.before and "kinds[" not in child.before
    child.send(ENTER)
    # A answered as the user, B's role follows from the samples' outputs (a chat needs its
    # assistant): the search settles it, so it is not asked
    for prompt in ("Does this look right?", "Privacy settings?", "Lerim source profile", "Write the cleaner project to:"):
        child.expect_exact(prompt)
        child.send(ENTER)
    child.expect_exact("Render the cleaner?")
    child.send(ENTER)
    child.expect_exact("rendered")
    child.expect(pexpect_eof())
    child.close()
    assert child.exitstatus == 0
    out = (tmp_path / "cleaner" / "tests" / "expected" / "ambiguous" / "export-chat.jsonl").read_text().splitlines()
    roles = [json.loads(line)["role"] for line in out]
    assert roles == ["meta", "user", "assistant", "user", "assistant"]


def test_ctrl_c_in_a_pseudo_terminal_leaves_nothing(tmp_path):
    child = _spawn(["new", str(CLEAR), "-o", str(tmp_path / "cleaner")], tmp_path)
    child.expect_exact("Does this look right?")
    child.sendcontrol("c")
    child.expect_exact("aborted")
    child.expect(pexpect_eof())
    child.close()
    assert child.exitstatus == 130
    assert not (tmp_path / "cleaner").exists()
    assert [p.name for p in tmp_path.iterdir()] == []


def test_without_a_terminal_new_names_the_flags(tmp_path):
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-m", "generator", "new", str(CLEAR), "-o", str(tmp_path / "x")],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert result.returncode == 2
    assert "--yes" in result.stderr and "--answers" in result.stderr


def pexpect_eof():
    import pexpect

    return pexpect.EOF


def drive_on_samples(keys: str, samples: Path, output: Path):
    """As `new` runs the survey: with the samples' paths, so questions are choices between outputs."""
    state = State(profile_paths([str(samples)]), None, output=str(output), paths=[str(samples)])
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        inp.send_text(keys)
        inp.close()
        result = survey(state, [samples], Asker(state))
    return state, result


def test_a_typed_value_that_cannot_work_is_refused_at_once_and_asked_again(tmp_path, capsys):
    keys = (UP + ENTER + "no-such-role" + ENTER    # speaker A: type another value, one no cleaner accepts
            + DOWN + ENTER                         # asked again: (b) A's records written as assistant text
            + ENTER * 5)                           # summary, privacy, profile, output, render
    state, result = drive_on_samples(keys, AMBIGUOUS, tmp_path / "out")
    mapping, _ = result
    said = capsys.readouterr().err
    assert "no-such-role cannot be used: its cleaner fails" in said
    assert "Choose again" in said
    assert state.answers["kinds[speaker=A].role"] == "assistant"
    roles = {k["match"]["speaker"]: k["role"] for k in mapping["kinds"] if "speaker" in k.get("match", {})}
    assert roles == {"A": "assistant", "B": "user"}


def test_a_question_whose_choices_write_the_same_records_is_settled_unasked(capsys):
    from generator.choices import describe
    from generator.infer.core import Decision
    from generator.infer.trial import Trial
    from generator.survey import settle

    same = Trial(0, {"s.jsonl": [{"role": "meta", "source": "x"}, {"role": "user", "content": "hi"}]})
    offered = describe("timestamps.timezone", [("UTC", None, same), ("Etc/UTC", None, same)])
    state = State(profile_paths([str(CLEAR)]), None)
    assert settle(state, Decision("timestamps.timezone", "UTC", 0.5, "no zone", ["Etc/UTC"]), offered)
    assert state.answers == {"timestamps.timezone": "UTC"} and state.asked == 0
    assert "settled, not asked" in capsys.readouterr().err
