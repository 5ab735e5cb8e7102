"""Load and check a mapping (answers file): one clear message naming the key that is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from cleaner_runtime.mapping import MAPPING_KEYS, MappingError  # the runtime reads them from the answers file
from cleaner_runtime.mapping_check import check_mapping as _check_mapping
from cleaner_runtime.model import Mapping


class AnswersError(Exception):
    """A mapping that cannot be used; the message names the file and the key."""


#: The deepest nesting an answers file may use (a real mapping needs fewer than ten levels): deeper
#: input exhausted Python's recursion limit while it was composed ("unexpected RecursionError").
MAX_DEPTH = 100
#: The most values an answers file may stand for once its aliases are expanded. Aliases let a few
#: lines stand for billions of values (an "alias bomb": ten lines of nine aliases each stand for
#: 9**10 strings), which every later walk of the mapping (the schema check, a copy, a dump) expands.
MAX_EXPANDED = 100_000


class _Refused(Exception):
    """YAML the answers loader will not build: too deep, or aliases that expand too far."""

    def __init__(self, mark: Any, problem: str) -> None:
        super().__init__(problem)
        self.mark, self.problem = mark, problem


def _children(node: yaml.Node) -> list:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


class _UniqueKeys(yaml.SafeLoader):
    """A YAML loader that refuses a key written twice in one mapping (YAML keeps the last silently),
    nesting deeper than ``MAX_DEPTH``, and aliases that make the file stand for more than
    ``MAX_EXPANDED`` values. Both are checked on the node tree as it is composed, before any Python
    object is built; a few aliases repeating a small value (as YAML dumpers write shared lists) load."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._sizes: dict[int, int] = {}  # id(node) -> how many values it stands for, aliases expanded

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            return super().compose_node(parent, index)  # the anchored node itself; counted by its parent
        mark = self.peek_event().start_mark
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _Refused(mark, f"nested more than {MAX_DEPTH} levels deep; an answers file needs only a few "
                                 "levels: check the brackets, or write the mapping as docs/mapping.md shows")
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        size = 1 + sum(self._size(child, mark) for child in _children(node))
        if size > MAX_EXPANDED:
            raise _Refused(mark, f"the aliases (*name) here expand to more than {MAX_EXPANDED:,} values; "
                                 "write the values out instead of using anchors (&name) and aliases (*name)")
        self._sizes[id(node)] = size
        return node

    def _size(self, node: Any, mark: Any) -> int:
        size = self._sizes.get(id(node))
        if size is None:
            raise _Refused(mark, "an alias (*name) here refers to the value that holds it; write the values "
                                 "out instead of using anchors (&name) and aliases (*name)")
        return size


def _mapping_without_repeats(loader: _UniqueKeys, node: yaml.MappingNode) -> dict:
    seen: dict = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {key!r} is written twice (lines {seen[key] + 1} and "
                f"{key_node.start_mark.line + 1}); keep one", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node)


_UniqueKeys.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_repeats)


def check_mapping(mapping: Any, origin: str = "mapping") -> dict:
    """The mapping itself when valid; AnswersError naming the first wrong key otherwise (the
    check is the runtime's own, ``cleaner_runtime.mapping_check``: a cleaner reading a hand-edited
    answers file says the same)."""
    try:
        return _check_mapping(mapping, origin)
    except MappingError as exc:
        raise AnswersError(str(exc)) from None


def load_mapping(mapping: Mapping | dict, origin: str = "mapping") -> Mapping:
    """The typed mapping (``cleaner_runtime.model``): checked and completed with its defaults once,
    by the runtime's own loader; AnswersError naming the first wrong key otherwise."""
    try:
        return Mapping.load(mapping, origin)
    except MappingError as exc:
        raise AnswersError(str(exc)) from None


def mapping_from(data: dict) -> dict:
    """The mapping keys of an answers file (copier's own `_` keys and extras dropped)."""
    return {key: data[key] for key in MAPPING_KEYS if key in data}


def load_yaml(text: str, origin: str) -> Any:
    """YAML read by the bounded loader (nesting, alias expansion and repeated keys refused while
    composing): every YAML the generator reads, answers files and typed values alike, goes through
    it, so no spelling of an alias bomb reaches ``yaml.safe_load``. Raises ``AnswersError`` naming
    ``origin`` and the line; plain YAML errors are re-raised as ``yaml.YAMLError``."""
    try:
        return yaml.load(text, Loader=_UniqueKeys)
    except _Refused as exc:
        raise AnswersError(f"{origin}:{exc.mark.line + 1}: {exc.problem}") from None


def load_answers(path: str | Path) -> dict:
    """Read a mapping YAML or a rendered project's .copier-answers.yml, and check it (``load_mapping``).

    The mapping is returned as written, without its defaults: ``new --answers --save-answers`` and
    ``update --set`` write back what the author wrote; ``load_answers_model`` gives the typed one."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AnswersError(f"{path}: no such answers file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise AnswersError(f"{path}: cannot read ({exc})") from None
    try:
        data = yaml.load(text, Loader=_UniqueKeys)  # a SafeLoader that refuses repeated keys
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise AnswersError(f"{path}{where}: not valid YAML ({problem})") from None
    except _Refused as exc:
        raise AnswersError(f"{path}:{exc.mark.line + 1}: {exc.problem}") from None
    if not isinstance(data, dict):
        raise AnswersError(f"{path}: the answers must be a YAML mapping (key: value)")
    unknown = [key for key in data if key not in MAPPING_KEYS and not str(key).startswith("_")
               and key not in ("generator_version", "template_version", "prompt_context")]
    if unknown:
        raise AnswersError(f"{path}: unknown key(s) {', '.join(map(repr, unknown))} (see docs/mapping.md)")
    mapping = mapping_from(data)
    load_mapping(mapping, str(path))
    return mapping


def load_answers_model(path: str | Path) -> Mapping:
    """The answers file's mapping as the typed model, completed with its defaults."""
    return Mapping.from_checked(load_answers(path))


def dump_mapping(mapping: dict) -> str:
    """YAML for a mapping, keys in their natural order (not sorted)."""
    return yaml.safe_dump(mapping, sort_keys=False, allow_unicode=True, width=100)
