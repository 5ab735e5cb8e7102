"""The field names and words raw traces use for tools, text, roles and noise.

Where the old output says nothing about a record, its kind is guessed from these (shape_guess.py);
the alignment prefers id-, link- and name-like fields when one value sits in several places.
"""

from __future__ import annotations

NAME_KEYS = ("tool", "tool_name", "name", "fn", "function", "action", "command")
ARGS_KEYS = ("args", "arguments", "params", "parameters", "input", "tool_input", "kwargs", "query")
RESULT_KEYS = ("result", "output", "returned", "response", "observation", "tool_output", "return")
LINK_KEYS = ("call_ref", "call_id", "tool_call_id", "tool_use_id", "action_id", "ref", "parent_id", "reply_to")
ID_KEYS = ("id", "call_id", "tool_call_id", "action_id", "tool_use_id", "uid")
TEXT_KEYS = ("text", "content", "body", "message", "msg", "says", "note", "thought", "thinking", "value")
USER_WORDS = {"user", "human", "customer", "requester", "client", "input", "question", "prompt", "caller",
              "requestor", "member", "patient", "person"}
ASSISTANT_WORDS = {"assistant", "ai", "bot", "agent", "model", "answer", "reply", "response", "researcher",
                   "analyst", "support", "responder", "copilot", "llm", "gpt", "claude"}
REASONING_WORDS = {"thought", "thinking", "reasoning", "reflection", "scratchpad", "deliberation", "rationale",
                   "agent_note", "note", "plan", "internal"}
NOISE_WORDS = {"heartbeat", "typing", "progress", "ping", "pong", "usage", "keepalive", "metrics", "debug",
               "telemetry", "status", "tick", "noop"}
HEADER_WORDS = {"opened", "start", "started", "header", "session", "created", "meta", "init", "begin"}
SYSTEM_WORDS = {"system"}
