"""Every detector, in match order: the table the engine compiles, and the classes it names.

Order matters within a first character: of the detectors that match at one position, the
earlier one wins (the specific before the generic key/value assignments, which come last).

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
Registries and SaaS: ``terraform-cloud-token`` (``<14>.atlasv1.<67>``), ``twilio-api-key``
(``SK`` + 32 hex digits), ``npm-token``, ``pypi-token``, ``rubygems-token``,
``dockerhub-token``, ``sendgrid-api-key``, ``shopify-token``, ``linear-api-key``,
``notion-token``, ``digitalocean-token``, ``vault-token``,
``atlassian-api-token``, ``databricks-token``, ``sentry-token``, ``grafana-token``,
``postman-api-key``, ``new-relic-key``, ``supabase-token``, ``doppler-token``,
``heroku-api-key`` (``HRKU-`` tokens, and UUID keys named by their context).
Prefix-less vendor keys, named when the key's name or the text just before it
names the vendor (``DD_API_KEY=``, ``datadog.yaml``'s ``api_key:``, a ``.netrc``
entry for ``api.heroku.com``, ``heroku auth:token``) and the value has the vendor's
shape: ``datadog-api-key``, ``datadog-app-key``, ``twilio-auth-token`` (also named by the
account SID before it), ``twilio-api-secret`` (an API key's secret),
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
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .checks import (
    _auth_check,
    _aws_csv_check,
    _aws_id_check,
    _aws_phrase_check,
    _az_keys_json_check,
    _az_keys_tsv_check,
    _azure_cs_check,
    _b64_pem_check,
    _bearer_check,
    _blank_value_rejected,
    _card_check,
    _Check,
    _cmd_flag_check,
    _conf_value_check,
    _cookie_check,
    _curl_user_check,
    _discord_check,
    _doppler_check,
    _email_check,
    _expect_send_check,
    _generic_check_kw,
    _go_dsn_check,
    _heroku_token_check,
    _htpasswd_check,
    _iban_check,
    _jwt_check,
    _k8s_check,
    _k8s_output_check,
    _pem_check,
    _pgpass_check,
    _pgpass_file_check,
    _phone_check,
    _printed_check,
    _secret_string_check,
    _simple_value_check,
    _sk_check,
    _slack_check,
    _sql_identified_check,
    _sql_netrc_check,
    _ssm_check,
    _sudo_stdin_check,
    _telegram_check,
    _telegram_left,
    _terraform_check,
    _twilio_key_check,
    _twilio_pair_check,
    _url_pw_check,
    _url_pw_loose_check,
    _url_sig_check,
    _webhook_check,
    _word_cmd_check,
)
from .markup import (
    _ATTR_OPEN,
    _ELEMENT_RE,
    _NOGROUP_RE,
    _PLIST_RE,
    _TAG_OPEN,
    _attribute_check,
    _element_check,
    _markup_tail,
    _plist_check,
)
from .patterns import (
    _ESC_TAIL,
    _FLAGS,
    _KNOWN_EXAMPLES,
    _LB,
    _LBR,
    _NEWLINE,
    _Q,
    _SEP,
    _UV_CAP,
    _UV_CHAR,
    _key_name,
    _token_ok,
)

# ---------------------------------------------------------------------------
# Detector machinery
# ---------------------------------------------------------------------------


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

    ``reject(text, m, p)``, optional, is a shortcut of ``check``: True only for matches the check
    surely rejects, asked first so that the common rejections skip building what the check reads
    (the keyword detectors' prose, see ``_blank_value_prose``).  False decides nothing.
    """

    __slots__ = (
        "anchors", "check", "cls", "contextual", "first", "lb", "left", "pre",
        "reject", "rest", "run", "secret",
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
        reject: Callable[[str, re.Match[str], str], bool] | None = None,
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
        self.reject = reject
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


# ---------------------------------------------------------------------------
# Detector table (order matters within a first character: earlier wins)
# ---------------------------------------------------------------------------


def _keyword_tail() -> str:
    """Tail after a secret-ish keyword: quote, separator, value; or markup.

    The markup branches come last, so they only add detections, and capture
    nothing (every group in the detector's regex costs each ``match`` call; the
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
            contextual=True, reject=_blank_value_prose,
        ))
    return dets


def _generic_wrap(ch: str) -> _Check:
    def check(text: str, s: int, e: int, m: re.Match[str], p: str) -> str | None:
        if m.group(p + "ws") is not None:  # `key <blank> value`: most keyword matches, mostly prose
            return _blank_value_check(text, s, e, m, p)
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
        return _generic_check_kw(text, s, e, m, p, kw)
    return check


def _blank_value_check(text: str, s: int, e: int, m: re.Match[str], p: str
                       ) -> str | tuple[str, int, int] | list[tuple[str, int, int]] | None:
    """The keyword check of a `key <blank> value` match (the ``ws`` branch: never markup's).

    The shared check rejects the prose form whatever else holds, so it is not asked then (most
    keyword matches in trace text are "the session token ..."). When it rejects the match, the
    assignment branch may have taken markup for `key <blank> value`; what stands before the key
    tells cheaply (prose: a blank)."""
    ki = m.start() - len(_key_name(text, m.start()))
    kw = text[m.start()] + m.group(p + "kw0")
    r = None if _blank_value_rejected(text, ki) else _generic_check_kw(text, s, e, m, p, kw)
    if r is None:
        markup = _markup_around(text, ki, m, p)
        if markup == "attribute":  # name="password" value="..."
            return _attribute_check(text, m.start(), kw, m.group(p + "kq"), m.end(p + "kq"))
        if markup == "element":  # <password encrypted="no">
            em = _ELEMENT_RE.match(text, m.end(p + "kw0"))
            if em is not None:
                return _element_check(text, em, m.start(), kw)
    return r


def _markup_around(text: str, ki: int, m: re.Match[str], p: str) -> str | None:
    """The markup a `key <blank> value` match whose key starts at ``ki`` may stand in, by what
    stands before the key: "attribute" (a quoted key after an attribute opener), "element" (a
    key opening a tag), or None (prose: a blank)."""
    before = text[ki - 1:ki]
    if m.group(p + "kq") is not None:
        return "attribute" if before in _ATTR_OPEN else None
    return "element" if before in _TAG_OPEN else None


def _blank_value_prose(text: str, m: re.Match[str], p: str) -> bool:
    """True when the keyword check surely rejects ``m``: a `key <blank> value` match read as prose
    (``_blank_value_rejected``) whose key stands in no markup either (``_markup_around``), the
    forms ``_blank_value_check`` tries after the prose rejection.

    About four in five keyword matches in trace text ("the session token budget"); this says so
    without the spans, keyword and calls of ``_finish`` and the check."""
    if m.group(p + "ws") is None:
        return False
    ks = m.start()
    ki = ks - len(_key_name(text, ks))
    return _blank_value_rejected(text, ki) and _markup_around(text, ki, m, p) is None


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


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
    # Terraform Cloud / Enterprise: <14>.atlasv1.<67>, starting 15 characters before the "atlasv1" that
    # str.find finds (an anchor starting "." would be tried at every full stop of prose)
    add(_Det("terraform-cloud-token", _ALNUM, r"[A-Za-z0-9]{13}\.atlasv1\.[A-Za-z0-9_=-]{60,}", (),
             pre=("atlasv1", 15, 15), check=_terraform_check, lb=_LBR))
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
    # (segments padded with "=" and a standard-base64 signature too: some signers write them; the
    # check cuts a URL path glued to a signature)
    add(_Det("jwt", "e",
             r"yJ[A-Za-z0-9_-]{14,}={0,2}\.[A-Za-z0-9_-]{8,}={0,2}\.[A-Za-z0-9_+/-]*={0,2}"
             r"(?:\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)?",  # a JWE's two more (not a file's ".json")
             (), pre=("eyJ", 0, 0), check=_jwt_check, lb=None))  # (glued to a word too: the header decides)

    # ---- URL credentials ----
    add(_Det("url-password", ":",
             r"(?:\\?/){2}(?P<@@user>[^\s:/@\"'`<>\\]{0,128}):"
             r"(?P<@@s>[^\s/@?#\"'`<>\\](?:[^\s/?#\"'`\\]|\\u00(?:3[cCeE]|26)){0,256})@(?=[A-Za-z0-9\[_-])",
             (":/", ":\\/"), secret=("s",), check=_url_pw_check, lb=None,
             contextual=True))
    # the same where the password holds "/", "?" or "#" (unencoded): up to the first "@" before a host
    add(_Det("url-password", ":",
             r"(?:\\?/){2}(?P<@@user>[^\s:/@\"'`<>\\]{0,128}):"
             r"(?P<@@s>(?:[^\s@\"'`\\]|\\/|\\u00(?:3[cCeE]|26)){1,256}?)@(?=[A-Za-z0-9\[_-])",
             (":/", ":\\/"), secret=("s",), check=_url_pw_loose_check, lb=None,
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
             ("-u", "--user", "--proxy-user"), secret=("s",),
             check=_curl_user_check(_cmd_flag_check("password", curl)),
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
    # Twilio API keys (SK + 32 hex digits), and the secret right after one
    add(_Det("twilio-api-key", "S", r"K[0-9a-f]{32}(?![A-Za-z0-9])", (), check=_twilio_key_check, run=True,
             lb=_LBR))
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

    # AWS secret access key named by words, no key id beside it: "AWS Secret Access Key [None]: ...",
    # "| aws_secret_access_key | ... |", "the secret access key ... is ...", "secret key: ..."
    for ch in "sS":
        add(_Det("aws-secret-access-key", ch,
                 r"(?i:ecret)(?P<@@acc>[ _.-]?(?i:access))?[ _.-]?(?i:key)(?![A-Za-z0-9])"
                 r"(?P<@@gap>[^\r\n\"'`\\]{0,60}?)(?<![A-Za-z0-9+/=])(?P<@@s>[A-Za-z0-9+/]{40})(?![A-Za-z0-9+/=])",
                 ("secret",), secret=("s",), check=_aws_phrase_check, lb=_LB))
        # a CSV header's "Secret access key" column: its values in the rows below
        add(_Det("aws-secret-access-key", ch, r"(?i:ecret access key)(?=[ \t]*(?:,|" + _NEWLINE + "))",
                 ("secret access key",), check=_aws_csv_check, lb=_LB))

    # ---- generic key/value assignments (last: most specific wins first) ----
    d.extend(_keyword_dets())
    return d


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
       "cloudflare-api-key", "algolia-api-key", "twilio-api-secret"}
))
PERSONAL_CLASSES: tuple[str, ...] = ("card-number", "email", "iban", "phone-number")
