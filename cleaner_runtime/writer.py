"""Name output files and write them atomically: a reader never sees a half-written session.

Each file is written to a hidden temporary file beside its target (``.<name>.<pid>-<random>.tmp``,
ignored by Lerim, which reads only ``*.jsonl``), flushed to disk and renamed over the target, so
the target holds either its previous bytes or its new bytes, never a mix, even if the process is
killed. A run killed between writing and renaming leaves its temporary file behind; the next run
removes such files once the process that wrote them is gone (``remove_stale_temps``).

Waiting for the disk (fsync, milliseconds per file) is the slow part of writing many small
sessions, and it releases the GIL: a ``Committer`` does the fsync and rename of each written file
in a few background threads while the next session is cleaned, and at the end fsyncs each output
folder once so that the renames are durable too.

A caller that can tell only later whether a file is right (the sessions grouped by field, whose
input file must first be read to its end) writes it with ``write_held``: written and synced under
its temporary name, then renamed into place (``Held.release``) or removed (``discard_held``).

For tests only, ``TRAJECTORY_CLEANER_TEST_PAUSE=<n>:<stage>:<ready file>`` stops a process at a
chosen point of its n-th write, so that a test can kill it exactly there instead of hoping a timer
lands inside a write: ``before`` (the n-th write has not begun), ``created`` (its temporary file
exists, empty), ``partial`` (half of its first chunk is written: a torn file), ``written`` (every
byte is written, nothing renamed yet) or ``renamed`` (the target is in place). The process records
``<pid> <target>`` in the ready file (the first one there only) and waits there until it is killed
or until ``<ready file>.go`` exists, then goes on (so an interrupt can be sent while a file is half
written). Unset, as in every real run, it costs one comparison per file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import tempfile
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Iterable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .redaction.names import holds_secret

try:  # the optional fast extra (requirements-fast.txt); the bytes written are the same without it
    import orjson
except ImportError:
    orjson = None

_SUFFIXES = (".gz", ".jsonl", ".ndjson", ".json")
_SURROGATE = re.compile("[\ud800-\udfff]")
_TEMP = re.compile(r"\..+\.(?P<pid>[0-9]+)-[A-Za-z0-9_]+\.tmp")
_MODE: list[int] = []
# json.dumps(ensure_ascii=False, separators=(",", ":")) without building an encoder per call (writer, convert)
json_text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

PAUSE_ENV = "TRAJECTORY_CLEANER_TEST_PAUSE"
PAUSE_STAGES = ("before", "created", "partial", "written", "renamed")


def _pause_point(spec: str | None) -> tuple[int, str, str] | None:
    """``<n>:<stage>:<ready file>`` -> (n, stage, ready file); None when unset or not of that form."""
    if not spec:
        return None
    number, _, rest = spec.partition(":")
    stage, _, ready = rest.partition(":")
    if not number.isdigit() or stage not in PAUSE_STAGES or not ready:
        return None
    return int(number), stage, ready


_PAUSE = _pause_point(os.environ.get(PAUSE_ENV))
_WRITES = [0]  # write_atomic calls so far in this process (counted only under _PAUSE)
_WRITES_LOCK = threading.Lock()


def _pause_here(path: Path) -> None:
    """Tell the test (once, atomically) which process stopped at which target, then wait: until killed,
    or until the test creates ``<ready file>.go``."""
    assert _PAUSE is not None
    ready = _PAUSE[2]
    note = f"{ready}.{os.getpid()}-{threading.get_ident()}"
    with open(note, "w", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()} {path}")
    with contextlib.suppress(OSError):  # another process (--jobs) stopped first: its note stands
        os.link(note, ready)
    _discard(note)
    go = ready + ".go"
    while not os.path.exists(go):
        time.sleep(0.01)


def _pause_number() -> int:
    """This write's number when a test pause is set (else 0): the pause applies to write ``_PAUSE[0]``."""
    if _PAUSE is None:
        return 0
    with _WRITES_LOCK:
        _WRITES[0] += 1
        return _WRITES[0]


def _pause_at(number: int, stage: str) -> bool:
    """Whether write ``number`` stops at ``stage`` (a test pause)."""
    return number != 0 and _PAUSE is not None and number == _PAUSE[0] and stage == _PAUSE[1]


def stem_for_file(rel: Path) -> Path:
    """``runs/a.jsonl.gz`` -> ``runs/a``: the output keeps the input's relative folders."""
    name = rel.name
    changed = True
    while changed:
        changed = False
        for suffix in _SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                changed = True
    return rel.with_name(name)


# -- output names: one allocator, a bijection of (input file, session id) -------------------------
#
# Every output path a run writes is given out by one ``Names``: a session never shares a file with
# another, whatever its id holds (dots, slashes, ``..``, NUL, 300 characters, names Windows
# reserves, case-only differences on a case-insensitive disk), and the same inputs give the same
# names on every run, in every process and shard (the names are settled in input order before any
# session is written). Each name is the id (or the input file's stem) itself when that is a safe
# file name; otherwise, and whenever it would clash with a name already given out in the same
# folder as a case-insensitive, normalising file system compares them (casefold + NFC), it is
# ``<safe part>-<16 hex of the SHA-256 of its identity>``; an id or name that holds a secret (the
# redaction detector's verdict) is ``redacted-<16 hex>``. The suffix is appended
# (``name + ".jsonl"``), never put in place of one (``Path.with_suffix`` cut ``v1.2`` to ``v1``).

MAX_NAME_BYTES = 200  # an output name's longest, in UTF-8: its temporary name stays below 255 bytes
HASHED_KEEP_BYTES = 80  # the readable part kept of a name that is cut or hashed
DIGEST_HEX = 16
SUFFIX = ".jsonl"
# characters no name may hold on Linux, macOS or Windows: controls, the separators, Windows'
# forbidden ones, and lone surrogates, but for U+DC80-U+DCFF: the bytes of an input name that is
# not UTF-8 (os.fsdecode's surrogateescape), written back as the same bytes
_FORBIDDEN = re.compile('[\x00-\x1f\x7f-\x9f<>:"/\\\\|?*\ud800-\udc7f\udd00-\udfff]')
_RESERVED = re.compile(r"(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])", re.IGNORECASE)
_HIDDEN = re.compile(r"redacted-[0-9a-f]{16}")  # a name given for a secret (and only for one)


def _digest(identity: tuple[str, ...], salt: int = 0) -> str:
    """16 hex digits of the SHA-256 of an identity: the same on every machine, run and Python."""
    text = "\0".join(identity) + (f"\0{salt}" if salt else "")
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_HEX]


def _size(text: str) -> int:
    """The bytes of a (safe) name on disk."""
    return len(text.encode("utf-8", "surrogateescape"))


def _cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` bytes on disk, never inside a character."""
    return text.encode("utf-8", "surrogateescape")[:limit].decode("utf-8", "ignore")


def safe_name(text: str) -> str:
    """``text`` as a name that is safe on every common file system: forbidden characters become
    ``_``; a leading dot (hidden files, ``.`` and ``..``), a name Windows reserves (``CON``,
    ``nul.txt``, ``COM1``) or nothing at all gets a ``_`` before it, a trailing dot or space
    (which Windows drops) a ``_`` after it."""
    safe = _FORBIDDEN.sub("_", text)
    if not safe or safe.startswith(".") or _RESERVED.fullmatch(safe.split(".")[0].rstrip(" ")):
        safe = "_" + safe
    if safe.endswith((".", " ")):
        safe += "_"
    return safe


def name_stem(text: str, identity: tuple[str, ...], hashed: bool = False, salt: int = 0) -> str:
    """The name (before its suffix) of an output or output folder standing for ``text`` (a session
    id, an input file's stem or an input folder's name), whose ``identity`` sets its digest.

    ``text`` itself when it is safe (``safe_name``), short enough and not ``hashed``; otherwise
    ``<safe part, at most 80 bytes>-<digest>``; ``redacted-<digest>`` when ``text`` holds a secret.
    ``salt`` picks another digest, for the (unlikely) name already given out."""
    if holds_secret(text):
        return f"redacted-{_digest(identity, salt)}"
    safe = safe_name(text)
    long = _size(safe) + len(SUFFIX) > MAX_NAME_BYTES
    if safe != text or long or hashed or salt or _HIDDEN.fullmatch(safe):
        safe = f"{_cut(safe, HASHED_KEEP_BYTES)}-{_digest(identity, salt)}"
    return safe


def stem_for_key(folder: Path, key: str, hashed: bool = False) -> Path:
    """``folder`` joined with the name (before ``.jsonl``) of session ``key``'s output there, as
    ``Names`` first tries it: the id itself when it is a safe name, else its safe part and a
    digest of (``folder``, ``key``); with ``hashed``, the digest in any case."""
    return folder / name_stem(key, (folder.as_posix(), key), hashed)


def hidden_name(output: str | os.PathLike[str]) -> bool:
    """Whether an output path given out by ``Names`` hides a secret in one of its names."""
    return any(_HIDDEN.fullmatch(part.removesuffix(SUFFIX)) for part in Path(output).parts)


def _fold(path: str) -> str:
    """A posix path as a case-insensitive, normalising file system (macOS, Windows) compares it."""
    return unicodedata.normalize("NFC", path).casefold()


class Names:
    """The one allocator of a run's output paths, relative to ``--output``.

    Input folders keep their place (``runs/x.jsonl`` is written under ``runs/``), each folder name
    given out once per input folder (``folder``); every name, of a file or a folder, is taken in
    its output folder in the order asked for, so that ``sub`` and ``SUB``, or the output
    ``a.jsonl`` and the input folder ``a.jsonl/``, never meet. Ask in input order, before any
    session is written, for the names to be the same on every run. (Paths are handled as posix
    strings here: a ``Path`` per name costs several times the time.)
    """

    def __init__(self) -> None:
        self.taken: set[str] = set()  # folded: every path given out, of files and folders
        self.folders: dict[str, str] = {"": "", ".": ""}  # input folder -> its output folder ("": --output)
        self.file_folders: dict[str, str] = {}  # input file -> its own output folder (by element)

    def _claim(self, folder: str, text: str, identity: tuple[str, ...], suffix: str) -> tuple[str, bool]:
        """The first of ``text``'s names (plain, hashed, salted) not yet given out in ``folder``,
        and whether it is the first tried (``name_stem``'s)."""
        prefix = folder + "/" if folder else ""
        path = prefix + name_stem(text, identity) + suffix
        first = True
        salt = 0
        while _fold(path) in self.taken:
            first = False
            path = prefix + name_stem(text, identity, hashed=True, salt=salt) + suffix
            salt += 1
        self.taken.add(_fold(path))
        return path, first

    def _folder(self, key: str) -> str:
        """The output folder of the input folder ``key`` (posix, relative; its parents first)."""
        out = self.folders.get(key)
        if out is None:
            parent, _, name = key.rpartition("/")
            out = self.folders[key] = self._claim(self._folder(parent), name, ("/", key), "")[0]
        return out

    def folder(self, rel: Path) -> Path:
        """The output folder of the input folder ``rel``."""
        return Path(self._folder(rel.as_posix()))

    def for_file(self, rel: Path) -> str:
        """The output of the input file ``rel`` holding one session (``runs/a.jsonl.gz`` ->
        ``runs/a.jsonl``)."""
        key = rel.as_posix()
        return self._claim(self._folder(rel.parent.as_posix()), stem_for_file(rel).name, (key,), SUFFIX)[0]

    def for_key(self, rel_folder: Path, key: str) -> tuple[str, bool]:
        """The output of session ``key`` (grouped by field), in the output folder of the input
        folder ``rel_folder`` it first appears in; and whether it is the name ``stem_for_key``
        gives it (the folder kept, the id's first name free)."""
        folder = rel_folder.as_posix()
        out = self._folder(folder)
        path, first = self._claim(out, key, (folder, key), SUFFIX)
        return path, first and out == ("" if folder == "." else folder)

    def file_folder(self, rel: Path) -> str:
        """The output folder of the sessions of one input file (by element): named after its stem,
        its own (a second file of that stem gets another)."""
        key = rel.as_posix()
        out = self.file_folders.get(key)
        if out is None:
            out = self.file_folders[key] = self._claim(self._folder(rel.parent.as_posix()), stem_for_file(rel).name,
                                                       ("/", key, "elements"), "")[0]
        return out

    def for_element(self, rel: Path, label: str, element: str) -> str:
        """The output of one element's session (``label``: its id, or its position) of input
        file ``rel``."""
        return self._claim(self.file_folder(rel), label, (rel.as_posix(), label, element), SUFFIX)[0]


def plain_json(value: object) -> bool:
    """True for JSON made of strings, integers, booleans, nulls, lists and string-keyed objects only.

    For such values orjson writes exactly the bytes ``json.dumps(ensure_ascii=False,
    separators=(",", ":"))`` writes, or refuses them (an integer beyond 64 bits, a lone surrogate:
    the caller then asks json). Floats are left to json: the two spell them differently. Strings,
    most of any record, are settled in the loop, without a call each.
    """
    kind = value.__class__
    if kind is dict:
        for key, item in value.items():  # type: ignore[attr-defined]
            if key.__class__ is not str:
                return False
            if item.__class__ is not str and item is not None and not plain_json(item):
                return False
        return True
    if kind is list:
        for item in value:  # type: ignore[attr-defined]
            if item.__class__ is not str and item is not None and not plain_json(item):
                return False
        return True
    return kind is str or kind is int or kind is bool or value is None


def _escape_line_breaks(line: bytes) -> bytes:
    """Escape U+0085, U+2028 and U+2029 inside strings: valid JSON either way, but Python's
    ``str.splitlines()`` (and some editors) break lines there, which would shift Lerim's line
    numbers for any consumer that reads the file that way. JSON already escapes the ASCII ones."""
    if b"\xe2\x80" in line or b"\xc2\x85" in line:
        line = line.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
        line = line.replace(b"\xc2\x85", b"\\u0085")
    return line


def encode_line(record: object) -> tuple[bytes, int]:
    """One compact JSON line (no newline) as UTF-8; lone surrogates become U+FFFD (returned count)."""
    if orjson is not None and plain_json(record):
        try:
            return _escape_line_breaks(orjson.dumps(record)), 0
        except TypeError:  # orjson.JSONEncodeError: lone surrogates; json's path replaces them
            pass
    line = json_text(record)
    try:
        return _escape_line_breaks(line.encode("utf-8")), 0
    except UnicodeEncodeError:
        line, n = _SURROGATE.subn("\ufffd", line)
        return _escape_line_breaks(line.encode("utf-8")), n


class Lines:
    """The records as JSONL chunks, for ``write_atomic``; ``replaced`` counts U+FFFD repairs.

    With ``release``, each record's place in the list is emptied once it is serialised, so that a
    large session shrinks while it is written instead of growing: serialising a string with orjson
    leaves a UTF-8 copy cached in every non-ASCII string (about 10% more memory by the end of a
    session, measured), and a record that is written is not needed again.

    With ``plain``, the caller promises that every record is plain JSON (``plain_json``: no
    floats, string keys), as the records a session builder makes are: orjson then writes each
    without ``plain_json`` walking it first (a lone surrogate still goes to ``encode_line``).
    """

    CHUNK = 2048  # lines joined per write

    def __init__(self, records: Iterable[object] | list, release: bool = False, plain: bool = False):
        self.records = records
        self.release = release
        self.plain = plain
        self.replaced = 0

    def __iter__(self):
        chunk: list[bytes] = []
        add = chunk.append
        records = self.records
        release = self.release and isinstance(records, list)
        dumps = orjson.dumps if self.plain and orjson is not None else None
        for index, record in enumerate(records):
            if dumps is not None:
                try:
                    add(dumps(record))  # its line breaks are escaped with the chunk's
                except TypeError:  # orjson.JSONEncodeError: lone surrogates; encode_line replaces them
                    line, n = encode_line(record)
                    add(line)
                    self.replaced += n
            else:
                line, n = encode_line(record)
                add(line)
                self.replaced += n
            if release:
                records[index] = None  # type: ignore[index]
            if len(chunk) >= self.CHUNK:
                yield self._joined(chunk, dumps is not None)
                chunk.clear()
        if chunk:
            yield self._joined(chunk, dumps is not None)

    @staticmethod
    def _joined(chunk: list[bytes], escape: bool) -> bytes:
        """The lines, each ended by a newline; with ``escape``, ``_escape_line_breaks`` once over
        all of them (its escapes never span a newline, and a line encode_line wrote has nothing
        left to escape)."""
        chunk.append(b"")
        joined = b"\n".join(chunk)
        return _escape_line_breaks(joined) if escape else joined


def read_line(line: bytes) -> Any:
    """A line ``Lines`` wrote, read back: the record it was (plain JSON, which orjson reads exactly,
    unless an integer is past 64 bits), but for a lone surrogate, now the U+FFFD written for it."""
    if orjson is not None:
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    return json.loads(line)


def serialise(records: list[dict]) -> tuple[bytes, int]:
    """One compact JSON object per line; lone surrogates become U+FFFD (returned count)."""
    lines = Lines(records)
    return b"".join(lines), lines.replaced


def _file_mode() -> int:
    """The mode a plainly created file gets under the current umask (mkstemp would give 0600)."""
    if not _MODE:
        mask = os.umask(0o022)
        os.umask(mask)
        _MODE.append(0o666 & ~mask)
    return _MODE[0]


@contextlib.contextmanager
def _interrupts_deferred():
    """Hold Ctrl-C and SIGTERM until the file is renamed into place (or removed).

    Python raises KeyboardInterrupt between any two bytecodes, also between creating the
    temporary file and the ``try`` that would remove it; with the signals blocked for the few
    system calls of one write, a clean stop never leaves a temporary file behind. (A SIGKILL
    can; the next run removes it.)
    """
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, previous)


def write_atomic(path: Path, data: bytes | Iterable[bytes], committer: Committer | None = None) -> Future | None:
    """Write to a hidden temporary file beside ``path``, fsync it and rename it into place.

    ``data`` is the bytes, or an iterable of chunks (such as ``Lines``) written as they come, so
    a large session is never held twice in memory. With a ``committer`` the fsync and rename
    happen in its threads: the returned future holds their outcome (the target is in place and
    durable once it is done); without one they happen here and None is returned.
    """
    number = _begin(path)
    with _interrupts_deferred():
        handle, tmp = _write_temp(path, data, number)
        if committer is not None:
            return committer.submit(handle, tmp, path, number)
        _commit(handle, tmp, path, number)
        return None


class Held:
    """A file written and synced to its temporary name (``write_held``), put in place only when
    ``release`` is called, or removed by ``discard``: for an output that is right only if what is
    read after it agrees (``run._field_pass`` holds the sessions that end in an input file until
    that file has been read to its end as the first pass read it).

    ``settle`` lets go of the sync's future once it is done, keeping only its error: a file that
    ends many sessions holds one of these for each until its end, and a future (its condition,
    lock and waiters) is about a kilobyte."""

    __slots__ = ("failure", "number", "path", "synced", "tmp")

    def __init__(self, tmp: str, path: Path, synced: Future | None, number: int):
        self.tmp, self.path, self.synced, self.number = tmp, path, synced, number
        self.failure: BaseException | None = None

    def settle(self) -> bool:
        """Whether the sync is over (its outcome kept, the future let go)."""
        synced = self.synced
        if synced is not None:
            if not synced.done():
                return False
            try:
                self.failure = synced.exception()
            except CancelledError as exc:  # (an interrupted run discards it)
                self.failure = exc
            self.synced = None
        return True

    def release(self) -> None:
        """Rename the file into place once its fsync is done; on failure it is removed and the
        error raised."""
        try:
            if self.synced is not None:
                self.synced.result()
            if self.failure is not None:
                raise self.failure
            os.replace(self.tmp, self.path)
        except BaseException:
            _discard(self.tmp)
            raise
        if self.number and _pause_at(self.number, "renamed"):
            _pause_here(self.path)

    def discard(self) -> None:
        """Remove the file, never put in place (after its fsync, which may still be running)."""
        if self.synced is not None:
            with contextlib.suppress(Exception):  # its failure or cancellation: removed all the same
                self.synced.result()
        _discard(self.tmp)


def write_held(path: Path, data: bytes | Iterable[bytes], held: list[Held], committer: Committer | None = None) -> None:
    """``write_atomic`` without the rename: the file is written and synced (in the committer's
    threads, if any) under its temporary name, and its ``Held``, which puts it in place, is
    appended to ``held`` before an interruption can stop this (so the caller can remove it)."""
    number = _begin(path)
    with _interrupts_deferred():
        handle, tmp = _write_temp(path, data, number)
        if committer is not None:
            held.append(Held(tmp, path, committer.submit(handle, tmp, path, number, rename=False), number))
        else:
            _commit(handle, tmp, path, number, rename=False)
            held.append(Held(tmp, path, None, number))


def discard_held(held: list[Held]) -> None:
    """Remove every file of ``held`` not put in place, Ctrl-C and SIGTERM held until all are gone
    (a second interruption while stopping would otherwise leave the rest behind); empties it."""
    with _interrupts_deferred():
        for one in held:
            one.discard()
        held.clear()


def _begin(path: Path) -> int:
    """Make ``path``'s folder; the write's number for the test pauses (0: none), paused ``before``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    number = _pause_number()
    if number and _pause_at(number, "before"):
        _pause_here(path)
    return number


def _write_temp(path: Path, data: bytes | Iterable[bytes], number: int) -> tuple[Any, str]:
    """``data`` written and flushed to a new temporary file beside ``path``: its open handle and
    its name; on failure nothing is left. ``number``: the write's, for the test pauses."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp", dir=path.parent)
    try:
        handle = os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        _discard(tmp)
        raise
    try:
        os.fchmod(handle.fileno(), _file_mode())
        chunks = [data] if isinstance(data, (bytes, bytearray, memoryview)) else data
        if number:
            chunks = _paused_chunks(number, chunks, handle, path)
        for chunk in chunks:
            handle.write(chunk)
        handle.flush()
    except BaseException:
        # a full disk fails the close too (the buffer still holds what did not fit); its file
        # descriptor is closed all the same, and the temporary file must still go
        with contextlib.suppress(OSError):
            handle.close()
        _discard(tmp)
        raise
    return handle, tmp


def _paused_chunks(number: int, chunks: Iterable[bytes], handle, path: Path) -> Iterable[bytes]:
    """``chunks``, with the test pauses of the stages ``created`` and ``partial`` on the way."""
    if _pause_at(number, "created"):
        _pause_here(path)
    for index, chunk in enumerate(chunks):
        if index == 0 and _pause_at(number, "partial"):
            half = len(chunk) // 2
            handle.write(chunk[:half])
            handle.flush()
            _pause_here(path)
            chunk = chunk[half:]
        yield chunk


def _discard(tmp: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)


def _commit(handle, tmp: str, path: Path, number: int = 0, rename: bool = True) -> None:
    """fsync the written temporary file, close it and (unless not ``rename``) rename it over
    ``path``; on failure remove it. ``number`` is the write's number for the test pauses (0: none)."""
    try:
        os.fsync(handle.fileno())
        handle.close()
        if number and _pause_at(number, "written"):
            _pause_here(path)
        if not rename:
            return
        os.replace(tmp, path)
        if number and _pause_at(number, "renamed"):
            _pause_here(path)
    except BaseException:
        with contextlib.suppress(OSError):
            handle.close()
        _discard(tmp)
        raise


def _block_interrupts() -> None:
    """Commit threads leave Ctrl-C and SIGTERM to the main thread, which defers them while it writes."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is not None:
        mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})


def sync_folders(folders: Iterable[Path]) -> None:
    """fsync each folder, so that the renames into it survive a power cut (where folders can be opened)."""
    for folder in sorted(set(folders)):
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)
        except OSError:  # some file systems cannot fsync a folder; the files themselves are synced
            pass
        finally:
            os.close(fd)


class Committer:
    """fsync and rename written files in background threads, a bounded number at a time.

    Each waiting file holds an open descriptor, so at most ``limit`` wait: ``submit`` blocks on
    the oldest beyond that. ``close`` waits for every file (or, after an interruption, cancels
    those not started and removes their temporary files).
    """

    def __init__(self, threads: int = 4, limit: int = 64):
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="commit", initializer=_block_interrupts)
        self.limit = limit
        self.waiting: deque[tuple[Future, object, str]] = deque()

    def submit(self, handle, tmp: str, path: Path, number: int = 0, rename: bool = True) -> Future:
        waiting = self.waiting
        while waiting and (waiting[0][0].done() or len(waiting) >= self.limit):
            future = waiting.popleft()[0]
            future.exception()  # waits; the outcome is read by whoever holds the future
        future = self.pool.submit(_commit, handle, tmp, path, number, rename)
        waiting.append((future, handle, tmp))
        return future

    def close(self, cancel: bool = False) -> None:
        """Wait for every file; with ``cancel``, first drop those not started (nothing half-written)."""
        if cancel:
            for future, handle, tmp in self.waiting:
                if future.cancel():
                    with contextlib.suppress(OSError):
                        handle.close()  # type: ignore[attr-defined]
                    _discard(tmp)
        self.pool.shutdown(wait=True)
        self.waiting.clear()


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie, killed but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # another user's process
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in (b"Z", b"X")


def remove_stale_temps(root: Path) -> int:
    """Delete temporary files a killed run of this cleaner left under ``root``; returns how many.

    Only files named as ``write_atomic`` names them, whose writing process no longer runs, are
    touched: a concurrent run's temporary files and anything else in the folder are left alone.
    """
    removed = 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for name in files:
            match = _TEMP.fullmatch(name)
            if match and not _alive(int(match.group("pid"))):
                try:
                    os.unlink(os.path.join(folder, name))
                    removed += 1
                except OSError:
                    pass
    return removed
