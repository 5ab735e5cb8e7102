"""The trajectory-v1 schema compiled into plain Python checks with jsonschema's exact verdicts.

Whole-list ``jsonschema`` validation runs at a few thousand records per second; a cleaner
validates every session it writes, so the loaded schema is compiled once, at start-up, keyword
by keyword (JSON Schema 2020-12, the subset the trajectory schema and its likely edits use) into
closures, and records are dispatched on their ``role`` when a ``oneOf`` is discriminated by a
constant. A node of only common keywords (a record's shape, say) becomes instead one generated
straight-line Python function with its subschemas written out inline (``_Compiler._generate``).
A subschema the compiler does not know is handed to ``jsonschema`` itself
(``fallback_nodes`` counts them), and a schema it cannot take apart safely (another dialect,
dynamic scope, nested resources, keywords at the root beyond a list's) raises ``Unsupported``:
the validator then applies ``jsonschema`` to the whole list. Either way the verdict is the one
whole-list ``jsonschema`` validation gives (proven by the property tests in ``tests/validation``).
"""

import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

__all__ = ["CompiledSchema", "LazyValidator", "Unsupported", "compile_document", "compile_schema"]

_MISSING = object()


_UNBOOL_TRUE = object()
_UNBOOL_FALSE = object()


def _unbool(value: Any) -> Any:
    if value is True:
        return _UNBOOL_TRUE
    if value is False:
        return _UNBOOL_FALSE
    return value


def _equal(one: Any, two: Any) -> bool:
    """JSON equality with jsonschema's semantics (True != 1, recursive)."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(k in two and _equal(v, two[k]) for k, v in one.items())
    return _unbool(one) == _unbool(two)


_DIALECTS_2020 = {
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#",
}
# Keywords that never affect a verdict (format is annotation-only in jsonschema
# unless a format checker is passed, and none is).
_ANNOTATIONS = frozenset(
    {"title", "description", "$comment", "examples", "default", "deprecated", "readOnly",
     "writeOnly", "format", "$defs", "definitions"}
)
_OBJECT_KEYS = frozenset({"required", "properties", "additionalProperties", "minProperties", "maxProperties"})
_STRING_KEYS = frozenset({"minLength", "maxLength", "pattern"})
_ARRAY_KEYS = frozenset({"items", "minItems", "maxItems"})
_NUMBER_KEYS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_OTHER_KEYS = frozenset({"type", "const", "enum", "$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else"})
_COMPILED_KEYS = _OBJECT_KEYS | _STRING_KEYS | _ARRAY_KEYS | _NUMBER_KEYS | _OTHER_KEYS
# Keywords whose presence anywhere makes per-node compilation unsafe
# (dynamic scope, nested resources): the whole list goes to jsonschema.
_WHOLE_FALLBACK_KEYS = frozenset({"$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"})
_ROOT_LIST_KEYS = frozenset({"type", "minItems", "maxItems", "items"})
_ROOT_IGNORED = _ANNOTATIONS | {"$schema", "$id"}


class LazyValidator:
    """A jsonschema validator made (and jsonschema imported, ~110 ms) only when something calls it.

    A compiled schema answers every valid document itself; jsonschema is needed only to explain a
    failure or to judge a subschema the compiler does not know (``_Compiler._fallback``), so the
    validator handed to the compiler is this stand-in: ``make()`` builds the real one on first use.
    """

    __slots__ = ("_made", "_make")

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._made: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._made is None:
            self._made = self._make()
        return getattr(self._made, name)


def _true(_: Any) -> bool:
    return True


def _false(_: Any) -> bool:
    return False


def _is_integer(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, float) and x.is_integer())


def _is_number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, numbers.Number)


_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "null": lambda x: x is None,
    "boolean": lambda x: isinstance(x, bool),
    "integer": _is_integer,
    "number": _is_number,
}


# What the generator writes out (``_Compiler._generate``); a node with any other keyword is built
# from closures.
_GENERATED_KEYS = _OBJECT_KEYS | _STRING_KEYS | _ARRAY_KEYS | {"type", "const", "enum", "$ref", "allOf", "if",
                                                              "then", "else"}
# The type tests of _TYPE_TESTS, as expressions.
_TYPE_EXPRS = {
    "object": "isinstance({0}, dict)",
    "array": "isinstance({0}, list)",
    "string": "isinstance({0}, str)",
    "null": "{0} is None",
    "boolean": "isinstance({0}, bool)",
    "integer": "_is_integer({0})",
    "number": "_is_number({0})",
}
# How many subschemas deep one generated function writes out (deeper ones are calls).
_INLINE_DEPTH = 8
# Up to how many keys a required or closed object is tested with `in`, key by key.
_FEW_KEYS = 8


def _indent(lines: list[str], levels: int = 1) -> list[str]:
    return ["    " * levels + line for line in lines]


def _has_keys(var: str, keys: frozenset, source: "_Source") -> str:
    """An expression true when the dict in ``var`` holds every one of ``keys`` (a few `in` tests beat
    comparing its keys view with a set)."""
    if not keys:
        return "True"
    if len(keys) > _FEW_KEYS:
        return f"{var}.keys() >= {source.name(keys)}"
    return "(" + " and ".join(f"{source.name(k)} in {var}" for k in sorted(keys)) + ")"


def _guard(test: str, checked: bool, lines: list[str]) -> list[str]:
    """``lines`` (checks of one JSON type) run only when ``test`` holds, unless ``checked``: the
    node's ``type`` already returned False when it does not."""
    if not lines or checked:
        return lines
    return [f"if {test}:", *_indent(lines)]


class _Source:
    """The source of one generated check function and the values its lines name."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {"_MISSING": _MISSING, "_equal": _equal, "_is_integer": _is_integer,
                                          "_is_number": _is_number}
        self.names: dict[int, str] = {}
        self.variables = 0

    def name(self, value: Any) -> str:
        """The global name under which the generated function sees ``value`` (one per object)."""
        if id(value) not in self.names:
            name = f"_c{len(self.names)}"
            self.names[id(value)] = name
            self.namespace[name] = value
        return self.names[id(value)]

    def variable(self) -> str:
        self.variables += 1
        return f"v{self.variables}"

    def function(self, body: list[str]) -> Callable[[Any], bool]:
        text = "\n".join(["def check(x):", *_indent(body), "    return True", ""])
        exec(compile(text, "<schema_compiler>", "exec"), self.namespace)  # noqa: S102 - our own generated code
        check = self.namespace["check"]
        check.source = text
        return check


class Unsupported(Exception):
    """The schema (or a node of it) is beyond what the compiler takes apart with certainty."""


def _all_of(fns: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    fns = [f for f in fns if f is not _true]
    if not fns:
        return _true
    if _false in fns:
        return _false
    if len(fns) == 1:
        return fns[0]
    if len(fns) == 2:
        a, b = fns
        return lambda x: a(x) and b(x)
    if len(fns) == 3:
        a, b, c = fns
        return lambda x: a(x) and b(x) and c(x)
    tup = tuple(fns)

    def check(x: Any) -> bool:
        for f in tup:
            if not f(x):
                return False
        return True

    return check


def _resolve_pointer(root: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        raise Unsupported(ref)
    fragment = unquote(ref[1:])
    if fragment == "":
        return root
    if not fragment.startswith("/"):
        raise Unsupported(ref)  # an $anchor: leave it to jsonschema
    node = root
    for token in fragment[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise Unsupported(ref)
    return node


def _needs_whole_fallback(node: Any, is_root: bool = True) -> bool:
    """True when the schema uses dynamic scope or nested resources anywhere."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _WHOLE_FALLBACK_KEYS:
                return True
            if key == "$id" and not is_root:
                return True
            if _needs_whole_fallback(value, False):
                return True
    elif isinstance(node, list):
        return any(_needs_whole_fallback(v, False) for v in node)
    return False


class _Compiler:
    """Turns schema nodes into predicates with jsonschema's exact semantics."""

    def __init__(self, root: Any, jsv: Any):
        self.root = root
        self.jsv = jsv
        self.memo: dict[int, Callable[[Any], bool]] = {}
        self.in_progress: dict[int, list] = {}
        self.fallback_nodes = 0
        self.discriminators: dict[int, tuple[str, dict[str, Any]]] = {}
        #: how many checks made so far may raise rather than answer (a jsonschema fallback, a
        #: recursive reference), and the nodes whose checks contain one (see ``_generate``)
        self.risks = 0
        self.risky: set[int] = set()

    # -- entry point per node ------------------------------------------------
    def compile(self, node: Any) -> Callable[[Any], bool]:
        key = id(node)
        if key in self.memo:
            if key in self.risky:
                self.risks += 1
            return self.memo[key]
        if key in self.in_progress:  # recursive schema: late-bound indirection
            self.risks += 1  # (deep data can end in a RecursionError)
            cell = self.in_progress[key]
            return lambda x: cell[0](x)
        cell: list = [None]
        self.in_progress[key] = cell
        risks = self.risks
        try:
            try:
                fn = self._generate(node)
                if fn is None:
                    fn = self._compile_node(node)
            except Unsupported:
                fn = self._fallback(node)
        finally:
            del self.in_progress[key]
        if self.risks != risks:
            self.risky.add(key)
        cell[0] = fn
        self.memo[key] = fn
        return fn

    def _fallback(self, node: Any) -> Callable[[Any], bool]:
        self.fallback_nodes += 1
        self.risks += 1  # jsonschema may raise (an unresolvable $ref, say)
        return self.jsv.evolve(schema=node).is_valid

    # -- node ------------------------------------------------------------------
    def _compile_node(self, node: Any) -> Callable[[Any], bool]:
        if node is True:
            return _true
        if node is False:
            return _false
        if not isinstance(node, dict):
            raise Unsupported("not a schema")
        keys = {k for k in node if k not in _ANNOTATIONS}
        if node is self.root:
            keys -= {"$schema", "$id"}
        unknown = keys - _COMPILED_KEYS
        if unknown:
            raise Unsupported(", ".join(sorted(unknown)))
        types = node.get("type", _MISSING)
        type_list: list[str] | None = None
        if types is not _MISSING:
            type_list = [types] if isinstance(types, str) else list(types)
            if any(t not in _TYPE_TESTS for t in type_list):
                raise Unsupported("type")
        checks: list[Callable[[Any], bool]] = []
        only_object = type_list == ["object"]
        only_string = type_list == ["string"]
        fused_type = False
        if keys & _OBJECT_KEYS:
            checks.append(self._object_check(node, only_object))
            fused_type = fused_type or only_object
        if keys & _STRING_KEYS:
            checks.append(self._string_check(node, only_string))
            fused_type = fused_type or only_string
        if type_list is not None and not fused_type:
            checks.insert(0, self._type_check(type_list))
        if keys & _ARRAY_KEYS:
            checks.append(self._array_check(node))
        if keys & _NUMBER_KEYS:
            checks.append(self._number_check(node))
        if "const" in keys:
            checks.append(self._const_check(node["const"]))
        if "enum" in keys:
            checks.append(self._enum_check(node["enum"]))
        if "$ref" in keys:
            ref = node["$ref"]
            if not isinstance(ref, str):
                raise Unsupported("$ref")
            checks.append(self.compile(_resolve_pointer(self.root, ref)))
        if "allOf" in keys:
            checks.append(_all_of([self.compile(s) for s in node["allOf"]]))
        if "anyOf" in keys:
            subs = tuple(self.compile(s) for s in node["anyOf"])
            checks.append(lambda x: any(f(x) for f in subs))
        if "oneOf" in keys:
            checks.append(self._one_of(node))
        if "not" in keys:
            inner = self.compile(node["not"])
            checks.append(lambda x: not inner(x))
        if "if" in keys:
            cond = self.compile(node["if"])
            then = self.compile(node["then"]) if "then" in node else _true
            other = self.compile(node["else"]) if "else" in node else _true
            checks.append(lambda x: then(x) if cond(x) else other(x))
        return _all_of(checks)

    # -- keyword groups ----------------------------------------------------------
    @staticmethod
    def _type_check(type_list: list[str]) -> Callable[[Any], bool]:
        tests = [_TYPE_TESTS[t] for t in type_list]
        if not tests:
            return _false
        if len(tests) == 1:
            return tests[0]
        tup = tuple(tests)
        return lambda x: any(t(x) for t in tup)

    def _object_check(self, node: dict, strict_type: bool) -> Callable[[Any], bool]:
        required = node.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise Unsupported("required")
        req = frozenset(required)
        props_schema = node.get("properties", {})
        if not isinstance(props_schema, dict):
            raise Unsupported("properties")
        props = {name: self.compile(sub) for name, sub in props_schema.items()}
        addl = node.get("additionalProperties", True)
        addl_fn: Callable[[Any], bool] | None
        if addl is True:
            addl_fn = None
            closed = False
        elif addl is False:
            addl_fn = None
            closed = True
        else:
            addl_fn = self.compile(addl)
            closed = False
            if addl_fn is _true:
                addl_fn = None
        min_p = node.get("minProperties")
        max_p = node.get("maxProperties")
        props_get = props.get
        open_default = None if (closed or addl_fn) else _true

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return not strict_type
            if req and not x.keys() >= req:
                return False
            if min_p is not None and len(x) < min_p:
                return False
            if max_p is not None and len(x) > max_p:
                return False
            for k, v in x.items():
                fn = props_get(k, open_default)
                if fn is None:
                    if closed:
                        return False
                    if not addl_fn(v):
                        return False
                elif not fn(v):
                    return False
            return True

        return check

    @staticmethod
    def _string_check(node: dict, strict_type: bool) -> Callable[[Any], bool]:
        min_l = node.get("minLength")
        max_l = node.get("maxLength")
        pattern = node.get("pattern")
        search = re.compile(pattern).search if pattern is not None else None
        if min_l is not None and max_l is None and search is None:
            def check_min(x: Any) -> bool:
                if not isinstance(x, str):
                    return not strict_type
                return len(x) >= min_l
            return check_min
        if search is not None and min_l is None and max_l is None:
            def check_pattern(x: Any) -> bool:
                if not isinstance(x, str):
                    return not strict_type
                return search(x) is not None
            return check_pattern

        def check(x: Any) -> bool:
            if not isinstance(x, str):
                return not strict_type
            if min_l is not None and len(x) < min_l:
                return False
            if max_l is not None and len(x) > max_l:
                return False
            return search is None or search(x) is not None

        return check

    def _array_check(self, node: dict) -> Callable[[Any], bool]:
        min_i = node.get("minItems")
        max_i = node.get("maxItems")
        item_fn = self.compile(node["items"]) if "items" in node else _true

        def check(x: Any) -> bool:
            if not isinstance(x, list):
                return True
            if min_i is not None and len(x) < min_i:
                return False
            if max_i is not None and len(x) > max_i:
                return False
            if item_fn is not _true:
                for item in x:
                    if not item_fn(item):
                        return False
            return True

        return check

    @staticmethod
    def _number_check(node: dict) -> Callable[[Any], bool]:
        lo = node.get("minimum")
        hi = node.get("maximum")
        xlo = node.get("exclusiveMinimum")
        xhi = node.get("exclusiveMaximum")

        def check(x: Any) -> bool:
            if not _is_number(x):
                return True
            if lo is not None and x < lo:
                return False
            if hi is not None and x > hi:
                return False
            if xlo is not None and x <= xlo:
                return False
            return xhi is None or x < xhi

        return check

    @staticmethod
    def _const_check(const: Any) -> Callable[[Any], bool]:
        if isinstance(const, str):
            return lambda x: x == const  # jsonschema: a str on either side compares with ==
        if const is None:
            return lambda x: x is None
        return lambda x: _equal(x, const)

    @staticmethod
    def _enum_check(values: Any) -> Callable[[Any], bool]:
        if not isinstance(values, list):
            raise Unsupported("enum")
        if values and all(isinstance(v, str) for v in values):
            allowed = frozenset(values)
            return lambda x: isinstance(x, str) and x in allowed
        tup = tuple(values)
        return lambda x: any(_equal(x, v) for v in tup)

    # -- oneOf with a discriminator ---------------------------------------------
    def _enforced_consts(self, node: Any, seen: set[int]) -> dict[str, Any]:
        """Key -> const that every object instance valid under node must carry."""
        if not isinstance(node, dict) or id(node) in seen:
            return {}
        seen = seen | {id(node)}
        out: dict[str, Any] = {}
        required = node.get("required")
        props = node.get("properties")
        if isinstance(required, list) and isinstance(props, dict):
            for key in required:
                sub = props.get(key) if isinstance(key, str) else None
                if isinstance(sub, dict) and "const" in sub:
                    out[key] = sub["const"]
        ref = node.get("$ref")
        if isinstance(ref, str):
            try:
                out.update(self._enforced_consts(_resolve_pointer(self.root, ref), seen))
            except Unsupported:
                pass
        for sub in node.get("allOf", []) if isinstance(node.get("allOf"), list) else []:
            out.update(self._enforced_consts(sub, seen))
        return out

    def _one_of(self, node: dict) -> Callable[[Any], bool]:
        branches = node["oneOf"]
        fns = [self.compile(b) for b in branches]
        generic_fns = tuple(fns)

        def generic(x: Any) -> bool:
            count = 0
            for f in generic_fns:
                if f(x):
                    count += 1
                    if count > 1:
                        return False
            return count == 1

        consts = [self._enforced_consts(b, set()) for b in branches]
        if not consts:
            return generic
        common = set(consts[0]).intersection(*consts[1:])
        for key in sorted(common):
            values = [c[key] for c in consts]
            if all(isinstance(v, str) for v in values) and len(set(values)) == len(values):
                table = dict(zip(values, fns))
                self.discriminators[id(node)] = (key, dict(zip(values, branches)))
                table_get = table.get

                def dispatch(x: Any, key: str = key, table_get: Callable = table_get) -> bool:
                    if not isinstance(x, dict):
                        return generic(x)
                    value = x.get(key)
                    if not isinstance(value, str):
                        return False  # every branch requires key == some string
                    fn = table_get(value)
                    return fn is not None and fn(x)

                return dispatch
        return generic

    # -- straight-line code ------------------------------------------------------
    # A node whose keywords are all common ones (objects, strings, arrays, const, $ref, allOf,
    # if/then/else) becomes one generated Python function, with its subschemas written out inline
    # (``type`` as an isinstance test, a property as a lookup), as fastjsonschema does: a record is
    # then judged in one call instead of one closure call per keyword and property. Anything else
    # in a subschema is a call to that subschema's closure. The code tests exactly what the
    # closures test, in another order: so a node is only generated when nothing it calls can raise
    # (no jsonschema fallback, no recursive reference), where order cannot change the answer.

    def _generate(self, node: Any) -> Callable[[Any], bool] | None:
        """``node``'s check as one generated function, or None to build it from closures."""
        keys = self._generated_keys(node)
        if keys is None or keys <= {"$ref"}:
            return None  # a lone $ref is the check of its target (see _all_of)
        risks = self.risks
        source = _Source()
        body = self._emit_node(node, keys, "x", source, [node], frozenset())
        if self.risks != risks:
            return None
        return source.function(body)

    def _generated_keys(self, node: Any) -> set[str] | None:
        """The keywords of ``node`` when the generator writes all of them, else None (the node is
        then compiled by ``_compile_node``, which raises ``Unsupported`` where that is due)."""
        if not isinstance(node, dict):
            return None
        keys = {k for k in node if k not in _ANNOTATIONS}
        if node is self.root:
            keys -= {"$schema", "$id"}
        if not keys <= _GENERATED_KEYS:
            return None
        types = node.get("type", [])
        if not all(t in _TYPE_EXPRS for t in ([types] if isinstance(types, str) else types)):
            return None
        required = node.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            return None
        if not isinstance(node.get("properties", {}), dict) or not isinstance(node.get("allOf", []), list):
            return None
        if "enum" in keys:
            enum = node["enum"]
            if not isinstance(enum, list) or not enum or not all(isinstance(e, str) for e in enum):
                return None  # kept by _enum_check
        ref = node.get("$ref", "#")
        if not isinstance(ref, str):
            return None
        try:
            _resolve_pointer(self.root, ref)
        except Unsupported:
            return None
        if "pattern" in keys:
            try:
                re.compile(node["pattern"])
            except (re.error, TypeError):
                return None  # _compile_node raises it, as before
        return keys

    def _emit(self, node: Any, var: str, source: "_Source", stack: list, known: frozenset) -> list[str]:
        """Lines that ``return False`` when the value in ``var`` fails ``node``; ``known``: the
        variables that hold a dict wherever these lines run (their type is tested already)."""
        if node is True:
            return []
        if node is False:
            return ["return False"]
        keys = self._generated_keys(node)
        if keys is None or len(stack) > _INLINE_DEPTH or any(n is node for n in stack):
            fn = self.compile(node)
            if fn is _true:
                return []
            if fn is _false:
                return ["return False"]
            return [f"if not {source.name(fn)}({var}): return False"]
        return self._emit_node(node, keys, var, source, [*stack, node], known)

    def _emit_node(self, node: dict, keys: set[str], var: str, source: "_Source", stack: list,
                   known: frozenset) -> list[str]:
        """The keywords of ``node`` in the order ``_compile_node`` checks them."""
        lines: list[str] = []
        types = node.get("type")
        type_list = None if types is None else [types] if isinstance(types, str) else list(types)
        if type_list is not None:
            test = " or ".join(_TYPE_EXPRS[t].format(var) for t in type_list) or "False"
            lines.append(f"if not ({test}): return False")
            if type_list == ["object"]:
                known = known | {var}
        if keys & _OBJECT_KEYS:
            lines += _guard(f"isinstance({var}, dict)", var in known, self._emit_object(node, var, source, stack, known))
        if keys & _STRING_KEYS:
            lines += _guard(f"isinstance({var}, str)", type_list == ["string"], self._emit_string(node, var, source))
        if keys & _ARRAY_KEYS:
            lines += _guard(f"isinstance({var}, list)", type_list == ["array"],
                            self._emit_array(node, var, source, stack, known))
        if "const" in keys:
            const = node["const"]
            if isinstance(const, str):
                lines.append(f"if not {var} == {source.name(const)}: return False")
            elif const is None:
                lines.append(f"if {var} is not None: return False")
            else:
                lines.append(f"if not _equal({var}, {source.name(const)}): return False")
        if "enum" in keys:
            lines.append(f"if not (isinstance({var}, str) and {var} in {source.name(frozenset(node['enum']))}): "
                         "return False")
        if "$ref" in keys:
            lines += self._emit(_resolve_pointer(self.root, node["$ref"]), var, source, stack, known)
        for sub in node.get("allOf", []):
            lines += self._emit(sub, var, source, stack, known)
        if "if" in keys:
            condition = self._condition(node["if"], var, source, known)
            then = self._emit(node["then"], var, source, stack, known) if "then" in node else []
            other = self._emit(node["else"], var, source, stack, known) if "else" in node else []
            if then or other:
                lines += [f"if {condition}:", *_indent(then or ["pass"]), "else:", *_indent(other or ["pass"])]
        return lines

    def _emit_object(self, node: dict, var: str, source: "_Source", stack: list, known: frozenset) -> list[str]:
        required = frozenset(node.get("required", []))
        props = node.get("properties", {})
        addl = node.get("additionalProperties", True)
        lines = []
        if required:
            lines.append(f"if not {_has_keys(var, required, source)}: return False")
        if "minProperties" in node:
            lines.append(f"if len({var}) < {source.name(node['minProperties'])}: return False")
        if "maxProperties" in node:
            lines.append(f"if len({var}) > {source.name(node['maxProperties'])}: return False")
        if addl is False:
            lines.append(self._closed_test(var, required, frozenset(props), source))
        for name, sub in props.items():
            value = source.variable()
            check = self._emit(sub, value, source, stack, known)
            if not check:
                continue
            if name in required:  # present: the line above made sure
                lines += [f"{value} = {var}[{source.name(name)}]", *check]
            else:
                lines += [f"{value} = {var}.get({source.name(name)}, _MISSING)",
                          f"if {value} is not _MISSING:", *_indent(check)]
        if addl is not True and addl is not False:
            key, value = source.variable(), source.variable()
            check = self._emit(addl, value, source, stack, known)
            if check:
                lines += [f"for {key}, {value} in {var}.items():",
                          f"    if {key} not in {source.name(frozenset(props))}:", *_indent(check, 2)]
        return lines

    @staticmethod
    def _closed_test(var: str, required: frozenset, allowed: frozenset, source: "_Source") -> str:
        """The line that returns False when ``var`` has a key outside ``allowed``, run once it is known
        to hold every ``required`` key. Those that are allowed as well are then among its keys, so it
        has no other key exactly when its size is their number plus that of the optional keys it holds:
        a few `in` tests, not a comparison of its keys view with a set."""
        optional = allowed - required
        if not required <= allowed or len(optional) > _FEW_KEYS:
            return f"if not {var}.keys() <= {source.name(allowed)}: return False"
        size = " + ".join([str(len(required)), *(f"({source.name(k)} in {var})" for k in sorted(optional))])
        return f"if len({var}) != {size}: return False"

    @staticmethod
    def _emit_length(node: dict, var: str, source: "_Source", low: str, high: str) -> list[str]:
        """``len(var)`` against the node's bounds (``minLength``/``maxLength``, ``minItems``/``maxItems``)."""
        lines = []
        if low in node:
            lines.append(f"if len({var}) < {source.name(node[low])}: return False")
        if high in node:
            lines.append(f"if len({var}) > {source.name(node[high])}: return False")
        return lines

    def _emit_string(self, node: dict, var: str, source: "_Source") -> list[str]:
        lines = self._emit_length(node, var, source, "minLength", "maxLength")
        if "pattern" in node:
            # A regular expression costs more than the rest of a record's check, and records of one
            # event share their timestamp: the last string that matched is remembered (an exact str
            # only, which compares as its characters do).
            search, last = source.name(re.compile(node["pattern"]).search), source.name([None])
            lines += [f"if type({var}) is str:",
                      f"    if {var} != {last}[0]:",
                      f"        if {search}({var}) is None: return False",
                      f"        {last}[0] = {var}",
                      f"elif {search}({var}) is None: return False"]
        return lines

    def _emit_array(self, node: dict, var: str, source: "_Source", stack: list, known: frozenset) -> list[str]:
        lines = self._emit_length(node, var, source, "minItems", "maxItems")
        if "items" in node:
            item = source.variable()
            check = self._emit(node["items"], item, source, stack, known)
            if check:
                lines += [f"for {item} in {var}:", *_indent(check)]
        return lines

    def _condition(self, node: Any, var: str, source: "_Source", known: frozenset) -> str:
        """An expression true when ``var`` passes ``node`` (the ``if`` of if/then/else): written
        out for the usual "has these keys", else a call of the node's check."""
        if isinstance(node, dict) and {k for k in node if k not in _ANNOTATIONS} == {"required"}:
            required = node["required"]
            if isinstance(required, list) and all(isinstance(r, str) for r in required):
                has_keys = _has_keys(var, frozenset(required), source)
                return has_keys if var in known else f"(not isinstance({var}, dict) or {has_keys})"
        return f"{source.name(self.compile(node))}({var})"


@dataclass(frozen=True)
class CompiledSchema:
    """A schema taken apart: the check of the list as a whole (its type and length) and the check
    of each record, with what explains a failing record."""

    list_fn: Callable[[Any], bool]
    item_fn: Callable[[Any], bool]
    items_schema: Any
    #: subschemas left to jsonschema, checked per record
    fallback_nodes: int
    #: the discriminated oneOf reached from ``items`` through plain $refs: (key, {value: branch})
    discriminator: tuple[str, dict[str, Any]] | None
    #: what ``list_fn`` checks: the root's keywords about the list (``type``, ``minItems``, ``maxItems``)
    list_part: dict[str, Any]


def _check_supported(schema: Any) -> None:
    """Raise ``Unsupported`` for a schema only jsonschema can judge as a whole."""
    if not isinstance(schema, dict):
        raise Unsupported("boolean schema")
    dialect = schema.get("$schema")
    if dialect is not None and dialect not in _DIALECTS_2020:
        raise Unsupported("dialect")
    if _needs_whole_fallback(schema):
        raise Unsupported("dynamic scope")


def compile_schema(schema: Any, jsv: Any) -> CompiledSchema:
    """Compile ``schema`` (``jsv``: its jsonschema validator, for the fallbacks); raise
    ``Unsupported`` when only whole-list jsonschema validation gives its verdict."""
    _check_supported(schema)
    keys = {k for k in schema if k not in _ROOT_IGNORED}
    if not keys <= _ROOT_LIST_KEYS:
        raise Unsupported("root keywords")
    compiler = _Compiler(schema, jsv)
    list_part = {k: v for k, v in schema.items() if k in keys and k != "items"}
    list_fn = compiler._compile_node(list_part)
    items_schema = schema.get("items", True)
    item_fn = compiler.compile(items_schema)
    discriminator = None
    node, seen = items_schema, set()
    while isinstance(node, dict) and id(node) not in seen:
        seen.add(id(node))
        if id(node) in compiler.discriminators:
            discriminator = compiler.discriminators[id(node)]
            break
        ref = node.get("$ref")
        if not isinstance(ref, str):
            break
        try:
            node = _resolve_pointer(schema, ref)
        except Unsupported:
            break
    return CompiledSchema(list_fn, item_fn, items_schema, compiler.fallback_nodes, discriminator, list_part)


def compile_document(schema: Any, jsv: Any) -> Callable[[Any], bool]:
    """``schema`` compiled into one check of a whole document (the generator's mapping schema, say):
    true exactly when ``jsv.is_valid`` is; raise ``Unsupported`` when only jsonschema decides it."""
    _check_supported(schema)
    return _Compiler(schema, jsv).compile(schema)
