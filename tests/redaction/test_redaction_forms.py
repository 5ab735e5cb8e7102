"""The forms of #18, each written out by hand with its exact expected output: credential files,
Kubernetes Secrets, vendor keys named by their context, commands and calls that carry a password.

The labelled corpus (tests/redaction/corpus_positive.jsonl) holds these forms under every encoding a
trace uses; these tests pin the edges: what is redacted, what stays, and which class names it.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redaction_support import EveryPosition, load_redact

Redactor = load_redact().Redactor

# synthetic values in real formats (never real credentials)
B64_PW = "VHIwdWI0ZG9yM3hROQ=="
UUID = "3f1c2a7e-9b4d-4e8a-b2c1-7d6e5f4a3b2c"
HEX32 = "3b2f9c1e8d7a6b5c4f3e2d1c0b9a8f7e"
HEX40 = "9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b"
AWS_ID = "AKIA4NQWERTYZXCVB7LM"
AWS_SECRET = "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"
GH = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


@pytest.mark.parametrize(("text", "expected"), [
    # Kubernetes Secrets: every data value, whatever its key; before or after the kind
    ("kind: Secret\ndata:\n  username: YWRtaW4xMjM=\n  DB_URL: " + B64_PW + "\n",
     "kind: Secret\ndata:\n  username: [REDACTED:kubernetes-secret]\n  DB_URL: [REDACTED:kubernetes-secret]\n"),
    ("apiVersion: v1\ndata:\n  api-token: " + B64_PW + "\nkind: Secret\n",
     "apiVersion: v1\ndata:\n  api-token: [REDACTED:kubernetes-secret]\nkind: Secret\n"),
    ('{"data": {"password": "' + B64_PW + '"}, "kind": "Secret"}',
     '{"data": {"password": "[REDACTED:kubernetes-secret]"}, "kind": "Secret"}'),
    ("kind: Secret\nstringData:\n  SMTP_PASSWORD: \"Xy7pQ2mK9vLw\"\n",
     "kind: Secret\nstringData:\n  SMTP_PASSWORD: \"[REDACTED:kubernetes-secret]\"\n"),
    ("$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\nXy7pQ2mK9vLw\n$ ",
     "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\n[REDACTED:kubernetes-secret]\n$ "),
    # credential files
    ("machine ftp.acme.dev\n  password Xy7pQ2mK9vLw\n  login mirror",
     "machine ftp.acme.dev\n  password [REDACTED:password]\n  login mirror"),
    ("machine api.heroku.com\n  login ada@acme.dev\n  password " + UUID,
     "machine api.heroku.com\n  login ada@acme.dev\n  password [REDACTED:heroku-api-key]"),
    ("db.internal:5432:app:app_user:Xy7pQ2mK9vLw\n*:*:*:replicator:Tr0ub4dor3xQ9",
     "db.internal:5432:app:app_user:[REDACTED:password]\n*:*:*:replicator:[REDACTED:password]"),
    ("https://" + GH + ":x-oauth-basic@github.com/acme/x.git",
     "https://[REDACTED:github-token]:x-oauth-basic@github.com/acme/x.git"),
    ("postgres://app:Xy7@pQ2mK9vLw@db.internal/app", "postgres://app:[REDACTED:url-password]@db.internal/app"),
    ('{"auths": {"ghcr.io": {"auth": "ZGVwbG95OlRyMHViNGRvcjN4UTk="}}}',
     '{"auths": {"ghcr.io": {"auth": "[REDACTED:basic-auth]"}}}'),
    # prefix-less vendor keys: named by the key, or by the text before it
    ("DD_API_KEY=" + HEX32, "DD_API_KEY=[REDACTED:datadog-api-key]"),
    ('provider "datadog" {\n  api_key = "' + HEX32 + '"\n  app_key = "' + HEX40 + '"\n}',
     'provider "datadog" {\n  api_key = "[REDACTED:datadog-api-key]"\n  app_key = "[REDACTED:datadog-app-key]"\n}'),
    ("[default]\naccess_key = " + AWS_ID + "\nsecret_key = " + AWS_SECRET,
     "[default]\naccess_key = [REDACTED:aws-access-key-id]\nsecret_key = [REDACTED:aws-secret-access-key]"),
    ('new BasicAWSCredentials("' + AWS_ID + '", "' + AWS_SECRET + '")',
     'new BasicAWSCredentials("[REDACTED:aws-access-key-id]", "[REDACTED:aws-secret-access-key]")'),
    ("$ heroku auth:token\n" + UUID, "$ heroku auth:token\n[REDACTED:heroku-api-key]"),
    ("HEROKU_API_KEY=" + UUID, "HEROKU_API_KEY=[REDACTED:heroku-api-key]"),
    # a key and its value in separate elements
    ("<key>APIKey</key>\n<string>Qz8vX2mK9pLw4NrT6yHb3JcF</string>",
     "<key>APIKey</key>\n<string>[REDACTED:api-key]</string>"),
    ('<entry key="db.password">Tr0ub4dor3xQ9</entry>', '<entry key="db.password">[REDACTED:password]</entry>'),
    ('<meta name="csrf-token" content="Qz8vX2mK9pLw4NrT6yHb3JcF7dS1aGeU">',
     '<meta name="csrf-token" content="[REDACTED:token]">'),
    # commands and calls
    ("define( 'DB_PASSWORD', 'Tr0ub4dor3xQ9' );", "define( 'DB_PASSWORD', '[REDACTED:password]' );"),
    ('$env:DB_PASSWORD = "Tr0ub4dor3xQ9"', '$env:DB_PASSWORD = "[REDACTED:password]"'),
    ("aws configure set aws_secret_access_key " + AWS_SECRET,
     "aws configure set aws_secret_access_key [REDACTED:aws-secret-access-key]"),
    ("docker login -u ci -p Tr0ub4dor3xQ9 registry.acme.dev", "docker login -u ci -p [REDACTED:password] registry.acme.dev"),
    ("openssl pkcs12 -in c.p12 -passin pass:Tr0ub4dor3xQ9", "openssl pkcs12 -in c.p12 -passin pass:[REDACTED:password]"),
    ("The ID token was eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0NTgwNzMwMjE1In0.nFbB0JxXujr4qqaaABvv.",
     "The ID token was [REDACTED:jwt]."),
])
def test_form(text, expected):
    redactor = Redactor()
    assert redactor.redact(text) == expected
    assert Redactor().redact(expected) == expected  # idempotent
    slow = Redactor()
    slow._c = EveryPosition(slow._c)
    assert slow.redact(text) == expected  # the prefilter finds it
    escaped = json.dumps({"output": text})
    assert json.loads(Redactor().redact(escaped))["output"] == expected  # JSON-escaped the same


@pytest.mark.parametrize("text", [
    "apiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: info\n  FLAGS: bmV3LWNoZWNrb3V0\n",
    "kind: Secret\ndata:\n  password: {{ .Values.db.password | b64enc }}\n",
    "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d > /tmp/pw\nsaved",
    "root:x:0:0:root:/root:/bin/bash\nlocalhost:5432:*:postgres:${PGPASSWORD}",
    "HEROKU_APP_ID=" + UUID + "\nAZURE_TENANT_ID=" + UUID,
    "DD_SITE=datadoghq.com\nDD_ENV=prod\ndd.trace_id=4830183791201234567",
    '<key>CFBundleIdentifier</key>\n<string>com.acme.app</string>',
    '<meta name="csrf-param" content="authenticity_token" />',
    "$env:DB_PASSWORD = Read-Host -AsSecureString",
    "$ docker run -p 5432:5432 postgres:16\n$ htpasswd -c /etc/nginx/.htpasswd ada",
    '"integrity": "sha512-' + "A" * 40 + "b" * 46 + '=="',
])
def test_hard_negative_stays(text):
    assert Redactor().redact(text) == text


def test_a_secret_between_two_secret_manifests_is_not_skipped():
    """A Secret's values are many spans found at once; text between them is still scanned."""
    doc = "apiVersion: v1\nkind: Secret\ndata:\n  password: " + B64_PW + "\n"
    text = doc + "\n" + AWS_ID + "\n\n" + doc
    out = Redactor().redact(text)
    assert AWS_ID not in out and B64_PW not in out
    redactor = Redactor()
    redactor.redact(text)
    assert redactor.counts == Counter({"kubernetes-secret": 2, "aws-access-key-id": 1})


def test_a_secret_structure_names_what_its_keys_would():
    """`password: <b64>` inside a Secret's data is one redaction, named by the Secret."""
    redactor = Redactor()
    redactor.redact("kind: Secret\ndata:\n  password: " + B64_PW + "\n  token: " + "WHk3cFEybUs5dkx3MTIz" + "\n")
    assert redactor.counts == Counter({"kubernetes-secret": 2})
