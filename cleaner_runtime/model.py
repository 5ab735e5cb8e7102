"""The mapping as typed sections: the one place its defaults are written.

Why: a mapping used to be nested dicts whose defaults lived in a dict (``mapping.DEFAULTS``) and in
``.get(key, default)`` calls wherever a key was read, so a default could differ between the
runtime, the survey and the answers file. Here each section is a dataclass whose field defaults
ARE the defaults; ``mapping.DEFAULTS`` is derived from them (``defaults()``).

``Mapping.load(data, origin)`` checks a mapping (``mapping_check``) and fills in its defaults, once;
``Mapping.to_dict()`` gives back the plain dict that ``mapping.with_defaults`` gives (same keys, same
order: the answers file is written from it), ``to_dict(compact=True)`` the one that
``mapping.without_empty_defaults`` gives. Values whose shape varies (paths may be a string, a list
of keys or ``{value: x}``; ``content`` may be a join) are kept as written: this is a typed shell
over the mapping format, not a new language. Standard library only: every project ships a copy.
"""

from __future__ import annotations

import copy
import dataclasses as dc
from typing import Any, ClassVar

INCLUDE = ["*.jsonl", "*.json", "*.ndjson", "*.jsonl.gz", "*.json.gz", "*.ndjson.gz"]
# The user texts Letta's shared normalizer core (0.3.0) drops as harness noise, for every source (its
# `noise_record_dropped`): a coding CLI's local slash command and its output, not a prompt to the model.
HARNESS_NOISE = ["<local-command-caveat>", "<command-name>", "<command-message>", "<local-command-stdout>",
                 "<local-command-stderr>", "<task-notification"]


def _plain(value: Any) -> Any:
    """A field's value as the mapping writes it: sections as dicts, everything else a deep copy
    (so that a caller editing the dict never edits the model)."""
    if isinstance(value, (Section, Written)):
        return value.to_dict()
    return copy.deepcopy(value)


def _refuse_unknown(cls: type, data: dict, names: set[str]) -> None:
    """A key no field holds is an error, never dropped (a section given without ``Mapping.load``,
    such as the privacy settings the redaction helpers receive)."""
    unknown = [key for key in data if key not in names]
    if unknown:
        from .mapping import MappingError

        raise MappingError(f"{cls.__name__.lower()}: unknown key(s) {', '.join(map(repr, unknown))}")


class Section:
    """A section merged with its defaults: every key present, in the order the fields are declared
    (the order ``with_defaults`` writes); a key given as ``None`` takes its default, as in
    ``with_defaults``. ``nested`` names the fields that are sections themselves."""

    nested: ClassVar[dict[str, type]] = {}

    @classmethod
    def load(cls, data: dict | None, required: dict | None = None) -> Any:
        data = data or {}
        names = {f.name for f in dc.fields(cls)}
        _refuse_unknown(cls, data, names)  # the schema check runs first; this guards an unchecked caller
        given = {}
        for key, value in data.items():
            if value is None:
                continue  # None takes the default (with_defaults does the same)
            kind = cls.nested.get(key)
            given[key] = kind.load(value) if kind is not None else copy.deepcopy(value)
        return cls(**given, **(required or {}))

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in dc.fields(self)}


class Written:
    """A record kept as written (no defaults, its keys in the order given): a kind rule or a
    session tree, which ``with_defaults`` copies untouched."""

    @classmethod
    def load(cls, data: dict) -> Any:
        names = {f.name for f in dc.fields(cls)} - {"written"}
        _refuse_unknown(cls, data, names)
        return cls(**{key: copy.deepcopy(value) for key, value in data.items()}, written=tuple(data))

    def to_dict(self) -> dict[str, Any]:
        return {key: copy.deepcopy(getattr(self, key)) for key in self.written}


@dc.dataclass(frozen=True)
class Input(Section):
    """How the files are found and read (``input``)."""

    container: str = "auto"
    records_path: Any = None  # a path; None: the records are the document's items or lines
    include: list[str] = dc.field(default_factory=lambda: list(INCLUDE))
    invalid_lines: str = "skip"
    document_key: str | None = None
    children: Any = dc.field(default_factory=list)  # paths of records nested in records
    tagged: Any = None  # {tag, value}: a [name, payload] line or element is one record (shapes.py)
    unflatten: bool = False  # dotted keys with list indices are rebuilt as the tree they flatten
    keyed_lists: bool = False  # lists of {key, value} objects (OTLP attributes) are read as objects
    decode: list[str] = dc.field(default_factory=list)  # keys whose JSON strings are parsed where they are
    more_records: Any = dc.field(default_factory=list)  # paths of lists read after the records_path one


@dc.dataclass(frozen=True)
class Tree(Written):
    """``session.tree``: the records form a tree by an id and a parent id."""

    id: Any = None
    parent: Any = None
    written: tuple[str, ...] = dc.field(default=(), repr=False, compare=False)


@dc.dataclass(frozen=True)
class Session(Section):
    """How records group into sessions (``session``); ``opening``/``closing`` entries as written."""

    nested: ClassVar[dict[str, type]] = {"tree": Tree}

    by: str = "file"
    field: Any = None  # paths of the session id, when ``by`` is ``field``
    missing: str = "fail"
    order_by: Any = dc.field(default_factory=list)
    tree: Tree | None = None
    opening: list[dict] = dc.field(default_factory=list)
    closing: list[dict] = dc.field(default_factory=list)


@dc.dataclass(frozen=True)
class Timestamps(Section):
    """Where the times are and how they read (``timestamps``)."""

    fields: Any = dc.field(default_factory=lambda: ["timestamp"])
    format: str = "auto"
    layout: str | None = None
    timezone: str = "UTC"
    fallback: str = "none"
    fallback_field: Any = None
    timezone_field: Any = dc.field(default_factory=list)


@dc.dataclass(frozen=True)
class Meta(Section):
    """Paths of the session's metadata (``meta``)."""

    cwd: Any = dc.field(default_factory=list)
    git_branch: Any = dc.field(default_factory=list)
    model: Any = dc.field(default_factory=list)


@dc.dataclass(frozen=True)
class KindRule(Written):
    """One rule of ``kinds`` as written (``convert.Kind`` is its compiled form)."""

    role: str = ""
    name: str | None = None
    match: dict[str, Any] | None = None
    has: list | None = None
    lacks: list | None = None
    content: Any = None
    timestamp: Any = None
    call_id: Any = None
    tool_name: Any = None
    args: Any = None
    args_key: str | None = None
    result_link: Any = None
    ok: Any = None
    reasoning: Any = None
    result_timestamp: Any = None
    emit: list[dict] | None = None
    same: dict[str, Any] | None = None
    written: tuple[str, ...] = dc.field(default=(), repr=False, compare=False)


@dc.dataclass(frozen=True)
class Blocks(Section):
    """Content blocks (``blocks``); each block rule (``types``, ``by_key``) kept as written."""

    type_field: Any = "type"
    types: dict[str, dict] = dc.field(default_factory=dict)
    by_key: dict[str, dict] = dc.field(default_factory=dict)
    unknown: str = "fail"


@dc.dataclass(frozen=True)
class Tools(Section):
    """Tool calls and results (``tools``)."""

    error_prefix: str = ""
    orphan_results: str = "skip"


@dc.dataclass(frozen=True)
class SessionsPolicy(Section):
    """Which sessions are written (``sessions``)."""

    without_user: str = "skip"
    without_assistant: str = "skip"
    # a user text starting with one of these (after leading blanks) is the harness's, not the person's
    harness_noise: list = dc.field(default_factory=lambda: list(HARNESS_NOISE))


@dc.dataclass(frozen=True)
class Truncate(Section):
    """``privacy.truncate``: the longest string kept whole, in characters."""

    tool: int = 20000
    other: int = 50000


@dc.dataclass(frozen=True)
class Privacy(Section):
    """Redaction, dropped fields and truncation (``privacy``)."""

    nested: ClassVar[dict[str, type]] = {"truncate": Truncate}

    redact: bool = True
    personal_data: bool = False
    drop_fields: list = dc.field(default_factory=list)
    extra_patterns: dict[str, str] = dc.field(default_factory=dict)
    allowlist: list[str] = dc.field(default_factory=list)
    truncate: Truncate = dc.field(default_factory=Truncate)


# The keys without a default, which ``with_defaults`` writes after the defaulted ones, as given.
REQUIRED = ("mapping_version", "source", "kinds")


@dc.dataclass(frozen=True, kw_only=True)
class Mapping(Section):
    """A whole mapping, checked and with its defaults: what the runtime and the generator read.

    The defaulted fields come first, in the order of ``with_defaults``' output; ``mapping_version``,
    ``source`` and ``kinds`` follow in the order they were given (``written``)."""

    nested: ClassVar[dict[str, type]] = {
        "input": Input, "session": Session, "timestamps": Timestamps, "meta": Meta, "blocks": Blocks,
        "tools": Tools, "sessions": SessionsPolicy, "privacy": Privacy,
    }

    source_profile: str = "generic"
    input: Input = dc.field(default_factory=Input)
    session: Session = dc.field(default_factory=Session)
    timestamps: Timestamps = dc.field(default_factory=Timestamps)
    meta: Meta = dc.field(default_factory=Meta)
    unknown_kinds: str = "fail"
    blocks: Blocks = dc.field(default_factory=Blocks)
    tools: Tools = dc.field(default_factory=Tools)
    sessions: SessionsPolicy = dc.field(default_factory=SessionsPolicy)
    privacy: Privacy = dc.field(default_factory=Privacy)
    mapping_version: int
    source: str
    kinds: tuple[KindRule, ...]
    written: tuple[str, ...] = dc.field(default=REQUIRED, repr=False, compare=False)

    @classmethod
    def load(cls, data: Any, origin: str = "mapping") -> Mapping:
        """``data`` checked against the mapping schema (MappingError naming the wrong key) and
        completed with its defaults; a Mapping is returned as it is (it was checked when loaded)."""
        if isinstance(data, Mapping):
            return data
        from .mapping_check import check_mapping

        check_mapping(data, origin)
        return cls.from_checked(data)

    @classmethod
    def from_checked(cls, data: dict) -> Mapping:
        """A mapping already checked (``check_mapping``), completed with its defaults."""
        loaded = Section.load.__func__(cls, {key: value for key, value in data.items() if key not in REQUIRED},
                                       required={key: data[key] for key in REQUIRED})
        kinds = tuple(KindRule.load(rule) for rule in data["kinds"])
        return dc.replace(loaded, kinds=kinds, written=tuple(key for key in data if key in REQUIRED))

    def to_dict(self, compact: bool = False) -> dict[str, Any]:
        """The plain mapping: ``with_defaults``' dict, or with ``compact`` the one
        ``without_empty_defaults`` makes of it (what the answers file shows)."""
        out = {f.name: _plain(getattr(self, f.name)) for f in dc.fields(self) if f.name not in (*REQUIRED, "written")}
        for key in (*self.written, *(k for k in REQUIRED if k not in self.written)):
            out[key] = [rule.to_dict() for rule in self.kinds] if key == "kinds" else copy.deepcopy(getattr(self, key))
        if compact:
            from .mapping import without_empty_defaults

            return without_empty_defaults(out)
        return out


def defaults() -> dict[str, Any]:
    """Every default of the mapping, as ``mapping.DEFAULTS`` writes them (derived from the fields)."""
    empty = Mapping(mapping_version=1, source="", kinds=())
    return {f.name: _plain(getattr(empty, f.name)) for f in dc.fields(Mapping) if f.name not in (*REQUIRED, "written")}
