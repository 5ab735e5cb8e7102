"""Deterministic generator of large synthetic raw-trace corpora for the benchmarks.

Two formats, so that the benchmark exercises both a nested block format and a flat one:

* ``pi``: Pi-like session files (one JSONL file per session): a ``session`` header, bookkeeping
  rows, then ``message`` rows whose ``message.content`` is a list of typed blocks (``text``,
  ``thinking``, ``toolCall``) and ``toolResult`` messages. ``examples/answers/pi.yml`` cleans it.
* ``flat``: a flat event log of our own (one object per event, epoch-millisecond times, sessions
  named by a ``run`` field, several runs per file). ``benchmarks/flat.yml`` cleans it.

Everything is synthetic and derived from a seed: the same arguments always give the same bytes,
so a number measured today can be compared with one measured after a change. Records average
roughly 850 bytes (the size of real Pi records), with a long tail of large tool outputs; a small
share carries secret-like strings so that redaction does real work.

    python benchmarks/corpus.py pi ./corpus --sessions 2000 --records 100
    python benchmarks/corpus.py flat ./corpus --sessions 1 --records 200000
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: Named sizes from the issue: (sessions, records per session).
SIZES: dict[str, tuple[int, int]] = {
    "tiny": (10, 10),
    "many": (2000, 100),
    "single": (1, 200_000),
    # quick-mode stand-ins with the same shapes
    "many-quick": (300, 100),
    "single-quick": (1, 30_000),
}

_VOCABULARY = (
    "the a to of and in is for that on with as it be this by are from at or an we can not will have "
    "file test build error function value return config path request user session agent tool output "
    "check update module import class method list string number object array field record schema line "
    "run result data cache index query server client token handler event stream parser writer reader "
    "deploy release branch commit merge review issue ticket renewal invoice customer account billing "
    "trace cleaner lerim trajectory letta record timestamp validate redact truncate compact streaming "
    "memory bounded process worker parallel bytes identical order stable fixture sample corpus"
)
_WORDS = tuple(_VOCABULARY.split())
_UNICODE = ("café", "naïve", "Zürich", "東京", "😀", "Ünïcödé", "ẞtraße", "\u00a0nbsp", "tab\tinside")
_TOOLS = ("bash", "read", "write", "edit", "grep", "ls")
_MODELS = ("claude-sonnet-5", "gpt-6-mini")


@dataclass(frozen=True)
class Options:
    """What a generated corpus holds; part of the cache key of the benchmark runner."""

    fmt: str
    sessions: int
    records: int
    seed: int = 7
    secrets: float = 0.002  # share of tool outputs that carry a secret-like string
    unicode: float = 0.05  # share of texts with non-ASCII characters
    files: int = 0  # flat format: number of files the runs are spread over (0: one per 50 runs)
    multi_call: float = 0.15  # share of tool-using assistant messages with two calls

    def name(self) -> str:
        return (f"{self.fmt}-{self.sessions}x{self.records}-s{self.seed}-k{self.secrets}-u{self.unicode}"
                f"-f{self.files}-m{self.multi_call}")


class _Text:
    """Cheap deterministic prose, code and tool output."""

    def __init__(self, rng: random.Random, opts: Options):
        self.rng = rng
        self.opts = opts

    def words(self, lo: int, hi: int) -> str:
        rng = self.rng
        text = " ".join(rng.choices(_WORDS, k=rng.randint(lo, hi)))
        if rng.random() < self.opts.unicode:
            text += " " + rng.choice(_UNICODE)
        return text[:1].upper() + text[1:] + "."

    def paragraph(self, lo: int, hi: int) -> str:
        return " ".join(self.words(6, 18) for _ in range(self.rng.randint(lo, hi)))

    def secret(self) -> str:
        rng = self.rng
        alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        body = "".join(rng.choices(alnum, k=36))
        return rng.choice((
            f"export GITHUB_TOKEN=ghp_{body}",
            f"AWS_ACCESS_KEY_ID=AKIA{''.join(rng.choices('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', k=16))}",
            f'password = "{body[:14]}!x9"',
            f"Authorization: Bearer {body}{body[:8]}",
        ))

    def output(self) -> str:
        """A tool output: usually a few lines, sometimes a long listing or log (bounded < 2,400 chars)."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:
            lines = rng.randint(2, 8)
        elif roll < 0.9:
            lines = rng.randint(8, 24)
        else:
            lines = rng.randint(20, 40)
        out = []
        for i in range(lines):
            kind = rng.random()
            if kind < 0.4:
                out.append(f"src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}_{i}.py:{rng.randint(1, 900)}: "
                           + self.words(3, 8))
            elif kind < 0.7:
                out.append(self.words(4, 10))
            else:
                out.append(f"{rng.choice(_WORDS)}={rng.randint(0, 10**6)} {rng.choice(_WORDS)}={rng.random():.4f}")
        if rng.random() < self.opts.secrets:
            out.insert(rng.randrange(len(out) + 1), self.secret())
        return "\n".join(out)[:2400]

    def command(self, tool: str) -> dict:
        rng = self.rng
        path = f"src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.py"
        if tool == "bash":
            return {"command": f"grep -rn {rng.choice(_WORDS)} {path} | head -{rng.randint(5, 50)}"}
        if tool == "write":
            return {"path": path, "content": "\n".join(self.words(3, 9) for _ in range(rng.randint(1, 6)))}
        if tool == "edit":
            return {"path": path, "oldText": self.words(2, 6), "newText": self.words(2, 6)}
        if tool == "grep":
            return {"pattern": rng.choice(_WORDS), "path": "src", "ignoreCase": rng.random() < 0.5}
        if tool == "ls":
            return {"path": path.rsplit("/", 1)[0]}
        return {"path": path, "offset": rng.randint(1, 400), "limit": rng.choice((50, 100, 200))}


class _Clock:
    """Milliseconds since the epoch, moving forward by a few seconds per event."""

    def __init__(self, rng: random.Random, start_ms: int):
        self.rng = rng
        self.ms = start_ms

    def tick(self) -> int:
        self.ms += self.rng.randint(5, 9000)
        return self.ms

    @staticmethod
    def iso(ms: int) -> str:
        import datetime as dt

        moment = dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _dump(value: dict) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------------------------
# Pi-like
# --------------------------------------------------------------------------------------------


def pi_session(rng: random.Random, opts: Options, index: int, n_records: int) -> Iterator[str]:
    """The lines of one Pi-like session file with exactly ``n_records`` lines."""
    text = _Text(rng, opts)
    clock = _Clock(rng, 1_780_000_000_000 + index * 3_600_000)
    model = _MODELS[index % len(_MODELS)]
    counter = 0
    parent: str | None = None

    def row(kind: str, **fields) -> str:
        nonlocal counter, parent
        counter += 1
        rid = f"{index:05x}{counter:07x}"
        ms = clock.tick()
        out = {"type": kind, "id": rid, "parentId": parent, "timestamp": _Clock.iso(ms), **fields}
        parent = rid
        return _dump(out)

    def message(role: str, content, **extra) -> str:
        ms = clock.ms
        body = {"role": role, "content": content, **extra, "timestamp": ms}
        return row("message", message=body)

    def assistant(content: list, stop: str) -> str:
        usage = {"input": rng.randint(50, 9000), "output": rng.randint(5, 900), "cacheRead": 0, "cacheWrite": 0}
        return message("assistant", content, api="anthropic-messages", provider="anthropic", model=model,
                       usage=usage, stopReason=stop)

    header = {"type": "session", "version": 3, "id": f"0000{index:08x}-bench-{opts.seed:04d}",
              "timestamp": _Clock.iso(clock.tick()), "cwd": f"/home/user/project-{index % 97}"}
    lines: list[str] = [_dump(header)]
    if n_records > 2:
        lines.append(row("model_change", provider="anthropic", modelId=model))
    lines.append(message("user", [{"type": "text", "text": text.paragraph(1, 3)}]))
    emitted = 0
    call_no = 0
    while True:
        for line in lines:
            if emitted == n_records:
                return
            emitted += 1
            yield line
        lines = []
        roll = rng.random()
        if roll < 0.14:
            blocks = [{"type": "text", "text": text.paragraph(1, 3)}]
            if rng.random() < 0.03:
                blocks.append({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
            lines.append(message("user", blocks))
        elif roll < 0.22:
            blocks = [{"type": "thinking", "thinking": text.paragraph(1, 4), "thinkingSignature": "sig"},
                      {"type": "text", "text": text.paragraph(1, 3)}]
            lines.append(assistant(blocks, "stop"))
        else:
            blocks: list[dict] = []
            if rng.random() < 0.7:
                blocks.append({"type": "thinking", "thinking": text.paragraph(1, 3), "thinkingSignature": "sig"})
            calls = []
            for _ in range(2 if rng.random() < opts.multi_call else 1):
                call_no += 1
                tool = rng.choice(_TOOLS)
                cid = f"toolu_{index:04x}_{call_no:06d}"
                calls.append((cid, tool))
                blocks.append({"type": "toolCall", "id": cid, "name": tool, "arguments": text.command(tool)})
            lines.append(assistant(blocks, "toolUse"))
            for cid, tool in calls:
                is_error = rng.random() < 0.04
                result = text.output()
                if is_error:
                    result = "Command failed: " + result
                lines.append(message("toolResult", [{"type": "text", "text": result}], toolCallId=cid,
                                     toolName=tool, isError=is_error))
        if rng.random() < 0.01:
            lines.append(row("thinking_level_change", thinkingLevel=rng.choice(("low", "medium", "high"))))


# --------------------------------------------------------------------------------------------
# Flat
# --------------------------------------------------------------------------------------------


def flat_session(rng: random.Random, opts: Options, index: int, n_records: int) -> Iterator[str]:
    """The events of one run of the flat format, exactly ``n_records`` lines."""
    text = _Text(rng, opts)
    clock = _Clock(rng, 1_780_000_000_000 + index * 3_600_000)
    run = f"run-{opts.seed:03d}-{index:06d}"
    seq = 0
    call_no = 0

    def event(actor: str, **fields) -> str:
        nonlocal seq
        seq += 1
        return _dump({"run": run, "seq": seq, "at": clock.tick(), "actor": actor, **fields})

    pending = [event("customer", body=text.paragraph(1, 3), channel="chat", agent_version="4.2.1")]
    emitted = 0
    while True:
        for line in pending:
            if emitted == n_records:
                return
            emitted += 1
            yield line
        pending = []
        roll = rng.random()
        if roll < 0.12:
            pending.append(event("customer", body=text.paragraph(1, 3), channel="chat"))
        elif roll < 0.27:
            pending.append(event("agent", body=text.paragraph(1, 3)))
        elif roll < 0.42:
            pending.append(event("agent_thought", body=text.paragraph(1, 4)))
        elif roll < 0.45:
            pending.append(event("heartbeat", queue_depth=rng.randint(0, 40)))
        else:
            call_no += 1
            tool = rng.choice(_TOOLS)
            cid = f"c{index:05d}-{call_no:05d}"
            pending.append(event("tool_call", call={"id": cid, "tool": tool, "input": text.command(tool)}))
            failed = rng.random() < 0.04
            pending.append(event("tool_output", ref=cid, body=text.output(), failed=failed,
                                 elapsed_ms=rng.randint(1, 5000)))


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def write_corpus(opts: Options, dest: Path) -> dict:
    """Write the corpus under ``dest`` (created); returns counts and bytes. Same options, same bytes."""
    dest.mkdir(parents=True, exist_ok=True)
    total_bytes = 0
    files = 0
    if opts.fmt == "pi":
        for index in range(opts.sessions):
            rng = random.Random(f"{opts.seed}:pi:{index}")
            folder = dest / f"{index // 500:03d}"
            folder.mkdir(exist_ok=True)
            path = folder / f"session-{index:06d}.jsonl"
            with open(path, "w", encoding="utf-8", newline="\n") as out:
                for line in pi_session(rng, opts, index, opts.records):
                    out.write(line)
                    out.write("\n")
            total_bytes += path.stat().st_size
            files += 1
    elif opts.fmt == "flat":
        per_file = max(1, -(-opts.sessions // opts.files)) if opts.files else 50
        for start in range(0, opts.sessions, per_file):
            path = dest / f"events-{start // per_file:05d}.jsonl"
            with open(path, "w", encoding="utf-8", newline="\n") as out:
                for index in range(start, min(start + per_file, opts.sessions)):
                    rng = random.Random(f"{opts.seed}:flat:{index}")
                    for line in flat_session(rng, opts, index, opts.records):
                        out.write(line)
                        out.write("\n")
            total_bytes += path.stat().st_size
            files += 1
    else:
        raise ValueError(f"unknown format {opts.fmt!r} (pi or flat)")
    return {"format": opts.fmt, "sessions": opts.sessions, "records": opts.sessions * opts.records,
            "files": files, "bytes": total_bytes}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Write a deterministic synthetic raw-trace corpus (Pi-like or flat) for the benchmarks.",
        epilog="example:\n  python benchmarks/corpus.py pi /tmp/corpus --size many",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("format", choices=("pi", "flat"))
    parser.add_argument("dest", help="folder to write (created)")
    parser.add_argument("--size", choices=sorted(SIZES), help="a named size (sessions x records)")
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--records", type=int, default=10, help="raw records (lines) per session")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--secrets", type=float, default=0.002, help="share of tool outputs with a secret")
    args = parser.parse_args(argv)
    sessions, records = SIZES[args.size] if args.size else (args.sessions, args.records)
    if sessions < 1 or records < 1:
        print("error: --sessions and --records must be at least 1", file=sys.stderr)
        return 2
    info = write_corpus(Options(args.format, sessions, records, args.seed, args.secrets), Path(args.dest))
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
