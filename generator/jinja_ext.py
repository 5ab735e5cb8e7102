"""Jinja filters for safe code generation: user values only ever become Python literals.

``py`` renders one value as a literal on one line; ``pyblock`` renders nested dicts and lists
across lines, indented, so that tables read as if written by hand. Both refuse any value that
does not round-trip through ``ast.literal_eval``. ``answers`` writes the answers file, the one copy
of a project's mapping, as JSON laid out the same way (JSON is also YAML, and the cleaner reads it
with the standard library), refusing any value that does not round-trip through ``json.loads``.

Values come from samples nobody checked, and a lone UTF-16 surrogate (``"\\ud800"`` in JSON, or
an undecodable byte in a file name) cannot be written as UTF-8. Python literals escape it
(``repr``), so the cleaner keeps the exact value; everywhere else (README tables, plain
``{{ value }}``) the environment's ``finalize`` writes it as the escape ``\\ud800``, the form the
cleaner's own messages use, so a rendered file is always valid UTF-8.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from jinja2.ext import Extension

WIDTH = 100


def round_trips(value: Any, text: str) -> str:
    """``text``, a literal written for ``value``, when it reads back as ``value``; else ValueError."""
    if ast.literal_eval(text) != value:
        raise ValueError(f"value does not round-trip as a Python literal: {value!r}")
    return text


def py_literal(value: Any) -> str:
    """A one-line Python literal for str/int/float/bool/None/list/dict."""
    return round_trips(value, repr(value))


def _block(value: Any, indent: int) -> str:
    flat = repr(value)
    if len(flat) + indent <= WIDTH or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 4)
    if isinstance(value, dict):
        items = [f"{pad}{key!r}: {_block(item, indent + 4)}," for key, item in value.items()]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{pad}{_block(item, indent + 4)}," for item in value]
    return "[\n" + "\n".join(items) + "\n" + " " * indent + "]"


def py_block(value: Any, indent: int = 0) -> str:
    """A Python literal spread over indented lines when it is long."""
    for key in _keys(value):
        if not isinstance(key, (str, int, float, bool)) and key is not None:
            raise ValueError(f"unsupported key type in literal: {key!r}")
    return round_trips(value, _block(value, indent))


def _keys(value: Any):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


# Characters a YAML reader would not read back from a JSON string as themselves (C1 controls and
# DEL are refused, U+0085, U+2028 and U+2029 are line breaks, lone surrogates cannot be written as
# UTF-8), written as \u escapes. Every other character is written as it is: PyYAML reads an escaped
# surrogate pair as two lone surrogates.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")


def _json_scalar(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    if isinstance(value, float) and "e" in text and "." not in text:
        text = text.replace("e", ".0e")  # YAML 1.1 reads 1e+20 as a string, 1.0e+20 as the number
    return _YAML_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _json_flat(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_json_key(key)}: {_json_flat(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_json_flat(item) for item in value) + "]"
    return _json_scalar(value)


def _json_key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"a key that is not a string cannot be written as JSON: {key!r}")
    return _json_scalar(key)


def _json_block(value: Any, indent: int, spread: bool = False) -> str:
    flat = _json_flat(value)
    if (len(flat) + indent <= WIDTH and not spread) or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 4)
    if isinstance(value, dict):
        items = [f"{pad}{_json_key(key)}: {_json_block(item, indent + 4)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{pad}{_json_block(item, indent + 4)}" for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def json_block(value: Any, spread: bool = False) -> str:
    """JSON spread over indented lines when it is long (always, with ``spread``), readable by any
    JSON or YAML reader as exactly ``value``."""
    text = _json_block(value, 0, spread)
    if json.loads(text) != value:
        raise ValueError(f"value does not round-trip as JSON: {value!r}")
    return text


def answers_json(answers: dict) -> str:
    """A render's answers as the answers file records them: without copier's own keys (``_src_path``
    is the absolute path of the install that rendered the project, meaningless anywhere else),
    without the mapping's entries that hold nothing but their default and without an empty
    ``prompt_context``, one key a line."""
    from cleaner_runtime.mapping import without_empty_defaults

    kept = {key: value for key, value in answers.items() if not str(key).startswith("_") and value != {}}
    return json_block(without_empty_defaults(kept), spread=True)


def md_code(value: Any) -> str:
    """A Markdown code span that survives backticks, pipes and newlines in the value."""
    text = value if isinstance(value, str) else repr(value)
    text = text.replace("\r", "\\r").replace("\n", "\\n").replace("|", "\\|")
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def utf8_text(value: Any) -> Any:
    """Text that can be written as UTF-8: lone surrogates become ``\\udXXX`` escapes."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def _remember_compiled(environment) -> None:
    """Compile each template source once per environment.

    Copier renders every path part and option of a render as a template from a string, and
    Jinja compiles a string anew each time: some 180 compiles of 44 distinct strings per project.
    A compiled template is a pure function of its source and the environment's settings.
    """
    compile_source = environment.compile
    compiled: dict = {}

    def compile(source, name=None, filename=None, raw=False, defer_init=False):  # Jinja's name and signature
        if not isinstance(source, str):
            return compile_source(source, name, filename, raw, defer_init)
        key = (source, name, filename, raw, defer_init)
        code = compiled.get(key)
        if code is None:
            code = compiled[key] = compile_source(source, name, filename, raw, defer_init)
        return code

    environment.compile = compile


class PyLiteralExtension(Extension):
    def __init__(self, environment):
        super().__init__(environment)
        # Applied to the value of every {{ expression }} (after its filters) when rendered.
        environment.finalize = utf8_text
        _remember_compiled(environment)
        environment.filters["py"] = py_literal
        environment.filters["pyblock"] = py_block
        environment.filters["md"] = md_code
        environment.filters["answers"] = answers_json
