"""`validate` agrees with Letta's own runtime validator (validateTranscript) on the corpus.

The oracle is Letta's code itself (tests/oracles/letta.py: the `bench` extra's bundle, run in
Node), reading each file the way a JSON-lines reader does (every non-empty line parsed as JSON)
and validating the whole transcript. Agreement means:

* every file Letta rejects is an error here (never accepted, never only a warning);
* every file Letta accepts passes here, unless the only errors come from rules that check more
  than Letta does (``BEYOND_LETTA``: the seed's and JSON's rules, such as no blank lines, a real
  calendar date, a meta record on line 1, a tool result after its call);
* each rule outside ``BEYOND_LETTA`` only ever fails files that Letta rejects too.
"""

from __future__ import annotations

import pytest

from tests.oracles import letta

from .support import CORPUS

CORPUS_FILES = sorted(CORPUS.rglob("*.jsonl"))


@pytest.fixture(scope="module")
def verdicts() -> dict[str, tuple[str | None, list]]:
    if not letta.available():
        pytest.skip("Letta's validator needs the bench extra (agent-trajectory) and Node.js")
    return {path.relative_to(CORPUS).as_posix(): verdict
            for path, verdict in zip(CORPUS_FILES, letta.verdicts(CORPUS_FILES))}


@pytest.fixture(scope="module")
def ours(rt, bundled_validator) -> dict[str, list]:
    return {path.relative_to(CORPUS).as_posix(): rt.check_file(path, bundled_validator) for path in CORPUS_FILES}


def errors_of(problems: list) -> set[str]:
    return {p.rule for p in problems if p.severity == "error"}


def test_whatever_letta_rejects_is_an_error(verdicts, ours):
    missed = {name: verdict for name, verdict in verdicts.items() if verdict is not None and not errors_of(ours[name])}
    assert not missed, f"Letta rejects these and validate lets them pass: {missed}"


def test_whatever_letta_accepts_passes_unless_a_stricter_rule_says_why(rt, verdicts, ours):
    for name, verdict in verdicts.items():
        if verdict is None:
            unexplained = errors_of(ours[name]) - rt.BEYOND_LETTA
            assert not unexplained, f"{name}: Letta accepts it, but validate fails it by {sorted(unexplained)}"


def test_rules_within_letta_fail_only_what_letta_rejects(rt, verdicts, ours):
    """Each rule that is not marked as going beyond Letta is tripped by some corpus file, and every
    file that trips it is rejected by Letta too: the marking in BEYOND_LETTA is exact, not loose."""
    tripped: dict[str, list[str]] = {}
    for name, problems in ours.items():
        for rule in errors_of(problems) - rt.BEYOND_LETTA:
            tripped.setdefault(rule, []).append(name)
    within = set(rt.RULES) - rt.BEYOND_LETTA
    assert set(tripped) == within, f"rules within Letta without a corpus file: {sorted(within - set(tripped))}"
    accepted = {rule: [n for n in names if verdicts[n] is None] for rule, names in tripped.items()}
    assert not any(accepted.values()), f"Letta accepts files these rules fail: {accepted}"


def test_rules_beyond_letta_really_are(rt, verdicts, ours):
    """Every rule marked as going beyond Letta (errors only) fails some corpus file that Letta accepts,
    so the corpus shows where and why validate is stricter."""
    shown = {rule for name, problems in ours.items() if verdicts[name] is None for rule in errors_of(problems)}
    beyond = rt.BEYOND_LETTA - rt.WARNING_RULES - {"unreadable"}  # no file in the corpus is unreadable
    assert beyond <= shown, f"no corpus file Letta accepts shows {sorted(beyond - shown)}"


def test_verdicts_overall(verdicts, ours):
    """The figures of the agreement, for the record: both reject, both accept, stricter here."""
    both_reject = sum(1 for n, v in verdicts.items() if v is not None and errors_of(ours[n]))
    both_accept = sum(1 for n, v in verdicts.items() if v is None and not errors_of(ours[n]))
    stricter = sum(1 for n, v in verdicts.items() if v is None and errors_of(ours[n]))
    assert both_reject + both_accept + stricter == len(CORPUS_FILES)
    assert both_reject >= 30 and both_accept >= 15
    print(f"Letta and validate: {both_reject} rejected by both, {both_accept} accepted by both, "
          f"{stricter} failed only by rules that go beyond Letta's")


def test_partial_matches_letta_partial(rt, bundled_schema):
    """A session without a user or an assistant record: an error, a warning with partial=True."""
    for name, rule in (("invalid/no-user.jsonl", "no-user"), ("invalid/no-assistant.jsonl", "no-assistant")):
        strict = rt.check_file(CORPUS / name, rt.TrajectoryValidator(bundled_schema))
        partial = rt.check_file(CORPUS / name, rt.TrajectoryValidator(bundled_schema, partial=True))
        assert [(p.rule, p.severity) for p in strict] == [(rule, "error")]
        assert [(p.rule, p.severity) for p in partial] == [(rule, "warning")]
        assert "Letta's runtime validator (validateTranscript)" in strict[0].message


#: One corpus file per rule about line ends and whitespace outside strings (docs/security.md,
#: "Validation authority"): Letta's verdict decides whether validate fails the file.
LINE_ENDS_AND_WHITESPACE = {
    "warn/crlf.jsonl": "CRLF line ends: JSON takes the CR for whitespace (compact-line warning)",
    "warn/spaces.jsonl": "spaces around and between tokens (compact-line warning)",
    "warn/blank-line-middle.jsonl": "an empty line between records: readers skip it (blank-line warning)",
    "warn/blank-lines-trailing.jsonl": "empty lines at the end (blank-line warning)",
    "warn/cr-inside-line.jsonl": "a CR between tokens inside a line (line-break warning)",
    "invalid/whitespace-line.jsonl": "a line of only spaces and tabs: not JSON (json error)",
    "invalid/crlf-blank-line.jsonl": "a CRLF file's blank line, a lone CR: not JSON (json error)",
}


@pytest.mark.parametrize("name", sorted(LINE_ENDS_AND_WHITESPACE))
def test_line_ends_and_whitespace_follow_letta(verdicts, ours, name):
    """On line ends and whitespace outside strings Letta is the authority: validate fails exactly the
    files Letta's validator rejects (without --strict), and only warns about the rest."""
    letta_accepts = verdicts[name] is None
    assert letta_accepts == (not errors_of(ours[name])), (name, verdicts[name], ours[name])
    assert name.startswith("warn/") == letta_accepts
