"""Commands written inside an agent's text are refused by `new --yes`, never rendered as prose
(issue 35: mini-swe-agent's fenced ```mswea_bash_command blocks rendered wrong with exit 0)."""

import json
import subprocess
import sys
from pathlib import Path

from generator.infer.actions import actions_in_text

REPO = Path(__file__).resolve().parents[2]
TIME = "2026-05-16T09:00:00Z"


def _agent_run(turns: int, fence: str = "sh_action", reply: str = "[exit {n}]\n") -> list[dict]:
    """A run with no structured calls: each reply holds a fenced command, the next message its output."""
    messages = [{"role": "system", "content": "You run shell commands."},
                {"role": "user", "content": "Count the lines of notes.txt, please."}]
    for n in range(turns):
        messages.append({"role": "assistant", "content": f"Step {n}: look again.\n\n```{fence}\nwc -l notes{n}.txt\n```"})
        messages.append({"role": "user", "content": reply.format(n=n % 2) + f"{n + 3} notes{n}.txt"})
    return messages


def _written(messages: list[dict]) -> dict[str, list[dict]]:
    return {"run.jsonl": [{"role": "meta"}, *({**m, "timestamp": TIME} for m in messages if m["role"] != "system")]}


def test_fenced_commands_answered_by_program_output_are_a_doubt():
    doubt = actions_in_text(_written(_agent_run(4)))
    assert doubt is not None
    assert "4 of 4 assistant texts" in doubt and "```sh_action" in doubt and "'[exit '" in doubt


def test_a_coding_chat_whose_person_answers_in_words_is_not_a_doubt():
    messages = _agent_run(4)
    answers = iter(["Thanks, that works.", "Hm, it says 7?", "Can you explain -l?", "Great."])
    for message in messages[3::2]:
        message["content"] = next(answers)
    assert actions_in_text(_written(messages)) is None


def test_few_or_mixed_fences_are_not_a_doubt():
    assert actions_in_text(_written(_agent_run(2))) is None
    mixed = _agent_run(5)
    for message, fence in zip(mixed[2::2], ["python", "js", "sql", "sh_action", "go"], strict=True):
        message["content"] = message["content"].replace("```sh_action", f"```{fence}")
    assert actions_in_text(_written(mixed)) is None


def test_texts_with_two_blocks_or_none_do_not_count():
    messages = _agent_run(4)
    for message in messages[2::2]:
        message["content"] += "\n\n```sh_action\nls\n```"
    assert actions_in_text(_written(messages)) is None


def test_new_yes_refuses_commands_in_text_and_renders_nothing(tmp_path):
    # before this rule, `new --yes` rendered this (exit 0): every command written as assistant prose
    # and every command's output as a message from the person
    samples = tmp_path / "runs"
    samples.mkdir()
    for index in range(2):
        (samples / f"run{index}.json").write_text(json.dumps(_agent_run(5)), encoding="utf-8")
    out = tmp_path / "project"
    done = subprocess.run([sys.executable, "-m", "generator", "new", str(samples), "--yes", "--json",
                           "--source", "agent", "-o", str(out)], cwd=REPO, capture_output=True, text=True,
                          check=False, timeout=300)
    assert done.returncode == 1, (done.stdout[-2000:], done.stderr[-2000:])
    report = json.loads(done.stdout)
    assert report["doubts"] and "```sh_action" in report["doubts"][0]
    assert "nothing was rendered" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()
