"""The words that say what a name sounds like: role vocabularies, and the field names of kinds,
roles, sessions, times, meta and tool names.

Contract: data and pure functions of a string (``words``, ``strong_roles``, ``name_roles``). Names
are one signal among several (structure, linkage and content shape decide), never the decision
alone. Imports nothing from the package.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

# Names are one signal among several (structure, linkage and content shape decide); these word
# lists only say what a value or a field name *sounds like*.
ROLE_WORDS: dict[str, set[str]] = {
    "user": {"user", "human", "customer", "requester", "request", "input", "question", "prompt", "query", "trigger",
             "client", "caller", "visitor", "enduser", "member", "inbound", "ask", "person", "operator", "requestor",
             "patient"},
    "assistant": {"assistant", "ai", "bot", "agent", "model", "answer", "response", "reply", "completion",
                  "outbound", "llm", "copilot", "gpt", "generation", "final", "support", "advisor", "responder",
                  "researcher", "analyst", "claude"},
    "reasoning": {"thinking", "reasoning", "thought", "thoughts", "reflection", "deliberation", "scratchpad",
                  "rationale", "cot", "think", "plan", "planning", "analysis", "note", "notes", "internal",
                  "agent_note"},
    "system": {"system", "developer", "instruction", "instructions", "sys"},
    "tool_call": {"tool_use", "tool_call", "function_call", "toolcall", "tooluse", "functioncall", "action",
                  "invoke", "invocation", "call", "command", "exec", "execute", "step_start"},
    "tool_result": {"tool_result", "toolresult", "observation", "tool", "function", "tool_message", "function_output",
                    "tool_output", "function_result",
                    "result", "output", "return", "returns", "tool_response", "function_response", "response_tool",
                    "step_end", "stdout"},
    "skip": {"heartbeat", "ping", "pong", "keepalive", "progress", "usage", "token_count", "tokens", "metrics",
             "metric", "telemetry", "retry", "retrying", "debug", "stats", "cost", "status", "checkpoint",
             "snapshot", "tick", "noop", "alive", "health", "latency", "rate_limit", "ratelimit", "backoff",
             "spinner", "typing", "presence", "ack", "trace_event", "log", "compaction", "label"},
    "meta": {"session", "header", "session_start", "session_meta", "meta", "metadata", "init", "run_start",
             "start", "begin", "config", "context", "environment", "setup", "trace_start", "conversation_start",
             "started"},
}
PHRASES = {
    ("tool", "use"): "tool_call", ("tool", "call"): "tool_call", ("function", "call"): "tool_call",
    ("tool", "result"): "tool_result", ("tool", "output"): "tool_result", ("function", "output"): "tool_result",
    ("call", "output"): "tool_result", ("function", "result"): "tool_result", ("tool", "response"): "tool_result",
    ("function", "response"): "tool_result", ("token", "count"): "skip", ("rate", "limit"): "skip",
    ("model", "change"): "skip", ("session", "info"): "skip", ("thinking", "level"): "skip",
    ("step", "started"): "tool_call", ("step", "start"): "tool_call", ("step", "finished"): "tool_result",
    ("step", "end"): "tool_result", ("step", "completed"): "tool_result", ("step", "output"): "tool_result",
}
DISCRIMINATOR_NAMES = {
    "type", "kind", "role", "event", "eventtype", "event_type", "record_type", "recordtype", "entry_type",
    "msg_type", "message_type", "item_type", "object", "category", "speaker", "author", "sender", "from",
    "actor", "who", "party", "participant", "direction", "step_type", "run_type", "node_type", "action_type",
    "op", "operation", "subtype", "event_name", "type_", "t", "source_type", "entity", "origin", "by",
}
ROLE_FIELD_NAMES = {"role", "speaker", "author", "sender", "from", "actor", "who", "party", "participant", "by",
                    "origin", "direction"}
SESSION_WORDS = {"session", "conversation", "convo", "conv", "thread", "trace", "chat", "dialog", "dialogue", "episode",
                 "run", "ticket", "case", "job", "workflow", "execution", "incident", "interaction", "transcript",
                 "pipeline", "build", "task"}
SESSION_RANK = {"session": 0, "conversation": 0, "convo": 0, "conv": 0, "thread": 0, "chat": 0, "dialog": 0,
                "dialogue": 0,
                "transcript": 0, "trace": 1, "episode": 1, "interaction": 1, "ticket": 2, "case": 2, "incident": 2,
                "run": 2, "job": 2, "workflow": 2, "execution": 2, "pipeline": 2, "build": 2, "task": 3}
TIME_WORDS = {"timestamp", "ts", "time", "date", "datetime", "created", "created_at", "createdat", "at", "when",
              "sent", "sent_at", "start", "started", "start_time", "started_at", "event_time", "logged", "occurred",
              "received", "posted", "emitted", "t", "epoch", "time_ms", "ts_ms", "unix"}
TIME_LATE_WORDS = {"end", "ended", "end_time", "ended_at", "finished", "finished_at", "completed", "completed_at",
                   "updated", "updated_at", "modified", "expires", "expiry", "deadline", "due", "closed", "stop"}
META_NAMES = {
    "cwd": {"cwd", "working_dir", "workdir", "working_directory", "workspace", "project_dir", "directory",
            "workspace_dir", "root_dir", "repo_path", "project_path", "workspacefolder", "pwd"},
    "git_branch": {"git_branch", "gitbranch", "branch", "branch_name", "git_ref", "ref_name"},
    "model": {"model", "model_name", "modelid", "model_id", "llm", "engine", "model_slug", "deployment"},
}

# the words that name an image, a recording or an attached file: a content block of such a type is
# media (kept as a placeholder), and a key of such a name holds a binary payload's address
MEDIA_WORDS = {"attachment", "attachments", "audio", "audio_url", "avatar", "binary", "blob", "document", "file",
               "file_data", "files", "icon", "image", "image_uri", "image_url", "images", "img", "inline_data",
               "input_audio", "input_file", "input_image", "pdf", "photo", "picture", "preview", "screenshot", "thumb",
               "thumbnail", "video"}

# the words of a field that names a person: it tells kinds apart only by values that name roles
PERSON_WORDS = {"user", "username", "author", "sender", "speaker", "from", "owner", "assignee", "creator", "person",
                "member", "participant", "actor", "who", "customer", "requester"}
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def words(value: str) -> list[str]:
    """``toolResult`` / ``function_call_output`` / ``Tool-Use`` -> lower-case words."""
    return [w.lower() for w in _WORD_SPLIT.split(value) if w]


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


def strong_roles(value: Any) -> list[str]:
    """Roles a name spells out whole (``tool_result``, ``toolResult``, ``observation``), no guessing."""
    if not isinstance(value, str) or not value or len(value) > 60:
        return []
    ws = [_singular(w) for w in words(value)]
    joined = "_".join(ws)
    found = [role for role, vocab in ROLE_WORDS.items() if joined in vocab or joined.replace("_", "") in vocab]
    for a, b in itertools.pairwise(ws):
        role = PHRASES.get((a, b))
        if role and role not in found:
            found.insert(0, role)
    return found


def name_roles(value: Any) -> list[str]:
    """What a discriminator value or a key *sounds like*, strongest first (may be empty)."""
    if not isinstance(value, str) or not value or len(value) > 60:
        return []
    ws = [_singular(w) for w in words(value)]
    joined = "_".join(ws)
    found: list[str] = []
    for role, vocab in ROLE_WORDS.items():
        if joined in vocab or joined.replace("_", "") in vocab:
            found.append(role)
    for a, b in itertools.pairwise(ws):
        role = PHRASES.get((a, b))
        if role and role not in found:
            found.insert(0, role)
    if not found:
        # single words inside a compound name: agent_reasoning -> reasoning, user_message -> user
        order = ["tool_result", "tool_call", "reasoning", "skip", "system", "user", "assistant", "meta"]
        hits = {role for w in ws for role, vocab in ROLE_WORDS.items() if w in vocab}
        found = [role for role in order if role in hits]
    return found


TOOL_NAME_FIELDS = {"tool", "tool_name", "function_name", "toolname"}  # name tools, not kinds of records

