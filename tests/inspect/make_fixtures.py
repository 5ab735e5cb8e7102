"""Write the synthetic raw-trace formats under tests/fixtures/ (run once; the files are committed).

Why a script: each format is built turn by turn from a small story, and the same code counts
what a correct cleaner must keep (user and assistant messages, calls, results, reasoning), so
the expected counts in each decisions.yml come from how the fixture was made, never from the
code under test. The decisions each format must get right are written here by hand.

All content is invented: no real people, accounts or secrets.

    python tests/inspect/make_fixtures.py
"""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1] / "fixtures"
T0 = datetime(2026, 5, 16, 9, 0, 0, tzinfo=UTC)


class Story:
    """Counts what a correct cleaner keeps, per session."""

    def __init__(self):
        self.sessions: set = set()
        self.counts = {"user": 0, "assistant": 0, "reasoning": 0, "tool_calls": 0, "tool": 0}

    def add(self, session, role, n=1):
        self.sessions.add(session)
        self.counts[role] += n

    def expect(self, **extra):
        return {"sessions": len(self.sessions), **self.counts, **extra}


def jsonl(path: Path, records: list, *, torn: str | None = None, gz: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    if torn:
        text += torn
    data = text.encode("utf-8")
    if gz:
        path.write_bytes(gzip.compress(data, mtime=0))
    else:
        path.write_bytes(data)


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def decisions(folder: Path, description: str, shapes: list[str], decided: dict, expect: dict,
              questions: list | None = None, answers: dict | None = None) -> None:
    doc = {"description": description, "shapes": shapes, "decisions": decided, "questions": questions or [],
           "expect": expect}
    (folder / "decisions.yml").write_text(yaml.safe_dump(doc, sort_keys=False, width=100), encoding="utf-8")
    if answers:
        (folder / "answers.yml").write_text(yaml.safe_dump(answers, sort_keys=False, width=100), encoding="utf-8")


def naive(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S")


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


# -- A: support desk ticket events, tickets interleaved in one file ------------------------------
def support_desk() -> None:
    folder = ROOT / "support_desk" / "ticket_events"
    story = Story()
    tickets = {
        "T-1001": [
            ("customer", "My annual renewal failed but the card was charged EUR 640. Please refund or activate."),
            ("note", "Amount is above the EUR 500 auto-approval limit; check the billing record first."),
            ("lookup", "billing_lookup", {"customer_id": "4421"}, "plan status: inactive; last charge captured EUR 640"),
            ("agent", "I can see the charge. Because it is above EUR 500 I am routing the refund to a billing manager."),
            ("status", "pending"),
            ("customer", "Thanks, how long will that take?"),
            ("bot", "Refund approvals usually take one business day. You will get an email when it is done."),
        ],
        "T-1002": [
            ("customer", "How do I export my invoices as PDF?"),
            ("bot", "Open Billing, then Invoices, then choose Export and PDF."),
            ("customer", "Found it, thank you."),
            ("status", "solved"),
        ],
        "T-1003": [
            ("customer", "The mobile app logs me out every few minutes since the last update."),
            ("lookup", "session_audit", {"account": "acct-88", "days": 2}, "34 forced logouts; token refresh errors"),
            ("note", "Looks like the known token refresh bug in app version 8.2; workaround is a reinstall."),
            ("agent", "This is a known issue in version 8.2. Reinstalling the app fixes it until the 8.3 release."),
        ],
    }
    records = []
    t = T0
    cursor = dict.fromkeys(tickets, 0)
    event_no = 0
    lookup_no = 0
    while any(cursor[k] < len(v) for k, v in tickets.items()):
        for ticket, steps in tickets.items():
            if cursor[ticket] >= len(steps):
                continue
            step = steps[cursor[ticket]]
            cursor[ticket] += 1
            t += timedelta(seconds=47)
            event_no += 1
            base = {"ticket_id": ticket, "event_id": f"ev-{event_no:04d}", "created_at": naive(t)}
            kind = step[0]
            if kind in ("customer", "agent", "bot"):
                author = {"customer": {"type": "customer", "id": "c-4421"}, "agent": {"type": "agent", "id": "a-17"},
                          "bot": {"type": "bot", "id": "helpbot"}}[kind]
                records.append({**base, "event": "comment", "author": author, "body": step[1], "public": True})
                story.add(ticket, "user" if kind == "customer" else "assistant")
            elif kind == "note":
                records.append({**base, "event": "internal_note", "author": {"type": "agent", "id": "a-17"},
                                "body": step[1], "public": False})
                story.add(ticket, "reasoning")
            elif kind == "lookup":
                lookup_no += 1
                ref = f"lk-{lookup_no:03d}"
                records.append({**base, "event": "lookup", "lookup_id": ref, "tool": step[1], "args": step[2]})
                t += timedelta(seconds=2)
                event_no += 1
                records.append({"ticket_id": ticket, "event_id": f"ev-{event_no:04d}", "created_at": naive(t),
                                "event": "lookup_result", "lookup_id": ref, "result": step[3]})
                story.add(ticket, "tool_calls")
                story.add(ticket, "tool")
            elif kind == "status":
                records.append({**base, "event": "status_change", "status": step[1]})
            records.append({"ticket_id": ticket, "event_id": f"ev-{event_no:04d}-sla", "created_at": naive(t),
                            "event": "sla_tick", "remaining_s": 3600 - 47 * event_no})
    jsonl(folder / "tickets-2026-05.jsonl", records, torn='{"ticket_id": "T-1003", "event": "comm')
    decisions(
        folder, "Help-desk ticket events: three tickets interleaved in one file, naive local times, internal "
        "notes, billing lookups linked by lookup_id, status and SLA noise, a torn last line.",
        ["multi-session file", "interleaved sessions", "nested discriminator", "naive timestamps",
         "tool linkage by id", "noise kinds", "torn line"],
        {
            "session.by": "field", "session.field": "ticket_id",
            "timestamps.fields": ["created_at"], "timestamps.format": "iso", "timestamps.timezone": "UTC",
            "kinds[event=comment,author.type=customer].role": "user",
            "kinds[event=comment,author.type=agent].role": "assistant",
            "kinds[event=comment,author.type=bot].role": "assistant",
            "kinds[event=comment,author.type=customer].content": ["body"],
            "kinds[event=internal_note].role": "reasoning",
            "kinds[event=lookup].role": "tool_call",
            "kinds[event=lookup_result].role": "tool_result",
            "kinds[event=status_change].role": "skip",
            "kinds[event=sla_tick].role": "skip",
            "input.invalid_lines": "skip",
            "source_profile": "support",
        },
        story.expect(),
    )


# -- B: chat-completion logs, conversations across daily files ----------------------------------
def chat_completions() -> None:
    folder = ROOT / "chat_completions" / "daily_logs"
    story = Story()
    base_ts = T0.timestamp()
    convs = {
        "conv_a": [
            ("system", "You are the order-status assistant for an online shop."),
            ("user", "Where is my order A-1042?"),
            ("call", [("get_order", {"order_id": "A-1042"}, '{"status": "shipped", "carrier": "DHL"}')]),
            ("assistant", "Order A-1042 has shipped with DHL."),
            ("usage",),
            ("user", "Can you also check A-1043 and A-1044?"),
            ("call", [("get_order", {"order_id": "A-1043"}, '{"status": "packing"}'),
                      ("get_order", {"order_id": "A-1044"}, '{"status": "delivered"}')]),
            ("assistant", "A-1043 is being packed and A-1044 was delivered."),
            ("usage",),
        ],
        "conv_b": [
            ("system", "You are the order-status assistant for an online shop."),
            ("user", "Do you ship to Norway?"),
            ("assistant", "Yes, we ship to Norway within 5 to 7 business days."),
            ("usage",),
        ],
        "conv_c": [
            ("system", "You are the order-status assistant for an online shop."),
            ("user", "Cancel order B-7 please."),
            ("call", [("cancel_order", {"order_id": "B-7", "reason": "customer request"},
                       '{"cancelled": true, "refund": "full"}')]),
            ("assistant", "Order B-7 is cancelled and will be refunded in full."),
            ("usage",),
        ],
    }
    files = {"2026-05-16.jsonl": [], "2026-05-17.jsonl": []}
    call_no = 0
    offset = 0.0
    # conv_a starts on day one and continues on day two; conv_b day one; conv_c day two
    plan = [("conv_a", 0, 5, "2026-05-16.jsonl"), ("conv_b", 0, 4, "2026-05-16.jsonl"),
            ("conv_a", 5, 9, "2026-05-17.jsonl"), ("conv_c", 0, 5, "2026-05-17.jsonl")]
    for conv, start, end, name in plan:
        for step in convs[conv][start:end]:
            offset += 13.25
            ts = round(base_ts + offset, 3)
            head = {"conversation_id": conv, "ts": ts}
            if step[0] == "usage":
                files[name].append({**head, "usage": {"prompt_tokens": 412, "completion_tokens": 38}})
            elif step[0] == "call":
                calls = []
                for tool, args, _ in step[1]:
                    call_no += 1
                    calls.append({"id": f"call_{call_no:03d}", "type": "function",
                                  "function": {"name": tool, "arguments": json.dumps(args)}})
                files[name].append({**head, "message": {"role": "assistant", "content": None, "tool_calls": calls}})
                story.add(conv, "tool_calls", len(calls))
                for call, (tool, _, result) in zip(calls, step[1]):
                    offset += 0.5
                    files[name].append({"conversation_id": conv, "ts": round(base_ts + offset, 3),
                                        "message": {"role": "tool", "tool_call_id": call["id"], "name": tool,
                                                    "content": result}})
                    story.add(conv, "tool")
            else:
                files[name].append({**head, "message": {"role": step[0], "content": step[1]}})
                if step[0] != "system":
                    story.add(conv, step[0])
    for name, records in files.items():
        jsonl(folder / name, records)
    decisions(
        folder, "Chat-completion request logs (OpenAI-style messages with tool_calls and the tool role); "
        "conversations continue across daily files; epoch-second float times; token usage records.",
        ["chat-completion messages", "tool_calls list", "tool role", "sessions across files", "epoch seconds",
         "noise kinds"],
        {
            "session.by": "field", "session.field": "conversation_id",
            "timestamps.fields": ["ts"], "timestamps.format": "epoch_s",
            "kinds[message.role=user].role": "user",
            "kinds[message.role=assistant].role": "assistant",
            "kinds[message.role=tool].role": "tool_result",
            "kinds[message.role=system].role": "skip",
            "blocks.types[function].as": "tool_call",
        },
        story.expect(),
    )


# -- C: message-API exports with content block lists (one JSON array per session) ----------------
def messages_api() -> None:
    folder = ROOT / "messages_api" / "exports"
    story = Story()
    t = T0

    def at() -> str:
        nonlocal t
        t += timedelta(seconds=9)
        return (t + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%S") + "+02:00"

    sessions = {}
    # session one: thinking, tool_use, tool_result (one failing), an image from the user
    s1 = "session-01"
    msgs = [
        {"id": "msg_001", "role": "user", "created_at": at(), "content": [
            {"type": "text", "text": "Here is the error screen from the dashboard. What is wrong?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]},
        {"id": "msg_002", "role": "assistant", "created_at": at(), "model": "claude-sonnet-5", "content": [
            {"type": "thinking", "thinking": "The screenshot shows a 502; check the gateway health first.",
             "signature": "c2lnbmF0dXJl"},
            {"type": "text", "text": "The dashboard shows a 502 from the gateway. Let me check its health."},
            {"type": "tool_use", "id": "toolu_01", "name": "gateway_health", "input": {"region": "eu-west"}}],
         "stop_reason": "tool_use", "usage": {"input_tokens": 812, "output_tokens": 64}},
        {"id": "msg_003", "role": "user", "created_at": at(), "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "is_error": True,
             "content": [{"type": "text", "text": "timeout after 10s contacting eu-west health endpoint"}]}]},
        {"id": "msg_004", "role": "assistant", "created_at": at(), "model": "claude-sonnet-5", "content": [
            {"type": "redacted_thinking", "data": "RW5jcnlwdGVkIHJlYXNvbmluZw=="},
            {"type": "tool_use", "id": "toolu_02", "name": "gateway_health", "input": {"region": "eu-central"}}],
         "stop_reason": "tool_use"},
        {"id": "msg_005", "role": "user", "created_at": at(), "content": [
            {"type": "tool_result", "tool_use_id": "toolu_02", "is_error": False, "content": "healthy, p99 120ms"}]},
        {"id": "msg_006", "role": "assistant", "created_at": at(), "model": "claude-sonnet-5", "content": [
            {"type": "text", "text": "eu-west is timing out while eu-central is healthy; fail over to eu-central."}],
         "stop_reason": "end_turn"},
    ]
    story.add(s1, "user")
    story.add(s1, "reasoning")
    story.add(s1, "assistant")
    story.add(s1, "tool_calls")
    story.add(s1, "tool")
    story.add(s1, "tool_calls")
    story.add(s1, "tool")
    story.add(s1, "assistant")
    sessions[s1] = msgs
    s2 = "session-02"
    msgs = [
        {"id": "msg_101", "role": "user", "created_at": at(), "content": "Summarise yesterday's deploys in one line."},
        {"id": "msg_102", "role": "assistant", "created_at": at(), "model": "claude-sonnet-5", "content": [
            {"type": "tool_use", "id": "toolu_11", "name": "list_deploys", "input": {"day": "2026-05-15"}},
            {"type": "tool_use", "id": "toolu_12", "name": "list_incidents", "input": {"day": "2026-05-15"}}],
         "stop_reason": "tool_use"},
        {"id": "msg_103", "role": "user", "created_at": at(), "content": [
            {"type": "tool_result", "tool_use_id": "toolu_11", "content": "api v2.3.0, web v5.1.2"},
            {"type": "tool_result", "tool_use_id": "toolu_12", "content": "none"}]},
        {"id": "msg_104", "role": "assistant", "created_at": at(), "model": "claude-sonnet-5",
         "content": "Two deploys (api v2.3.0, web v5.1.2) and no incidents.", "stop_reason": "end_turn"},
    ]
    story.add(s2, "user")
    story.add(s2, "tool_calls", 2)
    story.add(s2, "tool", 2)
    story.add(s2, "assistant")
    sessions[s2] = msgs
    for name, msgs in sessions.items():
        write_json(folder / f"{name}.json", msgs)
    decisions(
        folder, "Message-API exports: one pretty-printed JSON array per session, messages whose content is a "
        "string or a list of typed blocks (text, thinking, redacted_thinking, tool_use, tool_result, image); "
        "ISO times with an offset.",
        ["JSON array files", "content block lists", "tool_use/tool_result blocks", "ISO with zone"],
        {
            "session.by": "file", "timestamps.fields": ["created_at"], "timestamps.format": "iso",
            "kinds[role=user].role": "user", "kinds[role=assistant].role": "assistant",
            "blocks.types[text].as": "text", "blocks.types[thinking].as": "reasoning",
            "blocks.types[redacted_thinking].as": "skip", "blocks.types[tool_use].as": "tool_call",
            "blocks.types[tool_result].as": "tool_result", "blocks.types[image].as": "placeholder",
            "meta.model": ["model"],
        },
        story.expect(),
    )


# -- D: CI/ops runner event streams, gzip, epoch milliseconds -----------------------------------
def ci_runner() -> None:
    folder = ROOT / "ci_runner" / "runs"
    story = Story()
    runs = {
        "4821": ("deploy-api", "main", "Deploy api v2.3.1 to staging", [
            ("thought", "Lint and tests must pass before the staging deploy."),
            ("step", "lint", "ruff check .", 0, "All checks passed!"),
            ("step", "test", "pytest -q", 1, "2 failed, 118 passed in 41.2s"),
            ("say", "Two tests failed; I will not deploy. The failures are in test_billing.py."),
        ]),
        "4822": ("deploy-api", "fix/billing-tests", "Retry the staging deploy after the billing test fix", [
            ("step", "test", "pytest -q", 0, "120 passed in 40.8s"),
            ("thought", "Tests are green now; the deploy can go ahead."),
            ("step", "deploy", "./deploy.sh staging", 0, "deployed api v2.3.1 to staging (3/3 pods ready)"),
            ("say", "api v2.3.1 is live on staging; all three pods are ready."),
        ]),
    }
    ms = int(T0.timestamp() * 1000)
    for run, (pipeline, branch, request, steps) in runs.items():
        records = []
        ms += 60_000
        records.append({"ts_ms": ms, "event": "run_started", "run": run, "pipeline": pipeline, "branch": branch,
                        "workdir": f"/builds/{pipeline}"})
        ms += 150
        records.append({"ts_ms": ms, "event": "trigger", "run": run, "requested_by": "release-bot",
                        "message": request})
        story.add(run, "user")
        for i, step in enumerate(steps, start=1):
            ms += 2_345
            if step[0] == "thought":
                records.append({"ts_ms": ms, "event": "agent_thought", "run": run, "text": step[1]})
                story.add(run, "reasoning")
            elif step[0] == "say":
                records.append({"ts_ms": ms, "event": "agent_message", "run": run, "text": step[1]})
                story.add(run, "assistant")
            else:
                sid = f"{run}-s{i}"
                records.append({"ts_ms": ms, "event": "step_started", "run": run, "step_id": sid, "step": step[1],
                                "command": step[2]})
                for pct in (25, 75):
                    ms += 400
                    records.append({"ts_ms": ms, "event": "progress", "run": run, "step_id": sid, "pct": pct})
                ms += 300
                records.append({"ts_ms": ms, "event": "log", "run": run, "stream": "stdout",
                                "line": f"running {step[2]} in /builds/{pipeline}"})
                ms += 900
                records.append({"ts_ms": ms, "event": "heartbeat", "run": run})
                ms += 1_100
                records.append({"ts_ms": ms, "event": "step_finished", "run": run, "step_id": sid,
                                "exit_code": step[3], "success": step[3] == 0, "output": step[4]})
                story.add(run, "tool_calls")
                story.add(run, "tool")
        jsonl(folder / f"run-{run}.jsonl.gz", records, gz=True)
    decisions(
        folder, "CI runner event streams, one gzip JSONL file per run: a run header (branch, workdir), the "
        "trigger, agent thoughts and messages, steps started and finished (linked by step_id, success flag), "
        "progress, log and heartbeat noise; epoch-millisecond times.",
        ["gzip", "epoch milliseconds", "header record", "tool linkage by id", "noise kinds", "args as a string"],
        {
            "session.by": "file", "timestamps.fields": ["ts_ms"], "timestamps.format": "epoch_ms",
            "kinds[event=run_started].role": "meta", "kinds[event=trigger].role": "user",
            "kinds[event=agent_thought].role": "reasoning", "kinds[event=agent_message].role": "assistant",
            "kinds[event=step_started].role": "tool_call", "kinds[event=step_finished].role": "tool_result",
            "kinds[event=progress].role": "skip", "kinds[event=log].role": "skip",
            "kinds[event=heartbeat].role": "skip",
            "meta.git_branch": ["branch"], "meta.cwd": ["workdir"], "source": "ci-runner", "source_profile": "ops",
        },
        story.expect(),
    )


# -- E: research agent notebooks, human-readable day/month times ---------------------------------
def research_agent() -> None:
    folder = ROOT / "research_agent" / "exports"
    story = Story()
    q = {
        "q-001": [
            ("question", "Which battery chemistries are used for grid storage at scale today?"),
            ("thought", "Start with a broad search, then read one recent review."),
            ("search", "grid scale battery chemistry share 2025",
             [{"title": "Grid storage market review", "url": "https://example.org/review-2025"}]),
            ("read", "https://example.org/review-2025",
             "Lithium iron phosphate dominates new installs; flow batteries remain niche."),
            ("answer", "Mostly lithium iron phosphate (LFP); flow batteries are a small niche."),
        ],
        "q-002": [
            ("question", "Is sodium-ion competitive with LFP on cost yet?"),
            ("search", "sodium-ion vs LFP cost per kWh",
             [{"title": "Cost outlook for sodium-ion cells", "url": "https://example.org/na-ion"}]),
            ("thought", "The outlook gives ranges; compare the midpoints."),
            ("answer", "Not yet at scale: sodium-ion cells are projected to reach LFP cost parity later."),
        ],
    }
    t = datetime(2026, 5, 16, 14, 3, 7)
    for name, steps in q.items():
        records = []
        for step in steps:
            t += timedelta(minutes=1, seconds=13)
            when = t.strftime("%d/%m/%Y %H:%M:%S")
            kind = step[0]
            if kind == "question":
                records.append({"type": "question", "asked_by": "analyst", "text": step[1], "time": when})
                story.add(name, "user")
            elif kind == "thought":
                records.append({"type": "thought", "text": step[1], "time": when})
                story.add(name, "reasoning")
            elif kind == "search":
                records.append({"type": "search", "query": step[1], "results": step[2], "time": when})
                story.add(name, "tool_calls")
                story.add(name, "tool")
            elif kind == "read":
                records.append({"type": "read", "url": step[1], "content": step[2], "time": when})
                story.add(name, "tool_calls")
                story.add(name, "tool")
            else:
                records.append({"type": "answer", "text": step[1], "sources": 1, "time": when})
                story.add(name, "assistant")
        jsonl(folder / f"{name}.jsonl", records)
    decisions(
        folder, "Research-agent notebooks: question, thoughts, search and read steps that carry their input "
        "and output together (no tool name field: the kind names the tool), answers; times like "
        "16/05/2026 14:04:20.",
        ["human strptime timestamps", "tool exchange without a tool name field", "reasoning"],
        {
            "session.by": "file", "timestamps.fields": ["time"], "timestamps.format": "strptime",
            "timestamps.layout": "%d/%m/%Y %H:%M:%S",
            "kinds[type=question].role": "user", "kinds[type=thought].role": "reasoning",
            "kinds[type=search].role": "tool_exchange", "kinds[type=read].role": "tool_exchange",
            "kinds[type=answer].role": "assistant", "source": "research-agent", "source_profile": "research",
        },
        story.expect(),
    )


# -- F: run trees (parent/child runs), ambiguous root runs -------------------------------------
def run_tree() -> None:
    folder = ROOT / "run_tree" / "traces"
    story = Story()
    traces = {
        "tr-7a1": ("How do I rotate the API signing key without downtime?", [
            ("tool", "kb_search", {"query": "rotate signing key"}, "Doc 42: dual-key rotation keeps old keys valid"),
            ("llm", "Use dual-key rotation: add the new key, switch signing, then retire the old key."),
        ]),
        "tr-7a2": ("Which regions does the status page cover?", [
            ("llm", "The status page covers eu-west, eu-central and us-east."),
        ]),
    }
    records = []
    t = datetime(2026, 5, 16, 9, 0, 0)
    rid = 0
    iters = {k: iter(v[1]) for k, v in traces.items()}
    roots = {}
    for trace, (question, _) in traces.items():
        rid += 1
        roots[trace] = f"run-{rid:03d}"
        t += timedelta(seconds=1)
        records.append({"id": roots[trace], "trace_id": trace, "parent_run_id": None, "run_type": "chain",
                        "name": "support_agent", "inputs": {"question": question},
                        "outputs": {"answer": traces[trace][1][-1][1]},
                        "start_time": t.isoformat(timespec="microseconds"),
                        "end_time": (t + timedelta(seconds=8)).isoformat(timespec="microseconds")})
        story.add(trace, "user")
    pending = True
    while pending:
        pending = False
        for trace, it in iters.items():
            step = next(it, None)
            if step is None:
                continue
            pending = True
            rid += 1
            t += timedelta(seconds=2)
            common = {"id": f"run-{rid:03d}", "trace_id": trace, "parent_run_id": roots[trace],
                      "start_time": t.isoformat(timespec="microseconds"),
                      "end_time": (t + timedelta(seconds=1)).isoformat(timespec="microseconds")}
            if step[0] == "tool":
                records.append({**common, "run_type": "tool", "name": step[1], "inputs": step[2],
                                "outputs": {"output": step[3]}})
                story.add(trace, "tool_calls")
                story.add(trace, "tool")
            else:
                records.append({**common, "run_type": "llm", "name": "ChatModel",
                                "inputs": {"messages": [{"role": "user", "content": traces[trace][0]}]},
                                "outputs": {"text": step[1]}})
                story.add(trace, "assistant")
    jsonl(folder / "runs.jsonl", records)
    decisions(
        folder, "A run tree export (parent/child runs, LangSmith-like): root chain runs hold the question and "
        "the final answer together, llm and tool child runs; traces interleaved; naive ISO start/end times. "
        "Genuinely ambiguous: a chain run is shaped like a tool step, and what it stands for is not written "
        "anywhere, so inference must ask.",
        ["run tree", "parent/child links", "interleaved sessions", "naive timestamps", "ambiguous roles"],
        {
            "session.by": "field", "session.field": "trace_id", "timestamps.fields": ["start_time"],
            "kinds[run_type=llm].role": "assistant", "kinds[run_type=tool].role": "tool_exchange",
        },
        story.expect(),
        questions=["kinds[run_type=chain].role"],
        answers={"kinds[run_type=chain].role": "user", "kinds[run_type=chain].content": ["inputs.question"]},
    )


# -- G: chat exports, one JSON object per conversation with a nested record list ----------------
def chat_export() -> None:
    folder = ROOT / "chat_export" / "conversations"
    story = Story()
    convs = {
        "conv-7f3a": ("Trip planning", [("human", "Plan a two-day trip to Lisbon on a small budget."),
                                        ("ai", "Day one: Alfama and the castle; day two: Belem by tram 15."),
                                        ("system", "conversation renamed"),
                                        ("human", "Add one cheap place to eat each day."),
                                        ("ai", "Try a tasca in Alfama on day one and the market hall on day two.")]),
        "conv-91bc": ("Regex help", [("human", "Regex for a 5 digit postcode?"),
                                     ("ai", "Use ^\\d{5}$ to match exactly five digits.")]),
    }
    t = T0
    for conv, (title, turns) in convs.items():
        messages = []
        for sender, text in turns:
            t += timedelta(seconds=31)
            messages.append({"sender": sender, "text": text, "sent_at": iso(t), "feedback": None})
            if sender != "system":
                story.add(conv, "user" if sender == "human" else "assistant")
        write_json(folder / f"{conv}.json", {"export": {"format": "chatlog/2", "conversation": {
            "id": conv, "title": title}, "messages": messages}})
    decisions(
        folder, "Chat exports: one JSON object per conversation, the messages nested at export.messages, "
        "senders human/ai/system.",
        ["JSON object holding a record list", "nested records path", "role names human/ai"],
        {
            "input.records_path": "export.messages", "session.by": "file",
            "kinds[sender=human].role": "user", "kinds[sender=ai].role": "assistant",
            "kinds[sender=system].role": "skip", "timestamps.fields": ["sent_at"],
        },
        story.expect(),
    )


# -- H: chat-channel exports (Slack-like), threads as sessions, epoch-second strings ------------
def channel_export() -> None:
    folder = ROOT / "channel_export" / "ops-alerts"
    story = Story()
    base = T0.timestamp()
    threads = {
        "a": [("user", "U024", "Is the eu-west gateway degraded? Customers see 502s."),
              ("bot", "Checked: eu-west gateway p99 is 9.8s, 41% errors since 08:52."),
              ("user", "U024", "Fail over to eu-central please."),
              ("bot", "Failover done; error rate back under 0.5%.")],
        "b": [("user", "U031", "Who is on call for payments this week?"),
              ("bot", "Payments on-call this week: U077 (primary), U031 (secondary).")],
    }
    msgs = []
    offset = 0.0
    roots = {}
    order = [("a", 0), ("b", 0), ("a", 1), ("b", 1), ("a", 2), ("a", 3)]
    for thread, i in order:
        offset += 17.000214
        ts = f"{base + offset:.6f}"
        roots.setdefault(thread, ts)
        kind = threads[thread][i]
        if kind[0] == "user":
            msgs.append({"type": "message", "user": kind[1], "text": kind[2], "ts": ts, "thread_ts": roots[thread]})
            story.add(thread, "user")
        else:
            msgs.append({"type": "message", "subtype": "bot_message", "bot_id": "B0OPS", "username": "opsbot",
                         "text": kind[1], "ts": ts, "thread_ts": roots[thread]})
            story.add(thread, "assistant")
        if i == 0:
            offset += 1.5
            msgs.append({"type": "message", "subtype": "reaction_added", "reaction": "eyes",
                         "ts": f"{base + offset:.6f}", "thread_ts": roots[thread]})
    write_json(folder / "2026-05-16.json", msgs)
    decisions(
        folder, "A chat-channel export (Slack-like): one JSON array per channel and day, threads interleaved, "
        "bot messages told apart by a subtype, people's messages by having none; epoch-second strings.",
        ["JSON array", "thread as session", "interleaved sessions", "epoch seconds as strings",
         "key-presence kinds"],
        {
            "session.by": "field", "session.field": "thread_ts", "timestamps.fields": ["ts"],
            "timestamps.format": "epoch_s", "kinds[subtype=bot_message].role": "assistant",
            "kinds[has=user,lacks=subtype].role": "user", "kinds[subtype=reaction_added].role": "skip",
        },
        story.expect(),
    )


# -- I: agent SDK event streams, sessions continuing across part files ---------------------------
def agent_stream() -> None:
    folder = ROOT / "agent_stream" / "stream"
    story = Story()
    sessions = {
        "sess-01": [("input", "Rename the column cust_id to customer_id in the orders table."),
                    ("tool", "sql_query", {"sql": "SELECT count(*) FROM orders"}, "1204", False),
                    ("usage",),
                    ("retry", "rate limited by the provider, retrying in 2s"),
                    ("tool", "run_migration", {"name": "rename_cust_id"}, "migration failed: lock timeout", True),
                    ("output", "The rename failed on a lock timeout; retry it outside business hours."),
                    ("progress",),
                    ("input", "Schedule it for 02:00 then."),
                    ("tool", "schedule_job", {"job": "rename_cust_id", "at": "02:00"}, "scheduled job 8812", False),
                    ("output", "Scheduled as job 8812 for 02:00.")],
        "sess-02": [("input", "How many orders came in yesterday?"),
                    ("tool", "sql_query", {"sql": "SELECT count(*) FROM orders WHERE day = yesterday"}, "311", False),
                    ("usage",),
                    ("output", "311 orders came in yesterday.")],
    }
    t = T0
    seq = 0
    inv = 0
    parts: list[list] = [[], []]
    cursors = dict.fromkeys(sessions, 0)
    while any(cursors[s] < len(v) for s, v in sessions.items()):
        for sess, steps in sessions.items():
            if cursors[sess] >= len(steps):
                continue
            step = steps[cursors[sess]]
            cursors[sess] += 1
            part = parts[0] if cursors[sess] <= len(steps) // 2 else parts[1]
            seq += 1
            t += timedelta(milliseconds=1230)
            head = {"session": sess, "seq": seq, "at": iso(t)}
            if step[0] == "input":
                part.append({**head, "kind": "input", "payload": {"text": step[1]}})
                story.add(sess, "user")
            elif step[0] == "output":
                part.append({**head, "kind": "llm_output", "payload": {"text": step[1], "model": "gpt-5-mini"}})
                story.add(sess, "assistant")
            elif step[0] == "usage":
                part.append({**head, "kind": "usage", "payload": {"input_tokens": 900, "output_tokens": 40}})
            elif step[0] == "retry":
                part.append({**head, "kind": "retry", "payload": {"reason": step[1], "attempt": 2}})
            elif step[0] == "progress":
                part.append({**head, "kind": "progress", "payload": {"pct": 100}})
            else:
                inv += 1
                ref = f"inv_{inv:04x}"
                part.append({**head, "kind": "tool_start", "payload": {"tool": step[1], "input": json.dumps(step[2]),
                                                                       "invocation_id": ref}})
                seq += 1
                t += timedelta(milliseconds=640)
                part.append({"session": sess, "seq": seq, "at": iso(t), "kind": "tool_end",
                             "payload": {"tool": step[1], "invocation_id": ref, "output": step[3],
                                         "is_error": step[4]}})
                story.add(sess, "tool_calls")
                story.add(sess, "tool")
    jsonl(folder / "part-001.jsonl", parts[0])
    jsonl(folder / "part-002.jsonl", parts[1])
    decisions(
        folder, "Agent SDK event streams: two sessions interleaved and continuing across part files; tool "
        "start/end events linked by invocation_id with JSON-string inputs and an error flag; usage, retry and "
        "progress noise.",
        ["sessions across files", "interleaved sessions", "args as JSON strings", "tool linkage by id",
         "noise kinds"],
        {
            "session.by": "field", "session.field": "session", "timestamps.fields": ["at"],
            "kinds[kind=input].role": "user", "kinds[kind=llm_output].role": "assistant",
            "kinds[kind=tool_start].role": "tool_call", "kinds[kind=tool_end].role": "tool_result",
            "kinds[kind=usage].role": "skip", "kinds[kind=retry].role": "skip", "kinds[kind=progress].role": "skip",
            "meta.model": ["payload.model"],
        },
        story.expect(),
    )


# -- J: diarised call transcripts: speakers without names (ambiguous) ---------------------------
def call_transcripts() -> None:
    folder = ROOT / "call_transcripts" / "calls"
    story = Story()
    calls = {
        "call-0193": [("spk_0", "Thanks for calling Northwind support, how can I help?"),
                      ("spk_1", "My router keeps dropping the connection every evening."),
                      ("spk_0", "Let me check the line. I see packet loss after 7pm; I will book a technician."),
                      ("spk_1", "Great, mornings work best for me.")],
        "call-0194": [("spk_0", "Northwind support, good afternoon."),
                      ("spk_1", "I want to change my plan to the 500 megabit one."),
                      ("spk_0", "Done; the new plan starts on the first of next month.")],
    }
    for call, turns in calls.items():
        segments = []
        start = 0
        for speaker, text in turns:
            segments.append({"speaker": speaker, "start_ms": start, "end_ms": start + 3900, "text": text,
                             "confidence": 0.93})
            start += 4200
            story.add(call, "assistant" if speaker == "spk_0" else "user")
        write_json(folder / f"{call}.json", {"call": {"id": call, "channel": "phone"}, "segments": segments})
    decisions(
        folder, "Diarised call transcripts: one JSON object per call, segments by anonymous speakers spk_0/spk_1 "
        "with offsets in milliseconds and no clock times. Genuinely ambiguous: nothing says which speaker is "
        "the customer, so inference must ask; and with no time field, the file time is the fallback.",
        ["JSON object holding a record list", "ambiguous roles", "no timestamps"],
        {"session.by": "file", "timestamps.fallback": "file_mtime"},
        story.expect(),
        questions=["kinds[speaker=spk_0].role", "kinds[speaker=spk_1].role"],
        answers={"kinds[speaker=spk_0].role": "assistant", "kinds[speaker=spk_1].role": "user"},
    )


# -- K: IT help-desk log with day/month-ambiguous dates ------------------------------------------
def it_helpdesk() -> None:
    folder = ROOT / "it_helpdesk" / "log"
    story = Story()
    tickets = [("IT-301", "requester", "I am locked out of my laptop after the password change."),
               ("IT-302", "requester", "The printer on floor 3 shows offline."),
               ("IT-301", "bot", "I sent a reset link to your phone; it is valid for 10 minutes."),
               ("IT-302", "bot", "Floor 3 printer was restarted remotely and is online again."),
               ("IT-301", "requester", "Worked, thanks."),
               ("IT-301", "system", "ticket closed")]
    records = []
    t = datetime(2026, 3, 4, 9, 15, 2)
    for ticket, who, msg in tickets:
        t += timedelta(minutes=3, seconds=11)
        records.append({"ticket": ticket, "logged": t.strftime("%d/%m/%Y %H:%M:%S"), "who": who, "msg": msg})
        if who != "system":
            story.add(ticket, "user" if who == "requester" else "assistant")
    jsonl(folder / "helpdesk.jsonl", records)
    decisions(
        folder, "An IT help-desk log: tickets interleaved, who = requester/bot/system, and times such as "
        "04/03/2026 09:18:13 where every day and month is 12 or less. Genuinely ambiguous: day/month order "
        "cannot be told from the data, so inference must ask for the layout.",
        ["strptime timestamps", "ambiguous day/month", "multi-session file"],
        {"session.by": "field", "session.field": "ticket", "kinds[who=requester].role": "user",
         "kinds[who=bot].role": "assistant", "timestamps.format": "strptime"},
        story.expect(),
        questions=["timestamps.layout"],
        answers={"timestamps.layout": "%d/%m/%Y %H:%M:%S"},
    )


# -- L: website chat widget: the key names the speaker ------------------------------------------
def chat_widget() -> None:
    folder = ROOT / "chat_widget" / "transcripts"
    story = Story()
    chats = {
        "visit-a1": [("visitor", "Hi, can I change the delivery address for order 5531?"),
                     ("typing",),
                     ("bot", "Yes. What is the new address? Street and postcode are enough."),
                     ("visitor", "Rua Nova 12, 1100-001."),
                     ("bot", "Updated: order 5531 now ships to Rua Nova 12, 1100-001.")],
        "visit-b2": [("visitor", "Do you sell gift cards?"), ("typing",),
                     ("bot", "We do, from 10 to 200 euros, under Shop then Gift cards.")],
    }
    t = T0
    for visit, turns in chats.items():
        records = []
        for turn in turns:
            t += timedelta(seconds=23)
            if turn[0] == "typing":
                records.append({"t": iso(t), "event": "typing", "by": "bot"})
                continue
            records.append({"t": iso(t), turn[0]: turn[1]})
            story.add(visit, "user" if turn[0] == "visitor" else "assistant")
        jsonl(folder / f"{visit}.ndjson", records)
    decisions(
        folder, "A website chat widget export (.ndjson): no field names the kind; the key holding the text "
        "names the speaker (visitor or bot); typing events are noise.",
        ["key-presence signatures", "ndjson files"],
        {"session.by": "file", "timestamps.fields": ["t"], "kinds[has=visitor,lacks=event].role": "user",
         "kinds[has=bot,lacks=event,lacks=visitor].role": "assistant",
         "kinds[event=typing].role": "skip"},
        story.expect(),
    )


def main() -> None:
    for make in (support_desk, chat_completions, messages_api, ci_runner, research_agent, run_tree, chat_export,
                 channel_export, agent_stream, call_transcripts, it_helpdesk, chat_widget):
        make()
    print(f"wrote fixtures under {ROOT}")


if __name__ == "__main__":
    main()
