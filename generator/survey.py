"""The interactive survey of `trajectory-cleaner new`: ask only what inference could not settle.

Order: the open questions one by one, each a choice between outputs (generator/choices.py: for
the first record where the candidates' outputs differ, what each would write; a question whose
candidates all write the same is settled without asking; no mapping keys or YAML on screen;
"type another value" is checked at once and asked again with the reason), then one summary of everything inference was sure of
(confirm, or pick one decision to change), privacy settings, the Lerim source profile, where to
write, and a preview produced by running the rendered cleaner itself. From the preview the
person can go back, change one answer, see the preview again, and confirm. Every answer is a
decision key forced into inference (`infer_profile(answers=...)`), so changing one decision
re-derives everything that depends on it.

Prompts use questionary's `unsafe_ask()`, so Ctrl-C raises KeyboardInterrupt; the CLI turns it
into one line and exit 130. Nothing is written before the final confirmation.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import questionary
import yaml
from questionary import Choice, Separator

from cleaner_runtime.model import Privacy
from generator.paths import shown_inputs
from generator.questions import phrase, summary_line

PROFILES = ("coding", "support", "research", "ops", "compliance", "generic")
CUSTOM = "<custom>"
BACK = "<back>"


def style() -> questionary.Style | None:
    """No colours when NO_COLOR is set (https://no-color.org), as for every other output."""
    if os.environ.get("NO_COLOR"):
        os.environ.setdefault("PROMPT_TOOLKIT_COLOR_DEPTH", "DEPTH_1_BIT")
        return questionary.Style([("qmark", ""), ("question", "bold"), ("answer", ""), ("pointer", ""),
                                  ("highlighted", "reverse"), ("selected", ""), ("instruction", "")])
    return None


def say(text: str = "") -> None:
    print(text, file=sys.stderr)


def shorten(text: str, limit: int = 100) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def show_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


@dataclass
class State:
    """Everything the survey has learned so far; the mapping is re-inferred from it."""

    profile: Any
    source: str | None
    answers: dict = field(default_factory=dict)  # decision key -> forced value
    profile_name: str | None = None
    privacy: dict = field(default_factory=dict)
    output: str = ""
    asked: int = 0  # how many prompts were shown (tests count them)
    inference: Any = None
    paths: list[str] = field(default_factory=list)  # the samples: the search runs candidates on them
    known: dict = field(default_factory=dict, repr=False)  # answers (as JSON) -> the search's inference

    def infer(self):
        """Re-infer with every answer fixed: the search settles what the samples' outputs can
        (a records path answered re-reads the samples there), the rest stays a question."""
        from generator.infer import infer_profile

        known = self.known.get(_answers_key(self.answers))
        if known is not None:
            self.inference = known
            return known
        if not self.paths:
            self.inference = infer_profile(self.profile, source=self.source, answers=self.answers)
            return self.inference
        from generator.infer.search import search

        self.inference = search(self.profile, self.paths, source=self.source, answers=self.answers,
                                progress=sys.stderr.isatty()).inference
        return self.inference

    def offer(self, decision):
        """The decision's choices between outputs (generator.choices), or None without samples.
        The search each choice ran is kept: taking that choice needs no second search."""
        if not self.paths:
            return None
        from generator.choices import offer

        offered = offer(decision, self.profile, self.paths, source=self.source, answers=self.answers)
        for option in offered.options:
            for value in option.values:
                self.known[_answers_key({**self.answers, decision.key: value})] = option.inference
        return offered

    def check(self, key: str, value: Any) -> str | None:
        """Why a typed value cannot be used (inference or its cleaner fails with it), or None."""
        from generator.choices import try_value

        return try_value(key, value, self.profile, self.paths, source=self.source, answers=self.answers)

    def mapping(self) -> dict:
        mapping = json.loads(json.dumps(self.inference.mapping))
        if self.profile_name:
            mapping["source_profile"] = self.profile_name
        if self.privacy:
            mapping["privacy"] = {**mapping.get("privacy", {}), **self.privacy}
        return mapping


def _answers_key(answers: dict) -> str:
    return json.dumps(answers, sort_keys=True, default=str)


class Asker:
    """The questionary calls, in one place, so tests can drive them with pipe input."""

    def __init__(self, state: State):
        self.state = state
        self.style = style()

    def select(self, message: str, choices: list, default: Any = None, instruction: str | None = None) -> Any:
        self.state.asked += 1
        values = [c.value for c in choices if isinstance(c, Choice)]
        return questionary.select(message, choices=choices, default=default if default in values else None,
                                  instruction=instruction, style=self.style).unsafe_ask()

    def text(self, message: str, default: str = "", validate=None) -> str:
        self.state.asked += 1
        return questionary.text(message, default=default, validate=validate, style=self.style).unsafe_ask()

    def checkbox(self, message: str, choices: list) -> list:
        self.state.asked += 1
        return questionary.checkbox(message, choices=choices, style=self.style).unsafe_ask()

    def confirm(self, message: str, default: bool = True) -> bool:
        self.state.asked += 1
        return questionary.confirm(message, default=default, style=self.style).unsafe_ask()


def kind_example(state: State, key: str) -> str:
    """For a decision about a kind: its count and a shortened, redacted example record."""
    if not key.startswith("kinds["):
        return ""
    kind_key = key[len("kinds["):].rsplit("].", 1)[0]
    for kind in state.profile.kinds:
        if kind.key == kind_key and kind.recs:
            from cleaner_runtime.redaction import Redactor

            redactor = Redactor()
            example = redactor.redact(json.dumps(kind.recs[0].data, ensure_ascii=False))
            return f"{kind.count} record(s), e.g. {shorten(example, 160)}"
    return ""


def parse_value(text: str) -> Any:
    """A typed answer read as YAML (lists, numbers), by the bounded loader; text it will not read
    (invalid YAML, or aliases that expand too far) is kept as the text typed."""
    from generator.answers import AnswersError, load_yaml

    try:
        return load_yaml(text, "answer") if text.strip() else ""
    except (yaml.YAMLError, AnswersError):
        return text


def ask_decision(asker: Asker, decision, *, intro: str = "", offered: Any = False) -> Any:
    """One decision as a choice between what each candidate makes the cleaner write (the first
    record where their outputs differ), or a typed value, checked at once and asked again with
    the reason when it cannot be used. Without samples to try them on, the candidates in words."""
    state = asker.state
    say("")
    if intro:
        say(intro)
    detail = kind_example(state, decision.key)
    if detail:
        say(f"  {detail}")
    phrased = phrase(decision, field_examples(state))
    if offered is False:
        offered = state.offer(decision)
    as_outputs = offered is not None and bool(offered.where or not offered.working)
    if as_outputs and not offered.working:
        say("  No choice gives a cleaner that writes the samples; why each fails:")
    elif as_outputs:
        say(f"  Where the choices differ ({offered.where}), each writes:")
        options = [(option.label, option.value) for option in offered.options]
    else:
        say(f"  why it is open: {decision.evidence}")
        options = phrased.options
    choices = [Choice(f"({chr(97 + i)}) {label}" if as_outputs else label, value=i)
               for i, (label, _) in enumerate(options)]
    choices += [Separator(), Choice("type another value", value=CUSTOM)]
    while True:
        picked = asker.select(phrased.question, choices, default=0, instruction="(arrows, enter)")
        if picked != CUSTOM:
            return options[picked][1]
        value = parse_value(asker.text(f"Your own value (as in a mapping file, for {decision.key}):",
                                       validate=lambda s: bool(s.strip()) or "type a value"))
        problem = state.check(decision.key, value)
        if problem is None:
            return value
        say(f"  {shorten(show_value(value), 60)} cannot be used: {problem}. Choose again.")


def field_examples(state: State) -> dict[str, Any]:
    """An example value for every field path of the samples (dotted), for options that name a field."""
    from cleaner_runtime.redaction import Redactor

    redactor = Redactor()
    examples: dict[str, Any] = {}
    for path, stat in state.profile.stats.items():
        values = getattr(stat, "values", None)
        if values:
            example = next(iter(values))
            examples[".".join(map(str, path))] = redactor.redact(example) if isinstance(example, str) else example
    return examples


def next_question(state: State, seen: set[str]):
    """The open question the survey asks next (the first not answered or asked yet), or None;
    the benchmark's scripted answerer walks the questions through this too."""
    pending = [q for q in state.inference.questions if q.key not in state.answers and q.key not in seen]
    return (pending[0], len(pending)) if pending else (None, 0)


def settle(state: State, decision, offered) -> bool:
    """A question whose candidates all write the same output (or all but one fail) is not asked:
    that output is taken, and the person is told so in one line."""
    if offered is None or not offered.settled:
        return False
    value = offered.working[0].value
    say(f"  {phrase(decision).question} Every choice writes the same records: settled, not asked.")
    state.answers[decision.key] = value
    return True


def ask_questions(asker: Asker) -> None:
    """Ask every open question; answers are forced and inference re-run after each."""
    state = asker.state
    seen: set[str] = set()
    for _ in range(200):
        q, total = next_question(state, seen)
        if q is None:
            return
        seen.add(q.key)
        offered = state.offer(q)
        if not settle(state, q, offered):
            state.answers[q.key] = ask_decision(asker, q, intro=f"Inference is not sure ({total} open question(s)):",
                                                offered=offered)
        state.infer()


def summary_lines(state: State) -> list[str]:
    """Every decision in the data's words (generator.questions.summary_line), and how sure it is."""
    examples = field_examples(state)
    lines = []
    for d in state.inference.decisions:
        mark = "your answer" if d.key in state.answers else f"sure {d.confidence:.0%}"
        lines.append(f"  {summary_line(d, examples)}  ({mark})")
    return lines


def ask_summary(asker: Asker) -> None:
    """One summary of the decisions; confirm, or change one and see the summary again."""
    state = asker.state
    while True:
        say("")
        say("What the cleaner will do:")
        for line in summary_lines(state):
            say(line)
        choice = asker.select("Does this look right?", [
            Choice("yes, continue", value="ok"),
            Choice("change one decision", value="change"),
            Choice("mark record kinds as noise (skipped)", value="noise"),
        ], default="ok")
        if choice == "ok":
            return
        if choice == "noise":
            ask_noise(asker)
            continue
        decisions = state.inference.decisions
        picked = asker.select("Which decision?", [
            *[Choice(shorten(summary_line(d), 90), value=i) for i, d in enumerate(decisions)],
            Separator(), Choice("back", value=BACK)])
        if picked != BACK:
            state.answers[decisions[picked].key] = ask_decision(asker, decisions[picked])
            state.infer()


def ask_noise(asker: Asker) -> None:
    state = asker.state
    roles = {d.key[len("kinds["):-len("].role")]: d.value for d in state.inference.decisions
             if d.key.startswith("kinds[") and d.key.endswith("].role")}
    choices = [Choice(f"{k.key} ({k.count} record(s))", value=k.key, checked=roles.get(k.key) == "skip")
               for k in state.profile.kinds if k.key in roles]
    if not choices:
        return
    chosen = set(asker.checkbox("Which record kinds are noise (progress, heartbeat, usage ...)? space toggles",
                                choices))
    for kind_key, role in roles.items():
        key = f"kinds[{kind_key}].role"
        if kind_key in chosen and role != "skip":
            state.answers[key] = "skip"
        elif kind_key not in chosen and role == "skip":
            decision = next(d for d in state.inference.decisions if d.key == key)
            state.answers[key] = ask_decision(asker, decision, intro="No longer noise: what is it?")
    state.infer()


def _int_at_least(minimum: int):
    def check(text: str) -> bool | str:
        return (text.strip().isdigit() and int(text) >= minimum) or f"a whole number of at least {minimum}"
    return check


def ask_privacy(asker: Asker) -> None:
    state = asker.state
    # read through the typed section, so that what it shows for an unset key is the runtime's default
    current = Privacy.load({**state.inference.mapping.get("privacy", {}), **state.privacy})
    limits = current.truncate
    summary = (f"redact secrets: {'on' if current.redact else 'OFF'}; personal data "
               f"(emails, phones, cards, IBANs): {'redacted' if current.personal_data else 'kept'}; "
               f"truncate tool results over {limits.tool} and other text over {limits.other} characters")
    say("")
    say(f"Privacy: {summary}")
    if asker.select("Privacy settings?", [Choice("keep these", value="keep"), Choice("change", value="change")],
                    default="keep") == "keep":
        return
    personal = asker.confirm("Also redact personal data (emails, phone numbers, card numbers, IBANs)?",
                             default=bool(current.personal_data))
    tool = int(asker.text("Truncate tool results longer than (characters):", str(limits.tool), _int_at_least(200)))
    other = int(asker.text("Truncate other text longer than (characters):", str(limits.other), _int_at_least(200)))
    state.privacy = {"redact": True, "personal_data": personal, "truncate": {"tool": tool, "other": other}}


def ask_profile(asker: Asker) -> None:
    state = asker.state
    inferred = state.profile_name or state.inference.mapping.get("source_profile", "generic")
    choices = [Choice(name, value=name) for name in PROFILES]
    if inferred not in PROFILES:
        choices.insert(0, Choice(inferred, value=inferred))
    choices += [Separator(), Choice("a custom profile id", value=CUSTOM)]
    picked = asker.select("Lerim source profile the output will be registered with?", choices, default=inferred)
    if picked == CUSTOM:
        picked = asker.text("Custom profile id:", validate=lambda s: bool(s.strip()) or "type the profile id").strip()
    state.profile_name = picked


def ask_output(asker: Asker) -> None:
    state = asker.state

    def free(text: str) -> bool | str:
        path = Path(text.strip()).expanduser()
        if not text.strip():
            return "type a folder"
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            return "exists and is not empty; choose a new folder"
        return True

    state.output = asker.text("Write the cleaner project to:", state.output, free).strip()


def preview_and_confirm(asker: Asker, samples: list[Path]) -> str:
    from generator.preview import format_preview, run_preview

    state = asker.state
    say("")
    say("Preview (the rendered cleaner run on the first session):")
    preview = run_preview(state.mapping(), samples)
    say(format_preview(preview, shutil.get_terminal_size((120, 40)).columns))
    return asker.select("Render the cleaner?", [
        Choice("render it", value="render"),
        Choice("go back and change an answer", value="back"),
        Choice("abort (write nothing)", value="abort"),
    ], default="render")


def change_menu(asker: Asker) -> None:
    picked = asker.select("What do you want to change?", [
        Choice("a mapping decision", value="summary"),
        Choice("privacy settings", value="privacy"),
        Choice("the Lerim source profile", value="profile"),
        Choice("where to write", value="output"),
    ])
    {"summary": ask_summary, "privacy": ask_privacy, "profile": ask_profile, "output": ask_output}[picked](asker)


def survey(state: State, samples: list[Path], asker: Asker | None = None) -> tuple[dict, str] | None:
    """Run the whole survey; returns (mapping, output folder), or None when aborted."""
    asker = asker or Asker(state)
    if state.inference is None:
        state.infer()
    if state.inference.native_source:
        say(f"Note: Letta's trajectory normalizer supports {state.inference.native_source!r} natively; prefer that "
            "path for Lerim when you can. Continuing with a custom cleaner.")
    ask_questions(asker)
    ask_summary(asker)
    ask_privacy(asker)
    ask_profile(asker)
    ask_output(asker)
    while True:
        decision = preview_and_confirm(asker, samples)
        if decision == "render":
            return state.mapping(), state.output
        if decision == "abort":
            return None
        change_menu(asker)


def run_survey(args, samples: list[Path]):
    """The `new` command's interactive path: (mapping, prompt context, output) or an exit code."""
    from generator.inspect import profile_paths
    from generator.prompt import question_lines, structure_summary

    say(f"Inspecting {shown_inputs(args.samples)} ...")
    try:
        profile = profile_paths([str(s) for s in samples], progress=True)
    except FileNotFoundError as exc:
        say(f"error: {exc} (give sample trace files or folders that hold them)")
        return 2
    if not profile.recs:
        say(f"error: no record could be read from {shown_inputs(args.samples)} (see `trajectory-cleaner inspect`)")
        return 1
    state = State(profile, args.source, output=args.output, profile_name=args.source_profile,
                  paths=[str(s) for s in samples])
    state.infer()
    result = survey(state, samples)
    if result is None:
        say("aborted: nothing was written")
        return 1
    mapping, output = result
    context = {"inspection": structure_summary(state.inference), "questions": question_lines(state.inference)}
    return mapping, context, output
