"""Reading a Z-machine story file before Jericho sees it.

Jericho's interpreter (Frotz, in C) ends the whole Python process on a file it cannot run
("Fatal error: Unknown Z-code version", exit status 1), so every story file is checked here first:
``read_story`` returns a :class:`Story` or raises :class:`~tui_adventure.engine.yamlpos.SourceErrors`
holding one line (``FILE: what is wrong; what to do``), as a broken world does.

A Blorb (``.zblorb``, ``.blorb``: IFF ``FORM``/``IFRS``) is unwrapped to its ``ZCOD`` chunk, found
through the resource index: Jericho cannot load a Blorb itself, and it knows its catalogued games by
the MD5 of the Z-code alone. :func:`playable_file` gives the path Jericho loads.

Jericho's valid-action detection uses spaCy's ``en_core_web_sm`` model and, when the model is
missing, DOWNLOADS it (``jericho.util._load_spacy`` calls ``spacy.cli.download``, which reaches the
network and runs pip in the current environment). :func:`valid_actions_model` says whether the model
is installed without any network access; :func:`valid_actions` asks Jericho only when it is.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..engine.yamlpos import SourceError, SourceErrors

# What a story file may be called: Infocom and Inform's .z1-.z8, Blorb wrappers, and the older .dat
STORY_SUFFIXES = (".z1", ".z2", ".z3", ".z4", ".z5", ".z6", ".z7", ".z8", ".zblorb", ".zlb", ".blorb", ".zblb")
BLORB_SUFFIXES = (".zblorb", ".zlb", ".blorb", ".zblb")

# Versions Jericho's Frotz plays; 6 is graphical (Infocom's Zork Zero, Shogun...): Frotz's text-only core
# cannot draw it. Tested here on 3, 5 and 8 (stories/).
PLAYABLE_VERSIONS = (1, 2, 3, 4, 5, 7, 8)

# Z-code is addressed in 16 bits scaled by the version (the standard's 1.1): 128 KB (v1-3), 256 KB (v4-5), 512 KB (v6-8).
MAX_LENGTH = {1: 128, 2: 128, 3: 128, 4: 256, 5: 256, 6: 512, 7: 512, 8: 512}
MAX_CODE = 512 * 1024
# A Blorb's chunks (pictures, sounds...) and resource-index entries looked at, at most
MAX_CHUNKS = 10_000
HEADER = 64

EXTRA = "pip install -e '.[zmachine]'"
SPACY_MODEL = "en_core_web_sm"


@dataclass(frozen=True)
class Story:
    """A checked story file: its Z-code (unwrapped from a Blorb) and what its header says."""

    path: Path          # the file as named
    code: bytes         # the Z-code itself, padding included: what Jericho loads
    version: int        # 1-8, the header's first byte (never 6: refused)
    release: int        # the header's release number
    serial: str         # the header's six-character serial (usually a date, YYMMDD)
    blorb: bool         # True when ``path`` is a Blorb that held ``code``

    @property
    def md5(self) -> str:
        """The MD5 of the Z-code: how Jericho recognises its catalogued games."""
        return hashlib.md5(self.code).hexdigest()

    @property
    def name(self) -> str:
        """The file's name without its suffix (``lighthouse`` for ``stories/lighthouse.z5``)."""
        return self.path.stem


def is_story_path(arg: str | Path) -> bool:
    """Whether an argument names a story file by its suffix (``.z1``-``.z8``, ``.zblorb``, ``.blorb``...),
    whether or not it exists: how a front end tells a story file from a world."""
    return Path(str(arg)).suffix.lower() in STORY_SUFFIXES


def _fail(path: str | Path, message: str) -> SourceErrors:
    return SourceErrors([SourceError(str(path), None, message)])


def read_story(path: str | Path) -> Story:
    """The story file at ``path``, checked; ``SourceErrors`` with one line naming the problem and
    the fix for a missing, unreadable, truncated, damaged, non-Z-machine or version-6 file. At most
    the Z-code's own bounds (512 KB) are read, however large the file: a Blorb's pictures and sounds
    are skipped, not read."""
    path = Path(path)
    try:
        if not path.is_file():
            raise _fail(path, "no such story file" if not path.exists() else "not a regular file")
        with path.open("rb") as f:
            if f.read(4) == b"FORM":
                return _checked(path, _unwrap(path, f), blorb=True)
            f.seek(0)
            data = f.read(MAX_CODE + 1)
    except OSError as exc:
        raise _fail(path, f"cannot read the story file ({exc.strerror or exc})") from None
    if len(data) > MAX_CODE:
        raise _fail(path, f"not a Z-machine story file (larger than the {MAX_CODE // 1024} KB the Z-machine can address)")
    return _checked(path, data, blorb=False)


def _checked(path: Path, code: bytes, blorb: bool) -> Story:
    """``code`` checked against its own header: version, length, checksum, the tables' addresses."""
    where = "the Blorb's Z-code" if blorb else "the file"
    if len(code) < HEADER:
        raise _fail(path, f"not a Z-machine story file ({where} is {len(code)} bytes, shorter than the 64-byte header)")
    version = code[0]
    if code[:4] == b"Glul":
        raise _fail(path, "a Glulx game, not a Z-machine story file: Jericho plays only the Z-machine (.z1-.z8, .zblorb)")
    if not 1 <= version <= 8:
        raise _fail(path, f"not a Z-machine story file (its first byte, the version, is {version}, not 1-8)")
    if version == 6:
        raise _fail(path, "a version-6 (graphical) story file: Jericho plays versions 1-5, 7 and 8")
    def word(at: int) -> int:   # the header's 16-bit fields, big-endian
        return struct.unpack_from(">H", code, at)[0]

    scale = 2 if version <= 3 else 4 if version <= 5 else 8
    declared = word(0x1A) * scale
    if version >= 3 and declared:
        if declared > MAX_LENGTH[version] * 1024:
            raise _fail(path, f"not a Z-machine story file (its header claims {declared:,} bytes,"
                              f" more than version {version} can address)")
        if len(code) < declared:
            raise _fail(path, f"truncated: the header says {declared:,} bytes and {where} has {len(code):,};"
                              " download or copy it again")
        checksum = word(0x1C)
        actual = sum(code[HEADER:declared]) & 0xFFFF
        if checksum and checksum != actual:
            raise _fail(path, f"damaged: its checksum is {actual:#06x} where the header says {checksum:#06x};"
                              " download or copy it again")
    end = declared or len(code)
    # the dynamic memory's end and the tables every game has lie inside the header's length
    static, dictionary, objects, globals_ = word(0x0E), word(0x08), word(0x0A), word(0x0C)
    if not (HEADER <= static <= end and all(HEADER <= a < end for a in (dictionary, objects, globals_))):
        raise _fail(path, "not a Z-machine story file (its header's table addresses lie outside the file)")
    serial = "".join(chr(b) if 0x20 < b < 0x7F else "?" for b in code[0x12:0x18])   # shown to people: printable only
    return Story(path=path, code=bytes(code), version=version, release=word(0x02), serial=serial, blorb=blorb)


def _unwrap(path: Path, f) -> bytes:
    """The ``ZCOD`` chunk a Blorb's resource index names as its executable (``Exec`` 0), read from
    ``f`` (open on the Blorb, past its first four bytes) chunk header by chunk header."""
    head = f.read(8)
    if len(head) < 8 or head[4:8] != b"IFRS":
        raise _fail(path, "not a story file: an IFF FORM but not a Blorb (its type is not IFRS)")
    end = struct.unpack_from(">I", head, 0)[0] + 8
    size = os.fstat(f.fileno()).st_size
    if end > size:
        raise _fail(path, f"truncated: the Blorb says {end:,} bytes and the file has {size:,}; download or copy it again")
    chunks: dict[int, tuple[bytes, int]] = {}   # offset -> (type, length) of every chunk
    at = 12
    while at + 8 <= end and len(chunks) < MAX_CHUNKS:
        f.seek(at)
        kind, length = struct.unpack(">4sI", f.read(8))
        if at + 8 + length > end:
            raise _fail(path, f"truncated: the Blorb's {_kind(kind)} chunk runs past its end; download or copy it again")
        chunks[at] = (kind, length)
        at += 8 + length + (length & 1)   # chunks are padded to an even length
    index = next((at for at, (kind, _) in chunks.items() if kind == b"RIdx"), None)
    if index is None or chunks[index][1] < 4:
        raise _fail(path, "a Blorb without a resource index (RIdx chunk): it cannot say where its game is")
    f.seek(index + 8)
    count = min(struct.unpack(">I", f.read(4))[0], MAX_CHUNKS)
    if chunks[index][1] < 4 + 12 * count:
        raise _fail(path, "a Blorb whose resource index is cut short; download or copy it again")
    entries = f.read(12 * count)
    for i in range(count):
        usage, number, start = struct.unpack_from(">4sII", entries, 12 * i)
        if usage != b"Exec" or number != 0:
            continue
        if start not in chunks:
            raise _fail(path, "a Blorb whose resource index points outside its chunks")
        kind, length = chunks[start]
        if kind != b"ZCOD":
            raise _fail(path, f"a Blorb whose game is {_kind(kind)}, not Z-code (ZCOD): a Glulx or other game,"
                              " which Jericho cannot play")
        if length > MAX_CODE:
            raise _fail(path, f"a Blorb whose Z-code is larger than the {MAX_CODE // 1024} KB the Z-machine can address")
        f.seek(start + 8)
        return f.read(length)
    raise _fail(path, "a Blorb without a game (no executable in its resource index): pictures or sounds only")


def _kind(kind: bytes) -> str:
    """An IFF chunk type as people read it: printable characters only."""
    return repr("".join(chr(b) if 0x20 <= b < 0x7F else "?" for b in kind))


def playable_file(story: Story, folder: str | Path) -> Path:
    """The path Jericho loads for ``story``: the file itself when it is plain Z-code, else the
    unwrapped Z-code written (atomically, as a regular file) into ``folder`` as ``NAME.zN``. Jericho
    knows a game by the MD5 of these bytes, which an unwrapped Blorb keeps."""
    if not story.blorb:
        return story.path
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{story.name}.z{story.version}"
    if target.is_file() and not target.is_symlink() and target.read_bytes() == story.code:
        return target
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{story.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(story.code)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def require_jericho(path: str | Path = "story file"):
    """The ``jericho`` module; ``SourceErrors`` naming ``pip install -e '.[zmachine]'`` when it is not
    importable (the [zmachine] extra is not installed, or its interpreter library does not load)."""
    try:
        import jericho
    except (ImportError, OSError) as exc:
        raise _fail(path, f"playing a Z-machine story file needs the [zmachine] extra (Jericho): {EXTRA}"
                          f" ({type(exc).__name__}: {exc})".replace("\n", " ")) from None
    return jericho


def valid_actions_model() -> bool:
    """Whether spaCy's ``en_core_web_sm`` is installed, found without importing spaCy and without
    any network access. When it is not, Jericho's ``get_valid_actions`` would download it."""
    try:
        return importlib.util.find_spec(SPACY_MODEL) is not None
    except (ImportError, ValueError):
        return False


VALID_ACTIONS_MISSING = (f"valid actions need spaCy's {SPACY_MODEL} model, not installed:"
                         f" python -m spacy download {SPACY_MODEL}")


def valid_actions(env) -> list[str] | None:
    """The valid actions Jericho finds for ``env`` (a ``jericho.FrotzEnv``) in its current state, its
    state left as it was; ``None`` when spaCy's model is missing (then nothing is downloaded and
    Jericho is not asked: show :data:`VALID_ACTIONS_MISSING`). ``[]`` on a game Jericho does not
    catalogue. Slow (it tries hundreds of commands): call it off the interface's thread. Runs in this
    process (no multiprocessing pool: ``use_parallel=False``)."""
    if not valid_actions_model():
        return None
    if not env.is_fully_supported:   # Jericho would only warn and answer []
        return []
    return env.get_valid_actions(use_object_tree=True, use_ctypes=True, use_parallel=False)
