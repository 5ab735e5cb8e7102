"""The check each detector runs on its match: is this really a secret, of which class, and where.

A detector's regex finds a candidate cheaply; its check looks closer (the random part of a
vendor token, a JWT's header, Luhn, mod 97, the command a credential flag belongs to, the
credential file or Kubernetes Secret around a value) and decides. A check is called as
``check(text, start, end, match, prefix)`` (``prefix`` is the detector's group-name prefix in
its regex) and returns None (not a secret), a class, ``(class, start, end)`` to move the
span, or a list of those when one match reveals several secrets (a Secret's data values).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from .patterns import (
    _AZURE_KEY_RE,
    _CODE_CHAIN_RE,
    _ESC_TAIL,
    _FLAGS,
    _KNOWN_EXAMPLES,
    _PLACEHOLDER_WORDS,
    _UUID_RE,
    _UV_CAP,
    _UV_MORE_RE,
    _WORDS_RE,
    _categories,
    _is_placeholder,
    _key_kind,
    _key_name,
    _token_ok,
    _value_ok,
    _vendor_kind,
    _word_start,
)

# check(text, start, end, match, prefix) -> None (reject) | class | (class, s, e)
# (a list: several secrets found from one match, such as the values of a Kubernetes Secret's data)
_Check = Callable[[str, int, int, "re.Match[str]", str],
                  "str | tuple[str, int, int] | list[tuple[str, int, int]] | None"]


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
    return ("jwt", s, s + _jwt_length(v))


def _jwt_length(v: str) -> int:
    """How much of the match ``v`` is the token. The signature may be standard base64 (``+``, ``/``,
    ``=`` padding, as hand-rolled signers write it) -- but a ``/`` in a signature with neither ``+``
    nor padding is a URL path glued to the token (``/verify/eyJ...sig/confirm``): cut there."""
    i = v.find(".", v.find(".") + 1)  # the dot before the signature
    if i < 0:
        return len(v)
    sig = v[i + 1:]
    if "/" in sig and "+" not in sig and not sig.endswith("="):
        return i + 1 + sig.index("/")
    return len(v)


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
    return _twilio_user_class(user, v) or "url-password"


_TWILIO_SID_RE = re.compile(r"(?P<k>AC|SK)[0-9a-f]{32}\Z", _FLAGS)


def _twilio_user_class(user: str, password: str) -> str | None:
    """The class of a password whose user is a Twilio account SID (an auth token, 32 hex digits) or
    API key (its secret, 32 letters and digits): ``curl -u AC...:token``, ``https://AC...:token@``."""
    um = _TWILIO_SID_RE.match(user)
    if um is None:
        return None
    if um.group("k") == "AC":
        return "twilio-auth-token" if re.fullmatch(r"[0-9a-f]{32}", password) else None
    return "twilio-api-secret" if re.fullmatch(r"[A-Za-z0-9]{32}", password) else None


# a port and a path ("host:8080/@scope/pkg"), or an IPv6 host ("[::1]:8080/x?from=a@b"), before an "@"
_URL_NOT_USERINFO_RE = re.compile(
    r"(?:\d{1,5}(?:(?:/|\\/)[\w.~%+-]*)*(?:[?#][\w.~%&=+-]*)?|[^@]*\]:\d.*)\Z", _FLAGS)


def _url_pw_loose_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | tuple[str, int, int] | None:
    """A URL password holding what a URL should have encoded (``/``, ``?``, ``#``:
    ``jdbc:postgresql://u:f=B#7/x@db/app``), tried where the strict form found none: the password
    ends at the first ``@`` before a host. Not a port and a path (``http://host:4873/@scope/pkg``)."""
    if m.group(p + "user").startswith("[") or _URL_NOT_USERINFO_RE.match(text[s:e]) is not None:
        return None
    return _url_pw_check(text, s, e, m, p)


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


def _curl_user_check(check: _Check) -> _Check:
    """``check`` (curl's ``-u user:password``), naming the password after a Twilio SID user."""
    def named(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
        cls = check(text, s, e, m, p)
        if cls is None:
            return None
        return _twilio_user_class(m.group(p + "user"), text[s:e]) or cls
    return named


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


def _slack_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    v = text[s:e]
    if v in _KNOWN_EXAMPLES or _is_placeholder(v[5:]):
        return None
    if not any(c.isdigit() for c in v[5:]) or len(set(v[5:])) < 6:
        return None
    return "slack-token"


# --- generic key/value assignments -----------------------------------------


# `aws configure set aws_secret_access_key VALUE`, `npm config set //host/:_authToken VALUE`,
# `git config --global github.token VALUE`, `setx DB_PASSWORD "x"`, Dockerfile `ENV DB_PASSWORD x`:
# a key and its value separated by blanks only
_SET_CMD_RE = re.compile(
    r"(?:\bconfig(?:ure)?[ \t]+set|\bconfig(?:[ \t]+--(?:global|local|system|file[ \t=]+\S+))?"
    r"|\bsetx|\bset(?:[ \t]+-[A-Za-z]{1,4})+|^[ \t]*ENV|\\n[ \t]*ENV|\bset-item[ \t]+env:)[ \t]+\S*\Z",
    re.ASCII | re.IGNORECASE | re.MULTILINE)


def _set_command_before(text: str, start: int, end: int) -> bool:
    """``_SET_CMD_RE`` finds a setting command ending at ``end`` (searched from ``start``).

    Every match holds "config", "set" or "env" in ASCII letters of any case, so a line without
    them is rejected by ``str`` searches: a sentence holding "session" or "token" costs about 1 us
    here instead of the ~15 us of a regex search tried at each of its positions."""
    seg = text[start:end].lower()
    if "set" not in seg and "env" not in seg and "config" not in seg:
        return False
    return _SET_CMD_RE.search(text, start, end) is not None


def _blank_value_rejected(text: str, ki: int) -> bool:
    """A key starting at ``ki`` and separated from its value by blanks only is prose
    ("password hunter2", "the session token budget"), unless the key is a flag (--password
    hunter2) or follows a setting command (``aws configure set``).

    Most keyword matches in trace text are this form, so the keyword check asks it first (and
    the detector's check before building anything else): it rejects the keyword of every
    sentence at once."""
    if text.startswith("-", ki):
        return False
    # the key's line, at most 120 characters of it (plain branches: cheaper than two max() calls
    # in this path taken by most keyword matches)
    lo = ki - 120 if ki > 120 else 0
    nl = text.rfind("\n", lo, ki)
    return not _set_command_before(text, nl + 1 if nl >= 0 else lo, ki)


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


# An unquoted value stops at the characters that may end it in code or a list (, ; ( ) [ ] { } < > &),
# but a password holds them too: DB_PASSWORD=HZzrv(}jOXBue5BZ, Pwd=aB3;cD9e;Server=db. Past such a
# stop the value goes on to the next blank or quote, short of another key=value pair, of an HTML
# entity, and of the punctuation that closes what the assignment stands in ("f(password=x1, h=2)").
_RAW_SEPS = frozenset(("=", ":", ":=", "=>"))
_GLUE = frozenset(",;(){}[]<>&")
_VALUE_END = frozenset(" \t\r\n\"'`\\")
# another key=value after the value (";Server=db", ",host=db", "&next=1"), or an HTML entity
_NEXT_PAIR_RE = re.compile(
    r"[;,&][ \t]*[A-Za-z_][\w.\[\]-]{0,64}=|&(?:amp|quot|lt|gt|apos|#\d{1,6}|#x[0-9A-Fa-f]{1,6});", _FLAGS)
_PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}
# what never follows the "(" or "[" of a call or a subscript in code
_NO_ARGUMENT = frozenset("}]>;=|&^%?/#,")
# what a call's or a subscript's arguments are made of (a password's tail holds other characters too)
_CODEISH_RE = re.compile(r"[\w.()\[\],=+*:-]*\Z", _FLAGS)
# where a string literal argument starts: after an opener, a comma, "=" or a prefix (f", b')
_STRING_ARG_RE = re.compile(r"(?:[(\[,=]|[(\[,= ][bBfFrRuU]{1,2})\Z", _FLAGS)
# only the punctuation that closes what the value stands in: "None):", "x),", "y]];"
_CLOSING_RE = re.compile(r"[)\]}>:;,.]+\Z", _FLAGS)
# a call with its arguments, a method called on a result, a named format field: code, not a password
_CODE_MARK_RE = re.compile(r"[A-Za-z_]\w*\([\w.,\[\]:=*+-]*\)|\)\.|\.[A-Za-z_]\w*\(|\{[A-Za-z_][\w.]*\}", _FLAGS)
_VALUE_MAX = 256


def _opened_before(before: str, closer: str) -> bool:
    """The text ``before`` a key, on its line, leaves open a bracket that ``closer`` closes, outside
    any string that holds the key (``User(name="x", password=...``: yes; ``{"cmd": "PW=...``: the
    ``{`` is JSON around the string that holds the assignment, no)."""
    opener = _PAIRS[closer]
    depth = 0
    for i in range(len(before) - 1, -1, -1):
        ch = before[i]
        if ch == closer:
            depth += 1
        elif ch == opener:
            if depth == 0:
                return before.count('"', i) % 2 == 0 and before.count("'", i) % 2 == 0
            depth -= 1
    return False


def _over_closed(value: str, closer: str) -> bool:
    """``value`` holds more of ``closer`` than of the bracket it closes."""
    return value.count(closer) > value.count(_PAIRS[closer])


def _closed(tail: str) -> bool:
    """No bracket of ``tail`` is left open (a call or subscript that ends in it)."""
    return all(tail.count(c) >= tail.count(o) for c, o in _PAIRS.items())


# Go's encoding/json writes <, > and & as \u003c, \u003e, \u0026: inside a value they are its characters
_GO_ESC_RE = re.compile(r"\\u00(?:3[cCeE]|26)", _FLAGS)
_GO_CHARS = {"3c": "<", "3e": ">", "26": "&"}


def _glued(text: str, e: int) -> bool:
    """A value stopped at ``e`` by a character a password may hold (raw or Go-escaped)."""
    return text[e] in _GLUE or _GO_ESC_RE.match(text, e) is not None


def _decoded(raw: str) -> tuple[str, list[int]]:
    """``raw`` with its Go escapes decoded, and the offset in ``raw`` of each decoded character (plus
    the end), so that a cut made in the decoded text maps back."""
    out: list[str] = []
    at: list[int] = []
    i = 0
    while i < len(raw):
        gm = _GO_ESC_RE.match(raw, i) if raw[i] == "\\" else None
        at.append(i)
        if gm is not None:
            out.append(_GO_CHARS[raw[i + 4:i + 6].lower()])
            i = gm.end()
        else:
            out.append(raw[i])
            i += 1
    at.append(len(raw))
    return "".join(out), at


def _extend_value(text: str, s: int, e: int) -> int:
    """Where the unquoted value ``text[s:e]``, stopped at one of ``_GLUE``, really ends (``e`` when it
    does end there). Code is left alone: a bracket closing what was opened before the key
    (``f(password=pw).x``), a name called or subscripted (``getpass.getpass()``,
    ``os.environ.get('X')``, ``hash_pw(pw, salt)``, ``tag[i+1 : n]``), a format field (``{self.id}``)."""
    head = text[s:e]
    c = _decoded(text[e:e + 6])[0][0]
    line = max(text.rfind("\n", 0, s), text.rfind("\\n", 0, s), s - 200, -1) + 1
    before = text[line:s]
    if c in _PAIRS and _opened_before(before, c):
        return e  # closes the call or block the assignment stands in
    limit = min(len(text), s + _VALUE_MAX)
    j = e
    while j < limit and (text[j] not in _VALUE_END or (text[j] == "\\" and _GO_ESC_RE.match(text, j))):
        j += 6 if text[j] == "\\" else 1
    j = min(j, len(text))
    if j >= limit and j < len(text) and text[j] not in _VALUE_END:
        return e  # longer than any password: not one
    tail, at = _decoded(text[e:j])
    pm = _NEXT_PAIR_RE.search(tail)
    if pm is not None:
        tail = tail[:pm.start()]
    while tail and (tail[-1] in ",;" or (tail[-1] in _PAIRS and _over_closed(head + tail, tail[-1])
                                           and _opened_before(before, tail[-1]))):
        tail = tail[:-1]
    whole = _decoded(text[e:j])[0]
    if _CLOSING_RE.match(whole) is not None:
        return e  # the end of a call or block opened on an earlier line: login=None):
    if c in "([" and _CODE_CHAIN_RE.match(head) is not None and tail[1:2] not in _NO_ARGUMENT:
        at_quote = j < len(text) and text[j] in "\"'`\\"
        at_end = at_quote or j >= len(text) or text[j] in "\r\n"
        if whole[-1:] in (",", "(", "[", "{") or (at_quote and _STRING_ARG_RE.search(whole)) or (
                _CODEISH_RE.match(tail) is not None and (_closed(tail) or not at_end)):
            return e  # a name called or subscripted: the value is code ("HZzrv(}j..." is not)
    if _CODE_MARK_RE.search(head + tail) is not None:
        return e
    return e + at[len(tail)]


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
    if m.group(p + "ws") is not None and _blank_value_rejected(text, ki):
        return None
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
    longer = e
    if not quoted and sep in _RAW_SEPS and e < len(text) and _glued(text, e):
        longer = _extend_value(text, s, e)
    if longer > e and _value_ok(kind, key, text[s:longer], quoted=False, text=text, vend=longer, sep=sep,
                                extended=True):
        e, value = longer, text[s:longer]
    elif not _value_ok(kind, key, value, quoted=quoted, text=text, vend=e, sep=sep):
        return None
    if kw.lower() == "auth" and prefix in ("", "_") and _is_basic_pair(value):
        return ("basic-auth", s, e)  # Docker config.json auths, npm's _auth: base64 of user:password
    return (_vendor_kind(key, kind, value, text, ki), s, e)


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


_TWILIO_SECRET_RE = re.compile(r"[^\r\n]{0,40}?(?<![0-9A-Za-z])(?P<t>[A-Za-z0-9]{32})(?![0-9A-Za-z])", _FLAGS)


def _twilio_key_check(text: str, s: int, e: int, m: re.Match[str], p: str
                      ) -> str | list[tuple[str, int, int]] | None:
    """A Twilio API key (SK + 32 hex digits), and its secret when one follows on the line
    (``Client('SK...', '<secret>', 'AC...')``)."""
    if len(set(text[s + 2:e])) < 8:
        return None  # SK000...000, SKxxxx placeholders
    tm = _TWILIO_SECRET_RE.match(text, e)
    if tm is not None and _categories(tm.group("t")) == 3 and not _is_placeholder(tm.group("t")):
        return [("twilio-api-key", s, e), ("twilio-api-secret", *tm.span("t"))]
    return "twilio-api-key"


def _terraform_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    """A Terraform Cloud / Enterprise token: 14 characters, ``.atlasv1.``, 60-70 more; both parts
    random-looking."""
    head, _, body = text[s:e].partition(".atlasv1.")
    if not (_token_ok(head, min_distinct=8) and _token_ok(body, min_distinct=12)):
        return None
    return "terraform-cloud-token"


# the separator between "secret access key" and its value: blanks, a prompt's [default], ":", "=",
# "|" (a table), "is"/"was" (prose)
_AWS_GAP_RE = re.compile(r"[ \t]*(?:\[[^\]\r\n]{0,40}\][ \t]*)?(?:[:=|]|\bis\b|\bwas\b)?[ \t]*\Z", _FLAGS)


def _aws_phrase_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
    """An AWS secret access key named by the words before it, with no key id beside it: the
    ``aws configure`` prompt (``AWS Secret Access Key [None]: ...``), a table cell, a console's
    ``Secret access key: ...``, prose. 40 base64 characters with upper, lower case and digits (a
    git SHA or hex hash has no upper case). "secret key" without "access" only right before the
    value; "secret access key" up to a few words before it ("... for the ci user is <key>")."""
    v = text[s:e]
    if _categories(v) < 3 or len(set(v)) < 12 or v in _KNOWN_EXAMPLES or _is_placeholder(v) or _WORDS_RE.match(v):
        return None
    gap = m.group(p + "gap")
    if m.group(p + "acc") is None and _AWS_GAP_RE.match(gap) is None:
        return None
    return "aws-secret-access-key"


_AWS_VALUE_RE = re.compile(r"[A-Za-z0-9+/]{40}\Z", _FLAGS)
_CSV_ROWS = 64


def _aws_csv_check(text: str, s: int, e: int, m: re.Match[str], p: str) -> list[tuple[str, int, int]] | None:
    """A CSV whose header names a "Secret access key" column (the IAM console's credentials file), and
    that column's value in each row below it (the rows with a key id are found by the key id too)."""
    raw_nl, esc_nl = text.find("\n", e), text.find("\\n", e)
    nl = "\\n" if esc_nl >= 0 and (raw_nl < 0 or esc_nl < raw_nl) else "\n"  # the header's line end
    start = max(text.rfind(nl, 0, s) + len(nl), 0) if text.rfind(nl, 0, s) >= 0 else 0
    start = max(start, text.rfind('"', start, s) + 1)  # inside the JSON string that holds the CSV
    end = text.find(nl, e)
    if end < 0:
        return None
    header = text[start:end].split(",")
    col = [i for i, name in enumerate(header) if name.strip(" \t\\").lower() == "secret access key"]
    if not col or len(header) < 2:
        return None
    out: list[tuple[str, int, int]] = []
    pos = end + len(nl)
    for _ in range(_CSV_ROWS):
        stop = text.find(nl, pos)
        quote = text.find('"', pos, stop if stop >= 0 else len(text))
        if quote >= 0:  # the string that holds the CSV ends in this row
            stop = -1
        row = text[pos:quote if quote >= 0 else stop if stop >= 0 else len(text)]
        cells = row.split(",")
        if len(cells) != len(header):
            break
        at = pos + sum(len(c) + 1 for c in cells[:col[0]])
        v = cells[col[0]].strip(" \t").rstrip("\"'\\")  # (the last cell may end its string)
        at += len(cells[col[0]]) - len(cells[col[0]].lstrip(" \t"))
        if _AWS_VALUE_RE.match(v) and _categories(v) == 3 and not _is_placeholder(v):
            out.append(("aws-secret-access-key", at, at + len(v)))
        if stop < 0:
            break
        pos = stop + len(nl)
    return out or None


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
