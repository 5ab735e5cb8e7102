"""The redaction engine: each detector compiled on its own, tried only where it may start.

Design
------

* One compiled regex per detector and first character (named groups), tried
  in table order at a candidate position: only the detectors that may start
  there (the anchor found there names them; token-run and ``pre`` detectors
  only where those scans found a start).  ``re`` is slow with many groups in
  one pattern: at each step of a repeated group it saves the marks of every
  group up to the highest one set, so in one alternation of all detectors
  (~300 groups) the keyword detectors, numbered last, matched several times
  slower than on their own.
* An exact prefilter picks the positions where they are tried: every detector
  declares how its matches start (a literal anchor such as ``ghp_``,
  ``pass`` or ``://``, or "a run of 16+ token characters"), found with one
  C-speed search for all the anchors at once and one ``bytes.translate``
  scan, and the detectors' regexes run only
  there.  Text without any anchor or long run is returned untouched.
  (``re`` has no jump table for alternations: searching an alternation of
  ~60 first-character branches would run at ~1 MB/s.)
* Optional native anchor search: when ``hyperscan`` is installed (the rendered
  project's ``requirements-fast.txt``), its literal matcher finds the anchors
  instead of ``re`` (about 7x faster on trace text).  It reports the same set
  of positions, so output and counts are identical with or without it
  (property-tested); ``TRAJECTORY_CLEANER_PURE_REDACTION=1`` or
  ``NATIVE_ANCHORS = False`` keeps the search in ``re``.  The detectors
  themselves always run in ``re``.
* Works on raw text, JSON-escaped text (any nesting depth: ``\\"``,
  ``\\\\\\"``, ``\\n``, ``\\u0026``), URL-encoded text (``%3D``, ``%22``,
  ``%3A%2F%2F``) and HTML-escaped quotes (``&quot;``).  Replacements never
  split an escape sequence, and the placeholder contains no quote or
  backslash, so escaped JSON stays valid.
* Redaction is idempotent: ``redact(redact(x)) == redact(x)``.
* Keys that name a secret are read with the same rules wherever they stand: in
  assignments and in markup (see ``markup``).
* Contextual detections (``password=...``, ``Authorization: Bearer ...``,
  ``--token ...``, URL passwords) are refined to the vendor class when the
  value is a recognisable vendor token (``GITHUB_TOKEN=ghp_...`` is counted as
  ``github-token``).
* When a detector's value check rejects a match, the later alternatives for
  the same position are still tried (each on its own compiled copy), so a
  rejected ``password hunter2`` prose match does not hide ``--password x``.
* ``extra_patterns`` are arbitrary user regexes and cannot be anchored: they
  form a second combined regex scanned with ``finditer`` (a leading ``(?i)``
  is scoped to its pattern).
* Cost is linear in the input.  Realistic trace text runs at roughly
  20-40 MB/s; text flooded with keywords (100 000 ``api_key=`` in 1 MB) is the
  worst case at roughly 0.1-1 MB/s.  Opt-in personal data detection adds
  digit/"@"/"+" scans.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from .detectors import _DETECTORS, _PERSONAL, _Det
from .patterns import _FLAGS, PLACEHOLDER_RE

try:  # optional (requirements-fast.txt): the anchor search in native code, same positions as ``re``'s
    import hyperscan as _hs
except ImportError:
    _hs = None

#: The environment variable that, set to ``1``, keeps the anchor search in Python's ``re``.
PURE_ENV = "TRAJECTORY_CLEANER_PURE_REDACTION"
#: Whether ``candidates`` may use hyperscan when it is installed. Results are identical either
#: way; this switch (read on every call) lets tests and benchmarks compare both paths in one run.
NATIVE_ANCHORS = os.environ.get(PURE_ENV) != "1"

# ---------------------------------------------------------------------------
# Compilation
# ---------------------------------------------------------------------------

_RUN_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_RUN_TABLE = bytes(0x61 if i in _RUN_CHARS else 0x20 for i in range(256))
_RUN_MIN = b"a" * 16
_NONE: frozenset[int] = frozenset()  # no position found by the token-run and pre scans


def _trie_pattern(words: list[bytes], top: bool = True) -> bytes:
    """An alternation of literal ``words`` factored by shared prefixes (``s(?:e(?:ss|cret)|ig=)``).

    At the top level the branches stay bare: ``re`` then knows every first character and skips
    positions that start none of them, and each position tries one branch per first character
    rather than one per word. No word may be a prefix of another (the caller keeps the shorter).
    """
    groups: dict[bytes, list[bytes]] = {}
    for word in words:
        groups.setdefault(word[:1], []).append(word[1:])
    alts = []
    for first, rests in groups.items():
        rests = [r for r in rests if r]
        alts.append(re.escape(first) + (_trie_pattern(rests, top=False) if rests else b""))
    if top or len(alts) == 1:
        return b"|".join(alts)
    return b"(?:" + b"|".join(alts) + b")"


class _NativeAnchors:
    """All anchors in one hyperscan literal database: where each starts, overlapping ones too; and,
    in the same scan, whether the text holds one of the literal ``pre`` words.

    ``re`` tries the anchor trie at every position whose character starts an anchor (about 40%
    of English prose, ~115 instructions per character); hyperscan's literal matcher skips through
    the text with SIMD and calls back only on a whole anchor. Byte-exact and case-sensitive, on
    the same lowered ASCII bytes, so it reports exactly the positions the ``re`` search reports.

    ``others`` are the literal ``pre`` words as lowered bytes (``eyj``: found wherever the text
    holds ``eyJ``, and a few places more): most strings hold none of them, and then
    ``candidates`` skips its ``str.find`` pass for each. (A regex for the token runs in the same
    database would make it take ~0.4 s to build, in every process: the runs are found in Python.)
    """

    __slots__ = ("db", "lens", "words")

    def __init__(self, words: list[bytes], others: list[bytes] = ()) -> None:
        self.words = words
        self.lens = [len(w) for w in words]
        exprs = [*words, *others]
        self.db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
        self.db.compile(expressions=exprs, ids=list(range(len(exprs))), elements=len(exprs),
                        flags=[0] * len(words) + [_hs.HS_FLAG_SINGLEMATCH] * len(others), literal=True)

    def starts(self, low: bytes) -> tuple[dict[int, bytes], bool] | None:
        """The anchor starting at each position of ``low`` where one does (see
        ``_Compiled.anchor_starts``) and whether one of the ``others`` occurs in it; or None when
        hyperscan refuses the scan (its scratch space is in use by another thread): the caller
        then searches with ``re``."""
        hits: list[int] = []
        try:
            # (data, match_event_handler, flags, context) given by position: python-hyperscan reads
            # keyword arguments at ~0.75 us a call (measured), more than a short string's scan
            self.db.scan(low, _on_hit, 0, hits)
        except _hs.error:
            return None
        if not hits:  # most strings: nothing more to build
            return {}, False
        found: dict[int, bytes] = {}
        more = False
        words = self.words
        lens = self.lens
        n = len(lens)
        for k in range(0, len(hits), 2):
            ident = hits[k]
            if ident < n:
                found[hits[k + 1] - lens[ident]] = words[ident]
            else:
                more = True
        return found, more


def _on_hit(ident: int, _start: int, end: int, _flags: int, hits: list[int]) -> None:
    """hyperscan's callback: note the pattern and where it ended (returns None: scanning goes on).
    One module-level function given the list as context, not a closure made for every scan."""
    hits.append(ident)
    hits.append(end)


def _native_anchors(words: list[bytes], others: list[bytes] = ()) -> _NativeAnchors | None:
    """The hyperscan database of ``words`` and ``others``, or None without hyperscan (or if it
    cannot build one)."""
    if _hs is None or not words:
        return None
    try:
        return _NativeAnchors(words, others)
    except _hs.error:
        return None


class _Compiled:
    """The detector regexes plus their exact candidate prefilter.

    ``alts`` maps a first character to the built-in detectors starting with it,
    in table order; ``single`` compiles each lazily.  ``re`` has no jump table for
    alternations, so searching for all of them would try them at almost every
    letter (~1 MB/s).  Instead candidate start
    positions come from C-speed scans -- one search of a plain alternation of
    the start anchors (literals only, so ``re`` skips to their first
    characters), restarted one past each hit so overlapping anchors are all
    reported, and one ``bytes.translate`` + ``find`` pass for long token-like runs --
    and the detectors are matched only there.  Every detector declares how its
    matches are found (see ``_Det``), so this yields exactly the matches
    searching would.  ``xrx`` holds the user's ``extra_patterns``
    (arbitrary regexes, scanned with ``finditer``).
    """

    __slots__ = ("alts", "any_anchor", "det_words", "gates", "native", "pre_words", "pres", "run", "singles",
                 "xrx")

    def __init__(self, dets: list[_Det], extra: tuple[tuple[str, str], ...]) -> None:
        # per first char, the detectors in table order (a detector's prefix names its groups)
        alts: dict[str, list[tuple[_Det, str]]] = {}
        self.alts = alts
        self.singles: dict[str, re.Pattern[str]] = {}
        self.gates: dict[tuple[str, bytes | None, bool], tuple[tuple[_Det, str, re.Pattern[str]], ...]] = {}
        for di, det in enumerate(dets):
            for ch in dict.fromkeys(det.first):
                alts.setdefault(ch, []).append((det, f"d{di}c{ord(ch)}_"))
        xparts = []
        xnames: dict[str, str] = {}
        for i, (cls, pat) in enumerate(extra):
            re.compile(pat)  # validate early, with a clear error
            lead = re.match(r"\(\?([imsx]+)\)", pat)
            if lead:  # a leading global flag group becomes a scoped one
                pat = f"(?{lead.group(1)}:{pat[lead.end():]})"
            xnames[f"x{i}_"] = cls
            xparts.append(f"(?P<x{i}_>{pat})")
        self.xrx: tuple[re.Pattern[str], dict[int, str]] | None = None
        if xparts:
            xrx = re.compile("|".join(xparts))
            self.xrx = (xrx, {xrx.groupindex[n]: c for n, c in xnames.items()})
        anchors: set[str] = set()
        pres: list[tuple[re.Pattern[str] | str, int, int]] = []
        self.run = False
        for det in dets:
            anchors.update(det.anchors)
            self.run = self.run or det.run
            if det.pre is not None and det.pre not in pres:
                pres.append(det.pre)
        # an anchor that extends a shorter anchor finds a subset of its positions
        kept: list[str] = []
        for a in sorted(anchors, key=len):
            if not any(a.startswith(k) for k in kept):
                kept.append(a)
        # every anchor in one alternation: a single C-level search finds the next position where
        # any of them starts, so text without anchors costs one scan, not one per anchor
        words = [a.encode("ascii") for a in kept]
        self.any_anchor = re.compile(_trie_pattern(words)) if kept else None
        # the anchor found at a position names the detectors that may start there: those with an
        # anchor it begins (each anchor begins with exactly one kept one)
        self.det_words: dict[_Det, frozenset[bytes]] = {
            det: frozenset(k.encode("ascii") for a in det.anchors for k in kept if a.startswith(k))
            for det in dets}
        # the literal pres apart: the native scan tells whether a text may hold one (made into
        # bytes as the text is, so never missed); the regex ones (opt-in personal data) are
        # always searched
        self.pre_words = tuple(pre for pre in pres if isinstance(pre[0], str))
        self.pres = tuple(pre for pre in pres if not isinstance(pre[0], str))
        others = [w.encode("ascii", "replace").lower() for w, _lo, _hi in self.pre_words]
        self.native = _native_anchors(words, others)

    def gate(self, ch: str, word: bytes | None, scanned: bool
             ) -> tuple[tuple[_Det, str, re.Pattern[str]], ...]:
        """The detectors, in table order, that may start at a candidate position whose character is
        ``ch``, where the anchor ``word`` starts (or none), and which the token-run or ``pre``
        scans found (``scanned``): every detector declares how its matches start (see ``_Det``),
        so the others cannot match there. Each with its prefix and its regex (``single``), so that
        ``_match_at`` looks up nothing more per position. Remembered per (ch, word, scanned): a
        few dozen."""
        key = (ch, word, scanned)
        dets = self.gates.get(key)
        if dets is None:
            dets = tuple(
                (det, pfx, self.single(ch, det, pfx)) for det, pfx in self.alts.get(ch, ())
                if (scanned and (det.run or det.pre is not None)) or word in self.det_words[det])
            self.gates[key] = dets
        return dets

    def single(self, ch: str, det: _Det, pfx: str) -> re.Pattern[str]:
        """One detector copy on its own (same group names), compiled lazily."""
        rx = self.singles.get(pfx)
        if rx is None:
            body = det.rest.replace("@@", pfx)
            rx = re.compile(re.escape(ch) + f"(?P<{pfx}>{det.lb or ''}{body})", _FLAGS)
            self.singles[pfx] = rx
        return rx

    def anchor_starts(self, low: bytes) -> tuple[dict[int, bytes], bool]:
        """The anchor starting at each position of ``low`` where one does, in no particular order
        (at most one per position: no kept anchor begins another), and whether the text may hold
        a literal ``pre`` (False only when the native scan saw none). ``gate`` reads the anchor
        found at a candidate here, not by matching the trie there once more.

        hyperscan when installed and allowed (``NATIVE_ANCHORS``), else one ``re`` search of the
        anchor trie: the same positions and anchors either way."""
        if self.native is not None and NATIVE_ANCHORS:
            native = self.native.starts(low)
            if native is not None:
                return native
        found: dict[int, bytes] = {}
        if self.any_anchor is not None:
            # searching again one past each hit reports overlapping anchors too
            search = self.any_anchor.search
            m = search(low)
            while m is not None:
                i = m.start()
                found[i] = m.group()
                m = search(low, i + 1)
        return found, True

    def candidates(self, text: str) -> list[int]:
        """Sorted positions where some built-in detector may start."""
        return self.scan(text)[0]

    def scan(self, text: str) -> tuple[list[int], dict[int, bytes], frozenset[int]]:
        """The sorted candidate positions of ``text``, the anchor starting at each position where
        one does (``gate`` reads it), and the positions the token-run and ``pre`` scans found."""
        # same length as text: every non-ASCII code point becomes one "?"
        low = text.encode("ascii", "replace").lower()
        words, more = self.anchor_starts(low)
        scanned: list[int] = []
        if self.run:
            self._run_starts(text, low, scanned)
        if more:
            for word, lo, hi in self.pre_words:  # a literal: str.find is the fastest scan there is
                b = text.find(word)
                while b >= 0:
                    scanned.extend(range(max(0, b - hi), b - lo + 1))
                    b = text.find(word, b + 1)
        for rx, lo, hi in self.pres:
            for m in rx.finditer(text):
                b = m.start()
                scanned.extend(range(max(0, b - hi), b - lo + 1))
        if not scanned:  # most texts: one anchor or none, no sort needed
            return (sorted(words) if len(words) > 1 else list(words)), words, _NONE
        return sorted(words.keys() | scanned), words, frozenset(scanned)

    @staticmethod
    def _run_starts(text: str, low: bytes, found: list[int]) -> None:
        """Add where a token may start in each run of 16+ [A-Za-z0-9_.-]: at the run start, right
        after an escape (\\n, \\u0026, %0A), or at a ":" before it (Telegram)."""
        add = found.append
        runs = low.translate(_RUN_TABLE)
        i = runs.find(_RUN_MIN)
        while i >= 0:
            add(i)
            if i:
                prev = text[i - 1]
                if prev == "\\":
                    add(i + 1)
                    if low[i] == 0x75:  # \uXXXX
                        add(i + 5)
                elif prev == "%":
                    add(i + 2)
                elif prev == ":":
                    add(i - 1)
            e = runs.find(b" ", i)
            if e < 0:
                break
            i = runs.find(_RUN_MIN, e)


@lru_cache(maxsize=32)
def _compiled(personal: bool, extra: tuple[tuple[str, str], ...]) -> _Compiled:
    dets = list(_DETECTORS)
    if personal:
        dets += _PERSONAL
    return _Compiled(dets, extra)


# ---------------------------------------------------------------------------
# Redactor
# ---------------------------------------------------------------------------

_UESC_RE = re.compile(r"u[0-9A-Fa-f]{4}")
_CLASS_NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]*\Z")


def _check_extra_pattern(cls: str, pattern: str) -> None:
    """Compile one user pattern up front so a bad regex is a configuration error that names the
    key, the class, the pattern and re's reason, not an "unexpected error" deep in a run."""
    try:
        re.compile(pattern)
    except (re.error, TypeError) as exc:
        raise ValueError(
            f"privacy.extra_patterns.{cls}: '{pattern}' is not a valid regular expression ({exc}); "
            "fix: correct the pattern (escape literal characters such as ( [ + * ? with a backslash) "
            "or remove the entry") from None


class Redactor:
    """Replace secrets in text with ``[REDACTED:<class>]``.

    ``extra_patterns`` maps a class name to a regex; the whole match is
    redacted (checked before the built-in detectors at the same position).
    ``allowlist`` values are never redacted.  ``personal_data`` enables the
    opt-in emails, phone numbers, card numbers (Luhn) and IBANs (mod 97).
    """

    def __init__(
        self,
        *,
        extra_patterns: dict[str, str] | None = None,
        allowlist: Iterable[str] = (),
        personal_data: bool = False,
    ) -> None:
        extra = tuple((extra_patterns or {}).items())
        for cls, _pat in extra:
            if not isinstance(cls, str) or not _CLASS_NAME_RE.match(cls):
                raise ValueError(f"extra pattern class must be kebab-case, got {cls!r}")
            _check_extra_pattern(cls, _pat)
        self._c = _compiled(bool(personal_data), extra)
        # the longest class name a placeholder can hold: built-in names fit PLACEHOLDER_RE's 41
        self.longest_class = max([41, *(len(cls) for cls, _ in extra)])
        self.allowlist = frozenset(allowlist)
        self.personal_data = bool(personal_data)
        self.counts: Counter[str] = Counter()

    # -- internals --------------------------------------------------------

    def _match_at(self, text: str, p: int, word: bytes | None, scanned: bool, *, refine: bool = True
                  ) -> tuple[_Det, tuple[str, int, int] | list[tuple[str, int, int]]] | None:
        """The first detector that matches at ``p`` *and* passes its checks.

        The detectors that may start at ``p`` (``gate``) are tried in table order, so a match
        whose check rejects its value does not hide a later detector matching there.
        ``word``: the anchor starting at ``p``, if any (``scan``); ``scanned``: the token-run or
        ``pre`` scans found ``p``. A detector's ``reject`` shortcut answers first: most keyword
        matches are prose, rejected without ``_finish``.
        """
        for det, pfx, rx in self._c.gate(text[p], word, scanned):
            m = rx.match(text, p)
            if m is not None:
                if det.reject is not None and det.reject(text, m, pfx):
                    continue
                r = self._finish(m, text, det, pfx, refine=refine)
                if r is not None:
                    return det, r
        return None

    def _finish(self, m: re.Match[str], text: str, det: _Det, pfx: str, *, refine: bool = True
                ) -> tuple[str, int, int] | list[tuple[str, int, int]] | None:
        cls = det.cls
        if det.secret:
            for name in det.secret:
                s, e = m.span(pfx + name)
                if s >= 0:
                    break
            else:
                return None
        else:
            s, e = m.span()
        if det.left is not None:
            lm = det.left.search(text, max(0, s - 80), s)
            if lm is None:
                return None
            s = lm.start()
        if det.check is not None:
            r = det.check(text, s, e, m, pfx)
            if r is None:
                return None
            if isinstance(r, list):
                many = [g for g in (self._guard(c, text, s2, e2) for c, s2, e2 in r) if g is not None]
                return many or None
            if isinstance(r, tuple):
                cls, s, e = r
            else:
                cls = r
        res = self._guard(cls, text, s, e)
        if res is None:
            return None
        cls, s, e = res
        if refine and det.contextual:
            cls = self._refine(text[s:e], cls)
        return cls, s, e

    def _spans(self, text: str, *, refine: bool = True) -> list[tuple[int, int, str]]:
        """All detections as (start, end, class), in discovery order."""
        spans: list[tuple[int, int, str]] = []
        cands, words, scanned = self._c.scan(text)
        if cands:
            match_at = self._match_at
            # candidates inside an already redacted secret are skipped; the
            # context between a match start and its secret is still scanned
            # (curl ... -H "Authorization: ..." ... -u user:pw)
            blocked: list[tuple[int, int]] = []
            for p in cands:
                if blocked:
                    blocked = [b for b in blocked if b[1] > p]
                    if any(b[0] <= p for b in blocked):
                        continue
                found = match_at(text, p, words.get(p), p in scanned, refine=refine)
                if found is None:
                    continue
                r = found[1]
                if isinstance(r, list):  # several secrets of one structure (a Secret's data values)
                    if spans and spans[-1][1] > r[0][1]:  # what a key named inside them, the structure names
                        spans = [sp for sp in spans if not any(s <= sp[0] and sp[1] <= e for _, s, e in r)]
                    spans.extend((s, e, cls) for cls, s, e in r)
                    blocked.extend((s, e) for _, s, e in r)
                    continue
                cls, s, e = r
                spans.append((s, e, cls))
                blocked.append((s, e))
        if self._c.xrx is not None:
            xrx, names = self._c.xrx
            for m in xrx.finditer(text):
                if m.end() > m.start():
                    r = self._guard(names[m.lastindex], text, m.start(), m.end())  # type: ignore[index]
                    if r is not None:
                        spans.append((r[1], r[2], r[0]))
        return spans

    def _guard(self, cls: str, text: str, s: int, e: int) -> tuple[str, int, int] | None:
        # never start inside an escape sequence (\n, \", \u0041)
        b = 0
        while s - b - 1 >= 0 and text[s - b - 1] == "\\":
            b += 1
        if b % 2 == 1:
            if _UESC_RE.match(text, s):
                s += 5
            else:
                s += 1
        # never end on a dangling escape backslash
        b = 0
        while e - b - 1 >= s and text[e - b - 1] == "\\":
            b += 1
        if b % 2 == 1:
            e -= 1
        if e <= s:
            return None
        if self.allowlist and text[s:e] in self.allowlist:
            return None
        # never redact inside an existing placeholder (idempotence)
        lo = max(0, s - 60)
        for pm in PLACEHOLDER_RE.finditer(text, lo, min(len(text), e + 60)):
            if pm.start() < e and s < pm.end():
                return None
        return cls, s, e

    def _refine(self, value: str, cls: str) -> str:
        """Name a contextual detection after the vendor token it contains."""
        cands, words, scanned = self._c.scan(value)
        if not cands:
            return cls
        for p in cands:
            found = self._match_at(value, p, words.get(p), p in scanned, refine=False)
            if found is None:
                continue
            det, r = found
            if isinstance(r, list):
                return cls
            vcls, s, e = r
            if not det.contextual and s == 0 and e >= len(value.rstrip(".,")):
                return vcls
            return cls
        return cls

    # -- public -----------------------------------------------------------

    def redact(self, text: str) -> str:
        """Return ``text`` with every detected secret replaced."""
        out, found = self.redact_found(text)
        if found:
            self.counts.update(found)
        return out

    def redact_found(self, text: str) -> tuple[str, tuple[str, ...]]:
        """The redacted text and the class of each redaction in it, without counting them:
        for callers that remember results and count each reuse themselves."""
        if not text:
            return text, ()
        spans = self._spans(text)
        if not spans:
            return text, ()
        spans.sort(key=lambda t: (t[0], -t[1]))
        merged: list[tuple[int, int, str]] = []
        cur_s, cur_e, cur_c = spans[0]
        for s, e, c in spans[1:]:
            if s < cur_e:  # overlapping detections become one redaction
                cur_e = max(cur_e, e)
            else:
                merged.append((cur_s, cur_e, cur_c))
                cur_s, cur_e, cur_c = s, e, c
        merged.append((cur_s, cur_e, cur_c))
        out: list[str] = []
        last = 0
        for s, e, c in merged:
            out.append(text[last:s])
            out.append("[REDACTED:" + c + "]")
            last = e
        out.append(text[last:])
        return "".join(out), tuple(c for _, _, c in merged)

    __call__ = redact
