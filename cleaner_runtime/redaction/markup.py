"""Keys and values written as markup: ``<password>value</password>``, ``<add key="ApiKey" value="..."/>``.

Keys that name a secret are found in assignments (``DB_PASSWORD=``,
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
element text and attribute values are judged as quoted values.

The markup forms are branches of the keyword detectors (``detectors._keyword_tail``, same
anchors), tried only where an assignment is not found; the checks here look back for the ``<``
that makes the keyword a tag name, or for the ``name=``/``key=`` attribute it closes and the
tag's ``value=`` attribute.
"""

from __future__ import annotations

import re

from .checks import (
    _tf_variable_check,
)
from .patterns import (
    _FLAGS,
    _KEY_CHARS,
    _UUID_RE,
    _key_kind,
    _key_name,
    _value_ok,
    _vendor_kind,
)

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
