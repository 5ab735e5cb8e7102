"""Shared helpers for the redaction tests and benchmark.

* ``load_redact()`` is the runtime's redaction package and ``load_truncate()``
  its truncation module, from the template (the runtime package is not
  importable by its own name from the generator checkout).
* ``MAKERS`` builds FAKE secrets in each vendor's real format from a seeded
  ``random.Random``: random-looking, synthetic, never real credentials.
* ``FORMS`` pairs every detector class with a minimal context that makes the
  secret recognisable (``DB_PASSWORD=<s>``, ``postgres://u:<s>@db``...), used
  by the property tests and the corpus generator.
* ``leaks()`` implements the leak criterion: any 8+ character substring of a
  secret (raw or JSON-escaped) surviving in the output.
* ``FRAGMENT`` draws pieces of hostile text for the property tests that prove a
  fast path equal to a slow one (``st.lists(FRAGMENT).map("".join)``).
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
POSITIVE = HERE / "corpus_positive.jsonl"
NEGATIVE = HERE / "corpus_negative.jsonl"
PERSONAL = HERE / "corpus_personal.jsonl"


def load_redact():
    """The ``cleaner_runtime.redaction`` package (the generator imports the same one)."""
    from cleaner_runtime import redaction

    return redaction


def load_truncate():
    """The ``cleaner_runtime.truncate`` module."""
    from cleaner_runtime import truncate

    return truncate


def load_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# ---------------------------------------------------------------------------
# Leak criterion
# ---------------------------------------------------------------------------

def secret_variants(secret: str) -> set[str]:
    """The secret as it may appear in text: raw and JSON-escaped (1-2 levels)."""
    out = {secret}
    cur = secret
    for _ in range(2):
        cur = json.dumps(cur)[1:-1]
        out.add(cur)
    return out


PLACEHOLDER_RE = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


def leaks(secret: str, output: str, n: int = 8, ignore: str = "") -> list[str]:
    """``n``-character windows of the secret (first per variant) that survive in
    ``output``; windows that also occur in ``ignore`` (the surrounding text the
    secret was put into) prove nothing and are skipped, and so do the
    placeholders themselves ("[REDACTED:rubygems-token]" for "rubygems_...")."""
    output = PLACEHOLDER_RE.sub("\x00", output)
    found = []
    for variant in secret_variants(secret):
        if len(variant) < n:
            if variant in output and variant not in ignore:
                found.append(variant)
            continue
        for i in range(len(variant) - n + 1):
            window = variant[i:i + n]
            if window in output and window not in ignore:
                found.append(window)
                break
    return found


# ---------------------------------------------------------------------------
# Fake secret makers (deterministic given the rng)
# ---------------------------------------------------------------------------

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
B62 = LOWER + UPPER + DIGITS
B64 = B62 + "+/"
B64URL = B62 + "-_"
HEX = "0123456789abcdef"
PW_SYMBOLS = "!#^*+=-_.~"


def rs(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def mixed(rng: random.Random, alphabet: str, n: int) -> str:
    """Random string that contains upper, lower case and digits when possible."""
    while True:
        s = rs(rng, alphabet, n)
        if (any(c in LOWER for c in s) + any(c in UPPER for c in s) + any(c in DIGITS for c in s)
                >= min(3, sum(bool(set(alphabet) & set(x)) for x in (LOWER, UPPER, DIGITS)))):
            return s


def b64url_nopad(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def uuid4(rng: random.Random) -> str:
    h = rs(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def pem_block(rng: random.Random, label: str = "PRIVATE KEY", lines: int = 12, nl: str = "\n") -> str:
    body = "MIIE" + mixed(rng, B64, 60)
    rows = [body] + [mixed(rng, B64, 64) for _ in range(lines - 2)] + [mixed(rng, B64, 40) + "=="]
    return f"-----BEGIN {label}-----{nl}" + nl.join(rows) + f"{nl}-----END {label}-----"


def openssh_block(rng: random.Random, nl: str = "\n") -> str:
    rows = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"]
    rows += [mixed(rng, B64, 70) for _ in range(5)]
    rows.append(mixed(rng, B64, 24) + "=")
    return (f"-----BEGIN OPENSSH PRIVATE KEY-----{nl}" + nl.join(rows)
            + f"{nl}-----END OPENSSH PRIVATE KEY-----")


def password(rng: random.Random, n: int = 14) -> str:
    while True:
        s = rs(rng, B62 + PW_SYMBOLS, n)
        if (any(c in LOWER for c in s) and any(c in UPPER for c in s)
                and any(c in DIGITS for c in s) and s[0] not in "-*!.=+^#~"):
            return s


def url_password(rng: random.Random, n: int = 14) -> str:
    """A password that can appear unencoded in a URL's userinfo."""
    return password(rng, n).replace("#", "!")


# what password managers and `openssl rand`-style generators put in passwords, beyond the letters
# and digits: the brackets, separators and shell characters a value parser may stop at
SYMBOLS_RICH = "!@#$%^&*()-_=+[]{};:,.<>/?|~"


def symbol_password(rng: random.Random, n: int = 16) -> str:
    """A password with upper, lower case, digits and at least two of ``SYMBOLS_RICH`` (starting with
    a letter or digit, like ``password``): the kind that a value parser cut in half used to leak."""
    while True:
        s = rng.choice(B62) + rs(rng, B62 + SYMBOLS_RICH, n - 1)
        if (any(c in LOWER for c in s) and any(c in UPPER for c in s) and any(c in DIGITS for c in s)
                and sum(c in SYMBOLS_RICH for c in s) >= 2):
            return s


def terraform_cloud_token(rng: random.Random) -> str:
    """A Terraform Cloud / Enterprise API token: 14 characters, ``.atlasv1.``, 67 more."""
    return mixed(rng, B62, 14) + ".atlasv1." + mixed(rng, B62 + "-_", 67)


def jwt(rng: random.Random) -> str:
    head = b64url_nopad(json.dumps({"alg": rng.choice(["HS256", "RS256", "ES256"]),
                                    "typ": "JWT"}, separators=(",", ":")).encode())
    payload = b64url_nopad(json.dumps({
        "sub": rs(rng, DIGITS, 10), "name": rng.choice(["Ada", "Grace", "Linus"]),
        "iat": rng.randint(1_600_000_000, 1_800_000_000),
        "scope": rng.choice(["repo", "read:user", "admin"]),
    }, separators=(",", ":")).encode())
    return f"{head}.{payload}.{mixed(rng, B64URL, 43)}"


def discord_bot(rng: random.Random) -> str:
    uid = str(rng.randint(10**17, 10**18 - 1))
    return f"{b64url_nopad(uid.encode())}.{mixed(rng, B64URL, 6)}.{mixed(rng, B64URL, 38)}"


def aws_key_id(rng: random.Random) -> str:
    return rng.choice(["AKIA", "ASIA"]) + mixed(rng, UPPER + "234567", 16)


def k8s_value(rng: random.Random) -> str:
    """A Kubernetes Secret's data value: base64 of a password."""
    return base64.b64encode(password(rng, 16).encode()).decode()


MAKERS: dict[str, Callable[[random.Random], str]] = {
    "aws-access-key-id": aws_key_id,
    "aws-secret-access-key": lambda r: mixed(r, B64, 40),
    "aws-session-token": lambda r: "IQoJb3JpZ2luX2VjE" + mixed(r, B64, 300) + "=",
    "gcp-api-key": lambda r: "AIza" + mixed(r, B64URL, 35),
    "gcp-oauth-token": lambda r: "ya29." + mixed(r, B64URL, 150),
    "gcp-refresh-token": lambda r: "1//0" + mixed(r, B64URL, 100),
    "gcp-client-secret": lambda r: "GOCSPX-" + mixed(r, B64URL, 28),
    "private-key": lambda r: pem_block(r, r.choice(["PRIVATE KEY", "RSA PRIVATE KEY",
                                                    "EC PRIVATE KEY"])),
    "azure-storage-key": lambda r: mixed(r, B64, 86) + "==",
    "azure-sas-signature": lambda r: urllib.parse.quote(mixed(r, B64, 43) + "=", safe=""),
    "azure-client-secret": lambda r: (mixed(r, B62, 3) + r.choice(DIGITS) + "Q~"
                                      + mixed(r, B62 + "_~.-", 34)),
    "azure-shared-access-key": lambda r: mixed(r, B64, 43) + "=",
    "github-token": lambda r: r.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) + mixed(r, B62, 36),
    "github-fine-grained-token": lambda r: "github_pat_" + mixed(r, B62, 22) + "_" + mixed(r, B62, 59),
    "gitlab-token": lambda r: "glpat-" + mixed(r, B62 + "-_", 20),
    "openai-api-key": lambda r: r.choice([
        "sk-proj-" + mixed(r, B64URL, 74) + "T3BlbkFJ" + mixed(r, B64URL, 74),
        "sk-" + mixed(r, B62, 20) + "T3BlbkFJ" + mixed(r, B62, 20),
        "sk-svcacct-" + mixed(r, B64URL, 100),
    ]),
    "anthropic-api-key": lambda r: "sk-ant-api03-" + mixed(r, B64URL, 93) + "AA",
    "openrouter-api-key": lambda r: "sk-or-v1-" + mixed(r, HEX, 64),
    "huggingface-token": lambda r: "hf_" + mixed(r, LOWER + UPPER, 34),
    "groq-api-key": lambda r: "gsk_" + mixed(r, B62, 52),
    "replicate-api-token": lambda r: "r8_" + mixed(r, B62, 37),
    "perplexity-api-key": lambda r: "pplx-" + mixed(r, B62, 48),
    "xai-api-key": lambda r: "xai-" + mixed(r, B62, 80),
    "langsmith-api-key": lambda r: "lsv2_pt_" + mixed(r, HEX, 32) + "_" + mixed(r, HEX, 10),
    "tavily-api-key": lambda r: "tvly-" + mixed(r, B62, 32),
    "stripe-secret-key": lambda r: r.choice(["sk_live_", "rk_live_", "sk_test_"]) + mixed(r, B62, 24),
    "stripe-webhook-secret": lambda r: "whsec_" + mixed(r, B62, 32),
    "slack-token": lambda r: (r.choice(["xoxb-", "xoxp-"]) + rs(r, DIGITS, 12) + "-"
                              + rs(r, DIGITS, 13) + "-" + mixed(r, B62, 24)),
    "slack-webhook": lambda r: ("https://hooks.slack.com/services/T" + mixed(r, UPPER + DIGITS, 8)
                                + "/B" + mixed(r, UPPER + DIGITS, 10) + "/" + mixed(r, B62, 24)),
    "discord-bot-token": discord_bot,
    "discord-webhook": lambda r: ("https://discord.com/api/webhooks/" + rs(r, DIGITS, 18) + "/"
                                  + mixed(r, B64URL, 68)),
    "teams-webhook": lambda r: ("https://contoso.webhook.office.com/webhookb2/" + uuid4(r) + "@"
                                + uuid4(r) + "/IncomingWebhook/" + rs(r, HEX, 32) + "/"
                                + uuid4(r)),
    "telegram-bot-token": lambda r: str(r.randint(10**8, 10**10)) + ":AA" + mixed(r, B64URL, 33),
    "npm-token": lambda r: "npm_" + mixed(r, B62, 36),
    "pypi-token": lambda r: "pypi-AgEIcHlwaS5vcmc" + mixed(r, B64URL, 150),
    "dockerhub-token": lambda r: "dckr_pat_" + mixed(r, B64URL, 27),
    "sendgrid-api-key": lambda r: "SG." + mixed(r, B64URL, 22) + "." + mixed(r, B64URL, 43),
    "digitalocean-token": lambda r: "dop_v1_" + rs(r, HEX, 64),
    "vault-token": lambda r: "hvs." + mixed(r, B64URL, 90),
    "databricks-token": lambda r: "dapi" + rs(r, HEX, 32),
    "shopify-token": lambda r: "shpat_" + rs(r, HEX, 32),
    "linear-api-key": lambda r: "lin_api_" + mixed(r, B62, 40),
    "jwt": jwt,
    "age-secret-key": lambda r: "AGE-SECRET-KEY-1" + rs(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
    "atlassian-api-token": lambda r: ("ATATT3" + mixed(r, B64URL, 10) + mixed(r, B64URL, 170) + "="
                                      + rs(r, HEX.upper(), 8)),
    "fireworks-api-key": lambda r: "fw_" + mixed(r, B62, 24),
    "grafana-token": lambda r: "glsa_" + mixed(r, B62, 32) + "_" + rs(r, HEX, 8),
    "new-relic-key": lambda r: "NRAK-" + mixed(r, UPPER + DIGITS, 27),
    "notion-token": lambda r: r.choice(["ntn_" + mixed(r, B62, 46), "secret_" + mixed(r, B62, 43)]),
    "nvidia-api-key": lambda r: "nvapi-" + mixed(r, B64URL, 64),
    "pinecone-api-key": lambda r: "pcsk_" + mixed(r, B62, 5) + "_" + mixed(r, B62, 60),
    "postman-api-key": lambda r: "PMAK-" + rs(r, HEX, 24) + "-" + rs(r, HEX, 34),
    "rubygems-token": lambda r: "rubygems_" + rs(r, HEX, 48),
    "sentry-token": lambda r: r.choice(["sntryu_" + rs(r, HEX, 64),
                                        "sntrys_eyJpYXQiOj" + mixed(r, B64, 120) + "=="]),
    "supabase-token": lambda r: "sbp_" + rs(r, HEX, 40),
    "url-signature": lambda r: rs(r, HEX, 64),
    "authorization": lambda r: mixed(r, B62, 40),
    "url-password": lambda r: url_password(r),
    "bearer-token": lambda r: mixed(r, B62 + "._-", 40),
    "basic-auth": lambda r: base64.b64encode(
        f"{r.choice(['admin', 'deploy', 'ci'])}:{password(r)}".encode()).decode(),
    "cookie": lambda r: f"sessionid={rs(r, LOWER + DIGITS, 32)}; csrftoken={mixed(r, B62, 32)}",
    "session-id": lambda r: rs(r, LOWER + DIGITS, 26),
    "password": password,
    "secret": lambda r: mixed(r, B64URL, 40),
    "token": lambda r: mixed(r, B62, 40),
    "api-key": lambda r: rs(r, HEX, 32) if r.random() < 0.5 else mixed(r, B62, 40),
    "client-secret": lambda r: mixed(r, B62 + "_-", 40),
    # prefixed, found on their own
    "doppler-token": lambda r: "dp." + r.choice(["pt.", "st.prd.", "st.dev.", "sa.", "ct."]) + mixed(r, B62, 43),
    # (Heroku's current tokens; the older UUID keys are named by their context)
    "heroku-api-key": lambda r: "HRKU-AA" + mixed(r, B64URL, 58),
    # prefix-less: named by the key or the text before it
    "datadog-api-key": lambda r: rs(r, HEX, 32),
    "datadog-app-key": lambda r: rs(r, HEX, 40),
    "twilio-auth-token": lambda r: rs(r, HEX, 32),
    "twilio-api-key": lambda r: "SK" + rs(r, HEX, 32),
    "twilio-api-secret": lambda r: mixed(r, B62, 32),
    "terraform-cloud-token": terraform_cloud_token,
    "cloudflare-api-key": lambda r: mixed(r, B64URL, 40),
    "algolia-api-key": lambda r: rs(r, HEX, 32),
    "kubernetes-secret": k8s_value,
}

# Classes whose secret is recognisable on its own (no context needed).
BARE_CLASSES = (
    "aws-access-key-id", "aws-session-token", "gcp-api-key", "gcp-oauth-token",
    "gcp-refresh-token", "gcp-client-secret", "private-key", "azure-client-secret",
    "github-token", "github-fine-grained-token", "gitlab-token", "openai-api-key",
    "anthropic-api-key", "openrouter-api-key", "huggingface-token", "groq-api-key",
    "replicate-api-token", "perplexity-api-key", "xai-api-key", "langsmith-api-key",
    "tavily-api-key", "stripe-secret-key", "stripe-webhook-secret", "slack-token",
    "slack-webhook", "discord-bot-token", "discord-webhook", "teams-webhook",
    "telegram-bot-token", "npm-token", "pypi-token", "dockerhub-token", "sendgrid-api-key",
    "digitalocean-token", "vault-token", "databricks-token", "shopify-token",
    "linear-api-key", "jwt", "age-secret-key", "atlassian-api-token", "fireworks-api-key",
    "grafana-token", "new-relic-key", "notion-token", "nvidia-api-key", "pinecone-api-key",
    "postman-api-key", "rubygems-token", "sentry-token", "supabase-token", "doppler-token",
    "heroku-api-key",
)

# class -> function(secret) -> the smallest realistic context around it
CONTEXTS: dict[str, Callable[[str], str]] = {
    "aws-secret-access-key": lambda s: f"aws_secret_access_key = {s}",
    "azure-storage-key": lambda s: (
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + s
        + ";EndpointSuffix=core.windows.net"),
    "azure-sas-signature": lambda s: (
        "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r"
        "&se=2026-01-01T00:00:00Z&sig=" + s),
    "azure-shared-access-key": lambda s: (
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=" + s),
    "url-password": lambda s: f"postgres://app:{s}@db.internal:5432/app",
    "bearer-token": lambda s: f"Authorization: Bearer {s}",
    "authorization": lambda s: f"Authorization: Token {s}",
    "url-signature": lambda s: ("https://acme.s3.amazonaws.com/r.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                                f"&X-Amz-Expires=300&X-Amz-Signature={s}"),
    "basic-auth": lambda s: f"Authorization: Basic {s}",
    "cookie": lambda s: f"Cookie: {s}",
    "session-id": lambda s: f"PHPSESSID={s}",
    "password": lambda s: f"DB_PASSWORD={s}",
    "secret": lambda s: f"JWT_SECRET={s}",
    "token": lambda s: f'"access_token": "{s}"',
    "api-key": lambda s: f"COHERE_API_KEY={s}",
    "client-secret": lambda s: f"client_secret={s}",
    "datadog-api-key": lambda s: f"DD_API_KEY={s}",
    "datadog-app-key": lambda s: f"DD_APP_KEY={s}",
    "twilio-auth-token": lambda s: f"TWILIO_AUTH_TOKEN={s}",
    "cloudflare-api-key": lambda s: f"CLOUDFLARE_API_TOKEN={s}",
    "algolia-api-key": lambda s: f"ALGOLIA_ADMIN_API_KEY={s}",
    "kubernetes-secret": lambda s: ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n"
                                    f"data:\n  password: {s}\n"),
}

ALL_FORM_CLASSES = tuple(BARE_CLASSES) + tuple(CONTEXTS)


def make_form(cls: str, rng: random.Random) -> tuple[str, str]:
    """(snippet, secret) for ``cls``: the secret in its minimal context."""
    secret = MAKERS[cls](rng)
    ctx = CONTEXTS.get(cls)
    snippet = ctx(secret) if ctx else secret
    if cls.endswith("-webhook"):
        # the whole URL goes; check the part no other snippet shares
        secret = secret.split("://", 1)[1]
    return snippet, secret


class EveryPosition:
    """Stands in for a Redactor's compiled detector set with no prefilter at all (every position
    is a candidate, and every detector starting with its character is tried there, in table
    order), so that tests can prove the prefilter and the gating drop no match."""

    def __init__(self, compiled):
        self._compiled = compiled

    def __getattr__(self, name):
        return getattr(self._compiled, name)

    def candidates(self, text):
        return list(range(len(text)))

    def scan(self, text):
        everywhere = list(range(len(text)))
        return everywhere, {}, frozenset(everywhere)  # no anchors: gate below names every detector

    def gate(self, ch, word, scanned):
        return tuple((det, pfx, self._compiled.single(ch, det, pfx)) for det, pfx in self._compiled.alts.get(ch, ()))


def anchor_words() -> list[str]:
    """Every anchor as written in the detectors, also upper-cased and cut one short."""
    from cleaner_runtime.redaction import engine

    words = {a for det in engine._DETECTORS + engine._PERSONAL for a in det.anchors}
    return sorted(words | {w.upper() for w in words} | {w[:-1] for w in words if len(w) > 2})


# hostile text: anchors, keyword prose, escapes at several depths, runs around 16 characters, JWT
# heads in any case, a phone number, and code points that lower-case to more than one character
FRAGMENT = st.one_of(
    st.sampled_from(anchor_words()),
    st.sampled_from(['\\"', "\\\\", "\\n", "\\\\n", "\\u0026", "\\u00e9", "%3A%2F%2F", "%22", "%3D", "&quot;",
                     "://", "=", ": ", " ", "\t", "\n", "'", '"', "--", "-p", "@", "<", ">", "[", "]", ",",
                     "eyJ", "EYJ", "eYj", "ey", "J", "set", "config set", "ENV", "value:", "-----BEGIN",
                     "+1 (555) 123-4567"]),
    st.sampled_from([" the token budget", " session handles", "Password: ", "key ", "AUTH ", " cred",
                     "secret", "get secret x -o jsonpath='{.data.p}'\n", "Bearer "]),
    st.sampled_from(["é", "İ", "ß", "ﬁ", "中文", "\u00a0", "\U0001f600", "\u2028", "K", "?"]),  # İ, ﬁ lower longer
    st.text(alphabet="abcdefXYZ0123456789_.-", min_size=1, max_size=24),  # token runs, some 16+
    st.text(max_size=6),
)
