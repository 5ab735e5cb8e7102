"""Corpus and API tests for the cleaner runtime's redaction engine."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redaction_support import (
    NEGATIVE,
    PERSONAL,
    POSITIVE,
    leaks,
    load_jsonl,
    load_redact,
)

redact_mod = load_redact()
Redactor = redact_mod.Redactor

POSITIVES = load_jsonl(POSITIVE)
NEGATIVES = load_jsonl(NEGATIVE)
PERSONALS = load_jsonl(PERSONAL)


def _id(case: dict) -> str:
    return case["id"]


# ---------------------------------------------------------------------------
# The corpus itself
# ---------------------------------------------------------------------------

def test_corpus_size_and_coverage():
    classes = {lab["class"] for c in POSITIVES for lab in c["labels"]}
    assert len(POSITIVES) >= 150
    assert len(classes) >= 30
    assert len(NEGATIVES) >= 80
    assert classes <= set(redact_mod.CLASSES)
    for case in POSITIVES:
        for lab in case["labels"]:
            assert lab["secret"] in case["text"], case["id"]


def test_corpus_is_regenerated_deterministically(tmp_path, monkeypatch):
    import make_corpus
    import redaction_support

    for name in ("POSITIVE", "NEGATIVE", "PERSONAL"):
        monkeypatch.setattr(make_corpus, name, tmp_path / getattr(redaction_support, name).name)
    make_corpus.main()
    for path in (POSITIVE, NEGATIVE, PERSONAL):
        assert (tmp_path / path.name).read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------
# Positives: every secret goes, the placeholder names the class, counts match
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("case", POSITIVES, ids=_id)
def test_positive_fully_redacted(case):
    r = Redactor()
    out = r.redact(case["text"])
    for lab in case["labels"]:
        assert not leaks(lab["secret"], out), (lab["class"], out)
        assert f"[REDACTED:{lab['class']}]" in out
    assert r.counts == Counter(lab["class"] for lab in case["labels"])
    # redacting again changes nothing and counts nothing
    again = Redactor()
    assert again.redact(out) == out
    assert not again.counts
    if case["encoding"] != "raw":  # escaped JSON stays valid JSON
        json.loads(out)


@pytest.mark.parametrize("case", NEGATIVES, ids=_id)
def test_negative_unchanged(case):
    r = Redactor()
    assert r.redact(case["text"]) == case["text"]
    assert not r.counts


@pytest.mark.parametrize("case", NEGATIVES, ids=_id)
def test_negative_unchanged_when_json_escaped(case):
    text = json.dumps({"output": case["text"]})
    assert Redactor().redact(text) == text


# ---------------------------------------------------------------------------
# Personal data: opt-in
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("case", PERSONALS, ids=_id)
def test_personal_data_off_by_default(case):
    r = Redactor()
    assert r.redact(case["text"]) == case["text"]
    assert not r.counts


@pytest.mark.parametrize("case", PERSONALS, ids=_id)
def test_personal_data_opt_in(case):
    r = Redactor(personal_data=True)
    out = r.redact(case["text"])
    for lab in case["labels"]:
        assert not leaks(lab["secret"], out), out
        assert f"[REDACTED:{lab['class']}]" in out
    assert r.counts == Counter(lab["class"] for lab in case["labels"])


def test_personal_data_checksums():
    r = Redactor(personal_data=True)
    # invalid Luhn / mod-97 checksums, dates, versions and plain numbers stay
    for text in ("card 4111 1111 1111 1112 declined", "IBAN DE89 3704 0044 0532 0130 01",
                 "released 2024-01-15 as v1.2.3", "order 1234567890123456 shipped",
                 "pip install requests==2.32.3", "npm i lodash@4.17.21"):
        assert r.redact(text) == text, text
    assert r.redact("card 4539 1488 0343 6467 ok") == "card [REDACTED:card-number] ok"
    assert r.redact("card 4111 1111 1111 1111 ok") == "card 4111 1111 1111 1111 ok"  # test number
    assert r.redact("IBAN DE89 3704 0044 0532 0130 00.") == "IBAN [REDACTED:iban]."
    assert r.redact('{"email": "ada.lovelace@example.org"}') == '{"email": "[REDACTED:email]"}'
    # JSON-escaped newline before an email keeps the escape intact
    assert r.redact('"line\\nada@example.org"') == '"line\\n[REDACTED:email]"'
    # personal data does not hide secrets
    assert "[REDACTED:github-token]" in r.redact("ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5")


# ---------------------------------------------------------------------------
# API behaviour
# ---------------------------------------------------------------------------

GH = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def test_counts_are_cumulative_and_never_values():
    r = Redactor()
    r.redact(f"a {GH} b")
    r.redact(f"DB_PASSWORD=Tr0ub4dor&3x\n{GH}")
    assert r.counts == Counter({"github-token": 2, "password": 1})
    assert all(GH not in k for k in r.counts)


def test_allowlist_exact_values():
    other = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8N"
    r = Redactor(allowlist=[GH, "hunter2hunter2"])
    out = r.redact(f"{GH} {other} password=hunter2hunter2 password=n0t-allowed-pw")
    assert GH in out
    assert other not in out
    assert "hunter2hunter2" in out
    assert "n0t-allowed-pw" not in out
    assert r.counts == Counter({"github-token": 1, "password": 1})


def test_extra_patterns():
    r = Redactor(extra_patterns={"acme-key": r"ACME-[0-9]{4}-[A-Z]{4}", "ticket": r"TKT\d{6}"})
    out = r.redact(f"use ACME-1234-ABCD for TKT123456 and {GH}")
    assert out == "use [REDACTED:acme-key] for [REDACTED:ticket] and [REDACTED:github-token]"
    assert r.counts == Counter({"acme-key": 1, "ticket": 1, "github-token": 1})
    # extra patterns also apply inside JSON-escaped text and respect the allowlist
    r2 = Redactor(extra_patterns={"acme-key": r"ACME-[0-9]{4}-[A-Z]{4}"}, allowlist=["ACME-0000-TEST"])
    assert r2.redact(json.dumps({"k": "ACME-1234-ABCD ACME-0000-TEST"})) == \
        '{"k": "[REDACTED:acme-key] ACME-0000-TEST"}'
    # a leading inline flag applies to that pattern only
    r3 = Redactor(extra_patterns={"ticket": r"(?i)tkt-\d{4}", "order": r"ORD\d{3}"})
    assert r3.redact("tkt-1234 TKT-5678 ord123 ORD123") == \
        "[REDACTED:ticket] [REDACTED:ticket] ord123 [REDACTED:order]"
    with pytest.raises(ValueError):
        Redactor(extra_patterns={"Not Kebab": "x"})
    with pytest.raises(Exception):  # noqa: B017 - re.error
        Redactor(extra_patterns={"bad": "("})


def test_placeholder_names_class_and_format():
    out = Redactor().redact(f"token {GH}")
    assert out == "token [REDACTED:github-token]"
    for cls in redact_mod.CLASSES + redact_mod.PERSONAL_CLASSES:
        assert cls == cls.lower() and " " not in cls and "_" not in cls


def test_whole_secret_goes_not_just_prefix():
    key = "sk-proj-" + "Ab3De5Fg7Hj9Kl1Mn3Pq5Rs7Tu9Vw1Xy3Za5Bc7De9Fg1Hi3Jk5Lm7No9Pq1Rs3Tu5Vw"
    out = Redactor().redact(f"OPENAI_API_KEY={key}")
    assert out == "OPENAI_API_KEY=[REDACTED:openai-api-key]"


def test_ampersand_inside_and_after_values():
    r = Redactor()
    assert r.redact("DB_PASSWORD=Tr0ub4dor&3-horse") == "DB_PASSWORD=[REDACTED:password]"
    assert r.redact("GET /cb?token=abc123DEF456ghi&next=1") == "GET /cb?token=[REDACTED:token]&next=1"
    assert r.redact("password=S3cr3tPw9 && make") == "password=[REDACTED:password] && make"
    assert r.redact("password=S3cr3tPw9&amp;x=1") == "password=[REDACTED:password]&amp;x=1"


def test_url_password_only_password_goes():
    out = Redactor().redact("postgres://app:S3cr3t-P4ss@db.internal:5432/app")
    assert out == "postgres://app:[REDACTED:url-password]@db.internal:5432/app"


def test_context_before_a_secret_is_still_scanned():
    text = ('curl -H "Authorization: Bearer abcDEF123456ghiJKL789" -u admin:S3cr3tPw9 '
            "https://x/api -H 'X-Api-Key: Zx81Kq72Lm63Np54Ob45'")
    r = Redactor()
    out = r.redact(text)
    assert out == ('curl -H "Authorization: Bearer [REDACTED:bearer-token]" -u admin:[REDACTED:password] '
                   "https://x/api -H 'X-Api-Key: [REDACTED:api-key]'")
    assert r.counts == Counter({"bearer-token": 1, "password": 1, "api-key": 1})


def test_json_escaped_authorization_header():
    raw = json.dumps({"cmd": 'curl -H "Authorization: Bearer abcDEF123456ghiJKL789" https://x'})
    out = Redactor().redact(raw)
    assert json.loads(out)["cmd"] == 'curl -H "Authorization: Bearer [REDACTED:bearer-token]" https://x'


def test_pem_whole_block_escaped_and_raw():
    body = "\n".join(["MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "Ab12Cd34" * 4] * 6)
    pem = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"
    for text in (pem, json.dumps({"private_key": pem + "\n"}), json.dumps(json.dumps(pem))):
        out = Redactor().redact(text)
        assert "BEGIN" not in out and "MIIEvQ" not in out and "END PRIVATE" not in out, out
        assert "[REDACTED:private-key]" in out


def test_non_string_like_inputs():
    r = Redactor()
    assert r.redact("") == ""
    assert r.redact("short") == "short"
    assert r("x=1") == "x=1"  # __call__ alias


def test_classes_constant_lists_builtin_classes():
    assert "github-token" in redact_mod.CLASSES
    assert "email" not in redact_mod.CLASSES
    assert set(redact_mod.PERSONAL_CLASSES) == {"email", "phone-number", "card-number", "iban"}


def _optional_imports(tree) -> set[int]:
    """ids of the import nodes inside a ``try`` that catches ImportError (optional speed-ups)."""
    import ast

    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                isinstance(h.type, ast.Name) and h.type.id == "ImportError" for h in node.handlers):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Import))
    return out


def test_package_is_stdlib_only_and_self_contained():
    """The privacy boundary imports the standard library and its own modules, nothing else; the one
    exception is hyperscan, imported only if installed (its results are identical, see
    test_redaction_native)."""
    import ast

    package = Path(redact_mod.__file__).parent
    own = {path.stem for path in package.glob("*.py")}
    mods = set()
    optional = set()
    for path in package.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded = _optional_imports(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and id(node) in guarded:
                optional.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.Import):
                mods.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    assert node.level == 1 and node.module in own, f"{path.name} imports outside the package"
                else:
                    mods.add(node.module.split(".")[0])
    assert mods <= set(sys.stdlib_module_names)
    assert optional <= {"hyperscan"}


def test_every_class_is_documented_and_covered():
    doc = redact_mod.detectors.__doc__
    for cls in redact_mod.CLASSES + redact_mod.PERSONAL_CLASSES:
        assert f"``{cls}``" in doc, cls
    covered = {lab["class"] for c in POSITIVES + PERSONALS for lab in c["labels"]}
    assert covered == set(redact_mod.CLASSES) | set(redact_mod.PERSONAL_CLASSES)
