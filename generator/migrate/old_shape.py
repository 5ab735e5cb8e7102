"""The pre-trajectory shape written once as an ordinary mapping, so the cleaner runtime converts it.

``{"type", "message": {"role", "content"}, "timestamp"}`` maps to trajectory-v1 mechanically; rather
than a second converter, this module states that mapping (docs/mapping.md) and hands it to the
runtime's ``Converter`` - the code every rendered cleaner ships - which already splits block lists,
links tool results to calls, derives missing times from neighbours and redacts secrets.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from generator.paths import runtime_module

OLD_INCLUDE = ["*.jsonl", "*.ndjson", "*.json", "*.jsonl.gz", "*.ndjson.gz", "*.json.gz"]

USER_NAMES = ["user", "human", "User", "Human"]
ASSISTANT_NAMES = ["assistant", "ai", "Assistant", "AI"]
SYSTEM_NAMES = ["system", "System"]
TOOL_NAMES = ["tool", "function", "Tool"]

ROLES = (
    ("user", USER_NAMES, "user"),
    ("assistant", ASSISTANT_NAMES, "assistant"),
    ("system", SYSTEM_NAMES, "system"),
    ("tool", TOOL_NAMES, "observation"),
)

def old_shape_blocks() -> dict:
    """How the old shape's block lists read: Anthropic-style blocks and OpenAI-style text kinds."""
    text = {"as": "text", "field": ["text", "content"]}
    skip = {"as": "skip"}
    return {
        "type_field": "type",
        "types": {
            "text": text,
            "input_text": text,
            "output_text": text,
            "thinking": {"as": "reasoning", "field": ["thinking", "text"]},
            "reasoning": {"as": "reasoning", "field": ["text", "reasoning", "thinking"]},
            "tool_use": {"as": "tool_call", "call_id": ["id", "call_id"], "tool_name": "name",
                         "args": ["input", "arguments", "args"]},
            "server_tool_use": {"as": "tool_call", "call_id": "id", "tool_name": "name", "args": "input"},
            "function_call": {"as": "tool_call", "call_id": ["call_id", "id"], "tool_name": "name",
                              "args": ["arguments", "input", "args"]},
            "tool_result": {"as": "tool_result", "content": ["content", "output"],
                            "result_link": ["tool_use_id", "call_id"], "ok": {"path": "is_error", "negate": True}},
            "function_call_output": {"as": "tool_result", "content": ["output", "content"],
                                     "result_link": ["call_id", "tool_use_id"]},
            "redacted_thinking": skip,
            "image": skip,
            "input_image": skip,
            "document": skip,
            "file": skip,
            "audio": skip,
            "input_audio": skip,
        },
        "unknown": "skip",
    }


def old_shape_kinds() -> list[dict]:
    """``message.role`` kinds first, then ``type`` kinds for rows that never had a role."""
    kinds: list[dict] = []
    for role, names, out in ROLES:
        kinds.append({"name": f"message.role {role}", "match": {"message.role": names}, "role": out,
                      "content": "message.content"})
    for role, names, out in ROLES:
        kinds.append({"name": f"type {role} (no message.role)", "match": {"type": names},
                      "lacks": ["message.role"], "role": out, "content": "message.content"})
    return kinds


def old_shape_mapping(source: str, tz: str = "UTC", fallback_mtime: bool = False, redact: bool = True) -> dict:
    """The mechanical mapping of the user's documents, as a mapping (docs/mapping.md) the runtime runs.

    ``message.role`` wins over ``type`` where both are present; ``type`` alone covers rows that
    never had a role (``"human"`` becomes ``user``). Block lists are read the way the old shape
    wrote them (Anthropic-style blocks, and the OpenAI-style text kinds some cleaners copied).
    """
    return {
        "mapping_version": 1,
        "source": source,
        "source_profile": "generic",
        "input": {"container": "auto", "include": OLD_INCLUDE, "invalid_lines": "skip"},
        "session": {"by": "file"},
        "timestamps": {"fields": ["timestamp"], "format": "auto", "timezone": tz,
                       "fallback": "file_mtime" if fallback_mtime else "none"},
        "meta": {"cwd": ["cwd"], "git_branch": ["gitBranch", "git_branch"], "model": ["message.model", "model"]},
        "kinds": old_shape_kinds(),
        "unknown_kinds": "skip",
        "blocks": old_shape_blocks(),
        "tools": {"error_prefix": "", "orphan_results": "skip"},
        "sessions": {"without_user": "keep", "without_assistant": "keep"},
        "privacy": {"redact": redact},
    }


def old_converter(mapping: dict):
    """(Converter, Privacy) of the runtime for ``mapping``, its defaults filled in."""
    convert = runtime_module("convert")
    full = runtime_module("mapping").with_defaults(mapping)
    privacy = convert.Privacy(full["privacy"])
    return convert.Converter(full, privacy), privacy


def not_old_shape(record: Any, converter) -> str | None:
    """Why a row is not an old-shape row, or None when it is one."""
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not an object"
    message = record.get("message")
    if not isinstance(message, dict):
        if isinstance(record.get("role"), str):
            return "already a trajectory-v1 record (role at top level), not the old shape"
        return "no 'message' object (the old shape is {\"type\", \"message\": {\"role\", \"content\"}, \"timestamp\"})"
    if "content" not in message:
        return "message has no 'content'"
    if converter.classify(record) is None:
        role = message.get("role", record.get("type"))
        return f"unknown role {json.dumps(role)[:40]} (type/message.role must name user, assistant, system or tool)"
    return None


def is_naive(value: Any) -> bool:
    """Is ``value`` an ISO time written without a zone (read in --timezone, so worth reporting)?"""
    if not isinstance(value, str) or not value.strip():
        return False
    timestamps = runtime_module("timestamps")
    if timestamps.ISO_WITH_ZONE.fullmatch(value.strip()):
        return False
    try:
        return datetime.fromisoformat(value.strip()).tzinfo is None
    except ValueError:
        return False
