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


class _UniqueKeys(yaml.SafeLoader):
    """A YAML loader that refuses a key written twice in one mapping (YAML keeps the last silently)."""


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
