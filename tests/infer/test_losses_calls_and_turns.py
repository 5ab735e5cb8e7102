"""losses.py: a command line that restates the record's own calls is not a loss, and a list beside the
records that retells the conversation with turns no record writes is (issue 35: SWE-agent's `action`
repeats each call as a command line; its `trajectory` ends with the `submit` step that `history` lacks,
which `--yes` rendered without, exit 0, once the thought written twice was fixed)."""

from __future__ import annotations

from generator.infer.losses import call_words, restates_calls, unwritten_turns

CALL = {"tool_calls": [{"id": "c1", "function": {"name": "find_file",
                                                  "arguments": "{\"file_name\": \"missing_colon.py\", \"dir\": \"/repo\"}"}}]}


def test_a_command_line_made_of_the_calls_words_restates_them():
    said = call_words(CALL)
    assert restates_calls("find_file missing_colon.py /repo", said)
    assert restates_calls("find_file missing_colon.py", said)
    assert not restates_calls("I will look for missing_colon.py first", said)  # prose around the words
    assert not restates_calls("find_file other.py", said)
    assert not restates_calls("find_file missing_colon.py", call_words({"content": "find_file missing_colon.py"}))


def test_a_retelling_list_with_a_turn_no_record_writes_is_a_loss():
    corpus = "let me find the file first. found it in src. now open it and fix the colon."
    steps = [{"response": "Let me find the file first.", "observation": "Found it in src."},
             {"response": "Now open it and fix the colon."},
             {"response": "Submitting the change now, all tests pass.", "observation": "diff --git a/x b/x"}]
    [loss] = unwritten_turns([("run.traj (record 1)", {"trajectory": steps})], corpus)
    assert loss.count == 1 and "`trajectory`" in loss.what and loss.example == "run.traj"


def test_a_list_that_is_not_the_conversation_is_not_a_loss():
    corpus = "let me find the file first."
    tools = [{"docstring": "Find a file by its name in the repository."},
             {"docstring": "Open a file and show a window of its lines."}]
    assert unwritten_turns([("run.traj", {"tools": tools})], corpus) == []
