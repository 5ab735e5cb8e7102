"""The expressions of a cleaner's generated adapter, for the template to lay out.

``template/project/clean_to_trajectory_jsonl.py.jinja`` writes, for a mapping, ``kind_of`` and one
function per rule of ``kinds``; what each role writes is spelled out there. This module only turns
the mapping's parts into safe Python: names (identifiers made from kind names and paths, never
clashing), path arguments (``"message.content"``, or a tuple of keys where dotted notation cannot
say it), conditions, and docstrings. Every value from the mapping reaches the code as a literal
that round-trips (``jinja_ext.py_literal``), whatever quotes, newlines, braces or unicode it holds.

The meaning is ``cleaner_runtime.convert.Kind``'s, compiled by the runtime itself here, so a path
or a condition is read exactly as the interpreter reads it.
"""

from __future__ import annotations

import builtins
import io
import keyword
import re
import textwrap
import tokenize
from dataclasses import dataclass, field
from typing import Any

from jinja2.ext import Extension

from cleaner_runtime.adapter import mapping_digest
from cleaner_runtime.convert import TEXT_ROLES, Block, Kind
from cleaner_runtime.mapping import Const, Select, compile_path, compile_paths, path_notation, with_defaults
from generator.jinja_ext import py_block as _py_block
from generator.jinja_ext import py_literal as _py_literal
from generator.jinja_ext import round_trips

# Module-level names of the generated script that a kind's function or a read must not shadow.
RESERVED = frozenset({
    "annotations", "sys", "Path", "main", "HERE", "MAPPING_DIGEST", "kind_of", "record", "out", "at",
    "MISSING", "Const", "Out", "Select", "Writer", "content", "entries", "field", "first", "holds", "joined", "kind",
    "outcome", "present", "read_ok", "same", "equal_fields", "call_id", "output", "cleaner_hooks",
    "converter", "item", "Part", "Converter", "BLOCK_TYPES", "BLOCK_KEYS",
})
WIDTH = 96  # docstring lines
LINE = 110  # a condition longer than this names its values in a constant


def _double_quoted(text: str) -> str:
    """Strings written as a person writes them here: in double quotes unless they hold one (the
    literal's own string tokens, found by Python's tokenizer, never a quote inside a string)."""
    out, at = [], 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type != tokenize.STRING or not token.string.startswith("'"):
            continue
        body = token.string[1:-1]
        if '"' in body or "\\'" in body:
            continue
        start = _offset(text, token.start)
        out.append(text[at:start] + '"' + body + '"')
        at = start + len(token.string)
    return "".join(out) + text[at:]


def _offset(text: str, position: tuple[int, int]) -> int:
    row, col = position
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:row - 1]) + col


def py_literal(value: Any) -> str:
    """``jinja_ext.py_literal`` (exact, checked), with double-quoted strings."""
    return round_trips(value, _double_quoted(_py_literal(value)))


def py_block(value: Any, indent: int = 0) -> str:
    return round_trips(value, _double_quoted(_py_block(value, indent)))


def spread(value: Any, room: int) -> str:
    """A literal on one line when it fits in ``room`` columns, else its items one per line."""
    flat = py_literal(value)
    if len(flat) <= room or not isinstance(value, (dict, list)) or not value:
        return flat
    if isinstance(value, dict):
        items = [f"    {py_literal(key)}: {py_block(item, 4)},\n" for key, item in value.items()]
        return round_trips(value, "{\n" + "".join(items) + "}")
    return round_trips(value, "[\n" + "".join(f"    {py_block(item, 4)},\n" for item in value) + "]")


def identifier(text: str, taken: set[str], fallback: str) -> str:
    """A lower-case Python name made from ``text`` (its words outside parentheses); ``fallback``
    when nothing is left of it; ``_`` appended to a keyword or a builtin, a number to a name taken."""
    words = re.sub(r"[^a-z0-9]+", " ", re.sub(r"\([^)]*\)", " ", text.lower())).split()
    name = ""
    for word in words:  # whole words, up to about 32 characters
        if name and len(name) + 1 + len(word) > 32:
            break
        name = f"{name}_{word}" if name else word[:32]
    if not name or name[0].isdigit():
        name = fallback
    if keyword.iskeyword(name) or hasattr(builtins, name) or name in RESERVED:
        name += "_"  # type_, id_
    base, n = name.rstrip("_"), 2
    while name in taken or name in RESERVED or keyword.iskeyword(name) or hasattr(builtins, name):
        name = f"{base}_{n}"
        n += 1
    taken.add(name)
    return name


def joined_spec(raw: Any) -> bool:
    """Whether a content spec as written composes several fields (``{join: [...]}``)."""
    return isinstance(raw, dict) and "join" in raw


def shown(paths: tuple) -> str:
    """Paths for a docstring: dotted, ``or`` between them."""
    return " or ".join(".".join(str(key) for key in path) for path in paths) or "nothing"


def docstring(text: str, indent: int = 4) -> str:
    """A docstring: triple-quoted and wrapped when the text is plain, else an exact literal."""
    if text.isprintable() and "\\" not in text and '"' not in text:
        lines = textwrap.wrap(text, WIDTH - indent) or [""]
        if len(lines) == 1:
            return f'"""{lines[0]}"""'
        pad = " " * indent
        return '"""' + lines[0] + "\n" + "\n".join(pad + line for line in lines[1:]) + "\n" + pad + '"""'
    return py_literal(text)


def _call_parts(text: str) -> tuple[int, list[int]] | None:
    """Where the first call's ``(`` is, and its top-level commas and closing ``)``, found by
    Python's tokenizer (never inside a string); None when the text does not end with that call
    (bar a trailing ``,`` or ``:``)."""
    opening, cuts, depth = None, [], 0
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    for token in tokens:
        if token.type != tokenize.OP:
            continue
        at = _offset(text, token.start)
        if token.string in ("(", "[", "{"):
            depth += 1
            if opening is None and token.string == "(":
                opening = at
        elif token.string in (")", "]", "}"):
            depth -= 1
            if depth == 0 and opening is not None:
                return (opening, cuts + [at]) if at == len(text.rstrip(",:")) - 1 else None
        elif token.string == "," and depth == 1 and opening is not None:
            cuts.append(at)
    return None


def fit(line: str, indent: int) -> str:
    """A generated call laid out as a person would when it passes 120 columns: one argument per
    line (each laid out the same way in turn)."""
    found = _call_parts(line) if indent + len(line) > 120 else None
    if found is None:
        return line
    opening, cuts = found
    pad = " " * (indent + 4)
    args, at = [], opening + 1
    for cut in cuts:
        arg = line[at:cut].strip()
        if arg:
            args.append(pad + fit(arg, indent + 4) + ",")
        at = cut + 1
    return line[:opening + 1] + "\n" + "\n".join(args) + "\n" + " " * indent + line[cuts[-1]:]


def condition(parts: list[str], indent: int) -> str:
    """``if a and b:``, or one test per line in parentheses when that passes 120 columns."""
    line = f"if {' and '.join(parts)}:"
    if indent + len(line) <= 120:
        return line
    pad = " " * (indent + 4)
    return "if (\n" + pad + f"\n{pad}and ".join(fit(part, indent + 4) for part in parts) + "\n" + " " * indent + "):"


@dataclass
class Read:
    """A value ``kind_of`` reads once, for every rule that tests it."""

    name: str
    expr: str


@dataclass
class KindCode:
    """One rule of ``kinds`` as the template writes it."""

    index: int
    name: str  # the kind's name, as a literal
    func: str
    role: str
    doc: str
    condition: list[str]  # the tests, all of which must hold; none for a rule that matches every record
    time: str = ""  # the expression of the record's raw time
    role_literal: str = ""
    text: str = ""  # text roles: the expression of the content
    text_role: str = ""  # emit: the role of texts that name none
    emit: str = ""  # the constant holding the compiled emit entries
    call: dict[str, str] = field(default_factory=dict)  # tool_call/tool_exchange: keyword -> expression
    result: dict[str, str] = field(default_factory=dict)  # tool_result/tool_exchange: keyword -> expression
    output: str = ""  # tool_exchange: the expression of the result's content
    result_time: str = ""  # tool_exchange: the result's own time, when the mapping gives one


@dataclass
class BlockCode:
    """One block type (``blocks.types``) or block key (``blocks.by_key``) as the template writes it."""

    name: str  # the type name or key, as a literal
    func: str
    doc: str
    part: str  # the expression of the Part the function returns


@dataclass
class AdapterCode:
    digest: str  # as a literal
    reads: list[Read]
    kinds: list[KindCode]
    types: list[BlockCode]
    keys: list[BlockCode]
    constants: list[tuple[str, str]]  # (name, expression), written before the functions
    imports: str


class _Builder:
    def __init__(self, mapping: dict):
        self.specs = list(mapping.get("kinds") or [])
        self.default_time = compile_paths(with_defaults({"timestamps": mapping.get("timestamps") or {}})
                                          ["timestamps"]["fields"])
        self.taken: set[str] = set()
        self.reads: dict[tuple, Read] = {}
        self.constants: list[tuple[str, str]] = []
        self.used = {"Out", "Writer", "kind"}

    def build(self, mapping: dict) -> AdapterCode:
        compiled = [Kind.compile(i, spec) for i, spec in enumerate(self.specs)]
        funcs = [identifier(kind.name, self.taken, f"kind_{i}") for i, kind in enumerate(compiled)]
        kinds = [self._kind(i, spec, kind, func)
                 for i, (spec, kind, func) in enumerate(zip(self.specs, compiled, funcs, strict=True))]
        blocks = mapping.get("blocks") or {}
        types = [self._block(name, spec) for name, spec in (blocks.get("types") or {}).items()]
        keys = [self._block(key, spec, by_key=True) for key, spec in (blocks.get("by_key") or {}).items()]
        if types or keys:
            self.used.update(("Converter", "Part"))
        return AdapterCode(py_literal(mapping_digest(mapping)), list(self.reads.values()), kinds, types, keys,
                           self.constants, self._imports())

    def _block(self, name: str, spec: dict, by_key: bool = False) -> BlockCode:
        """A block type's function: the Part a block of that type says, read from it."""
        block = Block.compile(spec)
        func = identifier(f"{name} block", self.taken, f"block_{len(self.taken)}")
        kind, said = block.kind, f"a block holding {name!r}" if by_key else f"a block of type {name!r}"
        value = ""
        if kind in ("text", "reasoning", "tool_exchange", "tool_result"):
            raw = spec.get("field") or spec.get("content")
            if joined_spec(raw):
                value = f"converter.compose(item, {self._constant(func.upper() + '_CONTENT', 'joined({})', raw, 'joined')})"
            else:
                value = self.reading("first", block.field, "item")
        args = [py_literal(kind)]
        if kind == "placeholder":
            args.append(py_literal(block.text))
            doc = f"Placeholder: {said} stands for content the output does not carry."
        elif kind in ("text", "reasoning"):
            args.append(value)
            doc = f"{kind.capitalize()}: {said}, its text in {shown(block.field)}."
        elif kind in ("tool_call", "tool_exchange"):
            if kind == "tool_exchange":
                args.append(value)
            for key, paths in (("call_id", block.call_id), ("tool", block.tool_name), ("args", block.args)):
                if paths:
                    args.append(f"{key}={self.reading('first', paths, 'item')}")
            if block.args_key != "_raw":
                args.append(f"args_key={py_literal(block.args_key)}")
            doc = (f"A tool call: {said}, the tool in {shown(block.tool_name)}, its arguments in {shown(block.args)}"
                   + (f", its output in {shown(block.field)}." if kind == "tool_exchange" else "."))
        elif kind == "tool_result":
            args.append(value)
            for key, paths in (("link", block.result_link), ("tool", block.tool_name)):
                if paths:
                    args.append(f"{key}={self.reading('first', paths, 'item')}")
            doc = (f"A tool result: {said}, its text in {shown(block.field)}, linked to its call by "
                   f"{shown(block.result_link) if block.result_link else 'tool name or order'}.")
        else:
            doc = f"Skipped by the mapping: {said} is counted in the summary, nothing written."
        if kind in ("tool_exchange", "tool_result") and spec.get("ok") is not None:
            const = self._constant(func.upper() + "_OK", "outcome({})", spec["ok"], "outcome")
            self.used.add("read_ok")
            args.append(f"ok=read_ok(item, {const})")
        if block.timestamp and kind != "skip":
            args.append(f"at={self.reading('first', block.timestamp, 'item')}")
            doc += f" Its time: {shown(block.timestamp)}."
        return BlockCode(py_literal(name), func, docstring(doc), f"Part({', '.join(args)})")

    def _imports(self) -> str:
        """The names taken from ``cleaner_runtime.adapter``, in isort's order (constants, classes,
        functions), wrapped in parentheses when they pass the line."""
        names = sorted(self.used, key=lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n.lower()))
        line = ", ".join(names)
        if len(line) <= LINE - 40:
            return line
        return "(\n" + "".join(f"    {name},\n" for name in names) + ")"

    def _use(self, expr: str, *names: str) -> str:
        """An expression, noting the names it takes from ``cleaner_runtime.adapter``."""
        self.used.update(names)
        return expr

    def key(self, key: Any) -> str:
        if key.__class__ is Select:
            return self._use(f"Select({py_literal(key.field)}, {py_literal(key.value)})", "Select")
        if key.__class__ is Const:
            return self._use(f"Const({py_literal(key.value)})", "Const")
        return py_literal(key)

    def path(self, path: tuple) -> str:
        """One path as ``first`` and ``content`` take it: dotted when that notation reads back as
        the same path, else a tuple of its keys."""
        notation = path_notation(path)
        if isinstance(notation, str) and compile_path(notation) == path:
            return py_literal(notation)
        return "(" + ", ".join(self.key(key) for key in path) + ("," if len(path) == 1 else "") + ")"

    def reading(self, function: str, paths: tuple, subject: str = "record") -> str:
        """``first(record, "a", "b")``; ``MISSING`` when there is no path to read."""
        if not paths:
            return self._use("MISSING", "MISSING")
        return self._use(f"{function}({subject}, " + ", ".join(self.path(path) for path in paths) + ")", function)

    def keys_call(self, path: tuple) -> str:
        return self._use("field(record, " + ", ".join(self.key(key) for key in path) + ")", "field")

    def _read(self, path: tuple) -> str:
        read = self.reads.get(path)
        if read is None:
            name = identifier("_".join(str(key) for key in path if key.__class__ in (str, int)), self.taken, "value")
            read = self.reads[path] = Read(name, self.keys_call(path))
        return read.name

    def _constant(self, name: str, template: str, value: Any, *helpers: str) -> str:
        """A module-level constant ``name = template`` holding ``value`` as a literal."""
        room = 120 - len(name) - 3 - (len(template) - 2)
        self.constants.append((name, template.format(spread(value, room))))
        self.used.update(helpers)
        return name

    def _condition(self, kind: Kind, func: str) -> list[str]:
        parts = []
        for path, values in kind.match:
            var = self._read(path)
            if len(values) == 1 and (values[0] is None or isinstance(values[0], bool)):
                parts.append(f"{var} is {values[0]!r}")  # as match compares: true is not 1
            elif all(isinstance(value, str) for value in values) and len(values) == 1:
                parts.append(f"{var} == {py_literal(values[0])}")
            elif all(isinstance(value, str) for value in values):
                listed = f"({', '.join(py_literal(v) for v in values)})"
                if len(listed) > LINE // 2:
                    listed = self._constant(f"{func.upper()}_{var.strip('_').upper()}S", "{}", list(values))
                parts.append(f"{var} in {listed}")
            else:
                parts.append(self._use(f"same({var}, {', '.join(py_literal(v) for v in values)})", "same"))
        parts += [self._use(f"present({self.keys_call(path)})", "present") for path in kind.has]
        parts += [self._use(f"not present({self.keys_call(path)})", "present") for path in kind.lacks]
        for a, b in kind.same:
            parts.append(self._use(f"equal_fields(record, {self.path(a)}, {self.path(b)})", "equal_fields"))
        return parts

    def _content(self, spec: dict, kind: Kind, func: str, reader: str) -> str:
        """The expression of a kind's content: a composed ``join`` (a constant), else its paths."""
        raw = spec.get("content")
        if joined_spec(raw):
            const = self._constant(func.upper() + "_CONTENT", "joined({})", raw, "joined")
            return f"out.compose(record, {const})"
        return self.reading(reader, kind.content)

    def _kind(self, index: int, spec: dict, kind: Kind, func: str) -> KindCode:
        code = KindCode(index, py_literal(kind.name), func, kind.role, "", self._condition(kind, func),
                        role_literal=py_literal(kind.role))
        role = kind.role
        if role == "skip":
            code.doc = docstring("Skipped by the mapping: counted in the summary, nothing written.")
            return code
        if role == "meta":
            code.doc = docstring("Read only for the session's meta record (cwd, branch, model); writes nothing.")
            return code
        code.time = self.reading("first", kind.timestamp or self.default_time)
        if kind.emit:
            code.emit = self._constant(func.upper() + "_EMIT", "entries({})", spec["emit"], "entries")
            code.text_role = py_literal(kind.text_role)
            says = ", ".join(entry.block.kind.replace("_", " ") + (f" for each item of {shown(entry.each)}"
                                                                   if entry.each else "") for entry in kind.emit)
            code.doc = docstring(f"Several records from one raw record, in this order: {says}.")
            return code
        if role in TEXT_ROLES:
            code.text = self._content(spec, kind, func, "content")
            article = "An" if role in ("assistant", "observation") else "A"
            code.doc = docstring(f"{article} {role} record: the text, or the content blocks, in "
                                 f"{self._said(spec, kind)}.")
            return code
        if role in ("tool_call", "tool_exchange"):
            code.call = {"call_id": self.reading("first", kind.call_id),
                         "tool": self.reading("first", kind.tool_name),
                         "args": self.reading("first", kind.args)}
            code.call["at"] = "at"
            if kind.args_key != "_raw":
                code.call["args_key"] = py_literal(kind.args_key)
            if kind.reasoning:
                code.call["thought"] = self.reading("first", kind.reasoning)
        ok = self._ok(spec, func)
        if role == "tool_call":
            code.doc = docstring(f"A tool call: the tool in {shown(kind.tool_name)}, its arguments in "
                                 f"{shown(kind.args)}, its id in {shown(kind.call_id)}.")
        elif role == "tool_exchange":
            code.output = self._content(spec, kind, func, "first")
            code.result = {"answers": "call_id", "content": "output"}
            if ok:
                code.result["ok"] = ok
            if kind.result_timestamp:
                code.result_time = self.reading("first", kind.result_timestamp)
            code.doc = docstring(f"A tool call and its result in one record: the tool in {shown(kind.tool_name)}, "
                                 f"the output in {self._said(spec, kind)}.")
        else:  # tool_result
            if kind.result_link:
                code.result["link"] = self.reading("first", kind.result_link)
            code.result["content"] = self._content(spec, kind, func, "first")
            if ok:
                code.result["ok"] = ok
            code.result["at"] = "at"
            if kind.tool_name:
                code.result["tool"] = self.reading("first", kind.tool_name)
            code.doc = docstring(f"A tool result: its text in {self._said(spec, kind)}, linked to its call by "
                                 f"{shown(kind.result_link) if kind.result_link else 'tool name or order'}.")
        return code

    def _ok(self, spec: dict, func: str) -> str:
        if spec.get("ok") is None:
            return ""
        const = self._constant(func.upper() + "_OK", "outcome({})", spec["ok"], "outcome")
        self.used.add("read_ok")
        return f"read_ok(record, {const})"

    @staticmethod
    def _said(spec: dict, kind: Kind) -> str:
        if joined_spec(spec.get("content")):
            return "several fields joined"
        return shown(kind.content) if isinstance(kind.content, tuple) else "several fields"


def adapter_code(kinds: list, timestamps: dict | None = None, blocks: dict | None = None) -> AdapterCode:
    """The generated adapter's parts for the mapping's ``kinds``, ``timestamps`` and ``blocks``."""
    mapping = {"kinds": kinds, "timestamps": timestamps or {}, "blocks": blocks or {}}
    return _Builder(mapping).build(mapping)


class AdapterCodeExtension(Extension):
    """Registers the ``adapter_code`` filter for the template."""

    def __init__(self, environment: Any):
        super().__init__(environment)
        environment.filters["adapter_code"] = adapter_code
        environment.filters["fit"] = fit
        environment.filters["condition"] = condition


def script_source(mapping: dict) -> str:
    """``clean_to_trajectory_jsonl.py`` as the template renders it for this mapping, without the
    rest of the project: for tests that compare the generated code with ``Kind`` on many mappings
    (``new`` renders it through copier, with these same extensions and options)."""
    import jinja2

    from generator.jinja_ext import PyLiteralExtension
    from generator.paths import template_dir

    folder = template_dir() / "project"
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, extensions=[PyLiteralExtension, AdapterCodeExtension])
    return env.get_template("clean_to_trajectory_jsonl.py.jinja").render(
        kinds=mapping.get("kinds") or [], timestamps=mapping.get("timestamps") or {}, blocks=mapping.get("blocks") or {})


def load_source(source: str, name: str = "clean_to_trajectory_jsonl") -> Any:
    """The module a generated script's source defines (its ``__main__`` block not run)."""
    import types

    module = types.ModuleType(name)
    module.__file__ = f"{name}.py"
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)  # noqa: S102 - code this module generated
    return module
