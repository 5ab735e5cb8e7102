"""Secrets in markup: XML elements named by a secret key and name/value attribute pairs.

Agents ``cat`` config files (Maven settings.xml, App.config, Spring beans,
phpunit.xml) into traces; the values there sit between tags or in a
``value`` attribute rather than after ``=``/``:``.  Expected outputs are
written out by hand; the property test puts each form into random text under
every escaping a trace uses (JSON to two levels, Go's ``\\u003c``, PHP's
``\\/``, HTML entities).
"""

from __future__ import annotations

import html
import json
import os
import random
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redaction_support import MAKERS, EveryPosition, leaks, load_redact, password

redact_mod = load_redact()
Redactor = redact_mod.Redactor


def redact(text: str) -> str:
    return Redactor().redact(text)


def go_json(text: str) -> str:
    """A string as Go's encoding/json writes it: <, > and & escaped too."""
    return json.dumps(text).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ---------------------------------------------------------------------------
# The forms, by name
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("<password>hunter2secret</password>", "<password>[REDACTED:password]</password>"),
    ("<Password>Xy9!kq2#Lm</Password>", "<Password>[REDACTED:password]</Password>"),
    ("<db:password>Tr0ub4dor3x</db:password>", "<db:password>[REDACTED:password]</db:password>"),
    ("<token>abcDEF123456ghiJKL789mno</token>", "<token>[REDACTED:token]</token>"),
    ("<apiKey>9f8e7d6c5b4a3f2e1d0c</apiKey>", "<apiKey>[REDACTED:api-key]</apiKey>"),
    ("<client_secret>aB3-dE5_fG7hJ9kL1mN3pQ5</client_secret>",
     "<client_secret>[REDACTED:client-secret]</client_secret>"),
    ("<secret>Zx81Kq72Lm63Np54Ob45</secret>", "<secret>[REDACTED:secret]</secret>"),
    ("<SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz1Kq72Lm63</SecretAccessKey>",
     "<SecretAccessKey>[REDACTED:aws-secret-access-key]</SecretAccessKey>"),
])
def test_element_named_by_a_secret_key(text, expected):
    assert redact(text) == expected


def test_element_with_attributes_cdata_and_blanks():
    assert redact('<password encrypted="false">Tr0ub4dor3x</password>') == \
        '<password encrypted="false">[REDACTED:password]</password>'
    assert redact("<password><![CDATA[hunter2secret]]></password>") == \
        "<password><![CDATA[[REDACTED:password]]]></password>"
    assert redact("<password>\n    Tr0ub4dor3x\n  </password>") == \
        "<password>\n    [REDACTED:password]\n  </password>"


def test_element_value_naming_a_vendor_token_gets_the_vendor_class():
    r = Redactor()
    out = r.redact("<token>ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5</token>")
    assert out == "<token>[REDACTED:github-token]</token>"
    assert r.counts == Counter({"github-token": 1})


@pytest.mark.parametrize(("text", "expected"), [
    ('<add key="ApiKey" value="9f8e7d6c5b4a3f2e1d0c"/>', '<add key="ApiKey" value="[REDACTED:api-key]"/>'),
    ('<property name="password" value="hunter2x"/>', '<property name="password" value="[REDACTED:password]"/>'),
    ("<param name='client_secret' value='aB3dE5fG7hJ9kL1mN3pQ5'/>",
     "<param name='client_secret' value='[REDACTED:client-secret]'/>"),
    # value first, another attribute in between
    ('<property value="hunter2x" id="p1" name="password"/>',
     '<property value="[REDACTED:password]" id="p1" name="password"/>'),
    # attributes on separate lines
    ('<property name="spring.datasource.password"\n          value="Tr0ub4dor3x"/>',
     '<property name="spring.datasource.password"\n          value="[REDACTED:password]"/>'),
    ("<add key='Smtp:Password' value='Tr0ub4dor3x' />", "<add key='Smtp:Password' value='[REDACTED:password]' />"),
    ('<input type="password" name="password" value="hunter2x">',
     '<input type="password" name="password" value="[REDACTED:password]">'),
])
def test_name_and_value_attributes_on_one_tag(text, expected):
    assert redact(text) == expected


def test_escaped_forms():
    # JSON-escaped quotes and line breaks, one and two levels deep
    raw = '<property name="password"\n  value="hunter2x"/>\n<password>hunter2secret</password>'
    done = '<property name="password"\n  value="[REDACTED:password]"/>\n<password>[REDACTED:password]</password>'
    assert redact(json.dumps(raw)) == json.dumps(done)
    assert redact(json.dumps(json.dumps(raw))) == json.dumps(json.dumps(done))
    # Go writes < and > as \u003c and \u003e
    assert redact('"\\u003cpassword\\u003ehunter2secret\\u003c/password\\u003e"') == \
        '"\\u003cpassword\\u003e[REDACTED:password]\\u003c/password\\u003e"'
    assert redact('"\\u003cadd key=\\"ApiKey\\" value=\\"9f8e7d6c5b4a3f2e1d0c\\"/\\u003e"') == \
        '"\\u003cadd key=\\"ApiKey\\" value=\\"[REDACTED:api-key]\\"/\\u003e"'
    # PHP writes </ as <\/
    assert redact('"<token>abcDEF123456ghiJKL789mno<\\/token>"') == '"<token>[REDACTED:token]<\\/token>"'
    # HTML-escaped (a docs page)
    assert redact("&lt;password&gt;hunter2secret&lt;/password&gt;") == \
        "&lt;password&gt;[REDACTED:password]&lt;/password&gt;"
    assert redact("&lt;add key=&quot;ApiKey&quot; value=&quot;9f8e7d6c5b4a3f2e1d0c&quot;/&gt;") == \
        "&lt;add key=&quot;ApiKey&quot; value=&quot;[REDACTED:api-key]&quot;/&gt;"


def test_counts_one_per_value_and_assignments_inside_markup_unchanged():
    text = ('<appSettings>\n  <add key="ApiKey" value="9f8e7d6c5b4a3f2e1d0c" />\n'
            '  <add name="db" connectionString="Server=db01;Password=Tr0ub4dor3x;" />\n'
            "  <password>hunter2secret</password>\n</appSettings>")
    r = Redactor()
    assert r.redact(text) == (
        '<appSettings>\n  <add key="ApiKey" value="[REDACTED:api-key]" />\n'
        '  <add name="db" connectionString="Server=db01;Password=[REDACTED:password];" />\n'
        "  <password>[REDACTED:password]</password>\n</appSettings>")
    assert r.counts == Counter({"password": 2, "api-key": 1})


@pytest.mark.parametrize("text", [
    "<password></password>",
    "<password/>",
    "<password>${DB_PASS}</password>",
    "<password>changeme</password>",
    "<password>{{ .Values.pw }}</password>",
    "<password>***</password>",
    "<password><![CDATA[${DB_PASS}]]></password>",
    "<passwordPolicy>strict</passwordPolicy>",
    "<tokenCount>12</tokenCount>",
    "<p>the password is required</p>",
    "<password>myPassword</password>",  # a name, not a value
    "<key>AccessToken</key>",
    "<NextToken>eyJ2IjoxLCJjIjoiQUFBQUFBQUE</NextToken>",
    "</password>Tr0ub4dor3x</server>",  # a closing tag names nothing
    '<string name="password">Password</string>',  # no value attribute
    '<input type="password" name="password" value="">',
    '<add key="ApiKey"/><add key="Region" value="9f8e7d6c5b4a3f2e1d0c"/>',  # value on another tag
    '<option name="passwordPolicy" value="Strict12x"/>',
    'if key == "token" and value="abc123DEF456ghi":',  # no tag
])
def test_left_alone(text):
    for form in (text, json.dumps(text), go_json(text)):
        r = Redactor()
        assert r.redact(form) == form
        assert not r.counts


# ---------------------------------------------------------------------------
# Properties: every form, in random text, under every escaping
# ---------------------------------------------------------------------------

MARKUP_FORMS: dict[str, tuple[str, str]] = {
    "element": ("password", "<password>{s}</password>"),
    "element-ns": ("password", "<db:password>{s}</db:password>"),
    "element-attributes": ("password", '<password encrypted="false">{s}</password>'),
    "element-cdata": ("password", "<password><![CDATA[{s}]]></password>"),
    "element-multiline": ("password", "<password>\n  {s}\n</password>"),
    "element-token": ("token", "<token>{s}</token>"),
    "element-api-key": ("api-key", "<apiKey>{s}</apiKey>"),
    "element-client-secret": ("client-secret", "<client_secret>{s}</client_secret>"),
    "element-secret": ("secret", "<secret>{s}</secret>"),
    "name-value": ("password", '<property name="password" value="{s}"/>'),
    "value-name": ("password", "<property value='{s}' name='password'/>"),
    "key-value": ("api-key", '<add key="ApiKey" value="{s}" />'),
    "name-value-multiline": ("client-secret", '<param name="client_secret"\n       value="{s}"/>'),
}

# REDACTION_PROPERTY_EXAMPLES=500 runs a longer, randomised search (as the other property tests)
_EXAMPLES = int(os.environ.get("REDACTION_PROPERTY_EXAMPLES", "30"))
SETTINGS = settings(max_examples=_EXAMPLES, deadline=None, derandomize=_EXAMPLES <= 30,
                    suppress_health_check=[HealthCheck.too_slow], database=None)
ALPHABET = st.sampled_from(
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    + list(" \n\t.,;:!?()[]{}<>'\"`/\\|-_=+*&^%$#@~") + ["é", "中", "\u00a0", "\U0001f600"])
SURROUND = st.text(alphabet=ALPHABET, max_size=60)
LEFT = st.sampled_from([" ", "\n", "\t", ">", "\r\n", "\n\n", "  "])
RIGHT = st.sampled_from([" ", "\n", "\t", "<", "\r\n", "\n</config>"])


def escapings(text: str) -> dict[str, str]:
    return {
        "raw": text,
        "dumps": json.dumps(text),
        "dict": json.dumps({"stdout": text, "exit_code": 0}),
        "nested": json.dumps(json.dumps(text)),
        "go": go_json(text),
        "go-nested": json.dumps({"arguments": go_json(text)}),
        "php": json.dumps(text).replace("/", "\\/"),
        "html": html.escape(text),
    }


def _secret(cls: str, rng: random.Random) -> str:
    return password(rng) if cls == "password" else MAKERS[cls](rng)


@pytest.mark.parametrize("form", sorted(MARKUP_FORMS))
@SETTINGS
@given(seed=st.integers(0, 2**32), prefix=SURROUND, suffix=SURROUND, left=LEFT, right=RIGHT)
def test_markup_secret_never_survives(form, seed, prefix, suffix, left, right):
    cls, template = MARKUP_FORMS[form]
    secret = _secret(cls, random.Random(seed))
    text = prefix + left + template.format(s=secret) + right + suffix
    around = "\n".join(escapings(prefix + left).values()) + "\n".join(escapings(right + suffix).values())
    for name, enc in escapings(text).items():
        r = Redactor()
        out = r.redact(enc)
        assert not leaks(secret, out, ignore=around), (form, name, out)
        assert f"[REDACTED:{cls}]" in out, (form, name, out)
        assert Redactor().redact(out) == out  # idempotent
        if name not in ("raw", "html"):
            json.loads(out)  # escaped JSON stays valid


@SETTINGS
@given(seed=st.integers(0, 2**32), prefix=SURROUND, suffix=SURROUND, left=LEFT, right=RIGHT,
       form=st.sampled_from(sorted(MARKUP_FORMS)))
def test_prefilter_is_exact_on_markup(seed, prefix, suffix, left, right, form):
    cls, template = MARKUP_FORMS[form]
    text = prefix + left + template.format(s=_secret(cls, random.Random(seed))) + right + suffix
    slow = Redactor()
    slow._c = EveryPosition(slow._c)
    for enc in escapings(text).values():
        assert Redactor().redact(enc) == slow.redact(enc)
