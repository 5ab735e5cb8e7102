"""Secrets listed as name/value pairs: the name says what the value is, in a field of its own.

Kubernetes and ECS print environment variables this way (`kubectl get -o json`, `aws ecs
describe-task-definition`), in JSON on one line or pretty-printed, and YAML manifests put the
value on the line after the name. Agents print all of these, often inside a tool result, i.e.
JSON-escaped once or twice: the line break between the name and the value is then `\\n` or
`\\\\n`, which once stopped the YAML form from being recognised at all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redaction_support import EveryPosition, load_redact

Redactor = load_redact().Redactor
SECRET = "Qm8vZt2Lp4Xw9Rk7Hs3Nd6Jc"

PAIRS = {
    "json": ('{"name": "DB_PASSWORD", "value": "%s"}', "password"),
    "json-compact": ('{"name":"SERVICE_API_KEY","value":"%s"}', "api-key"),
    "json-pretty": ('"env": [\n  {\n    "name": "WEBHOOK_SECRET",\n    "value": "%s"\n  }\n]', "secret"),
    "yaml": ("env:\n  - name: POSTGRES_PASSWORD\n    value: %s", "password"),
    "yaml-crlf": ("env:\r\n  - name: POSTGRES_PASSWORD\r\n    value: \"%s\"", "password"),
}
NOT_SECRETS = [
    '{"name": "REGION", "value": "eu-west-1"}',
    '{"name": "DB_PASSWORD", "value": ""}',
    '{"name": "API_TOKEN", "value": "${API_TOKEN}"}',
    '{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}',
    '{"name": "max_tokens", "value": 4096}',
    "- name: session\n  value: abc123def456",
]


def escaped(text: str, depth: int) -> str:
    for _ in range(depth):
        text = json.dumps(text)
    return text


@pytest.mark.parametrize("depth", [0, 1, 2])
@pytest.mark.parametrize("form", sorted(PAIRS))
def test_the_value_of_a_secret_name_is_redacted(form, depth):
    template, cls = PAIRS[form]
    text = escaped(template % SECRET, depth)
    redactor = Redactor()
    out = redactor.redact(text)
    assert SECRET not in out and f"[REDACTED:{cls}]" in out, out
    assert out.replace(f"[REDACTED:{cls}]", SECRET) == text  # only the value changed
    if depth:
        json.loads(out)  # escaped JSON stays valid
    slow = Redactor()
    slow._c = EveryPosition(slow._c)
    assert slow.redact(text) == out  # the prefilter finds it


@pytest.mark.parametrize("depth", [0, 1])
@pytest.mark.parametrize("text", NOT_SECRETS)
def test_pairs_without_a_secret_value_stay(text, depth):
    assert Redactor().redact(escaped(text, depth)) == escaped(text, depth)
