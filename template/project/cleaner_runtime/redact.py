"""Secret redaction and head+tail truncation: the privacy boundary of a cleaner.

This module is copied verbatim into every rendered cleaner project and is also
imported by the generator.  It is standard-library only (Python >= 3.11) and
must not import sibling modules.

Public API
----------

``Redactor(*, extra_patterns=None, allowlist=(), personal_data=False)``
    ``redact(text) -> str`` replaces every detected secret with
    ``[REDACTED:<class>]``; ``counts`` is a ``collections.Counter`` of
    redactions per class (never the values).

``truncate_head_tail(text, limit) -> str``
    Keeps roughly 2/3 head and 1/3 tail with a
    ``"\\n[... N characters truncated ...]\\n"`` marker, result length <= limit.

Callers redact *before* truncating, so a truncation boundary can never cut a
secret in half and leave the other half readable.

Design
------

* One combined compiled regex: an alternation of all detectors with named
  groups, grouped by first character
  (``A(?:KIA..|Iza..)|g(?:h[pousr]_..|lpat-..)|p(?:ass..)|...``).
* An exact prefilter picks the positions where it is tried: every detector
  declares how its matches start (a literal anchor such as ``ghp_``,
  ``pass`` or ``://``, or "a run of 16+ token characters"), found with one
  C-speed search for all the anchors at once and one ``bytes.translate``
  scan, and ``rx.match`` runs only
  there.  Text without any anchor or long run is returned untouched.
  (``re`` has no jump table for alternations: ``rx.search`` over ~60
  first-character branches would run at ~1 MB/s.)
* Works on raw text, JSON-escaped text (any nesting depth: ``\\"``,
  ``\\\\\\"``, ``\\n``, ``\\u0026``), URL-encoded text (``%3D``, ``%22``,
  ``%3A%2F%2F``) and HTML-escaped quotes (``&quot;``).  Replacements never
  split an escape sequence, and the placeholder contains no quote or
  backslash, so escaped JSON stays valid.
* Redaction is idempotent: ``redact(redact(x)) == redact(x)``.
* Keys that name a secret are found in assignments (``DB_PASSWORD=``,
  ``"token": ``, ``--api-key x``, ``secret_key: x``) and in markup, with the
  same key rules: an element named by the key (``<password>x</password>``,
  ``<db:password>``, ``<apiKey type="t">``, text wrapped in
  ``<![CDATA[...]]>``) and a ``name``/``key`` attribute naming it with a
  ``value`` (or ``content``) attribute on the same tag, in either order
  (``<add key="ApiKey" value="x"/>``, ``<property value="x" name="password"/>``,
  ``<meta name="csrf-token" content="x">``), or with the element's text
  (``<entry key="db.password">x</entry>``, ``<setting name="ApiToken"><value>x</value>``),
  and a property list's key and value in separate elements
  (``<key>APIKey</key><string>x</string>``).
  ``<`` and ``>`` may be JSON-escaped the way Go writes them (``\\u003c``),
  ``</`` as PHP writes it (``<\\/``), or HTML-escaped (``&lt;``).  The key
  must end the tag name (``<passwordPolicy>``, ``<tokenCount>`` stay);
  element text and attribute values are judged as quoted values.  The
  markup forms are branches of the keyword detectors (same anchors), tried
  only where an assignment is not found.
* Contextual detections (``password=...``, ``Authorization: Bearer ...``,
  ``--token ...``, URL passwords) are refined to the vendor class when the
  value is a recognisable vendor token (``GITHUB_TOKEN=ghp_...`` is counted as
  ``github-token``).
* When a detector's value check rejects a match, the later alternatives for
  the same position are still tried (each on its own compiled copy), so a
  rejected ``password hunter2`` prose match does not hide ``--password x``.
* ``extra_patterns`` are arbitrary user regexes and cannot be anchored: they
  form a second combined regex scanned with ``finditer`` (a leading ``(?i)``
  is scoped to its pattern).
* Cost is linear in the input.  Realistic trace text runs at roughly
  20-40 MB/s; text flooded with keywords (100 000 ``api_key=`` in 1 MB) is the
  worst case at roughly 0.1-1 MB/s.  Opt-in personal data detection adds
  digit/"@"/"+" scans.

Classes (stable placeholder names, ``CLASSES`` / ``PERSONAL_CLASSES``)
---------------------------------------------------------------------

Cloud: ``aws-access-key-id``, ``aws-secret-access-key``, ``aws-session-token``,
``url-signature`` (presigned S3/GCS), ``gcp-api-key``, ``gcp-oauth-token``,
``gcp-refresh-token``, ``gcp-client-secret``, ``azure-storage-key``,
``azure-shared-access-key``, ``azure-sas-signature``, ``azure-client-secret``,
``kubernetes-secret`` (every value under a Secret's ``data:``/``stringData:``, YAML or JSON,
and what ``kubectl get secret -o jsonpath=...`` printed).
Keys: ``private-key`` (PEM/OpenSSH/PGP/PuTTY blocks, whole), ``age-secret-key``.
VCS: ``github-token``, ``github-fine-grained-token``, ``gitlab-token``.
LLM: ``openai-api-key``, ``anthropic-api-key``, ``openrouter-api-key``,
``huggingface-token``, ``groq-api-key``, ``replicate-api-token``,
``perplexity-api-key``, ``xai-api-key``, ``langsmith-api-key``, ``tavily-api-key``,
``pinecone-api-key``, ``fireworks-api-key``, ``nvidia-api-key``.
Payments: ``stripe-secret-key``, ``stripe-webhook-secret``.
Chat: ``slack-token``, ``slack-webhook``, ``discord-bot-token``,
``discord-webhook``, ``teams-webhook`` (connector URLs and Workflows trigger URLs),
``telegram-bot-token``.
Registries and SaaS: ``npm-token``, ``pypi-token``, ``rubygems-token``,
``dockerhub-token``, ``sendgrid-api-key``, ``shopify-token``, ``linear-api-key``,
``notion-token``, ``digitalocean-token``, ``vault-token``,
``atlassian-api-token``, ``databricks-token``, ``sentry-token``, ``grafana-token``,
``postman-api-key``, ``new-relic-key``, ``supabase-token``, ``doppler-token``,
``heroku-api-key`` (``HRKU-`` tokens, and UUID keys named by their context).
Prefix-less vendor keys, named when the key's name or the text just before it
names the vendor (``DD_API_KEY=``, ``datadog.yaml``'s ``api_key:``, a ``.netrc``
entry for ``api.heroku.com``, ``heroku auth:token``) and the value has the vendor's
shape: ``datadog-api-key``, ``datadog-app-key``, ``twilio-auth-token``,
``cloudflare-api-key``, ``algolia-api-key`` (and ``heroku-api-key``,
``azure-storage-key``, ``aws-secret-access-key``).
Generic: ``jwt``, ``url-password``, ``bearer-token``, ``basic-auth``,
``authorization``, ``cookie``, ``session-id``, ``password``, ``secret``, ``token``,
``api-key``, ``client-secret``.  Opt-in: ``email``, ``phone-number``,
``card-number`` (Luhn), ``iban`` (mod 97).

Credential files: ``.netrc`` entries (the password before or after the login),
``.pgpass`` lines (``host:5432:db:user:password``), ``.git-credentials`` URLs,
Docker's ``config.json`` ``auth`` (base64 of ``user:password``: ``basic-auth``),
command lines (``mysql -p``, ``docker login -p``, ``sqlcmd -P``, ``openssl -passin
pass:``, ``htpasswd -b``, ``gh secret set --body``, ``--secret-string``,
``ConvertTo-SecureString``), ``aws configure set KEY VALUE``, PHP's ``define('KEY',
'value')`` and other setter calls, PowerShell's ``$env:KEY = ``.

A keyed value's class follows the key, whatever the syntax: ``DB_PASSWORD=``,
``<Password>`` and ``name="password"`` give ``password``; ``<apiKey>`` and
``key="ApiKey"`` ``api-key``; ``<client_secret>`` ``client-secret``;
``<token>`` ``token``; ``<secret>`` ``secret``; ``<SecretAccessKey>``
``aws-secret-access-key`` -- or the vendor class when the value is a
recognisable token (``<token>ghp_...</token>`` is ``github-token``).

Placeholder policy (left alone, by design)
-------------------------------------------

Variable references (``$TOKEN``, ``${GITHUB_TOKEN}``, ``$(cat f)``,
``%(pw)s``, ``{{ .Values.pw }}``, ``{token}``), angle/bracket placeholders
(``<token>``, ``[REDACTED...]``), masks (``***``, ``xxxx``, ``...``), words
containing ``your``/``example``/``placeholder``/``dummy``/``replace-me``,
well-known defaults with no private information (``changeme``,
``change_me``, ``changeit``, ``password``, ``secret``, ``pass``), type names
(``str``, ``string``, ``Optional[str]``), code references
(``password=args.password``, ``token=os.getenv(...)``,
``api_key=api_key``; in markup, where values are never code, only such names
without digits: ``<password>myPassword</password>``), empty elements
(``<password></password>``, ``<password/>``), placeholders wrapped in CDATA
(``<![CDATA[${DB_PASS}]]>``), documented example keys (AWS ``...EXAMPLE...``, the
jwt.io sample token, Stripe's documentation test keys), public keys and
certificates, git SHAs, UUIDs and content hashes.  ``session_id`` keys are not
treated as secrets (agent traces use them as metadata); cookie-style session
ids (``sessionid=``, ``PHPSESSID=``, ``JSESSIONID=``, ``connect.sid=``,
``_app_session=``) are.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache

__all__ = [
    "CLASSES",
    "PERSONAL_CLASSES",
    "Redactor",
    "truncate_head_tail",
]

_FLAGS = re.ASCII

# ---------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------

# Left boundary, written to be placed right after the first (dispatch)
# character: the character before the match must not be a letter or digit,
# unless it is the tail of an escape (\n, %0A, \u0026) in encoded text.
_LB = (
    r"(?:(?<![A-Za-z0-9].)|(?<=\\[nrtbf\\/\"'].)|(?<=%[0-9A-Fa-f]{2}.)"
    r"|(?<=\\u[0-9A-Fa-f]{4}.))"
)
# Right after an escape sequence (\n, %0A, \u0026) in encoded text.
_ESC_TAIL = r"(?<=\\[nrtbf])|(?<=%[0-9A-Fa-f]{2})|(?<=\\u[0-9A-Fa-f]{4})"

# Run-based tokens (see _Det): not preceded by a token character at all.
_LBR = (
    r"(?:(?<![A-Za-z0-9_.\-].)|(?<=\\[nrtbf\\/\"'].)|(?<=%[0-9A-Fa-f]{2}.)"
    r"|(?<=\\u[0-9A-Fa-f]{4}.))"
)

# A quote in any encoding: raw, JSON-escaped to any depth, URL-encoded, HTML.
_Q = r"(?:\\{0,15}[\"'`]|%2[27]|&quot;|&#39;)"

# Unquoted value: no whitespace, quotes, backslashes (escape sequences end
# it), separators or brackets; URL-encoded separators end it too.
_UV_CHAR = (
    r"(?:[^\s\"'`\\,;&<>(){}\[\]%]"
    # '&' ends a value only where a query parameter, an entity or a shell operator follows:
    # in `DB_PASSWORD=Tr0ub4dor&3-horse` the whole word is the secret.
    r"|&(?![\w.%\[\]-]*=|&|quot;|amp;|#[0-9]|\s|$)"
    r"|%(?!2[0267Cc]|3[BbCcEe]|5[Dd]|7[Dd]|0[AaDd])[0-9A-Fa-f]{2}|%(?![0-9A-Fa-f]{2}))"
)

_UV_CAP = 128
_WS_RE = re.compile(r"\s")
_UV_MORE_RE = re.compile(_UV_CHAR + "*+", re.ASCII)

_SEP = r"(?:=>|:=|=(?!=)|:(?!:)|%3[DdAa]|\\u003[dDaA])"
_NEWLINE = r"(?:\r?\n|\\{1,15}(?:r\\{1,15})?n)"  # raw, or JSON-escaped at any depth


# ---------------------------------------------------------------------------
# Value heuristics
# ---------------------------------------------------------------------------

_KNOWN_EXAMPLES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "sk_test_26PHem9AhJZvU623DfE1x4sd",
        "rk_test_26PHem9AhJZvU623DfE1x4sd",
        "whsec_1234567890abcdef",
        "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
        "xoxb-not-a-real-token-this-will-not-work",
        (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
            "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
            "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
    }
)

# Unmistakable placeholders: masks, variable references, templates, brackets.
# (every alternative starts with a literal, so re can skip ahead quickly)
_MASK_RE = re.compile(
    r"xxxxx|XXXXX|\*\*\*|\.\.\.|\u2026|<[^>]*>|\{\{|\$\{|%\(|EXAMPLE|\[REDACTED", _FLAGS)
_LEADING_PLACEHOLDER_RE = re.compile(r"\$\(?[A-Za-z_]|\{\w*\}\Z|%[sdr]\Z|[<\[{]", _FLAGS)
# Placeholder words (matched on the lower-cased value); for random-looking
# tokens they only count when the value is not a mix of upper case, lower
# case and digits (real keys are).
_WORD_PLACEHOLDER_RE = re.compile(
    r"your|example|placeholder|replace[_-]?me|change[_-]?me|changeit|dummy"
    r"|redacted|xxxx|insert_|insert-|_here\b|-here\b|goes_?here|goes-here|todo|fixme|lorem|sample",
    _FLAGS,
)

_PLACEHOLDER_WORDS = frozenset(
    """
    password passwd pass pwd secret token apikey api_key key none null nil a1b2c3d4
    undefined true false yes no on off required optional string str bytes
    int integer number float bool boolean any object unknown text varchar
    char secretstr secretbytes env default empty blank hidden masked mask
    omitted private changeme changeit value values prompt stdin ask file
    self this cls bearer basic auth credentials os.environ environ getenv
    sensitive secure redact none
    """.split()  # noqa: SIM905
)

_CODE_CHAIN_RE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\Z", _FLAGS)


_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGIT = frozenset("0123456789")


_ESC_BEFORE_RE = re.compile(r"(?:\\[nrtbf]|%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4})\Z", _FLAGS)


def _word_start(text: str, i: int) -> bool:
    """``text[i]`` starts a word: no letter before it, except an escape's tail."""
    return i == 0 or not text[i - 1].isalpha() or _ESC_BEFORE_RE.search(text, max(0, i - 6), i) is not None


def _categories(v: str) -> int:
    """How many of lower case, upper case and digits occur in ``v``."""
    cs = set(v)
    return (not cs.isdisjoint(_LOWER)) + (not cs.isdisjoint(_UPPER)) + (not cs.isdisjoint(_DIGIT))


def _is_placeholder(v: str, *, strict_words: bool = False) -> bool:
    """True for values that carry no secret (see the module docstring).

    With ``strict_words=False`` placeholder words (``your``, ``example``...)
    only count when the value is not a mix of upper, lower case and digits,
    so a random key that happens to contain ``todo`` is still redacted.
    """
    if not v or v in _KNOWN_EXAMPLES:
        return True
    if v.lower() in _PLACEHOLDER_WORDS:
        return True
    if len(set(v)) <= 2:  # "aaaa", "****", "0000", "-"
        return True
    if _LEADING_PLACEHOLDER_RE.match(v) is not None or _MASK_RE.search(v) is not None:
        return True
    if _WORD_PLACEHOLDER_RE.search(v.lower()) is None:
        return False
    return strict_words or _categories(v) < 3


def _token_ok(body: str, *, min_distinct: int = 6, cats: int = 2) -> bool:
    """Shape check for the random part of a prefixed vendor token."""
    if body in _KNOWN_EXAMPLES or _MASK_RE.search(body):
        return False
    if _WORD_PLACEHOLDER_RE.search(body.lower()) and _categories(body) < 3:
        return False
    if len(set(body)) < min_distinct:
        return False
    return _categories(body) >= cats


# ---------------------------------------------------------------------------
# Detector machinery
# ---------------------------------------------------------------------------

# check(text, start, end, match, prefix) -> None (reject) | class | (class, s, e)
# (a list: several secrets found from one match, such as the values of a Kubernetes Secret's data)
_Check = Callable[[str, int, int, "re.Match[str]", str],
                  "str | tuple[str, int, int] | list[tuple[str, int, int]] | None"]


class _Det:
    """One detector.

    The regex is ``<first char><rest>``.  The prefilter must find every
    possible match start, so each detector declares how (exactness depends
    on it):

    * ``anchors``: lower-case literals, every match *starts with* one;
    * ``run=True``: every match starts with 16+ characters of
      ``[A-Za-z0-9_.-]`` and is not preceded by one of them, except as the
      tail of an escape (``\\n``, ``%0A``, ``\\u0026``) -- prefixed vendor
      tokens (the ``_LBR`` boundary); ":" + run for Telegram tokens;
    * ``pre=(regex, lo, hi)``: every match starts ``lo``..``hi`` characters
      before a ``pre`` match (opt-in personal data); ``regex`` may be a
      literal string, found with ``str.find`` (case-sensitive: JWTs start
      ``eyJ``) -- a rare literal whose first letter is common would slow the
      anchor scan of all text down.
    """

    __slots__ = (
        "anchors", "check", "cls", "contextual", "first", "lb", "left", "pre",
        "rest", "run", "secret",
    )

    def __init__(
        self,
        cls: str,
        first: str,
        rest: str,
        anchors: tuple[str, ...],
        *,
        secret: tuple[str, ...] = (),
        check: _Check | None = None,
        lb: str | None = _LB,
        left: re.Pattern[str] | None = None,
        contextual: bool = False,
        pre: tuple[re.Pattern[str] | str, int, int] | None = None,
        run: bool = False,
    ) -> None:
        self.cls = cls
        self.first = first
        self.rest = rest
        self.anchors = tuple(a.lower() for a in anchors)
        self.secret = secret
        self.check = check
        self.lb = lb
        self.left = left
        self.contextual = contextual
        self.pre = pre
        self.run = run
        if not anchors and pre is None and not run:
            raise ValueError(f"detector {cls} needs anchors or a pre regex")
        for a in self.anchors:
            if a[0] not in first.lower():
                raise ValueError(f"anchor {a!r} of {cls} does not start with {first!r}")


def _tok(cls: str, pattern: str, *, anchors: tuple[str, ...] = (), check: _Check | None = None,
         lb: str | None = _LBR, strip: int | None = None, cats: int = 2,
         min_distinct: int = 6) -> _Det:
    """A prefixed vendor token; ``pattern`` must start with a literal char.

    Without ``anchors`` the token must start with 16+ run characters
    (``[A-Za-z0-9_.-]``) and not follow one, see ``_Det``.

    ``strip`` is the length of the fixed prefix to drop before the shape check
    (defaults to everything up to and including the first ``_``/``-``/``.``).
    """
    first, rest = pattern[0], pattern[1:]
    if first == "\\":
        first, rest = pattern[1], pattern[2:]

    def default_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
        v = text[s:e]
        if v in _KNOWN_EXAMPLES:
            return None
        if strip is not None:
            body = v[strip:]
        else:
            cuts = [i for i in (v.find("_"), v.find("-"), v.find(".")) if i >= 0]
            body = v[min(cuts) + 1:] if cuts else v
        if not _token_ok(body, min_distinct=min_distinct, cats=cats):
            return None
        return cls

    return _Det(cls, first, rest, anchors, check=check or default_check, lb=lb,
                run=not anchors)


# --- specific checks -------------------------------------------------------

# the secret access key that follows a key id on its line, whatever names it (or nothing does:
# new BasicAWSCredentials("AKIA...", "<secret>")): 40 base64 characters, not 40 hex digits
_AWS_PAIR_RE = re.compile(
    r"(?:[^\r\n\\]|\\[^nr\\]){0,80}?(?<![A-Za-z0-9+/=_.-])(?P<s>[A-Za-z0-9+/]{40})(?![A-Za-z0-9+/=_.-])", _FLAGS)


def _aws_id_check(text: str, s: int, e: int, m: re.Match[str], p: str
                  ) -> str | list[tuple[str, int, int]] | None:
    v = text[s:e]
    if "EXAMPLE" in v or "XMPL" in v or v in _KNOWN_EXAMPLES or len(set(v[4:])) < 6:
        return None
    pm = _AWS_PAIR_RE.match(text, e)
    if pm is not None:
        sec = pm.group("s")
        if _categories(sec) == 3 and not _is_placeholder(sec) and not _WORDS_RE.match(sec):
            return [("aws-access-key-id", s, e), ("aws-secret-access-key", *pm.span("s"))]
    return "aws-access-key-id"


def _sk_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    if v.startswith("sk-ant-"):
        cls, body = "anthropic-api-key", v[7:]
    elif v.startswith("sk-or-"):
        cls, body = "openrouter-api-key", v[6:]
    else:
        cls, body = "openai-api-key", v[3:]
        for pre in ("proj-", "svcacct-", "admin-", "None-"):
            if body.startswith(pre):
                body = body[len(pre):]
                break
    if len(body) < 20 or not _token_ok(body, min_distinct=8):
        return None
    if not any("0" <= c <= "9" for c in body):
        return None
    return cls


def _jwt_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    if v in _KNOWN_EXAMPLES or _is_placeholder(v):
        return None
    head = v.split(".", 1)[0]
    try:
        raw = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
    except (binascii.Error, ValueError):
        return None
    if not raw.startswith(b"{") or (b'"alg"' not in raw and b'"typ"' not in raw
                                    and b'"kid"' not in raw and b'"enc"' not in raw):
        return None
    return "jwt"


def _discord_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    head = v.split(".", 1)[0]
    try:
        raw = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
    except (binascii.Error, ValueError):
        return None
    if not (15 <= len(raw) <= 20 and raw.isdigit()):
        return None
    if not _token_ok(v.rsplit(".", 1)[1]):
        return None
    return "discord-bot-token"


_PEM_B64_RE = re.compile(r"[A-Za-z0-9+/]{16,}", _FLAGS)


_PEM_END_RE = re.compile(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----", _FLAGS)
# a block cut short (head -5 key.pem, truncated output): base64 lines and
# Proc-Type/DEK-Info headers, raw or escaped line breaks
_PEM_BODY_RE = re.compile(r"(?:[A-Za-z0-9+/=:,\- \t\r\n]|\\+[nr])*+", _FLAGS)
_PEM_MAX = 20000


def _pem_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> tuple[str, int, int] | None:
    """The whole block: up to its END line, else up to the end of the base64."""
    limit = min(len(text), e + _PEM_MAX)
    nxt = text.find("-----BEGIN", e, limit)
    if nxt >= 0:
        limit = nxt
    end = text.find("-----END", e, limit)
    em = _PEM_END_RE.match(text, end) if end >= 0 else None
    stop = em.end() if em is not None else _PEM_BODY_RE.match(text, e, limit).end()
    body = text[e:stop]
    if sum(len(x) for x in _PEM_B64_RE.findall(body)) < 40:
        return None  # "-----BEGIN PRIVATE KEY-----\n...\n-----END..." placeholder
    if em is None:  # don't swallow the escape that ends the last line
        while stop > e and text[stop - 1] in " \t\r\n\\":
            if text[stop - 1] in "nr" and text[stop - 2] == "\\":
                stop -= 2
            else:
                stop -= 1
    return ("private-key", s, stop)


def _webhook_check(cls: str) -> _Check:
    def check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
        v = text[s:e].replace("\\/", "/")
        tail = v.split("/", 3)[-1] if "://" in v else v
        if _is_placeholder(tail) or "0000000" in tail or "XXXXXX" in tail.upper():
            return None
        return cls
    return check


_NETRC_SEP = r"(?:\s|\\{1,15}[nrt])+"  # blanks or line breaks, raw or JSON-escaped
_NETRC_RE = re.compile(r"login[ \t]+[^\s\\]+" + _NETRC_SEP + r"\Z", _FLAGS)
# machine <host> [login|account|port <x>]... password <x>: the entry's password, in any order
_NETRC_ENTRY_RE = re.compile(r"(?:machine[ \t]+[^\s\\]+|default)(?:" + _NETRC_SEP + r"(?:login|account|port)[ \t]+"
                             r"[^\s\\]+)*" + _NETRC_SEP + r"\Z", _FLAGS)


def _sql_netrc_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    if _is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS:
        return None
    if m.group(p + "n") is not None or m.group(p + "d") is not None:  # only in a .netrc entry
        if v[0] == "-":
            return None
        lo = max(0, m.start() - 200)
        before = text[lo:m.start()].lower()
        i = before.rfind("login")
        if i < 0 or not _NETRC_RE.match(before, i):
            i = max(before.rfind("machine"), before.rfind("default"))
            if i < 0 or not _NETRC_ENTRY_RE.match(before, i):
                return None
        return _vendor_kind("password", "password", v, text, m.start())
    return "password"


_SQL_USER_RE = re.compile(r"(?i:\b(?:user|role|login|grant)\b)", _FLAGS)


def _sql_identified_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    """CREATE/ALTER USER ... IDENTIFIED BY 'pw' (not "a library identified by 'name'")."""
    v = text[s:e]
    if len(v) < 4 or _is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS:
        return None
    line = max(text.rfind("\n", 0, m.start()) + 1, m.start() - 300)
    if not _SQL_USER_RE.search(text, line, m.start()):
        return None
    return "password"


def _url_sig_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    if not _word_start(text, m.start()):
        return None
    # presigned S3 / GCS URLs (X-Amz-Signature=), SigV4 headers (", Signature=")
    return "url-signature"


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _card_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    digits = "".join(c for c in v if c.isdigit())
    if not 13 <= len(digits) <= 19 or digits[0] not in "23456":
        return None
    if len(set(digits)) < 4 or not _luhn(digits):
        return None
    seps = {c for c in v if not c.isdigit()}
    if len(seps) > 1:
        return None
    if seps and tuple(len(g) for g in v.split(seps.pop())) not in _CARD_GROUPS:
        return None
    return "card-number"


_CARD_GROUPS = {(4, 4, 4, 4), (4, 6, 5), (4, 6, 4), (4, 4, 4, 4, 3), (4, 4, 4, 1), (4, 4, 4, 2),
                (4, 4, 4, 3), (4, 4, 5), (4, 4, 4, 4, 1)}


_IBAN_LEN = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16,
    "BG": 22, "BH": 22, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28,
    "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24,
    "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18,
    "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23,
    "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32,
    "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22,
    "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24,
    "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
    "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}


def _iban_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> tuple[str, int, int] | None:
    v = text[s:e]
    want = _IBAN_LEN.get(v[:2])
    if want is None:
        return None
    n = 0
    end = s
    for i, ch in enumerate(v):
        if ch != " ":
            n += 1
            if n == want:
                end = s + i + 1
                break
    if n != want:
        return None
    compact = text[s:end].replace(" ", "")
    if end < len(text) and text[end].isalnum():
        return None
    rearranged = compact[4:] + compact[:4]
    num = "".join(str(int(c, 36)) for c in rearranged)
    if int(num) % 97 != 1:
        return None
    return ("iban", s, end)


def _email_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    labels = text[text.index("@", s) + 1:e].split(".")
    tld = labels[-1]
    if not (2 <= len(tld) <= 24 and tld.isalpha()):
        return None  # lodash@4.17.21, user@localhost
    if any(lab[0] == "-" or lab[-1] == "-" for lab in labels):
        return None
    return "email"


def _phone_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    digits = sum(c.isdigit() for c in text[s:e])
    if not 7 <= digits <= 15:
        return None
    return "phone-number"


# --- generic key/value assignments -----------------------------------------

_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _key_name(text: str, s: int) -> str:
    """The full key ending at the keyword that starts at ``s``."""
    i = s
    while i > 0 and text[i - 1] in _KEY_CHARS and s - i < 80:
        i -= 1
    return text[i:s]


def _kind_for_key(key: str) -> str:
    k = key.lower().replace("-", "_").replace(".", "_")
    flat = k.replace("_", "")
    if "aws" in flat or flat.endswith("secretaccesskey") or flat in ("sessiontoken",):
        if "session" in flat:
            return "aws-session-token"
        if "secret" in flat:
            return "aws-secret-access-key"
    if "pass" in flat or flat.endswith("pwd"):
        return "password"
    if flat.endswith("clientsecret"):
        return "client-secret"
    if flat.endswith(("privatekey", "privatekeyid")):
        return "private-key"
    if flat.endswith(("sessionid", "sessid", "connectsid", "session")):
        return "session-id"
    if flat.endswith("cookie"):
        return "cookie"
    if flat.endswith("token"):
        return "token"
    if flat.endswith("sharedaccesskey"):
        return "azure-shared-access-key"  # Service Bus / Event Hubs
    if flat.endswith("accountkey"):
        return "azure-storage-key"  # AZURE_STORAGE_ACCOUNT_KEY, --account-key
    if "secret" in flat or "credential" in flat:
        return "secret"
    if "key" in flat:
        return "api-key"
    return "secret"


_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}\Z", _FLAGS)
_WORDS_RE = re.compile(r"[A-Za-z]+(?:[-_.:/][A-Za-z]+)*\Z", _FLAGS)
_WORD_RE = re.compile(r"(?:[A-Z]?[a-z]+|[A-Z]+)\Z", _FLAGS)  # a word, not random case
_SEPS_RE = re.compile(r"[-_.:/]", _FLAGS)
_KEYWORD_ENDS = ("pass", "password", "passwd", "pwd", "token", "secret", "key", "keyid")
_IDENT_CHAIN_RE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\Z", _FLAGS)
_URL_VALUE_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,15}:(?://|\\/\\/)", _FLAGS)
_FORMAT_ONLY_RE = re.compile(r"(?:%[sdrx]|\{\w{0,20}\}|[\s:@/,;|-])+\Z", _FLAGS)
_CMDLET_RE = re.compile(r"(?:Get|Read|ConvertTo|ConvertFrom|New|Import|Invoke)-[A-Z][A-Za-z]+\Z", _FLAGS)
_TYPE_SUFFIX_RE = re.compile(r"(?i:str|string|bytes|int|bool|any|none|null)\??\Z", _FLAGS)


def _value_ok(kind: str, key: str, value: str, *, quoted: bool, text: str, vend: int,
              sep: str | None, partial: bool = False, markup: bool = False) -> bool:
    """Whether ``value`` (assigned to ``key``) is a secret worth redacting.

    ``partial``: ``value`` is only the first part of a long unquoted value;
    the checks that need its end are skipped (the caller re-checks).
    ``markup``: an element's text or a ``value`` attribute, never code, so an
    identifier ending in a keyword is a name only without digits
    (``<password>myPassword</password>`` vs ``<password>hunter2secret</password>``).
    """
    v = value
    if _is_placeholder(v) or _URL_VALUE_RE.match(v) or v.startswith("arn:"):
        return False  # placeholders; URLs (their credentials are url-password's job); ARNs
    lv = v.lower()
    kw = key.lower()
    if lv == kw or lv.replace("-", "_") == kw.replace("-", "_"):
        return False
    if _IDENT_CHAIN_RE.match(v) and lv.endswith(_KEYWORD_ENDS) and not (
            markup and any(c.isdigit() for c in v)):
        return False  # nextToken, hashedPassword, rust_openssl.hpke.X25519PrivateKey
    if (not quoted and sep == ":" and _IDENT_CHAIN_RE.match(v) and v[0].isupper()
            and text[vend:vend + 1] in (",", ")", "=", "]")):
        return False  # a type annotation: private_key: PKCS7PrivateKeyTypes,
    if not quoted:
        if v[0] in "?:@!*&":
            return False  # SQL parameters, YAML tags / aliases / anchors
        if v[-1] == ":":
            return False  # a label or header name ("TOKEN = Authorization: Basic ...")
        if _CMDLET_RE.match(v):
            return False  # $env:DB_PASSWORD = Read-Host -AsSecureString (PowerShell)
        if sep == " " and (v[0] == "-" or (v.isalpha() and v.islower())):
            return False  # "--no-password --verbose", "the --password option"
        nxt = text[vend:vend + 1]
        if nxt in ("(", "[") and not partial:
            return False  # function call / subscript: code, not a value
        if not partial and _CODE_CHAIN_RE.match(v) and not any(c.isdigit() for c in v):
            # identifier or dotted attribute chain without digits
            if "." in v or "_" in v.strip("_"):
                return False
            if kind != "password":
                return False
            # `password = hashed` (code) vs `password=hunter` (env): drop
            # spaced assignments of bare identifiers to lower-case keys.
            if (sep in ("=", ":=", "=>") and key == key.lower()
                    and text[vend - len(v) - 1:vend - len(v)] in (" ", "\t")):
                return False
        if not partial and (sep in (":", "%3A", "%3a", "\\u003a", "\\u003A") or sep is None):
            # YAML / header style: value must end the line (not prose)
            j = vend
            if j < len(text) and text[j] in "\"'`":
                j = len(text)  # closing quote of an enclosing string
            while j < len(text) and text[j] in " \t":
                j += 1
            if j < len(text) and text[j] not in "\r\n\\,;}])#&%":
                return False
            if sep == ":" and text[vend - len(v) - 1] == ":" and (
                    "=" in v or (_categories(v) < 2 and kw[-4:] != "pass")):
                return False  # "passwd:gecos", "startToken:Token=None" (no space: not YAML)
    if kind == "password":
        if len(v) < 4 or _FORMAT_ONLY_RE.match(v):
            return False
        if quoted and (" " in v and (kw.endswith("pass") or v.count(" ") >= 4) or "\\n" in v):
            return False  # prose / docstrings: {'pass': 'The "pass" statement\n'}
        if kw.endswith("pass") and lv.endswith("pass"):
            return False  # {'pass': 'bandpass'}
        if v[0] in "/~" or (len(v) > 2 and v[1] == ":" and v[2] in "\\/") or v.startswith("./"):
            return False  # a path (PWD=/home/user, password_file paths)
        return quoted or _TYPE_SUFFIX_RE.match(v) is None
    # tokens, keys, secrets: no whitespace, long enough, random-looking
    if len(v) < 8 or "\\" in v or _WS_RE.search(v):
        return False
    if v.isdigit():
        return len(v) >= 16
    if _WORDS_RE.match(v) and (len(v) < 24 or all(
            _WORD_RE.match(w) for w in _SEPS_RE.split(v))):
        return False  # words and names (nextTokenValue, Access-Control-Allow-Credentials)
    if _categories(v) >= 2:
        return True
    return len(v) >= 32 and len(set(v)) >= 10


def _simple_value_check(cls: str, min_len: int = 4, cats: int = 0) -> _Check:
    def check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
        v = text[s:e]
        if len(v) < min_len or _is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS:
            return None
        if cats and _categories(v) < cats:
            return None
        return cls
    return check


def _auth_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    if not _word_start(text, m.start()):
        return None  # AggregationAuthorization (Proxy-Authorization is fine)
    scheme = (m.group(p + "scheme") or "").lower()
    if _is_placeholder(v):
        return None
    if len(v) < 8 or _categories(v) < 2 or _CODE_CHAIN_RE.match(v) and not any(c.isdigit() for c in v):
        return None  # authorization = self.headers.get...
    if scheme == "basic":
        return "basic-auth"
    if scheme in ("bearer", ""):
        return "bearer-token"
    return "authorization"


def _bearer_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    if _is_placeholder(v) or _categories(v) < 2 or not any(c.isdigit() for c in v):
        return None
    return "bearer-token"


_COOKIE_PLACEHOLDER_RE = re.compile(
    r"(?:<|\$|\{\{|\*{3}|x{4}|X{4}|\.{3}|\[REDACTED)|(?i:none|null|undefined|true|false)?\Z",
    _FLAGS)


def _cookie_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    if len(v) < 8:
        return None
    if "=" in v:
        # needs one value that looks like an identifier/token (not fig=newton)
        values = [part.split("=", 1)[1].strip() for part in v.split(";") if "=" in part]
        if not any(not _COOKIE_PLACEHOLDER_RE.match(x) and (
                len(x) >= 16 or (len(x) >= 6 and _categories(x) >= 2)) for x in values):
            return None
    elif _COOKIE_PLACEHOLDER_RE.match(v) or _categories(v) < 2:
        return None
    return "cookie"


_OAUTH_BASIC = ("x-oauth-basic", "x-oauth-token")


def _url_pw_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | tuple[str, int, int] | None:
    v = text[s:e]
    user = m.group(p + "user") or ""
    if v.lower() in _OAUTH_BASIC:  # https://TOKEN:x-oauth-basic@github.com: the token is the user
        us, ue = m.span(p + "user")
        if ue - us < 8 or _is_placeholder(user):
            return None
        return ("url-password", us, ue)
    if _is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS or _is_placeholder_user_pw(user, v):
        return None
    if v.lower() in ("pw", "pwd", "pass", "password", "passwd", "secret"):
        return None
    return "url-password"


def _is_placeholder_user_pw(user: str, pw: str) -> bool:
    return user.lower() == pw.lower() and user.lower() in ("user", "username", "login", "name")


def _cmd_flag_check(cls: str, commands: dict[str, str], *, min_len: int = 1,
                    spaced_ok: tuple[str, ...] = ("sshpass",)) -> _Check:
    """A credential flag (-p, -a, -u, -b) that only counts after one of
    ``commands`` earlier on the same line (``mysql -u root -pXXX``,
    ``redis-cli -a XXX``, ``curl -u user:XXX``).  ``commands`` maps a literal
    found with ``rfind`` to the full regex it must match there; a value
    separated from its flag ``-p`` by blanks needs a command listed in ``spaced_ok``
    (``mysql -p <db>`` prompts; ``docker login -p <password>`` does not)."""
    full = {lit: re.compile(rx + r"(?![\w-])", _FLAGS) for lit, rx in commands.items()}

    def check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
        v = text[s:e]
        if len(v) < min_len or _is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS or v.isdigit():
            return None
        flag = m.start()
        esc = text.rfind("\\n", 0, flag)  # a JSON-escaped line break ends the line too
        line = max(text.rfind("\n", 0, flag) + 1, esc + 2 if esc >= 0 else 0, flag - 2000)
        spaced = text[flag + 2:flag + 3] in (" ", "\t") and text[flag + 1] == "p"
        for lit, rx in full.items():
            if spaced and lit not in spaced_ok:
                continue  # mysql -p <db>: a blank after -p means "prompt"
            i = text.rfind(lit, line, flag)
            while i >= 0:
                cm = rx.match(text, i)
                if cm is not None and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "-_")):
                    between = text[cm.end():flag]
                    if not any(c in between for c in "|;&") and (lit != "sshpass" or not between.strip()):
                        return cls
                i = text.rfind(lit, line, i)
        return None
    return check


def _telegram_left() -> re.Pattern[str]:
    # api.telegram.org/bot<token>/sendMessage: "bot" may precede the id
    return re.compile(r"(?:(?<![A-Za-z0-9])|(?<=bot)|" + _ESC_TAIL + r")\d{6,12}\Z", _FLAGS)


def _telegram_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    body = v.split(":", 1)[1]
    if not _token_ok(body[2:]):
        return None
    return "telegram-bot-token"


def _azure_cs_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    if not _token_ok(v.replace("~", "").replace(".", "").replace("-", "").replace("_", "")):
        return None
    return "azure-client-secret"


# ---------------------------------------------------------------------------
# Detector table (order matters within a first character: earlier wins)
# ---------------------------------------------------------------------------


def _keyword_tail() -> str:
    """Tail after a secret-ish keyword: quote, separator, value; or markup.

    The markup branches come last, so they only add detections, and capture
    nothing (every group in the combined regex costs each ``match`` call; the
    check finds the value again).  Where the assignment branch reads markup as
    ``key <blank> value`` (``name="password" value=``, ``<password a="b">``)
    and is rejected, the check tries the markup forms.
    """
    return (
        r"(?!\w)"  # keyword ends the key (max_tokens, token_count stay)
        rf"(?:(?P<@@kq>{_Q})?\]?[ \t]*"
        r"(?:(?P<@@sep>" + _SEP[3:-1] + r")"
        r"|(?P<@@ws>[ \t]+)"  # --flag value (only when the key starts with '-', or after `config set`)
        # name/value pairs: YAML (`- name: DB_PASSWORD` then `value: ...` on the next line) and
        # JSON (`{"name": "DB_PASSWORD", "value": "..."}`, as ECS and Kubernetes list env vars)
        # (a line break raw or JSON-escaped at any depth: \n, \\n, \r\n, \\r\\n)
        r"|(?P<@@nl>(?:" + _NEWLINE + r"[ \t]*(?:-[ \t]*)?"
        r"|,[ \t]*(?:" + _NEWLINE + rf"[ \t]*)?{_Q}?)(?i:(?:parameter)?value){_Q}?[ \t]*:)"
        r"|(?P<@@arg>,))"  # define('DB_PASSWORD', 'x'), setenv("TOKEN", "x"): checked by the call's name
        r"[ \t]*"
        r"(?!-----)"
        # (lazy single-character repeats: sre saves no group state per step)
        rf"(?:(?P<@@vq>{_Q})(?P<@@qv>[^\r\n]{{0,4096}}?)(?P=@@vq)"
        # capped so a rejected candidate costs little; the check extends it
        rf"|(?P<@@uv>{_UV_CHAR}{{1,{_UV_CAP}}}+))"
        "|" + _NOGROUP_RE.sub("(?:", _markup_tail()) + ")"
    )


# dispatch char -> (keyword remainder, start anchors).  The keyword must end
# the key (DB_PASSWORD, client_secret, x-api-key, --auth-token, SessionToken);
# the rest of the key is read back from the text by the check.
_FAMILIES = {
    "p": (r"ass(?:word|wd|wort|[_-]?phrase)?|wd", ("pass", "pwd")),
    "s": (r"ecret|ess(?:ion)?id|ession", ("secret", "sess")),
    "t": (r"oken", ("token",)),
    "k": (r"ey(?:[_-]?id)?", ("key",)),
    "a": (r"uth", ("auth",)),
    "c": (r"red(?:ential)?s?|ookie|onnect\.sid", ("cred", "cookie", "connect.sid")),
}

# what may precede "key" for the key to name a secret (api_key, x-api-key,
# secretAccessKey, AZURE_STORAGE_ACCOUNT_KEY, private_key_id, ...)
_KEY_PREFIXES = (
    "api", "access", "account", "auth", "encryption", "master", "private", "signing",
    "secret", "sharedaccess", "client", "app", "admin", "service", "subscription",
    "license", "webhook", "deploy", "consumer", "write", "ingest", "personal", "primary",
    "secondary", "storage", "bot", "hmac", "root", "session", "application",
)


def _keyword_dets() -> list[_Det]:
    dets = []
    tail = _keyword_tail()
    for ch, (fam, anchors) in _FAMILIES.items():
        first = ch + ch.upper() if ch.isalpha() else ch
        dets.append(_Det(
            "secret", first,
            # kw0 captures the keyword minus its first (dispatch) char
            r"(?P<@@kw0>(?i:" + fam + r"))" + tail,
            # "": the whole match (a markup branch, which captures nothing)
            anchors, secret=("qv", "uv", ""), check=_generic_wrap(ch), lb=None,
            contextual=True,
        ))
    return dets


_NOT_CREDENTIAL_TOKENS = (
    "nexttoken", "pagetoken", "continuationtoken", "clienttoken", "paginationtoken",
    "synctoken", "inputtoken", "outputtoken", "idempotencytoken", "cursortoken", "starttoken",
    "resumetoken", "updatetoken", "changetoken", "verificationtoken", "publickeytoken",
    "maxtoken", "lasttoken", "prevtoken", "previoustoken",
)
_NOT_PASS = ("bypass", "compass", "surpass", "overpass", "underpass", "trespass", "impass")


def _generic_wrap(ch: str) -> _Check:
    def check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
        # rebuild the keyword (dispatch char + remainder) for the shared check
        kw = text[m.start()] + m.group(p + "kw0")
        if m.start(p + "qv") < 0 and m.start(p + "uv") < 0:  # a markup branch
            em = _ELEMENT_RE.match(text, m.end(p + "kw0"))
            if em is not None:
                return _element_check(text, em, m.start(), kw)
            pm = _PLIST_RE.match(text, m.end(p + "kw0"))
            if pm is not None:
                return _plist_check(text, pm, m.start(), kw)
            return _attribute_check(text, m.start(), kw, text[m.end(p + "kw0"):e], e)
        r = _generic_check_kw(text, s, e, m, p, kw)
        if r is None and m.group(p + "ws") is not None:
            # the assignment branch took markup for `key <blank> value`; what
            # stands before the key tells cheaply (prose: a blank)
            ki = m.start() - len(_key_name(text, m.start()))
            before = text[ki - 1:ki]
            if m.group(p + "kq") is not None:  # name="password" value="..."
                if before in _ATTR_OPEN:
                    return _attribute_check(text, m.start(), kw, m.group(p + "kq"), m.end(p + "kq"))
            elif before in _TAG_OPEN:  # <password encrypted="no">
                em = _ELEMENT_RE.match(text, m.end(p + "kw0"))
                if em is not None:
                    return _element_check(text, em, m.start(), kw)
        return r
    return check


def _key_kind(prefix: str, kw: str, before: str) -> str | None:
    """The class the key ``prefix + kw`` names, or None when it names no secret
    (``before``: the character right before the keyword, "" at the start).

    Shared by the assignment detectors and the markup ones (``<apiKey>``,
    ``name="client_secret"``): the same keys count in every syntax.
    """
    key = prefix + kw
    lkey = key.lower()
    if lkey.endswith(_NOT_PASS) or (kw.lower() == "auth" and before.isalpha()
                                    and not prefix.lower().endswith("key")):
        return None  # bypass=, compass=, oauth= (but apiKeyAuth, the Datadog client's name)
    if lkey.replace("_", "").replace("-", "").endswith(_NOT_CREDENTIAL_TOKENS):
        return None  # pagination cursors, idempotency tokens, .NET publicKeyToken
    lkw = kw.lower()
    if lkw.startswith("key"):
        stem = prefix.lower().rstrip("_-.")
        if not stem.endswith(_KEY_PREFIXES):
            return None  # cache_key, public_key, sort_key, key: value ...
        if lkw.endswith("id") and not stem.endswith("private"):
            return None  # KMSMasterKeyId names a key; GCP's private_key_id is kept
    elif lkw.startswith("sess"):
        if lkw == "session" and not prefix.endswith("_"):
            return None  # only cookie names like _app_session / laravel_session
        if not (kw.islower() or kw.isupper()):
            return None  # activeSessionId (API ids) vs sessionid / PHPSESSID cookies
    return _kind_for_key(key)


# `aws configure set aws_secret_access_key VALUE`, `npm config set //host/:_authToken VALUE`,
# `git config --global github.token VALUE`, `setx DB_PASSWORD "x"`, Dockerfile `ENV DB_PASSWORD x`:
# a key and its value separated by blanks only
_SET_CMD_RE = re.compile(
    r"(?:\bconfig(?:ure)?[ \t]+set|\bconfig(?:[ \t]+--(?:global|local|system|file[ \t=]+\S+))?"
    r"|\bsetx|\bset(?:[ \t]+-[A-Za-z]{1,4})+|^[ \t]*ENV|\\n[ \t]*ENV|\bset-item[ \t]+env:)[ \t]+\S*\Z",
    re.ASCII | re.IGNORECASE | re.MULTILINE)
# define('DB_PASSWORD', 'x') (PHP), os.environ.setdefault("TOKEN", "x"), System.setProperty(...),
# putenv, Setenv (Go), SetEnvironmentVariable (.NET), headers.put / set / setHeader
_SET_CALL_RE = re.compile(
    r"(?:\bdefine|setdefault|\bsetenv|\bputenv|\bSetenv|setProperty|SetEnvironmentVariable"
    r"|\bsetHeader|\bset_header|\badd_header|\bput|\bset)[ \t]*\([ \t]*\Z", re.ASCII)
_BASIC_RE = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}\Z", _FLAGS)


def _is_basic_pair(value: str) -> bool:
    """``value`` is base64 of ``user:password`` (Docker's config.json ``auth``, npm's ``_auth``)."""
    if not _BASIC_RE.match(value):
        return False
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    user, sep, pw = raw.partition(b":")
    return bool(sep and user and pw) and all(32 < c < 127 for c in raw)


# Vendor keys without a prefix of their own (a Datadog key is 32 hex digits, a Heroku key a UUID)
# are named after the vendor when the key's name says so (DD_API_KEY, HEROKU_API_KEY) or the text
# just before the key does (datadog.yaml, `provider "datadog" {`, a Helm `datadog:` block, a .netrc
# entry for api.heroku.com), and the value has the vendor's shape.  Rows: a vendor word in the key
# (lower case, without _ - .), one in the text before the key, the value's shape, the class; the
# first row that fits wins.
_AZURE_KEY_RE = re.compile(r"[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+/=])", _FLAGS)
_UUID_OR_HRKU = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z|HRKU-"
_VENDORS: tuple[tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], str], ...] = tuple(
    (re.compile(key, _FLAGS), re.compile(near, _FLAGS | re.IGNORECASE), re.compile(shape, _FLAGS), cls)
    for key, near, shape, cls in (
        (r"(?:datadog|^dd).*app(?:lication)?key", r"datadog", r"[0-9a-f]{40}\Z", "datadog-app-key"),
        (r"(?:datadog|^dd).*key", r"datadog", r"[0-9a-f]{32}\Z", "datadog-api-key"),
        (r"heroku", r"heroku", _UUID_OR_HRKU, "heroku-api-key"),
        (r"twilio", r"twilio", r"[0-9a-f]{32}\Z", "twilio-auth-token"),
        (r"cloudflare|^cf(?:api|token)", r"cloudflare", r"[0-9a-f]{37}\Z|[A-Za-z0-9_-]{40}\Z",
         "cloudflare-api-key"),
        (r"algolia", r"algolia", r"[0-9a-f]{32}\Z", "algolia-api-key"),
        (r"azure|storage|account", r"azure|windows\.net|storage", r"[A-Za-z0-9+/]{86}==\Z",
         "azure-storage-key"),
        (r"aws|amazon", r"\baws\b|amazonaws|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", r"[A-Za-z0-9+/]{40}\Z",
         "aws-secret-access-key"),
    ))
# the classes a key's name gives that a vendor's name may refine
_GENERIC_KINDS = frozenset(("api-key", "token", "secret", "password", "client-secret", "authorization",
                            "bearer-token", "azure-storage-key", "aws-secret-access-key"))
_VENDOR_NEAR = 400  # characters before the key that may name the vendor


def _vendor_kind(key: str, kind: str, value: str, text: str, at: int | None) -> str:
    """The vendor class of a value whose key (``key``, at ``at`` in ``text``) or the text before it
    names the vendor (see _VENDORS), else ``kind``.  ``at=None``: the key alone (markup, whose
    values are named by their element or attribute)."""
    if kind not in _GENERIC_KINDS:
        return kind
    flat = key.lower().replace("_", "").replace("-", "").replace(".", "")
    near: str | None = None
    for key_rx, near_rx, shape, cls in _VENDORS:
        if shape.match(value) is None:
            continue
        if key_rx.search(flat) is not None:
            return cls
        if at is None:
            continue
        if near is None:
            near = text[max(0, at - _VENDOR_NEAR):at]
        if near_rx.search(near) is not None:
            return cls
    return kind


def _generic_check_kw(text: str, s: int, e: int, m: re.Match[str], p: str, kw: str) -> str | None:
    ks = m.start()
    prefix = _key_name(text, ks)
    key = prefix + kw
    ki = ks - len(prefix)
    if text.endswith(("//", "\\/"), 0, ki):
        return None  # user name in scheme://user:pass@host (url-password handles it)
    if ki > 1 and text[ki - 1] == ":" and (text[ki - 2] == ":" or text[ki - 2].isalnum()) \
            and text[max(0, ki - 5):ki].lower() != "$env:":
        return None  # AWS::IAM::AccessKey, arn:aws:secretsmanager:...:secret:name (not $env:DB_PASSWORD)
    # "password hunter2" in prose: only --password hunter2, or after `aws configure set` (checked last)
    set_cmd = m.group(p + "ws") is not None and not key.startswith("-")
    if m.group(p + "arg") is not None:
        # a call's (key, value) arguments: both quoted, and the call one that sets a value
        if m.group(p + "kq") is None or m.group(p + "vq") is None:
            return None
        qs = ki - len(m.group(p + "kq"))
        if _SET_CALL_RE.search(text, max(0, qs - 80), qs) is None:
            return None  # get("token", default), replace("password", "***")
    kind = _key_kind(prefix, kw, text[ks - 1:ks])
    if kind is None:
        if prefix or kw.lower() != "key" or not _AZURE_KEY_RE.match(text, s, e) or \
                _vendor_kind("storage", "api-key", text[s:e], text, ki) != "azure-storage-key":
            return None
        kind = "azure-storage-key"  # storage:\n  key: <88 characters>: a bare key, named by its block
    if kind == "session-id" and _UUID_RE.match(text, s, e):
        return None  # agent/session metadata ids, not web session cookies
    quoted = m.group(p + "vq") is not None
    sep = m.group(p + "sep")
    if sep is None and m.group(p + "ws") is not None:
        sep = " "  # --flag value
    if not quoted and e - s >= _UV_CAP:
        # a long unquoted value: judge its head first (cheap rejection of
        # "api_key=api_key=..." floods), then take the rest of it
        if not _value_ok(kind, key, text[s:e], quoted=False, text=text, vend=e, sep=sep,
                         partial=True):
            return None
        e = _UV_MORE_RE.match(text, e).end()
    value = text[s:e]
    if sep == ":" and m.group(p + "kq") is None and text[m.start(p + "sep") - 1] in " \t":
        return None  # "Pass :meth:`peek`": YAML keys touch their colon
    if quoted and text.startswith((":", "\\u003a", "%3A", "%3a"), m.end()):
        return None  # the quoted "value" is the next JSON key: PASSWORD = "access_token": ...
    if not _value_ok(kind, key, value, quoted=quoted, text=text, vend=e, sep=sep):
        return None
    if set_cmd:
        line = max(text.rfind("\n", max(0, ki - 120), ki) + 1, ki - 120, 0)
        if _SET_CMD_RE.search(text, line, ki) is None:
            return None
    if kw.lower() == "auth" and prefix in ("", "_") and _is_basic_pair(value):
        return ("basic-auth", s, e)  # Docker config.json auths, npm's _auth: base64 of user:password
    return (_vendor_kind(key, kind, value, text, ki), s, e)


# --- markup: <password>value</password>, <add key="ApiKey" value="..."/> ---------

# '<' and '>' raw, JSON-escaped the way Go and .NET write them (\u003c, any
# depth) or HTML-escaped (&lt;); blanks and raw or escaped line breaks.
_LT = r"(?:<|\\{1,15}u003[cC]|&lt;)"
_GT = r"(?:>|\\{1,15}u003[eE]|&gt;)"
_XWS = r"(?:[ \t\r\n]|\\{1,15}[nrt])*+"
_AQ = r"(?:\\{0,15}[\"']|&quot;|&#(?:0?39|x27);)"  # an attribute's quote
_NOGROUP_RE = re.compile(r"\(\?P<@@\w+>")


def _element_tail() -> str:
    """After a keyword naming an element: ``[attributes]>value</`` or
    ``><![CDATA[value]]></`` (the check looks back for the ``<``)."""
    return (
        r"(?:[ \t]+(?:[^<>&\\\r\n]|\\{1,15}[\"']|&(?!gt;)){0,256}+(?<!/))?"
        rf"{_GT}{_XWS}"
        rf"(?:{_LT}!\[CDATA\[(?P<@@xc>[^\r\n]{{1,256}}?)\]\]{_GT}"
        # (an escaped quote or slash may be part of it: \" \/)
        r"|(?P<@@xv>(?:[^<&\s\\]|&(?!lt;)|\\{1,15}[\"'/])"
        r"(?:[^<&\r\n\\]|&(?!lt;)|\\{1,15}[\"'/]){0,255}+))"
        rf"{_XWS}(?={_LT}\\{{0,15}}/)"
    )


def _markup_tail() -> str:
    """Branches of the keyword tail for a keyword that names an element or ends
    an attribute's value.

    Only what follows the keyword is matched here; the checks look back for
    the ``<`` that makes the keyword a tag name, or for ``name=``/``key=``
    and the tag's ``value=`` attribute (on either side).
    """
    return (
        _element_tail()
        # name="password" (the closing quote of an attribute value)
        + rf"|{_AQ}(?=[ \t\r\n/]|{_GT}|\\{{1,15}}[nrt/])"
        # <key>APIKey</key><string>...: a property list (the check reads the value)
        + rf"|{_LT}\\{{0,15}}/(?:key|name){_GT}"
    )


# the keyword starts a tag name: <password, <db:password, <client_secret, \u003capiKey
_TAG_OPEN_RE = re.compile(_LT + r"(?:[A-Za-z_][\w.-]{0,40}:)?(?P<pre>[A-Za-z0-9_.-]{0,80})\Z", _FLAGS)
# after "value": the rest of a value attribute (its text non-empty)
_VALUE_ATTR_RE = re.compile(
    r"[ \t]*=[ \t]*(?P<q>" + _AQ + r")(?!(?P=q))(?P<v>[^\r\n]{1,1024}?)(?P=q)", _FLAGS)
_TAG_NAME_RE = re.compile(r"(?:<|\\u003[cC]|&lt;)[A-Za-z_]", _FLAGS)
_TAG_MAX = 600
# the element branch on its own, for `<password encrypted="no">`, which the
# assignment branch reads as `password <blank> encrypted=` (and rejects)
_ELEMENT_RE = re.compile(_element_tail().replace("@@", ""), _FLAGS)
# the character before a key (as _key_name reads it) that opens a tag
# (<, the \ of \u003c, the ; of &lt;, a namespace's :) or an attribute value
_TAG_OPEN = frozenset(("<", "\\", ";", ":"))
_ATTR_OPEN = frozenset(("\"", "'", ";", ":"))
_ATTR_KEY_CHARS = _KEY_CHARS | {":"}  # name="Smtp:Password"


def _element_check(text: str, em: re.Match[str], ks: int, kw: str
                   ) -> tuple[str, int, int] | None:
    """<password>value</password> (``em``: _ELEMENT_RE after the keyword at
    ``ks``): the keyword must end the tag's name."""
    ki = ks - len(_key_name(text, ks))
    if text[ki - 1:ki] not in _TAG_OPEN:
        return None  # not a tag name: "echo pass>f"
    tm = _TAG_OPEN_RE.search(text, max(0, ks - 140), ks)
    if tm is None:
        return None  # </password>, "a:password>"
    s, e = em.span("xv") if em.start("xv") >= 0 else em.span("xc")
    while text[e - 1] in " \t":
        e -= 1
    return _markup_value(text, tm.group("pre"), kw, s, e)


def _attribute_check(text: str, ks: int, kw: str, quote: str, qend: int
                     ) -> tuple[str, int, int] | None:
    """name="password" value="...": the keyword ends a name/key attribute
    (closed by ``quote`` ending at ``qend``) and the tag has a value attribute."""
    ki = ks  # the attribute's value: the key
    while ki > 0 and text[ki - 1] in _ATTR_KEY_CHARS and ks - ki < 80:
        ki -= 1
    i = ki - len(quote)
    if i < 0 or not text.startswith(quote, i) or (quote[0] != "&" and text[i - 1:i] == "\\"):
        return None  # get("token") + other quotes, \"token"
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if text.endswith("variable", 0, i):  # Terraform: variable "db_password" { default = "x" }
        return _tf_variable_check(text, text[ki:ks], kw, qend, ks)
    if text[i - 1:i] != "=":
        return None  # get("token", x), "password" in d
    i -= 1
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if text[i - 4:i].lower() == "name":
        i -= 4
    elif text[i - 3:i].lower() == "key":
        i -= 3
    else:
        return None  # type="password", for="password", id="token"
    if text[i - 1:i] in _ATTR_KEY_CHARS:
        return None  # username="password", data-key="token"
    found = _value_attr(text, i, qend, quote) or _element_text(text, qend, quote)
    if found is None:
        return None
    return _markup_value(text, text[ki:ks], kw, *found)


def _markup_value(text: str, prefix: str, kw: str, s: int, e: int) -> tuple[str, int, int] | None:
    kind = _key_kind(prefix, kw, prefix[-1:])
    if kind is None:
        return None
    if kind == "session-id" and _UUID_RE.match(text, s, e):
        return None
    if not _value_ok(kind, prefix + kw, text[s:e], quoted=True, text=text, vend=e, sep="=",
                     markup=True):
        return None
    return (_vendor_kind(prefix + kw, kind, text[s:e], text, None), s, e)


# a tag's delimiters by how the text is escaped, told by the attribute's quote:
# raw (a bare " cannot be inside a JSON string; a bare ' can); JSON, where Go
# also escapes < and >; HTML
_TAG_DELIMS = {
    "raw": (("<",), (">",)),
    "json": (("<", "\\u003"), (">", "u003e", "u003E")),
    "html": (("&lt;",), ("&gt;",)),
}


def _first(text: str, needles: tuple[str, ...], i: int, j: int) -> int:
    """The first of ``needles`` in ``text[i:j]``, or -1."""
    if len(needles) == 1:
        return text.find(needles[0], i, j)
    found = [k for k in (text.find(x, i, j) for x in needles) if k >= 0]
    return min(found) if found else -1


# the attributes that hold a named value: value="..." and, on <meta>, content="..."
_VALUE_ATTRS = (("alue", "vV"), ("ontent", "cC"))


def _value_attr(text: str, name_start: int, name_end: int, quote: str) -> tuple[int, int] | None:
    """Span of the ``value`` (or ``content``) attribute's text on the tag holding the name
    attribute ``text[name_start:name_end]`` (quoted with ``quote``), after it or before it.

    Scans with ``str.find``/``rfind`` within ``_TAG_MAX`` characters, not
    regex searches: text flooded with such attributes stays cheap.
    """
    n = len(text)
    lo = max(0, name_start - _TAG_MAX)
    reach = min(n, name_end + _TAG_MAX)
    names = [(needle, firsts) for needle, firsts in _VALUE_ATTRS
             if text.find(needle, name_end + 1, reach) >= 0 or text.rfind(needle, lo, name_start) >= 0]
    if not names:
        return None  # no value attribute within reach (the common case: cheapest first)
    opens, closes = _TAG_DELIMS["raw" if quote == '"' else "html" if quote[0] == "&" else "json"]
    ts = max(text.rfind(x, lo, name_start) for x in opens)
    if ts < 0 or _TAG_NAME_RE.match(text, ts) is None or _first(text, closes, ts, name_start) >= 0:
        return None  # not inside a tag
    hi = _first(text, closes, name_end, reach)
    if hi < 0:
        hi = reach
    for needle, firsts in names:
        k = len(needle)
        # value= / Value= after the name (its text may hold a '>'), else before it
        i = text.find(needle, name_end + 1, hi)
        while i >= 0:
            if text[i - 1] in firsts and text[i - 2] not in _ATTR_KEY_CHARS:
                vm = _VALUE_ATTR_RE.match(text, i + k, min(n, hi + 1024))
                if vm is not None:
                    return vm.span("v")
            i = text.find(needle, i + k, hi)
        i = text.rfind(needle, ts + 2, name_start)
        while i >= 0:
            if text[i - 1] in firsts and text[i - 2] not in _ATTR_KEY_CHARS:
                vm = _VALUE_ATTR_RE.match(text, i + k, name_start)
                if vm is not None:
                    return vm.span("v")
            i = text.rfind(needle, ts + 2, i)
    return None


_XWS_RE = re.compile(_XWS, _FLAGS)
_XWS_END_RE = re.compile(r"(?:[ \t\r\n]|\\{1,15}[nrt])+\Z", _FLAGS)
_VALUE_TAG_RE = re.compile(r"value" + _GT, _FLAGS)


def _open_end(text: str, lt: int) -> int:
    """The index right after the '<' (raw, &lt; or an escaped \\u003c) found at ``lt``."""
    if text[lt] == "<":
        return lt + 1
    if text.startswith("&lt;", lt):
        return lt + 4
    return text.find("u003", lt) + 5


def _element_text(text: str, name_end: int, quote: str) -> tuple[int, int] | None:
    """The text of the element whose start tag holds the name attribute ending at ``name_end``
    (a tag without a value attribute): ``<entry key="db.password">x</entry>`` (Java properties),
    ``<property name="password">x</property>`` (Hibernate), ``<string name="api_key">x</string>``
    (Android), ``<setting name="Password"><value>x</value></setting>`` (.NET settings).  The text
    must be followed by a closing tag: a void tag (``<input name="password"> Remember me``) has none."""
    opens, closes = _TAG_DELIMS["raw" if quote == '"' else "html" if quote[0] == "&" else "json"]
    n = len(text)
    gt = _first(text, closes, name_end, min(n, name_end + _TAG_MAX))
    if gt < 0:
        return None
    j = gt
    while j > 0 and text[j - 1] == "\\":
        j -= 1
    if text[j - 1:j] == "/":
        return None  # <add key="ApiKey"/>: no text
    start = gt + (1 if text[gt] == ">" else 4 if text[gt] == "&" else 5)
    for _ in range(2):  # the element's own text, else that of a <value> child
        lt = _first(text, opens, start, min(n, start + 2048))
        if lt < 0:
            return None
        k = _open_end(text, lt)
        a = _XWS_RE.match(text, start, lt).end()
        b = lt
        em = _XWS_END_RE.search(text, a, lt)
        if em is not None:
            b = em.start()
        while b > a and text[b - 1] == "\\":
            b -= 1  # the escape of an escaped '<'
        if a < b:
            if not (text.startswith("/", k) or text.startswith("\\/", k)):
                return None
            return a, b
        vm = _VALUE_TAG_RE.match(text, k)
        if vm is None:
            return None
        start = vm.end()
    return None


_PLIST_RE = re.compile(
    _LT + r"\\{0,15}/(?P<tag>key|name)" + _GT + _XWS + _LT + r"(?:string|data|value)" + _GT + _XWS
    + r"(?P<v>(?:[^<&\s\\]|&(?!lt;)|\\{1,15}[\"'/])(?:[^<&\r\n\\]|&(?!lt;)|\\{1,15}[\"'/]){0,1023}+)"
    + _XWS + r"(?=" + _LT + r"\\{0,15}/)", _FLAGS)
_KEY_OPEN_RE = {tag: re.compile(_LT + tag + _GT + r"(?P<pre>[A-Za-z0-9_.-]{0,80})\Z", _FLAGS) for tag in ("key", "name")}


def _plist_check(text: str, pm: re.Match[str], ks: int, kw: str) -> tuple[str, int, int] | None:
    """<key>APIKey</key> <string>value</string> (a property list), <name>password</name>
    <value>x</value>: the key in one element, its value in the next."""
    km = _KEY_OPEN_RE[pm.group("tag")].search(text, max(0, ks - 120), ks)
    if km is None:
        return None
    s, e = pm.span("v")
    while text[e - 1] in " \t":
        e -= 1
    return _markup_value(text, km.group("pre"), kw, s, e)


# --- checks of the structures found by context -----------------------------------------------

def _b64_pem_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    """LS0tLS1CRUdJTi...: base64 of "-----BEGIN ...", a private key's only (not a certificate's)."""
    try:
        head = base64.b64decode(text[s:s + 64])
    except (binascii.Error, ValueError):
        return None
    return "private-key" if b"PRIVATE KEY" in head else None


def _doppler_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    body = text[s:e].rsplit(".", 1)[1]
    return "doppler-token" if _token_ok(body, min_distinct=8) else None


_HEROKU_OUT_RE = re.compile(
    r"(?:\r?\n|\\{1,15}r?\\{0,15}n)[ \t]*"
    r"(?P<t>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|HRKU-[A-Za-z0-9_-]{20,})(?![\w-])",
    _FLAGS)


def _heroku_token_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> tuple[str, int, int] | None:
    """`heroku auth:token` and the token it prints (within the next few lines)."""
    line = max(text.rfind("\n", 0, m.start()), text.rfind("\\n", 0, m.start()), m.start() - 80)
    if text[max(0, line):m.start()].lower().find("heroku") < 0:
        return None
    om = _HEROKU_OUT_RE.search(text, m.end(), min(len(text), m.end() + 600))
    if om is None or text.count("n", m.end(), om.start("t")) > 40:
        return None
    between = text[m.end():om.start("t")]
    if between.count("\n") + between.count("\\n") > 4:
        return None
    return ("heroku-api-key", *om.span("t"))


_AZ_VALUE_RE = re.compile(
    r"\\{0,15}[\"']?(?i:value)\\{0,15}[\"']?[ \t]*:[ \t]*\\{0,15}[\"']?(?P<v>[A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=])",
    _FLAGS)


def _az_keys_json_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> tuple[str, int, int] | None:
    """`az storage account keys list`: {"keyName": "key1", "permissions": "FULL", "value": "<key>"}."""
    end = text.find("}", m.end(), m.end() + 400)
    vm = _AZ_VALUE_RE.search(text, m.end(), end if end >= 0 else min(len(text), m.end() + 400))
    return ("azure-storage-key", *vm.span("v")) if vm is not None else None


_AZ_BARE_RE = re.compile(r"(?:\r?\n|\\{1,15}r?\\{0,15}n)(?P<v>[A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=])", _FLAGS)


def _az_keys_tsv_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> list[tuple[str, int, int]] | None:
    """`az storage account keys list ... -o tsv`: the keys printed on the lines that follow."""
    line = max(text.rfind("\n", 0, m.start()), text.rfind("\\n", 0, m.start()), m.start() - 200)
    if text.find("storage", max(0, line), m.start()) < 0:
        return None
    out = []
    i = text.find("\n", m.end(), m.end() + 600)
    j = text.find("\\n", m.end(), m.end() + 600)
    pos = min(x for x in (i, j, m.end() + 600) if x >= 0)
    for _ in range(4):
        vm = _AZ_BARE_RE.match(text, pos)
        if vm is None:
            break
        out.append(("azure-storage-key", *vm.span("v")))
        pos = vm.end()
    return out or None


def _secret_string_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    if v.startswith(("file://", "fileb://")) or len(v) < 4 or _is_placeholder(v, strict_words=True):
        return None
    return "secret"


_DSN_USER_RE = re.compile(r"(?:^|(?<=[\s\"'`=(,]))[^\s:@/\"'`=(,]{1,64}:(?P<p>[^\s\"'`]{1,128})\Z", _FLAGS)


def _go_dsn_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> tuple[str, int, int] | None:
    """Go's MySQL DSN: user:password@tcp(host:3306)/db (no scheme; the password may hold '@')."""
    um = _DSN_USER_RE.search(text, max(0, m.start() - 200), m.start() - 1)  # before the @
    if um is None:
        return None
    v = um.group("p")
    if _is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS:
        return None
    return ("url-password", *um.span("p"))


_PGPASS_LINE_RE = re.compile(
    r"(?:^|(?<=[\s\"'`])|(?<=\\[nrt]))(?:\*|[A-Za-z0-9][A-Za-z0-9.-]{0,252}):(?:\d{1,5}|\*):"
    r"(?:\*|[A-Za-z_][\w.-]{0,62}):(?:\*|[A-Za-z_][\w.@-]{0,62}):(?P<s>[^\s:\"'`\\]{4,256})(?=[\s\"'`\\]|\Z)",
    _FLAGS | re.MULTILINE)


def _pgpass_file_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> list[tuple[str, int, int]] | None:
    """The lines of a .pgpass named on the line before them (or on their own: echo "..." >> ~/.pgpass),
    whatever their port."""
    line = max(text.rfind("\n", 0, m.start()), text.rfind("\\n", 0, m.start()), m.start() - 300, 0)
    out = []
    for lm in _PGPASS_LINE_RE.finditer(text, line, min(len(text), m.end() + 4000)):
        v = lm.group("s")
        if not (_is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS):
            out.append(("password", *lm.span("s")))
        if len(out) >= 64:
            break
    return [x for x in out if x[1] >= m.end() or x[2] <= m.start()] or None


_SUDO_ECHO_RE = re.compile(r"\becho[ \t]+(?:-n[ \t]+)?(?P<q>['\"]?)(?P<s>[^\s'\"|]{4,256})(?P=q)[ \t]*\|[ \t]*\Z",
                           _FLAGS)


def _sudo_stdin_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> tuple[str, int, int] | None:
    """echo 'x' | sudo -S ...: the password piped to sudo."""
    em = _SUDO_ECHO_RE.search(text, max(0, m.start() - 300), m.start())
    if em is None or _is_placeholder(em.group("s")) or (em.group("s").isalpha() and len(em.group("s")) < 12):
        return None  # (echo 'hello' | sudo -S true: a word, not a password)
    return ("password", *em.span("s"))


_EXPECT_RE = re.compile(r"expect[ \t]+[^\r\n]{0,60}?(?i:assword|passphrase)[^\r\n]{0,60}?(?:\r?\n|\\{1,15}n)[ \t]*\Z",
                        _FLAGS)


def _expect_send_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    """expect "password:" / send "x\\r": the answer to a password prompt."""
    if _EXPECT_RE.search(text, max(0, m.start() - 200), m.start()) is None:
        return None
    v = text[s:e]
    return None if _is_placeholder(v) or v.startswith("$") else "password"


def _line_has(text: str, at: int, words: tuple[str, ...]) -> bool:
    """One of ``words`` stands earlier on the line that holds ``at``."""
    line = max(text.rfind("\n", 0, at), text.rfind("\\n", 0, at), at - 300, 0)
    low = text[line:at].lower()
    return any(w in low for w in words)


def _word_cmd_check(cls: str, commands: tuple[str, ...]) -> _Check:
    """A password given to a command's subcommand (``rabbitmqctl add_user u x``, ``redis-cli AUTH x``,
    ``smbclient -U user%x``): only after one of ``commands`` on the same line."""
    def check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
        v = text[s:e]
        if len(v) < 4 or _is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS or not _line_has(text, m.start(), commands):
            return None
        return cls
    return check


_SSM_VALUE_RE = re.compile(
    r"[^{}]{0,400}?(?:\\{0,15}[\"']Value\\{0,15}[\"'][ \t]*:[ \t]*\\{0,15}[\"']|--value[ \t=]+['\"]?)"
    r"(?P<s>[^\s'\"\\]{1,1024})", _FLAGS)
_SSM_NAME_RE = re.compile(r"(?:Name\\{0,15}[\"'][ \t]*:[ \t]*\\{0,15}[\"']|--name[ \t=]+['\"]?)(?P<n>[^\s'\"\\]{1,256})",
                          _FLAGS)


def _ssm_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> tuple[str, int, int] | None:
    """An SSM SecureString parameter's value (get-parameter's JSON or put-parameter's --value), named
    after the parameter's name when that names a secret."""
    lo = max(text.rfind("{", max(0, m.start() - 400), m.start()), m.start() - 400, 0)
    hi = text.find("}", m.end(), m.end() + 400)
    hi = hi if hi >= 0 else min(len(text), m.end() + 400)
    vm = _SSM_VALUE_RE.search(text, lo, hi)
    if vm is None:
        return None
    v = vm.group("s")
    if _is_placeholder(v) or v.startswith(("file://", "fileb://")):
        return None
    nm = _SSM_NAME_RE.search(text, lo, hi)
    kind = "secret"
    if nm is not None:
        name = nm.group("n").rstrip("/").rsplit("/", 1)[-1]
        km = _NAME_KIND_RE.search(name)
        if km is not None:
            kind = _key_kind(name[:km.start()], km.group(0), name[km.start() - 1:km.start()]) or "secret"
    return (kind, *vm.span("s"))


_NAME_KIND_RE = re.compile(r"(?i:pass(?:word|wd)?|pwd|secret|token|key)\Z", _FLAGS)


def _conf_value_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    """A config directive's value (requirepass x): not a path (grep requirepass /etc/redis/redis.conf)."""
    v = text[s:e]
    if len(v) < 4 or _is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS or v[0] in "/~." or v.endswith(".conf"):
        return None
    return "password"


_TF_DEFAULT_RE = re.compile(r"[ \t]*\{[^{}]{0,600}?\bdefault[ \t]*=[ \t]*\\{0,15}\"(?P<s>[^\"\\\r\n]{1,1024})\\{0,15}\"", _FLAGS)


def _tf_variable_check(text: str, prefix: str, kw: str, qend: int, ks: int) -> tuple[str, int, int] | None:
    """variable "db_password" { default = "x" }: a Terraform variable whose name names a secret, and
    its default value."""
    kind = _key_kind(prefix, kw, prefix[-1:])
    dm = _TF_DEFAULT_RE.match(text, qend)
    if kind is None or dm is None:
        return None
    v = dm.group("s")
    if not _value_ok(kind, prefix + kw, v, quoted=True, text=text, vend=dm.end("s"), sep="="):
        return None
    return (_vendor_kind(prefix + kw, kind, v, text, ks), *dm.span("s"))


_TWILIO_PAIR_RE = re.compile(r"[^\r\n]{0,40}?(?<![0-9A-Za-z])(?P<t>[0-9a-f]{32})(?![0-9A-Za-z])", _FLAGS)


def _twilio_pair_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> tuple[str, int, int] | None:
    tm = _TWILIO_PAIR_RE.match(text, e)
    if tm is None or len(set(tm.group("t"))) < 8:
        return None
    return ("twilio-auth-token", *tm.span("t"))


_PRINTED_RE = re.compile(
    r"(?P<cmd>[^\r\n\\]{0,200}?)(?:\r?\n|\\{1,15}r?\\{0,15}n)[ \t]*(?P<v>[^\s\"'`\\]{8,4096})(?=[\s\"'`\\]|\Z)",
    _FLAGS)
_PRINTED_NAME_RE = re.compile(r"[A-Za-z0-9_.-]*(?i:pass(?:word|wd)?|pwd|secret|token|key|credentials?)\b", _FLAGS)


def _printed_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> tuple[str, int, int] | None:
    """A command that prints one named secret (``heroku config:get API_KEY``, ``printenv GITHUB_TOKEN``, ``doppler secrets get X --plain``, ``vault kv get
    -field=password``, ``gcloud secrets versions access``), and the value it printed on the next line."""
    pm = _PRINTED_RE.match(text, m.end())
    if pm is None:
        return None
    cmd, v = pm.group("cmd"), pm.group("v")
    if ">" in cmd or "|" in cmd or v[0] in "$#>[(" or _is_placeholder(v) or _categories(v) < 2 or \
            v.endswith(":") or (_WORDS_RE.match(v) and not any(c.isdigit() for c in v)):
        return None  # written elsewhere; a prompt, an error, words
    nm = None
    for nm in _PRINTED_NAME_RE.finditer(cmd):
        pass
    gcloud = text[m.start()] == "v"
    if nm is None and not gcloud:
        return None
    kind = "secret"
    if nm is not None:
        name = nm.group(0)
        km = _NAME_KIND_RE.search(name)
        if km is not None:
            kind = _key_kind(name[:km.start()], km.group(0), name[km.start() - 1:km.start()]) or "secret"
        kind = _vendor_kind(name, kind, v, text, m.start())
    return (kind, *pm.span("v"))


def _htpasswd_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> tuple[str, int, int] | None:
    """htpasswd -b[c] FILE USER PASSWORD; with -n there is no file: htpasswd -nb USER PASSWORD."""
    name = p + ("a2" if "n" in m.group(p + "f") else "a3")
    a, b = m.span(name)
    if a < 0:
        return None
    if text[a] in "'\"":
        a, b = a + 1, b - 1
    v = text[a:b]
    if len(v) < 4 or _is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS:
        return None
    return ("password", a, b)


_PGHOST_RE = re.compile(r"(?:^|(?<=[\s\"'`>])|(?<=\\[nrt]))(?:\*|[A-Za-z0-9][A-Za-z0-9.-]{0,252})\Z",
                        _FLAGS | re.MULTILINE)


def _pgpass_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    """A .pgpass line (host:port:database:user:password) on a line of its own or in quotes."""
    if _PGHOST_RE.search(text, max(0, m.start() - 260), m.start()) is None:
        return None
    v = text[s:e]
    if len(v) < 4 or _is_placeholder(v) or v.lower() in _PLACEHOLDER_WORDS:
        return None
    return "password"


_K8S_KIND_RE = re.compile(r"kind\\{0,15}[\"']?[ \t]*:[ \t]*\\{0,15}[\"']?Secret\b", _FLAGS)
_K8S_LINE_END_RE = re.compile(r"(?:\r?\n|\\{1,15}n)\Z", _FLAGS)
_K8S_NL_RE = re.compile(r"[ \t]*(?:#[^\r\n\\]*)?(\r?\n|(?:\\{1,15}r)?\\{1,15}n)", _FLAGS)
_K8S_ENTRY_RE = re.compile(r"([ \t]+)(\\{0,15}[\"']?)[A-Za-z0-9._-]{1,253}\2:(?:[ \t]+|\Z)", _FLAGS)
_K8S_B64_RE = re.compile(r"[A-Za-z0-9+/]{4,}={0,2}\Z", _FLAGS)
_K8S_JSON_RE = re.compile(
    r"(?:[ \t\r\n]|\\{1,15}[nrt])*(\\{0,15}\")[A-Za-z0-9._-]{1,253}\1[ \t]*:[ \t]*\1([^\"\\]{0,65536})\1[ \t]*(,?)",
    _FLAGS)
_K8S_NEAR = 6000
_K8S_ENTRIES = 256
_K8S_BLOCK = {"|", "|-", "|+", ">", ">-", ">+"}


def _k8s_value(text: str, a: int, b: int, plain: bool) -> tuple[int, int] | None:
    """The span of one Secret value without its quotes; None for a placeholder (or, under
    ``data``, a value that is not base64)."""
    v = text[a:b]
    for q in ('\\"', '"', "'"):
        if len(v) >= 2 * len(q) and v.startswith(q) and v.endswith(q):
            a, b = a + len(q), b - len(q)
            v = text[a:b]
            break
    if not v or _is_placeholder(v, strict_words=True) or (not plain and _K8S_B64_RE.match(v) is None):
        return None
    return a, b


def _k8s_yaml(text: str, pos: int, plain: bool) -> list[tuple[int, int]]:
    nm = _K8S_NL_RE.match(text, pos)
    if nm is None:
        return []
    nl = nm.group(1)
    n = len(text)
    i = nm.end()
    out: list[tuple[int, int]] = []
    indent = -1
    while i < n and len(out) < _K8S_ENTRIES:
        j = text.find(nl, i)
        end = j if j >= 0 else n
        if text[i:end].lstrip(" \t").startswith("#") and j >= 0:  # a comment line
            i = end + len(nl)
            continue
        lm = _K8S_ENTRY_RE.match(text, i, end)
        if lm is None or (indent >= 0 and len(lm.group(1)) != indent):
            break
        indent = len(lm.group(1))
        a = lm.end()
        b = end
        c = text.find(" #", a, b)
        if c >= 0:
            b = c  # key: value  # a comment
        while b > a and text[b - 1] in " \t":
            b -= 1
        if text[a:b] in _K8S_BLOCK:  # a block scalar: the more indented lines that follow
            first = last = -1
            k = end + len(nl) if j >= 0 else n
            while k < n:
                j2 = text.find(nl, k)
                e2 = j2 if j2 >= 0 else n
                ind = len(text[k:e2]) - len(text[k:e2].lstrip(" \t"))
                if text[k:e2].strip(" \t") and ind <= indent:
                    break
                if text[k:e2].strip(" \t"):
                    if first < 0:
                        first = k + ind
                    last = e2
                end, k = e2, (e2 + len(nl) if j2 >= 0 else n)
                if j2 < 0:
                    break
            if first >= 0:
                out.append((first, last))
            j = end if end < n else -1
        else:
            span = _k8s_value(text, a, b, plain)
            if span is not None:
                out.append(span)
        if j < 0:
            break
        i = end + len(nl)
    return out


def _k8s_json(text: str, pos: int, plain: bool) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    while len(out) < _K8S_ENTRIES:
        jm = _K8S_JSON_RE.match(text, pos)
        if jm is None:
            break
        span = _k8s_value(text, *jm.span(2), plain)
        if span is not None:
            out.append(span)
        if not jm.group(3):
            break
        pos = jm.end()
    return out


_K8S_KIND_BEFORE_RE = re.compile(r"(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))kind\\{0,15}[\"']?[ \t]*:[ \t]*\\{0,15}[\"']?\Z", _FLAGS)
# after the "ata" of data / stringData (found with str.find): the key's end and what opens its value
_K8S_DATA_TAIL_RE = re.compile(
    r"(?:\\{0,15}[\"'])?[ \t]*:[ \t]*(?:(?P<o>\{)|(?=(?:#[^\r\n]*)?(?:\r?\n|\\{1,15}r?\\{0,15}n)))", _FLAGS)
_K8S_DATA_BEFORE_RE = re.compile(r"(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))(?P<plain>string)?\Z", _FLAGS)


def _k8s_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> list[tuple[str, int, int]] | None:
    """At ``kind: Secret``: the values under ``data:`` (base64) and ``stringData:`` of that Secret,
    YAML or JSON, before or after its kind, as `kubectl get secret -o yaml|json` prints them or a
    manifest holds them."""
    if _K8S_KIND_BEFORE_RE.search(text, max(0, m.start() - 40), m.start()) is None:
        return None
    lo, hi = max(0, m.start() - _K8S_NEAR), min(len(text), m.start() + _K8S_NEAR)
    i = text.rfind("---", lo, m.start())  # the document: between YAML's --- separators (at a line start)
    while i >= 0 and _K8S_LINE_END_RE.search(text, max(0, i - 17), i) is None:
        i = text.rfind("---", lo, i)
    if i >= 0:
        lo = i + 3
    i = text.find("---", m.start(), hi)
    while i >= 0 and _K8S_LINE_END_RE.search(text, max(0, i - 17), i) is None:
        i = text.find("---", i + 3, hi)
    if i >= 0:
        hi = i
    spans: list[tuple[int, int]] = []
    i = text.find("ata", lo, hi)
    while i >= 0:
        if text[i - 1:i] in ("d", "D"):
            bm = _K8S_DATA_BEFORE_RE.search(text, max(0, i - 7), i - 1)
            tm = _K8S_DATA_TAIL_RE.match(text, i + 3) if bm is not None else None
            if tm is not None:
                plain = bm.group("plain") is not None
                spans += (_k8s_json if tm.group("o") is not None else _k8s_yaml)(text, tm.end(), plain)
        i = text.find("ata", i + 3, hi)
    return [("kubernetes-secret", a, b) for a, b in sorted(spans)] or None


def _k8s_output_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    """kubectl get secret NAME -o jsonpath='{.data.password}' [| base64 -d], and the value it printed
    on the next line."""
    rest = m.group(p + "rest")
    if ">" in rest or text.find("jsonpath", m.start(), m.start(p + "rest")) < 0:
        return None  # written to a file, not printed
    v = text[s:e]
    if v[0] in "$#>" or v.endswith(":") or (v.isalpha() and v.islower()) or _is_placeholder(v):
        return None  # a prompt, an error, a word
    return "kubernetes-secret"


def _build_detectors() -> list[_Det]:
    d: list[_Det] = []
    add = d.append

    # ---- private keys (whole block, raw or escaped) ----
    # the regex matches the header; the check finds the end of the block
    add(_Det("private-key", "-", r"----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----",
             ("-----begin",), check=_pem_check, lb=None))
    add(_Det(
        "private-key", "P",
        r"rivate-Lines:[ \t]*\d+(?:(?:\r?\n|(?:\\r)?\\n|(?:\\\\r)?\\\\n)[A-Za-z0-9+/=]{4,}+)++",
        ("private-lines",), lb=None))
    add(_tok("age-secret-key", r"AGE-SECRET-KEY-1[0-9A-Z]{50,}", strip=15, cats=1))
    # a PEM private key encoded in base64 once more: kubeconfig client-key-data, a Secret's tls.key
    add(_Det("private-key", "L", r"S0tLS1CRUdJTi[A-Za-z0-9+/]{20,}+={0,2}", (), run=True, lb=_LBR,
             check=_b64_pem_check))

    # ---- cloud ----
    add(_Det("aws-access-key-id", "A", r"(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}[A-Za-z0-9]*",
             (), check=_aws_id_check, run=True, lb=_LBR))
    aws_b64 = r"(?:[A-Za-z0-9/+=]|%2[BbFf]|%3[Dd]){80,}+"
    add(_tok("aws-session-token", r"IQoJb3JpZ2luX2Vj" + aws_b64, strip=16))
    add(_tok("aws-session-token", r"FwoGZXIvYXdz[A-Za-z0-9]{4}" + aws_b64, strip=12))
    add(_Det("url-signature", "sS",
             r"(?i:ignature)=(?P<@@s>[0-9a-fA-F]{64,})",
             ("signature=",), secret=("s",), check=_url_sig_check, lb=None))
    add(_Det("azure-storage-key", "kK", r"eyName\\{0,15}[\"']?[ \t]*[:=][ \t]*\\{0,15}[\"']?key[12]",
             ("keyname",), check=_az_keys_json_check, lb=_LB))
    add(_Det("azure-storage-key", "k", r"eys[ \t]+list\b", ("keys list",), check=_az_keys_tsv_check, lb=_LB))
    add(_tok("gcp-api-key", r"AIza[0-9A-Za-z_-]{35}[0-9A-Za-z_-]*", strip=4))
    add(_tok("gcp-oauth-token", r"ya29\.[0-9A-Za-z_-]{20,}", strip=5))
    add(_tok("gcp-refresh-token", r"1//0[0-9A-Za-z_-]{30,}", anchors=("1//0",), strip=4))
    add(_tok("gcp-client-secret", r"GOCSPX-[0-9A-Za-z_-]{24,}", strip=7))
    add(_Det("azure-sas-signature", "s",
             r"ig=(?P<@@s>(?:[A-Za-z0-9+/=_-]|%[0-9A-Fa-f]{2}){30,}+)",
             ("sig=",), secret=("s",),
             check=_simple_value_check("azure-sas-signature", 30, 2),
             lb=r"(?:(?<=[?&;\s\"'`]s)|(?<=%26s)|(?<=\\u0026s)|(?<=&amp;s))"))
    add(_Det("azure-client-secret", "Q",
             r"~[A-Za-z0-9_~.-]{31,40}", ("q~",), check=_azure_cs_check, lb=None,
             left=re.compile(r"(?:(?<![A-Za-z0-9_~.-])|" + _ESC_TAIL + r")[A-Za-z0-9_~.-]{3}\d\Z",
                             _FLAGS)))

    # ---- version control ----
    add(_tok("github-token", r"gh[pousr]_[A-Za-z0-9]{30,}", strip=4))
    add(_tok("github-fine-grained-token", r"github_pat_[A-Za-z0-9_]{50,}", strip=11))
    add(_tok("gitlab-token",
             r"gl(?:pat|dt|ptt|rt|cbt|imt|oas|ft|soat|agent)-[A-Za-z0-9_-]{20,}"))

    # ---- LLM providers ----
    add(_Det("openai-api-key", "s", r"k-[A-Za-z0-9_-]{20,}", (), check=_sk_check, run=True,
             lb=_LBR))
    add(_tok("huggingface-token", r"hf_[A-Za-z0-9]{30,}", strip=3))
    add(_tok("huggingface-token", r"api_org_[A-Za-z0-9]{30,}", strip=8))
    add(_tok("groq-api-key", r"gsk_[A-Za-z0-9]{40,}", strip=4))
    add(_tok("replicate-api-token", r"r8_[A-Za-z0-9]{30,}", strip=3))
    add(_tok("perplexity-api-key", r"pplx-[A-Za-z0-9]{40,}", strip=5))
    add(_tok("xai-api-key", r"xai-[A-Za-z0-9]{60,}", strip=4))
    add(_tok("langsmith-api-key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", strip=8))
    add(_tok("tavily-api-key", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{28,}"))
    add(_tok("pinecone-api-key", r"pcsk_[A-Za-z0-9_]{40,}", strip=5))
    add(_tok("fireworks-api-key", r"fw_[A-Za-z0-9]{20,}", strip=3))
    add(_tok("nvidia-api-key", r"nvapi-[A-Za-z0-9_-]{50,}", strip=6))

    # ---- payments ----
    add(_tok("stripe-secret-key", r"sk_(?:live|test)_[A-Za-z0-9]{16,}", strip=8))
    add(_tok("stripe-secret-key", r"rk_(?:live|test)_[A-Za-z0-9]{16,}", strip=8))
    add(_tok("stripe-webhook-secret", r"whsec_[A-Za-z0-9]{10}[A-Za-z0-9+/=]{14,}", strip=6))

    # ---- chat ----
    add(_tok("slack-token", r"xox[abposre]-[A-Za-z0-9-]{11,}", strip=5, check=_slack_check))
    add(_tok("slack-token", r"xapp-\d-[A-Za-z0-9-]{10,}", strip=7, check=_slack_check))
    add(_Det("slack-webhook", "h",
             r"ttps?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}",
             ("http",), check=_webhook_check("slack-webhook")))
    add(_Det("discord-webhook", "h",
             r"ttps?://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}",
             ("http",), check=_webhook_check("discord-webhook")))
    add(_Det("teams-webhook", "h",
             r"ttps?:(?:\\?/){2}(?:[A-Za-z0-9-]+\.webhook\.office\.com(?:\\?/)webhookb2"
             r"|outlook\.office(?:365)?\.com(?:\\?/)webhook)(?:\\?/)(?:[A-Za-z0-9@_.~-]|\\?/){20,}",
             ("http",), check=_webhook_check("teams-webhook")))
    add(_Det("teams-webhook", "h",
             r"ttps?:(?:\\?/){2}[A-Za-z0-9.-]{1,80}\.(?:logic\.azure\.com|api\.powerplatform\.com)(?::\d+)?"
             r"(?:\\?/)(?:[^\s\"'`<>?\\/]{1,80}(?:\\?/)){0,6}?workflows(?:\\?/)[^\s\"'`<>\\]{0,400}?"
             r"(?:[?&]|\\u0026|%26)sig=[A-Za-z0-9%_-]{20,}",
             ("http",), check=_webhook_check("teams-webhook")))
    add(_Det("discord-bot-token", "MNO",
             r"[A-Za-z0-9_-]{22,26}\.[A-Za-z0-9_-]{5,7}\.[A-Za-z0-9_-]{27,40}",
             (), check=_discord_check, run=True, lb=_LBR))
    # the match starts at ":" right before a run (candidates add run start - 1)
    add(_Det("telegram-bot-token", ":", r"AA[A-Za-z0-9_-]{30,}", (),
             check=_telegram_check, lb=None, left=_telegram_left(), run=True))

    # ---- package registries / SaaS ----
    add(_tok("npm-token", r"npm_[A-Za-z0-9]{36,}", strip=4))
    add(_tok("pypi-token", r"pypi-Ag[A-Za-z0-9_-]{50,}", strip=7))
    add(_tok("rubygems-token", r"rubygems_[a-f0-9]{40,}", strip=9))
    add(_tok("dockerhub-token", r"dckr_pat_[A-Za-z0-9_-]{20,}", strip=9))
    add(_tok("sendgrid-api-key", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{20,}", strip=3))
    add(_tok("shopify-token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,}", strip=6, cats=1))
    add(_tok("linear-api-key", r"lin_api_[A-Za-z0-9]{32,}", strip=8))
    add(_tok("notion-token", r"ntn_[A-Za-z0-9]{40,}", strip=4))
    add(_tok("notion-token", r"secret_[A-Za-z0-9]{43}(?![A-Za-z0-9_])", strip=7))
    add(_tok("digitalocean-token", r"do[opr]_v1_[a-f0-9]{64}", strip=7, cats=1))
    add(_tok("vault-token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}", strip=4))
    add(_tok("atlassian-api-token", r"ATATT3[A-Za-z0-9_-]{10}[A-Za-z0-9_=-]{90,}", strip=6))
    add(_tok("databricks-token", r"dapi[a-f0-9]{32}(?:-\d)?", strip=4, cats=1))
    add(_tok("doppler-token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}",
             check=_doppler_check))
    add(_tok("heroku-api-key", r"HRKU-AA[0-9A-Za-z_-]{58,64}", strip=7))
    add(_Det("heroku-api-key", "a", r"uth:token\b", ("auth:token",), check=_heroku_token_check, lb=_LB))
    add(_tok("sentry-token", r"sntrys_[A-Za-z0-9]{9}[A-Za-z0-9+/=_]{31,}", strip=7))
    add(_tok("sentry-token", r"sntryu_[a-f0-9]{64}", strip=7, cats=1))
    add(_tok("grafana-token", r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}", strip=5))
    add(_tok("postman-api-key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", strip=5, cats=1))
    add(_tok("new-relic-key", r"NRAK-[A-Z0-9]{27}", strip=5))
    add(_tok("supabase-token", r"sbp_[a-f0-9]{40}", strip=4, cats=1))

    # ---- Kubernetes Secrets: the values of data / stringData; `kubectl get secret -o jsonpath` output ----
    # the Secret's kind names it: `kind: Secret` (before or after its data)
    add(_Det("kubernetes-secret", "S", r"ecret\b", ("secret",), check=_k8s_check, lb=None))
    # kubectl get secret NAME -o jsonpath='{.data.x}': found at the "secret" of the command
    add(_Det("kubernetes-secret", "s",
             r"ecret[ /][^\r\n\\]{0,200}?\{\.data[.\[][^}\s]{1,253}\}(?P<@@rest>[^\r\n\\]{0,200}?)"
             r"(?:\r?\n|\\{1,15}r?\\{0,15}n)(?P<@@s>[^\s\"'`\\]{4,4096})(?=[\s\"'`\\]|\Z)",
             ("secret",), secret=("s",), check=_k8s_output_check, lb=r"(?<=get s)"))
    # .pgpass lines: host:port:database:user:password (PostgreSQL's and PgBouncer's ports, or any)
    add(_Det("password", ":",
             r"(?:5432|6432|\*):(?:\*|[A-Za-z_][\w.-]{0,62}):(?:\*|[A-Za-z_][\w.@-]{0,62}):"
             r"(?P<@@s>[^\s:\"'`\\]{1,256})(?=[\s\"'`\\]|\Z)",
             (":5432:", ":6432:", ":*:"), secret=("s",), check=_pgpass_check, lb=None))

    # ---- JWT (header >= 17 chars: the shortest real one, {"alg":"none"}, is 19) ----
    add(_Det("jwt", "e",
             r"yJ[A-Za-z0-9_-]{14,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+){0,2}",
             (), pre=("eyJ", 0, 0), check=_jwt_check, lb=_LB))

    # ---- URL credentials ----
    add(_Det("url-password", ":",
             r"(?:\\?/){2}(?P<@@user>[^\s:/@\"'`<>\\]{0,128}):"
             r"(?P<@@s>[^\s/@?#\"'`<>\\][^\s/?#\"'`<>\\]{0,256})@(?=[A-Za-z0-9\[_-])",
             (":/", ":\\/"), secret=("s",), check=_url_pw_check, lb=None,
             contextual=True))
    add(_Det("url-password", "t", r"cp\(", ("tcp(",), check=_go_dsn_check, lb=r"(?<=@t)", contextual=True))
    add(_Det("url-password", "%",
             r"3[Aa]%2[Ff]%2[Ff]"
             r"(?P<@@user>(?:[^\s&\"'%]|%(?!3[Aa]|40|2[Ff])[0-9A-Fa-f]{2}){0,128}+)%3[Aa]"
             r"(?P<@@s>(?:[^\s&\"'%]|%(?!40|2[Ff])[0-9A-Fa-f]{2}){1,256}+)%40",
             ("%3a%2f%2f",), secret=("s",), check=_url_pw_check, lb=None, contextual=True))

    # ---- HTTP auth / cookies ----
    auth_tail = (
        rf"(?:{_Q})?[ \t]*[:=][ \t]*(?:{_Q})?[ \t]*"
        # any scheme: Bearer, Basic, Token, Splunk, SSWS (Okta), GenieKey, AWS4-HMAC-SHA256 ...
        r"(?:(?P<@@scheme>[A-Za-z][A-Za-z0-9_.-]{1,24})[ \t]+)?"
        r"(?P<@@s>[^\s\"'`\\,;()\[\]{}<>]{8,}+)(?![(\[])"
    )
    for ch in "aA":
        add(_Det("bearer-token", ch, r"(?i:uthorization)" + auth_tail, ("authorization",),
                 secret=("s",), check=_auth_check, lb=None, contextual=True))
    for ch in "bB":
        add(_Det("bearer-token", ch, r"(?i:earer)[ \t]+(?P<@@s>[A-Za-z0-9._~+/=-]{16,})",
                 ("bearer",), secret=("s",), check=_bearer_check, contextual=True))
    cookie_tail = (
        rf"(?:{_Q})?[ \t]*:[ \t]*(?:{_Q})?[ \t]*"
        # name=value pairs and attributes ("; Path=/; HttpOnly"), or one opaque value
        # possessive: a repeated group in this big pattern would otherwise save
        # the state of every capture group on each iteration
        r"(?P<@@s>[^\s;=,\"'`\\]++=[^\s;\"'`\\]*+"
        r"(?:;[ \t]*+[^\s;=,\"'`\\]++(?:=[^\s;\"'`\\]*+)?+)*+"
        r"|[^\s;\"'`\\]{8,}+)"
    )
    for ch in "cC":
        add(_Det("cookie", ch, r"(?i:ookie)" + cookie_tail, ("cookie",), secret=("s",),
                 check=_cookie_check, contextual=True))

    # ---- command lines ----
    cmd_val = (
        r"(?:(?P<@@q>['\"])(?P<@@qs>[^'\"\r\n]{1,256})(?P=@@q)"
        r"|(?P<@@us>[^\s'\"\\;|&]{1,256}))"
    )
    # anchored at the flag; the check looks back on the same line for the command
    mysql = {"mysql": r"mysql(?:dump|admin|import|sh|check)?", "mariadb": r"mariadb(?:-dump)?",
             "sshpass": "sshpass"}
    logins = {lit: lit + r"[ \t]+login" for lit in ("docker", "podman", "nerdctl", "buildah", "skopeo", "oras")}
    logins["helm"] = r"helm[ \t]+registry[ \t]+login"
    logins["mongo"] = r"mongo(?:sh|dump|restore|export|import|stat|top|files)?"
    curl = {"curl": "curl"}
    add(_Det("password", "-", r"p[ \t]*" + cmd_val, ("-p",), secret=("qs", "us"),
             check=_cmd_flag_check("password", {**mysql, **logins}, spaced_ok=("sshpass", *logins)),
             lb=r"(?<=[ \t]-)", contextual=True))
    add(_Det("password", "-", r"a[ \t]+" + cmd_val, ("-a",), secret=("qs", "us"),
             check=_cmd_flag_check("password", {"redis-cli": "redis-cli"}), lb=r"(?<=[ \t]-)",
             contextual=True))
    add(_Det("password", "-",
             r"(?:u|-user|-proxy-user)(?:[ \t]+|=)['\"]?(?P<@@user>[^\s:'\"\\]{1,128}):(?P<@@s>[^\s'\"\\]{1,256})",
             ("-u", "--user", "--proxy-user"), secret=("s",), check=_cmd_flag_check("password", curl),
             lb=r"(?<=[ \t]-)", contextual=True))
    add(_Det("cookie", "-", r"(?:b|-cookie)(?:[ \t]+|=)" + cmd_val, ("-b", "--cookie"),
             secret=("qs", "us"), check=_cmd_flag_check("cookie", curl, min_len=8),
             lb=r"(?<=[ \t]-)", contextual=True))
    # gh secret set NAME --body VALUE
    add(_Det("secret", "-", r"(?:b|-body)(?:[ \t]+|=)?" + cmd_val, ("-b", "--body"), secret=("qs", "us"),
             check=_cmd_flag_check("secret", {"gh": r"gh[ \t]+secret[ \t]+set"}, min_len=4, spaced_ok=("gh",)),
             lb=r"(?<=[ \t]-)", contextual=True))
    # sqlcmd / bcp -P password
    add(_Det("password", "-", r"P[ \t]*" + cmd_val, ("-p",), secret=("qs", "us"),
             check=_cmd_flag_check("password", {"sqlcmd": "sqlcmd", "bcp": "bcp"}, spaced_ok=("sqlcmd", "bcp")),
             lb=r"(?<=[ \t]-)", contextual=True))
    # openssl ... -passin pass:x / -passout pass:x
    add(_Det("password", "-", r"pass(?:in|out)?[ \t]+[\"']?pass:(?P<@@s>[^\s\"'\\]{1,256})", ("-pass",),
             secret=("s",), check=_simple_value_check("password", 4), lb=r"(?<=[ \t]-)", contextual=True))
    # aws secretsmanager create-secret --secret-string VALUE
    add(_Det("secret", "s", r"(?i:ecret-(?:string|binary))(?:[ \t]+|=)" + cmd_val, ("secret",),
             secret=("qs", "us"), check=_secret_string_check, lb=r"(?<=--s)", contextual=True))
    # a command that prints one named secret, and what it printed
    add(_Det("secret", "c", r"onfig:get\b", ("config:get",), check=_printed_check,
             lb=_LB))
    add(_Det("secret", "p", r"rintenv\b", ("printenv",), check=_printed_check, lb=_LB))
    add(_Det("secret", "s", r"ecrets[ \t]+get\b", ("secrets get",), check=_printed_check, lb=_LB))
    add(_Det("secret", "-", r"field[ \t=]", ("-field",), check=_printed_check, lb=r"(?<=[ \t]-)"))
    # Twilio: Client("AC<sid>", "<auth token>"): the token right after the account SID
    add(_Det("twilio-auth-token", "A", r"C[0-9a-f]{32}\b", (), check=_twilio_pair_check, run=True, lb=_LBR))
    # echo 'x' | sudo -S ...
    add(_Det("password", "s", r"udo -S\b", ("sudo -s",), check=_sudo_stdin_check, lb=_LB))
    # expect "password:" / send "x\r"
    add(_Det("password", "s", r"end \\{0,15}\"(?P<@@s>[^\"\r\n\\]{1,256})\\{1,2}r\\{0,15}\"", ('send "', "send \\"),
             secret=("s",), check=_expect_send_check, lb=_LB))
    # smbclient //host/share -U user%password
    add(_Det("password", "-", r"U[ \t]+['\"]?[^\s%'\"\\]{1,128}%(?P<@@s>[^\s'\"\\]{1,256})", ("-u",), secret=("s",),
             check=_word_cmd_check("password", ("smbclient", "rpcclient", "smbget", "smbmap")), lb=r"(?<=[ \t]-)",
             contextual=True))
    # rabbitmqctl add_user USER PASSWORD / change_password USER PASSWORD
    add(_Det("password", "a", r"dd_user[ \t]+\S+[ \t]+['\"]?(?P<@@s>[^\s'\"\\]{1,256})", ("add_user",),
             secret=("s",), check=_word_cmd_check("password", ("rabbitmqctl",)), lb=_LB, contextual=True))
    add(_Det("password", "c", r"hange_password[ \t]+\S+[ \t]+['\"]?(?P<@@s>[^\s'\"\\]{1,256})", ("change_password",),
             secret=("s",), check=_word_cmd_check("password", ("rabbitmqctl",)), lb=_LB, contextual=True))
    # Redis: requirepass / masterauth in redis.conf or CONFIG SET; redis-cli ... AUTH [user] password
    # (found at the "pass" and "auth" they end with: no anchor of their own)
    add(_Det("password", "pP", r"(?i:ass)[ \t]+['\"]?(?P<@@s>[^\s'\"\\]{1,256})", ("pass",),
             secret=("s",), check=_conf_value_check, lb=r"(?<=[rR][eE][qQ][uU][iI][rR][eE][pP])", contextual=True))
    add(_Det("password", "aA", r"(?i:uth)[ \t]+['\"]?(?P<@@s>[^\s'\"\\]{1,256})", ("auth",),
             secret=("s",), check=_conf_value_check, lb=r"(?<=[mM][aA][sS][tT][eE][rR][aA])", contextual=True))
    add(_Det("password", "aA", r"(?i:uth)[ \t]+(?:[A-Za-z0-9_-]{1,64}[ \t]+)?['\"]?(?P<@@s>[^\s'\"\\]{1,256})(?=[\s'\"\\]|\Z)",
             ("auth",), secret=("s",), check=_word_cmd_check("password", ("redis-cli",)), lb=_LB, contextual=True))
    # AWS SSM SecureString parameters
    add(_Det("secret", "sS", r"(?i:ecurestring)\b", ("securestring",), check=_ssm_check, lb=_LB, contextual=True))
    # the lines of a .pgpass named before them
    add(_Det("password", "p", r"gpass\b", ("pgpass",), check=_pgpass_file_check, lb=None))
    # PowerShell: ConvertTo-SecureString "x" -AsPlainText
    add(_Det("password", "cC",
             r"(?i:onvertto-securestring)(?:[ \t]+-(?i:string))?[ \t]+(?P<@@q>\\{0,15}['\"])"
             r"(?P<@@s>[^'\"\r\n\\]{1,256})(?P=@@q)",
             ("convertto-securestring",), secret=("s",), check=_simple_value_check("password", 4),
             lb=_LB, contextual=True))
    # htpasswd -b[c] FILE USER PASSWORD, htpasswd -nb USER PASSWORD
    add(_Det("password", "h",
             r"tpasswd[ \t]+-(?P<@@f>[A-Za-z]*b[A-Za-z]*)[ \t]+(?P<@@a1>[^\s'\"]+)[ \t]+"
             r"(?P<@@a2>'[^'\r\n]*'|\"[^\"\r\n]*\"|[^\s'\"|;&]+)"
             r"(?:[ \t]+(?P<@@a3>'[^'\r\n]*'|\"[^\"\r\n]*\"|[^\s'\"|;&]+))?",
             ("htpasswd",), check=_htpasswd_check, lb=_LB, contextual=True))
    add(_Det("password", "iI",
             r"(?i:dentified)[ \t]+(?:(?i:with)[ \t]+[\w'\"]{1,64}[ \t]+)?(?i:by)[ \t]+(?:(?i:password)[ \t]+)?"
             r"(?P<@@q>['\"])(?P<@@s>[^'\"\r\n]{1,256})(?P=@@q)",
             ("identified",), secret=("s",), check=_sql_identified_check, contextual=True))
    # SQL: WITH PASSWORD 'x'; .netrc: machine h login u password x
    add(_Det("password", "pP",
             r"(?i:assword)[ \t]+(?:(?P<@@q>')(?P<@@s>[^'\r\n]{4,256})(?P=@@q)"
             r"|(?P<@@n>[^\s\"'`\\]{4,256})|\\{0,15}\"(?P<@@d>[^\"\r\n\\]{4,256})\\{0,15}\")",
             ("password",), secret=("s", "n", "d"), check=_sql_netrc_check, contextual=True))

    # ---- generic key/value assignments (last: most specific wins first) ----
    d.extend(_keyword_dets())
    return d


def _slack_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    if v in _KNOWN_EXAMPLES or _is_placeholder(v[5:]):
        return None
    if not any(c.isdigit() for c in v[5:]) or len(set(v[5:])) < 6:
        return None
    return "slack-token"


def _personal_detectors() -> list[_Det]:
    def pre(rx: str) -> tuple[re.Pattern[str], int, int]:
        return (re.compile(rx, _FLAGS), 0, 0)

    return [
        _Det("email", "@",
             # possessive labels (no backtracking); the TLD is checked in Python
             r"[A-Za-z0-9-]{1,63}+(?:\.[A-Za-z0-9-]{1,63}+)++",
             ("@",), lb=None, check=_email_check,
             left=re.compile(r"(?:(?<![A-Za-z0-9._%+-])|" + _ESC_TAIL + r")[A-Za-z0-9._%+-]{1,64}\Z",
                             _FLAGS)),
        _Det("phone-number", "+", r"[1-9]\d{0,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}(?![0-9])",
             ("+",), check=_phone_check, lb=r"(?<![A-Za-z0-9+].)"),
        _Det("phone-number", "(", r"\d{3}\)[ .-]?\d{3}[ .-]\d{4}(?![0-9])",
             (), pre=pre(r"\((?=[0-9]{3}\))"), check=_phone_check, lb=r"(?<![0-9].)"),
        _Det("phone-number", "0123456789", r"\d{2}[.-]\d{3}[.-]\d{4}(?![0-9-])",
             (), pre=pre(r"[0-9](?=[0-9]{2}[.-][0-9]{3}[.-][0-9]{4})"),
             check=_phone_check, lb=r"(?<![0-9.\-].)"),
        _Det("card-number", "23456", r"\d{2}(?:[ -]?\d){10,17}(?![0-9])",
             (), pre=pre(r"[2-6](?=[0-9](?:[ -]?[0-9]){10,17})"),
             check=_card_check, lb=r"(?<![0-9\-].)"),
        _Det("iban", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", r"[A-Z]\d{2}(?: ?[A-Z0-9]){11,30}",
             (), pre=pre(r"[A-Z](?=[A-Z][0-9]{2})"), check=_iban_check),
    ]


_DETECTORS = _build_detectors()
_PERSONAL = _personal_detectors()

CLASSES: tuple[str, ...] = tuple(sorted(
    {d.cls for d in _DETECTORS}
    | {"anthropic-api-key", "openrouter-api-key", "basic-auth", "authorization", "password",
       "secret", "token", "api-key", "client-secret", "private-key", "session-id", "cookie",
       "aws-secret-access-key", "aws-session-token", "azure-storage-key",
       "azure-shared-access-key", "datadog-api-key", "datadog-app-key", "twilio-auth-token",
       "cloudflare-api-key", "algolia-api-key"}
))
PERSONAL_CLASSES: tuple[str, ...] = ("card-number", "email", "iban", "phone-number")


# ---------------------------------------------------------------------------
# Compilation
# ---------------------------------------------------------------------------

_RUN_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_RUN_TABLE = bytes(0x61 if i in _RUN_CHARS else 0x20 for i in range(256))
_RUN_MIN = b"a" * 16
_GROUP_ORDER = "ptksacbh:-"


def _trie_pattern(words: list[bytes], top: bool = True) -> bytes:
    """An alternation of literal ``words`` factored by shared prefixes (``s(?:e(?:ss|cret)|ig=)``).

    At the top level the branches stay bare: ``re`` then knows every first character and skips
    positions that start none of them, and each position tries one branch per first character
    rather than one per word. No word may be a prefix of another (the caller keeps the shorter).
    """
    groups: dict[bytes, list[bytes]] = {}
    for word in words:
        groups.setdefault(word[:1], []).append(word[1:])
    alts = []
    for first, rests in groups.items():
        rests = [r for r in rests if r]
        alts.append(re.escape(first) + (_trie_pattern(rests, top=False) if rests else b""))
    if top or len(alts) == 1:
        return b"|".join(alts)
    return b"(?:" + b"|".join(alts) + b")"


class _Compiled:
    """The combined regex plus its exact candidate prefilter.

    ``rx`` is ONE alternation of all built-in detectors, grouped by first
    character.  ``re`` has no jump table for alternations, so ``rx.search``
    would try it at almost every letter (~1 MB/s).  Instead candidate start
    positions come from C-speed scans -- one search of a plain alternation of
    the start anchors (literals only, so ``re`` skips to their first
    characters), restarted one past each hit so overlapping anchors are all
    reported, and one ``bytes.translate`` + ``find`` pass for long token-like runs --
    and ``rx.match`` runs only there.  Every detector declares how its
    matches are found (see ``_Det``), so this yields exactly the matches
    ``rx.search`` would.  ``xrx`` holds the user's ``extra_patterns``
    (arbitrary regexes, scanned with ``finditer``).
    """

    __slots__ = ("alts", "any_anchor", "by_index", "pres", "run", "rx", "singles", "xrx")

    def __init__(self, dets: list[_Det], extra: tuple[tuple[str, str], ...]) -> None:
        groups: dict[str, list[str]] = {}
        names: dict[str, tuple[_Det, str, str]] = {}
        # per first char, the detectors in alternation order (for fallback)
        alts: dict[str, list[tuple[_Det, str]]] = {}
        self.alts = alts
        self.singles: dict[str, re.Pattern[str]] = {}
        for di, det in enumerate(dets):
            seen = set()
            for ch in det.first:
                if ch in seen:
                    continue
                seen.add(ch)
                pfx = f"d{di}c{ord(ch)}_"
                body = det.rest.replace("@@", pfx)
                names[pfx] = (det, pfx, det.cls)
                groups.setdefault(ch, []).append(f"(?P<{pfx}>{det.lb or ''}{body})")
                alts.setdefault(ch, []).append((det, pfx))
        # most frequent candidate characters first: cheaper alternation walk
        order = sorted(groups, key=lambda ch: (_GROUP_ORDER + ch.lower()).index(ch.lower()))
        self.rx = re.compile(
            "|".join(re.escape(ch) + "(?:" + "|".join(groups[ch]) + ")" for ch in order),
            _FLAGS)
        self.by_index: dict[int, tuple[_Det, str, str]] = {
            idx: names[name] for name, idx in self.rx.groupindex.items() if name in names
        }
        xparts = []
        xnames: dict[str, str] = {}
        for i, (cls, pat) in enumerate(extra):
            re.compile(pat)  # validate early, with a clear error
            lead = re.match(r"\(\?([imsx]+)\)", pat)
            if lead:  # a leading global flag group becomes a scoped one
                pat = f"(?{lead.group(1)}:{pat[lead.end():]})"
            xnames[f"x{i}_"] = cls
            xparts.append(f"(?P<x{i}_>{pat})")
        self.xrx: tuple[re.Pattern[str], dict[int, str]] | None = None
        if xparts:
            xrx = re.compile("|".join(xparts))
            self.xrx = (xrx, {xrx.groupindex[n]: c for n, c in xnames.items()})
        anchors: set[str] = set()
        pres: list[tuple[re.Pattern[str] | str, int, int]] = []
        self.run = False
        for det in dets:
            anchors.update(det.anchors)
            self.run = self.run or det.run
            if det.pre is not None and det.pre not in pres:
                pres.append(det.pre)
        # an anchor that extends a shorter anchor finds a subset of its positions
        kept: list[str] = []
        for a in sorted(anchors, key=len):
            if not any(a.startswith(k) for k in kept):
                kept.append(a)
        # every anchor in one alternation: a single C-level search finds the next position where
        # any of them starts, so text without anchors costs one scan, not one per anchor
        self.any_anchor = re.compile(_trie_pattern([a.encode("ascii") for a in kept])) if kept else None
        self.pres = tuple(pres)

    def single(self, ch: str, det: _Det, pfx: str) -> re.Pattern[str]:
        """One detector copy on its own (same group names), compiled lazily."""
        rx = self.singles.get(pfx)
        if rx is None:
            body = det.rest.replace("@@", pfx)
            rx = re.compile(re.escape(ch) + f"(?P<{pfx}>{det.lb or ''}{body})", _FLAGS)
            self.singles[pfx] = rx
        return rx

    def candidates(self, text: str) -> list[int]:
        """Sorted positions where some built-in detector may start."""
        # same length as text: every non-ASCII code point becomes one "?"
        low = text.encode("ascii", "replace").lower()
        found: list[int] = []
        add = found.append
        if self.any_anchor is not None:
            # searching again one past each hit reports overlapping anchors too
            search = self.any_anchor.search
            m = search(low)
            while m is not None:
                i = m.start()
                add(i)
                m = search(low, i + 1)
        if self.run:
            # a run of 16+ [A-Za-z0-9_.-]: tokens start at the run start, right
            # after an escape (\n, \u0026, %0A), or at a ":" before it (Telegram)
            runs = low.translate(_RUN_TABLE)
            i = runs.find(_RUN_MIN)
            while i >= 0:
                add(i)
                if i:
                    prev = text[i - 1]
                    if prev == "\\":
                        add(i + 1)
                        if low[i] == 0x75:  # \uXXXX
                            add(i + 5)
                    elif prev == "%":
                        add(i + 2)
                    elif prev == ":":
                        add(i - 1)
                e = runs.find(b" ", i)
                if e < 0:
                    break
                i = runs.find(_RUN_MIN, e)
        for rx, lo, hi in self.pres:
            if isinstance(rx, str):  # a literal: str.find is the fastest scan there is
                b = text.find(rx)
                while b >= 0:
                    found.extend(range(max(0, b - hi), b - lo + 1))
                    b = text.find(rx, b + 1)
                continue
            for m in rx.finditer(text):
                b = m.start()
                found.extend(range(max(0, b - hi), b - lo + 1))
        if len(found) > 1:
            found = sorted(set(found))
        return found


@lru_cache(maxsize=32)
def _compiled(personal: bool, extra: tuple[tuple[str, str], ...]) -> _Compiled:
    dets = list(_DETECTORS)
    if personal:
        dets += _PERSONAL
    return _Compiled(dets, extra)


# ---------------------------------------------------------------------------
# Redactor
# ---------------------------------------------------------------------------

_UESC_RE = re.compile(r"u[0-9A-Fa-f]{4}")
_PLACEHOLDER_RE = re.compile(r"\[REDACTED:[a-z0-9][a-z0-9-]{0,40}\]")
_CLASS_NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]*\Z")


class Redactor:
    """Replace secrets in text with ``[REDACTED:<class>]``.

    ``extra_patterns`` maps a class name to a regex; the whole match is
    redacted (checked before the built-in detectors at the same position).
    ``allowlist`` values are never redacted.  ``personal_data`` enables the
    opt-in emails, phone numbers, card numbers (Luhn) and IBANs (mod 97).
    """

    def __init__(
        self,
        *,
        extra_patterns: dict[str, str] | None = None,
        allowlist: Iterable[str] = (),
        personal_data: bool = False,
    ) -> None:
        extra = tuple((extra_patterns or {}).items())
        for cls, _pat in extra:
            if not isinstance(cls, str) or not _CLASS_NAME_RE.match(cls):
                raise ValueError(f"extra pattern class must be kebab-case, got {cls!r}")
        self._c = _compiled(bool(personal_data), extra)
        # the longest class name a placeholder can hold: built-in names fit _PLACEHOLDER_RE's 41
        self.longest_class = max([41, *(len(cls) for cls, _ in extra)])
        self.allowlist = frozenset(allowlist)
        self.personal_data = bool(personal_data)
        self.counts: Counter[str] = Counter()

    # -- internals --------------------------------------------------------

    def _match_at(self, text: str, p: int, *, refine: bool = True
                  ) -> tuple[_Det, tuple[str, int, int] | list[tuple[str, int, int]]] | None:
        """The first detector that matches at ``p`` *and* passes its checks.

        The combined regex reports the first alternative that matches; when
        its check rejects the value, the later alternatives for the same first
        character are tried one by one.
        """
        m = self._c.rx.match(text, p)
        if m is None:
            return None
        det, pfx, _cls = self._c.by_index[m.lastindex]  # type: ignore[index]
        r = self._finish(m, text, det, pfx, refine=refine)
        if r is not None:
            return det, r
        ch = text[p]
        alts = self._c.alts[ch]
        for det2, pfx2 in alts[alts.index((det, pfx)) + 1:]:
            m2 = self._c.single(ch, det2, pfx2).match(text, p)
            if m2 is not None:
                r = self._finish(m2, text, det2, pfx2, refine=refine)
                if r is not None:
                    return det2, r
        return None

    def _finish(self, m: re.Match[str], text: str, det: _Det, pfx: str, *, refine: bool = True
                ) -> tuple[str, int, int] | list[tuple[str, int, int]] | None:
        cls = det.cls
        if det.secret:
            for name in det.secret:
                s, e = m.span(pfx + name)
                if s >= 0:
                    break
            else:
                return None
        else:
            s, e = m.span()
        if det.left is not None:
            lm = det.left.search(text, max(0, s - 80), s)
            if lm is None:
                return None
            s = lm.start()
        if det.check is not None:
            r = det.check(text, s, e, m, pfx)
            if r is None:
                return None
            if isinstance(r, list):
                many = [g for g in (self._guard(c, text, s2, e2) for c, s2, e2 in r) if g is not None]
                return many or None
            if isinstance(r, tuple):
                cls, s, e = r
            else:
                cls = r
        res = self._guard(cls, text, s, e)
        if res is None:
            return None
        cls, s, e = res
        if refine and det.contextual:
            cls = self._refine(text[s:e], cls)
        return cls, s, e

    def _spans(self, text: str, *, refine: bool = True) -> list[tuple[int, int, str]]:
        """All detections as (start, end, class), in discovery order."""
        spans: list[tuple[int, int, str]] = []
        cands = self._c.candidates(text)
        if cands:
            match_at = self._match_at
            # candidates inside an already redacted secret are skipped; the
            # context between a match start and its secret is still scanned
            # (curl ... -H "Authorization: ..." ... -u user:pw)
            blocked: list[tuple[int, int]] = []
            for p in cands:
                if blocked:
                    blocked = [b for b in blocked if b[1] > p]
                    if any(b[0] <= p for b in blocked):
                        continue
                found = match_at(text, p, refine=refine)
                if found is None:
                    continue
                r = found[1]
                if isinstance(r, list):  # several secrets of one structure (a Secret's data values)
                    if spans and spans[-1][1] > r[0][1]:  # what a key named inside them, the structure names
                        spans = [sp for sp in spans if not any(s <= sp[0] and sp[1] <= e for _, s, e in r)]
                    spans.extend((s, e, cls) for cls, s, e in r)
                    blocked.extend((s, e) for _, s, e in r)
                    continue
                cls, s, e = r
                spans.append((s, e, cls))
                blocked.append((s, e))
        if self._c.xrx is not None:
            xrx, names = self._c.xrx
            for m in xrx.finditer(text):
                if m.end() > m.start():
                    r = self._guard(names[m.lastindex], text, m.start(), m.end())  # type: ignore[index]
                    if r is not None:
                        spans.append((r[1], r[2], r[0]))
        return spans

    def _guard(self, cls: str, text: str, s: int, e: int) -> tuple[str, int, int] | None:
        # never start inside an escape sequence (\n, \", \u0041)
        b = 0
        while s - b - 1 >= 0 and text[s - b - 1] == "\\":
            b += 1
        if b % 2 == 1:
            if _UESC_RE.match(text, s):
                s += 5
            else:
                s += 1
        # never end on a dangling escape backslash
        b = 0
        while e - b - 1 >= s and text[e - b - 1] == "\\":
            b += 1
        if b % 2 == 1:
            e -= 1
        if e <= s:
            return None
        if self.allowlist and text[s:e] in self.allowlist:
            return None
        # never redact inside an existing placeholder (idempotence)
        lo = max(0, s - 60)
        for pm in _PLACEHOLDER_RE.finditer(text, lo, min(len(text), e + 60)):
            if pm.start() < e and s < pm.end():
                return None
        return cls, s, e

    def _refine(self, value: str, cls: str) -> str:
        """Name a contextual detection after the vendor token it contains."""
        cands = self._c.candidates(value)
        if not cands:
            return cls
        for p in cands:
            found = self._match_at(value, p, refine=False)
            if found is None:
                continue
            det, r = found
            if isinstance(r, list):
                return cls
            vcls, s, e = r
            if not det.contextual and s == 0 and e >= len(value.rstrip(".,")):
                return vcls
            return cls
        return cls

    # -- public -----------------------------------------------------------

    def redact(self, text: str) -> str:
        """Return ``text`` with every detected secret replaced."""
        out, found = self.redact_found(text)
        if found:
            self.counts.update(found)
        return out

    def redact_found(self, text: str) -> tuple[str, tuple[str, ...]]:
        """The redacted text and the class of each redaction in it, without counting them:
        for callers that remember results and count each reuse themselves."""
        if not text:
            return text, ()
        spans = self._spans(text)
        if not spans:
            return text, ()
        spans.sort(key=lambda t: (t[0], -t[1]))
        merged: list[tuple[int, int, str]] = []
        cur_s, cur_e, cur_c = spans[0]
        for s, e, c in spans[1:]:
            if s < cur_e:  # overlapping detections become one redaction
                cur_e = max(cur_e, e)
            else:
                merged.append((cur_s, cur_e, cur_c))
                cur_s, cur_e, cur_c = s, e, c
        merged.append((cur_s, cur_e, cur_c))
        out: list[str] = []
        last = 0
        for s, e, c in merged:
            out.append(text[last:s])
            out.append("[REDACTED:" + c + "]")
            last = e
        out.append(text[last:])
        return "".join(out), tuple(c for _, _, c in merged)

    __call__ = redact


# ---------------------------------------------------------------------------
# Truncation
# ---------------------------------------------------------------------------

def _is_high(ch: str) -> bool:
    return "\ud800" <= ch <= "\udbff"


def _is_low(ch: str) -> bool:
    return "\udc00" <= ch <= "\udfff"


def _marker(removed: int) -> str:
    return f"\n[... {removed} characters truncated ...]\n"


def _cut_points(text: str, head: int, tail: int) -> tuple[int, int]:
    """Head end / tail start, moved (only ever shrinking what is kept) so
    that neither a surrogate pair nor a ``[REDACTED:...]`` placeholder is split."""
    n = len(text)
    h, t = head, n - tail
    if 0 < h < n and _is_high(text[h - 1]) and _is_low(text[h]):
        h -= 1
    for pm in _PLACEHOLDER_RE.finditer(text, max(0, h - 60), min(n, h + 60)):
        if pm.start() < h < pm.end():
            h = pm.start()
    for pm in _PLACEHOLDER_RE.finditer(text, max(0, t - 60), min(n, t + 60)):
        if pm.start() < t < pm.end():
            t = pm.end()
    if 0 < t < n and _is_low(text[t]) and _is_high(text[t - 1]):
        t += 1
    return h, max(t, h)


def truncate_head_tail(text: str, limit: int) -> str:
    """Keep ~2/3 head and ~1/3 tail of ``text`` within ``limit`` characters.

    The cut is marked with ``"\\n[... N characters truncated ...]\\n"``, N the
    exact number of characters removed; the result is never longer than
    ``limit``.  Surrogate pairs and ``[REDACTED:...]`` placeholders are never
    split.  Limits too small for that marker (below ~50) get a single ``…``.
    Apply it after ``Redactor.redact`` so a cut can never expose half a secret.
    """
    if limit <= 0:
        return ""
    n = len(text)
    if n <= limit:
        return text
    full = len(_marker(n))  # the longest marker this text can need
    if limit >= full + 10:
        keep = limit - full
        h, t = _cut_points(text, (keep * 2 + 2) // 3, keep - (keep * 2 + 2) // 3)
        return text[:h] + _marker(n - h - (n - t)) + text[t:]
    keep = limit - 1
    if keep <= 0:
        return "\u2026"
    h, t = _cut_points(text, (keep * 2 + 2) // 3, keep - (keep * 2 + 2) // 3)
    return text[:h] + "\u2026" + text[t:]
