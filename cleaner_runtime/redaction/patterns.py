"""What secrets, and the keys that name them, look like: the pieces every detector is made of.

* regex building blocks: the boundary before a match, a quote and an unquoted value in every
  encoding a trace uses (raw, JSON-escaped at any depth, URL-encoded, HTML-escaped);
* value heuristics: placeholders, and whether a token's random part looks random;
* keys and values: which keys name a secret and with what class (the same rules for
  ``DB_PASSWORD=``, ``<Password>`` and ``name="password"``), and which values assigned to them
  are secrets worth redacting;
* vendors: the vendor a generic key's value belongs to, from the key's name or the text before it;
* the placeholder a redaction leaves behind.

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

import re

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
# An angle placeholder names something in words (<password>, <your token>, <DB_PASS>, <%= pw %>): a
# random password holding "><n-!-k>" or "<LcKXx>" is not one.
# The same for a template's ${NAME} and a format's %(name)s: "Bv9%xz?_${O-]49Q" is no template.
_MASK_RE = re.compile(
    r"xxxxx|XXXXX|\*\*\*|\.\.\.|\u2026|\{\{[^{}]{0,80}\}\}|\$\{[^}\s]{1,64}\}|%\(\w{1,40}\)|EXAMPLE|\[REDACTED"
    r"|<(?:%[=\- #]|(?:[A-Z]?[a-z]+|[A-Z]+)(?:[ _.:-]+(?:[A-Z]?[a-z]+|[A-Z]+|\d+))*>)",
    _FLAGS)
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
# Keys and their values (assignments and markup alike)
# ---------------------------------------------------------------------------

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
              sep: str | None, partial: bool = False, markup: bool = False, extended: bool = False) -> bool:
    """Whether ``value`` (assigned to ``key``) is a secret worth redacting.

    ``partial``: ``value`` is only the first part of a long unquoted value;
    the checks that need its end are skipped (the caller re-checks).
    ``markup``: an element's text or a ``value`` attribute, never code, so an
    identifier ending in a keyword is a name only without digits
    (``<password>myPassword</password>`` vs ``<password>hunter2secret</password>``).
    ``extended``: an unquoted value taken past the brackets and separators it holds
    (``checks._extend_value``), never a label: it may end with ":".
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
        if v[-1] == ":" and not extended:
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


# what may precede "key" for the key to name a secret (api_key, x-api-key,
# secretAccessKey, AZURE_STORAGE_ACCOUNT_KEY, private_key_id, ...)
_KEY_PREFIXES = (
    "api", "access", "account", "auth", "encryption", "master", "private", "signing",
    "secret", "sharedaccess", "client", "app", "admin", "service", "subscription",
    "license", "webhook", "deploy", "consumer", "write", "ingest", "personal", "primary",
    "secondary", "storage", "bot", "hmac", "root", "session", "application",
)


_NOT_CREDENTIAL_TOKENS = (
    "nexttoken", "pagetoken", "continuationtoken", "clienttoken", "paginationtoken",
    "synctoken", "inputtoken", "outputtoken", "idempotencytoken", "cursortoken", "starttoken",
    "resumetoken", "updatetoken", "changetoken", "verificationtoken", "publickeytoken",
    "maxtoken", "lasttoken", "prevtoken", "previoustoken",
)
_NOT_PASS = ("bypass", "compass", "surpass", "overpass", "underpass", "trespass", "impass")


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


# --- vendors ---------------------------------------------------------------

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
        # an auth token is named by the account SID before it as well (no "twilio" needed)
        (r"twilio", r"twilio|\b(?-i:AC)[0-9a-f]{32}\b", r"[0-9a-f]{32}\Z", "twilio-auth-token"),
        # an API key's secret (32 letters and digits): only under a key that says "secret"
        (r"twilio.*secret", r"twilio|\b(?-i:SK)[0-9a-f]{32}\b", r"[A-Za-z0-9]{32}\Z", "twilio-api-secret"),
        (r"cloudflare|^cf(?:api|token)", r"cloudflare", r"[0-9a-f]{37}\Z|[A-Za-z0-9_-]{40}\Z",
         "cloudflare-api-key"),
        (r"algolia", r"algolia", r"[0-9a-f]{32}\Z", "algolia-api-key"),
        (r"azure|storage|account", r"azure|windows\.net|storage", r"[A-Za-z0-9+/]{86}==\Z",
         "azure-storage-key"),
        # S3 names AWS too: Hadoop's fs.s3a.secret.key, an `s3:` settings block
        (r"aws|amazon|s3", r"\baws\b|amazonaws|\bs3a?\b|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", r"[A-Za-z0-9+/]{40}\Z",
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
        if cls == "twilio-api-secret" and "secret" not in flat:
            continue  # an auth_token of letters and digits beside an API key is no API secret
        if key_rx.search(flat) is not None:
            return cls
        if at is None:
            continue
        if near is None:
            near = text[max(0, at - _VENDOR_NEAR):at]
        if near_rx.search(near) is not None:
            return cls
    return kind


# ---------------------------------------------------------------------------
# Placeholders
# ---------------------------------------------------------------------------

# what a redaction leaves behind (the engine never redacts inside one; truncation never cuts one)
PLACEHOLDER_RE = re.compile(r"\[REDACTED:[a-z0-9][a-z0-9-]{0,40}\]")
