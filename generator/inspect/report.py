"""The printed inspect report: structure and counts first, redacted short examples.

Contract: ``report_text`` renders a Profile as text (ending in a newline); it analyses nothing.
Input paths, and the problems and bad lines that name them, are shown through ``shown_path``: a
secret in a file or folder name is never printed (issue 36 item 7).
"""

from __future__ import annotations

from collections import Counter

from cleaner_runtime.redaction.names import shown_path
from generator.inspect.examples import example
from generator.inspect.fieldpaths import dotted
from generator.inspect.profile import Profile
from generator.inspect.shaping import shaping_words
from generator.inspect.values import human_size


def report_text(profile: Profile, show_values: bool = False) -> str:
    """The people's report: structure and counts first, redacted short examples."""
    lines: list[str] = []
    add = lines.append
    read = sum(f.bytes_read for f in profile.files)
    add(f"Inputs: {profile.files_total} file(s), {human_size(profile.bytes_total)}; read "
        f"{len(profile.files)} file(s), {human_size(read)}"
        + (" (everything)" if profile.complete else f" (bounded sample, budget {human_size(profile.budget)})")
        + f"; {profile.records_read} records"
        + (f", {profile.records} analysed (every shape, a bounded number of each)"
           if profile.records < profile.records_read else ""))
    for problem in profile.problems:
        add(f"  ! {shown_path(str(problem))}")
    add("")
    add("Files")
    containers = Counter(f.container + (" (gzip)" if f.compressed else "") for f in profile.files)
    add("  containers: " + ", ".join(f"{k} x{v}" for k, v in containers.most_common()))
    for f in profile.files[:30]:
        extra = f", records at `{dotted(f.records_path)}`" if f.records_path else ""
        add(f"  {shown_path(f.path)}: {f.container}{' gzip' if f.compressed else ''}, {f.records} records{extra}, read "
            f"{f.read}" + (f", {f.bad_count} bad line(s)" if f.bad_count else "")
            + (f"; {shown_path(f.problem)}" if f.problem else ""))
        for where, reason in f.bad_lines[:5]:
            add(f"    bad: {shown_path(str(where))}: {reason}")
        for rule in shaping_words(f.shaping):
            add(f"    read as: {rule}")
    if len(profile.files) > 30:
        add(f"  ... {len(profile.files) - 30} more file(s)")
    around = sorted({str(k) for r in profile.recs if r.envelope for k in r.envelope})
    if around:
        add(f"  fields beside the record list (input.document_key reaches them): {', '.join(around[:20])}")
    add("")
    s = profile.session
    add(f"Sessions: {s.sessions} in the sample; one session = "
        + ("one file" if s.by == "file" else "one element of a nested record list" if s.by == "element"
           else f"one value of `{dotted(s.path)}`"))
    add(f"  {s.evidence}")
    if s.by == "field":
        add(f"  interleaved in one file: {'yes' if s.interleaved else 'no'}; continues across files: "
            f"{'yes' if s.across_files else 'no'}")
    add("")
    if profile.native:
        add(f"Native harness: this looks like {profile.native.source} ({profile.native.evidence}).")
        add("  Letta's trajectory normalizer reads it natively: prefer the native path (for Lerim, the "
            "supported agent) over a custom cleaner.")
        add("")
    add(f"Record kinds ({len(profile.kinds)}):")
    for kind in profile.kinds:
        sounds = f"  (named like {', '.join(kind.hints)})" if kind.hints else ""
        add(f"  [{kind.key}] x{kind.count}{sounds}")
        keys = [dotted(p) for p, st in kind.stats.items() if len(p) == 1 and st.records]
        add(f"      keys: {', '.join(keys[:14])}{' ...' if len(keys) > 14 else ''}")
    add("")
    if profile.blocks.type_field:
        add(f"Content blocks: lists at {', '.join('`' + dotted(p) + '`' for p in profile.blocks.paths)}, "
            f"typed by `{dotted(profile.blocks.type_field)}`")
        for block in profile.blocks.types.values():
            fields = [dotted(p) for p, st in block.stats.items() if len(p) == 1]
            add(f"  {block.name} x{block.count}: {', '.join(fields)}")
        add("")
    if profile.blocks.by_key:
        add(f"Content blocks without a type field: lists at "
            f"{', '.join('`' + dotted(p) + '`' for p in profile.blocks.key_paths)}, told apart by the key they hold")
        for block in profile.blocks.by_key.values():
            fields = [dotted(p) for p, st in block.stats.items() if len(p) <= 2]
            add(f"  {block.name} x{block.count}: {', '.join(fields[:8])}")
        add("")
    add("Timestamps:")
    if not profile.times:
        add("  none: no field holds times (a cleaner must fall back to file modification times)")
    for t in profile.times[:6]:
        mono = "" if t.monotonic is None else f", {t.monotonic:.0%} in order"
        gap = "" if t.max_gap is None else f", median gap {t.median_gap:g}s, max gap {t.max_gap:g}s"
        add(f"  `{dotted(t.path)}`: {t.format}, filled in {t.fill:.0%} of records{mono}{gap}")
    add("")
    tool_links = [link for link in profile.links if link.overlap >= 0.5]
    add("Value links (ids defined in one place and referenced in another):")
    if not tool_links:
        add("  none")
    for link in tool_links[:10]:
        add(f"  {link.target} `{dotted(link.target_path)}` -> {link.source} `{dotted(link.source_path)}`: "
            f"{link.overlap:.0%} of values match, {link.after:.0%} after the definition")
    add("")
    add("Meta candidates:")
    any_meta = False
    for key, cands in profile.meta.items():
        if cands:
            any_meta = True
            add(f"  {key}: " + ", ".join(f"`{dotted(c['path'])}` ({c['fill']:.0%})" for c in cands[:3]))
    if not any_meta:
        add("  none")
    add("")
    add(f"Fields ({len(profile.stats)} paths; fill = share of records holding the path):")
    total = profile.records or 1
    for path, st in sorted(profile.stats.items(), key=lambda kv: dotted(kv[0]))[:120]:
        types = "/".join(t for t, _ in st.types.most_common() if t != "null") or "null"
        detail = f"{dotted(path)}: {types}, fill {st.records / total:.0%}"
        if st.main_type in ("string", "int", "float"):
            detail += f", {st.cardinality}{'+' if st.cardinality >= 20000 else ''} distinct"
        if st.str_count and st.prose > 0.3:
            detail += f", text (avg {st.avg_len:.0f} chars)"
        fmt, share = st.time_format()
        if fmt and share >= 0.8:
            detail += f", time {fmt}"
        if st.values and not st.overflow and st.tokenish and st.cardinality <= 12:
            detail += ": " + ", ".join(example(v, show_values, path) for v, _ in st.values.most_common(8))
        elif st.examples and (show_values or st.tokenish):
            detail += "; e.g. " + ", ".join(example(v, show_values, path) for v in st.examples[:2])
        add("  " + detail)
    if len(profile.stats) > 120:
        add(f"  ... {len(profile.stats) - 120} more path(s) (use --json)")
    return "\n".join(lines) + "\n"

