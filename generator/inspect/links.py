"""Value links: id fields whose values reappear later in another kind's or block's field (tool call
linkage, parent/child trees).

Contract: ``find_links`` returns Links with ``overlap`` (the share of target values found among the
source values) and ``after`` (the share of matched values that come after their definition); the
session field is never a link.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from generator.inspect.blocks import Blocks
from generator.inspect.fieldpaths import dotted, get, values_at, walk
from generator.inspect.fields import FieldStat
from generator.inspect.kinds import Kind
from generator.inspect.values import token_like
from generator.inspect.vocab import words


@dataclass
class Link:
    """Values of one field that reappear in another field: tool linkage or a parent/child tree."""

    source: str  # where the ids are defined: "kind:<key>" / "block:<type>" / "list:<path>"
    source_path: tuple
    target: str
    target_path: tuple
    overlap: float  # share of target values found among source values
    after: float  # share of matched target values that come after their source
    matched: int

    def to_dict(self) -> dict:
        return {"ids": f"{self.source} {dotted(self.source_path)}", "referenced_by": f"{self.target} "
                f"{dotted(self.target_path)}", "overlap": round(self.overlap, 3), "after": round(self.after, 3),
                "matched": self.matched}


def _id_sites(kinds: list[Kind], blocks: Blocks) -> list[tuple[str, tuple, list[tuple[Any, tuple]]]]:
    """(site, path, [(value, order)]) for every short string/int field of kinds and blocks."""
    sites = []
    for kind in kinds:
        per_path: dict[tuple, list] = defaultdict(list)
        for rec in kind.recs[:5000]:
            nodes: list = []
            walk(rec.data, (), nodes)
            for sub, (path, value) in enumerate(nodes):
                if isinstance(value, int) and not isinstance(value, bool) and "id" not in words(str(path[-1])):
                    continue
                if isinstance(value, (str, int)) and not isinstance(value, bool) and path:
                    if any(path[: len(p)] == p and len(path) > len(p) for p in blocks.all_paths):
                        continue
                    if isinstance(value, str) and not token_like(value):
                        continue
                    per_path[path].append((value, (rec.file, rec.pos, sub)))
        for path, values in per_path.items():
            sites.append((f"kind:{kind.key}", path, values))
    if blocks.type_field:
        per_block: dict[tuple, list] = defaultdict(list)
        for kind in kinds:
            for rec in kind.recs[:5000]:
                for bpath in blocks.paths:
                    items = get(rec.data, bpath)
                    if not isinstance(items, list):
                        continue
                    for i, item in enumerate(items):
                        if not isinstance(item, dict):
                            continue
                        name = item.get(blocks.type_field[0])
                        for key, value in item.items():
                            if isinstance(value, str) and token_like(value) and key != blocks.type_field[0]:
                                per_block[(str(name), (key,))].append((value, (rec.file, rec.pos, i)))
        for (name, path), values in per_block.items():
            sites.append((f"block:{name}", path, values))
    if blocks.by_key:
        per_key: dict[tuple, list] = defaultdict(list)
        order = list(blocks.by_key)
        for kind in kinds:
            for rec in kind.recs[:5000]:
                for bpath in blocks.key_paths:
                    items = [i for v in values_at(rec.data, bpath) if isinstance(v, list) for i in v]
                    for i, item in enumerate(items):
                        name = next((k for k in order
                                     if isinstance(item, dict) and item.get(k) not in (None, False, "")), None)
                        if name is None:
                            continue
                        nodes: list = []
                        walk(item, (), nodes)
                        for path, value in nodes:
                            if path and isinstance(value, str) and token_like(value) and len(path) <= 3:
                                per_key[(name, path)].append((value, (rec.file, rec.pos, i)))
        for (name, path), values in per_key.items():
            sites.append((f"key:{name}", path, values))
    return sites


def _idlike(stat: FieldStat | None) -> bool:
    """Values that name one thing each: (nearly) never repeated, not prose, not times."""
    if stat is None or stat.main_type not in ("string", "int") or not stat.occurrences:
        return False
    scalars = sum(n for t, n in stat.types.items() if t in ("string", "int"))
    return stat.cardinality >= 0.8 * scalars and stat.time_format()[1] < 0.8 and (stat.tokenish or not stat.str_count)


def find_links(kinds: list[Kind], blocks: Blocks, stats: dict[tuple, FieldStat],
               session: tuple | None = None) -> list[Link]:
    """Id fields whose values reappear later in another kind's or block's field.

    Tool linkage is found this way (a result's ``call_id`` values are the ``id`` values of
    earlier calls), and so are parent/child trees (``parent_id`` -> ``id``).
    """
    sites = [site for site in _id_sites(kinds, blocks) if not (site[0].startswith("kind:") and site[1] == session)]
    id_sites = []
    for site, path, values in sites:
        if site.startswith(("block:", "key:")):
            block = (blocks.types if site.startswith("block:") else blocks.by_key).get(site.split(":", 1)[1])
            stat = block.stats.get(path) if block else None
        else:
            stat = stats.get(path)
        distinct = {v for v, _ in values}
        if _idlike(stat) and any(isinstance(v, int) or len(v) >= 3 for v in distinct):
            id_sites.append((site, path, values, distinct))
        elif stat is not None and any(w in ("id", "ids") for w in words(str(path[-1]))) and stat.str_count:
            id_sites.append((site, path, values, distinct))  # references repeat (several results per id)
    links = []
    for s_site, s_path, s_values, s_distinct in id_sites:
        first_seen: dict[Any, tuple] = {}
        for value, order in s_values:
            if value not in first_seen or order < first_seen[value]:
                first_seen[value] = order
        for t_site, t_path, t_values, t_distinct in id_sites:
            if (t_site, t_path) == (s_site, s_path):
                continue
            common = s_distinct & t_distinct
            if not common or len(common) < 0.5 * len(t_distinct):
                continue
            after = sum(1 for v, order in t_values if v in first_seen and order > first_seen[v])
            matched = sum(1 for v, _ in t_values if v in first_seen)
            if not matched or after < 0.5 * matched:
                continue
            links.append(Link(s_site, s_path, t_site, t_path, len(common) / len(t_distinct),
                              after / matched if matched else 0.0, matched))
    return links

