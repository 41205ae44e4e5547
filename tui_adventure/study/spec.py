"""A study file: what a researcher writes to have participants play a queue of worlds.

Checked the way world files are: every mistake is reported at once with
``file:line:col`` and how to fix it, and every world of the queue is loaded
(or generated) before the first participant sees anything, so a study never
breaks halfway through a session.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..catalog import expand, open_world
from ..engine.loading import load_world_text
from ..engine.sources import read_source
from ..engine.world import World
from ..zmachine.game import StorySource
from ..engine.yamlpos import PosDict, SourceError, SourceErrors, did_you_mean, key_pos_of, load_yaml, pos_of
from ..keyboard.figures import Visibility

KEYS = ("title", "id", "instructions", "consent", "practice", "worlds", "order", "time_limit", "show", "completion_code",
        "completion_url")
ORDERS = ("fixed", "shuffled", "latin")
ENTRY_KEYS = ("world", "time_limit")
GENERATE_KEYS = ("rooms", "objects", "goals", "doors", "locked", "containers", "supports", "distractors", "theme",
                 "split", "seed", "seeds", "par")
MAX_TIME_LIMIT = 24 * 3600
MAX_WORLDS = 1000
CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")   # what a crowd platform's completion code looks like (Prolific's: C1A2B3C4)
MAX_URL = 2000
STUDY_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")   # an explicit id: it names the study's roster file
TUTORIAL = "tutorial"   # as a study's practice: the packaged tutorial in the command style of its worlds
TUTORIALS = {"classic": "tutorial", "clembench": "tutorial_clembench"}   # packaged names, by command style


@dataclass
class Entry:
    """One world of the queue, loaded: ``label`` is how the researcher named it (for messages)."""

    label: str
    world: World | StorySource   # a story file's source too: a study may hold story files
    time_limit: float | None = None


@dataclass
class Study:
    path: str
    title: str
    worlds: list[Entry]
    instructions: str = ""
    practice: Entry | None = None
    order: str = "fixed"
    show: Visibility = field(default_factory=Visibility.blind)
    consent: str = ""                    # Markdown agreed to before the first world; "" asks nothing
    completion_code: str | None = None   # shown at the end, for the participant to hand back to the platform
    completion_url: str | None = None    # where the end sends a browser (the platform's completion page)
    key: str = ""                        # the study's identity (``study_key``): its roster, sittings and records

    @property
    def slug(self) -> str:
        """The study's title as one safe path part; titles that differ may share it, so it names nothing
        on its own (``key`` does)."""
        return re.sub(r"[^A-Za-z0-9_-]+", "-", self.title).strip("-")[:60] or "study"


def matching_tutorial(worlds: list[Entry]) -> str:
    """The packaged tutorial that teaches the command style of most of ``worlds``: clembench instances take
    "go pantry" and refuse "look" and "north" (``tutorial_clembench``), the others take those (``tutorial``)."""
    clembench = sum(entry.world.is_clembench() for entry in worlds)
    return TUTORIALS["clembench" if 2 * clembench > len(worlds) else "classic"]


def study_key(path: Path, title: str, given: str | None) -> str:
    """A study's identity: the file's ``id:`` when it gives one, else its title's slug and a digest of the
    file's resolved path and title. Two studies never share one (not "Pilot A" and "Pilot/A", not two
    files titled alike); a study keeps it while its file stays where it is (``id:`` keeps it anywhere)."""
    if given:
        return given
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", title).strip("-")[:60] or "study"
    digest = hashlib.sha256(f"{path.resolve()}\0{title}".encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{slug}-{digest}"


def load_study(path: str | Path, text: str | None = None, made: dict[str, str] | None = None) -> Study:
    """The study in ``path`` with every world loaded; ``SourceErrors`` listing every mistake otherwise.

    ``text``: the file's text as read before (``freeze_study``), read from ``path`` when not given;
    ``made``: generated worlds' texts by their knobs and seed, used when there and added to otherwise."""
    path = Path(path)
    name = str(path)
    if text is None:
        text = _read_study(path)
    try:
        doc = load_yaml(text, name)
    except SourceError as exc:
        raise SourceErrors([exc]) from None
    study = _Reader(name, path.resolve().parent, made).study(doc)
    study.key = study_key(path, study.title, doc.get("id"))
    return study


def _read_study(path: Path) -> str:
    try:
        return read_source(path, "study")
    except (OSError, ValueError) as exc:
        raise SourceErrors([SourceError(str(path), None, f"cannot read the study file: {getattr(exc, 'strerror', None) or exc}")]) from None
    except UnicodeDecodeError:
        raise SourceErrors([SourceError(str(path), None, "the study file is not UTF-8 text")]) from None


def freeze_study(path: str | Path, folder: Path) -> tuple[Study, Path]:
    """The study loaded once, and a frozen copy of it in ``folder`` for ``thaw_study``: the file's text as
    read now and every generated world's text, so a process that thaws it plays this study, not the file as
    it is later, and generates nothing. (World files a study names are read again by the thawing process.)"""
    path = Path(path)
    made: dict[str, str] = {}
    text = _read_study(path)
    study = load_study(path, text, made)
    frozen = folder / "study.json"
    with open(frozen, "x", encoding="utf-8") as out:
        json.dump({"path": str(path.resolve()), "text": text, "made": made}, out)
    return study, frozen


def thaw_study(frozen: str | Path) -> Study:
    """The study ``freeze_study`` froze; ``SourceErrors`` if the copy cannot be read."""
    try:
        with open(frozen, encoding="utf-8") as inp:
            data = json.load(inp)
        return load_study(data["path"], data["text"], data["made"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SourceErrors([SourceError(str(frozen), None, f"cannot read the server's copy of the study: {exc}")]) \
            from None


class _Reader:
    def __init__(self, name: str, folder: Path, made: dict[str, str] | None = None) -> None:
        self.name = name
        self.folder = folder
        self.made = {} if made is None else made   # generated worlds' texts by _made_key
        self.errors: list[SourceError] = []
        self.counted = 0        # worlds named so far: counted before any is loaded
        self.too_many = False

    def error(self, container, key, message: str, at_key: bool = False) -> None:
        pos = key_pos_of(container, key) if at_key else pos_of(container, key)
        self.errors.append(SourceError(self.name, pos, message))

    def study(self, doc) -> Study:
        if not isinstance(doc, PosDict):
            raise SourceErrors([SourceError(self.name, getattr(doc, "pos", None),
                                            "a study file is a mapping with title: and worlds: (see docs/studies.md)")])
        for key in doc:
            if key not in KEYS:
                self.error(doc, key, f"unknown key {key!r}{did_you_mean(key, KEYS)} (a study has {', '.join(KEYS)})",
                           at_key=True)
        title = self.text(doc, "title", required=True) or "study"
        if "id" in doc and not (isinstance(doc["id"], str) and STUDY_ID.fullmatch(doc["id"])):
            self.error(doc, "id", "id is 1 to 64 letters, digits, '-' or '_' (it names the study's roster and"
                                  " tells its records from other studies'), e.g. pilot-2026")
        instructions = self.text(doc, "instructions") or ""
        consent = self.text(doc, "consent") or ""
        code = self.code(doc)
        url = self.url(doc)
        order = doc.get("order", "fixed")
        if order not in ORDERS:
            self.error(doc, "order", f"order must be one of {', '.join(ORDERS)}, not {order!r}{did_you_mean(order, ORDERS)}")
        limit = self.seconds(doc, "time_limit")
        show = self.show(doc)
        practice = None
        # practice: tutorial is the packaged one of the worlds' command style, chosen once they are loaded
        matching = doc.get("practice") == TUTORIAL and not (self.folder / TUTORIAL).exists()
        if "practice" in doc and not matching:
            found = self.entries(doc, "practice", limit)
            if len(found) != 1:
                if found:
                    self.error(doc, "practice", "practice is one world (a file or a packaged name), not several")
            else:
                practice = found[0]
        worlds: list[Entry] = []
        if "worlds" not in doc:
            self.errors.append(SourceError(self.name, getattr(doc, "pos", None),
                                           "a study needs worlds: a list of files, folders, packaged names"
                                           " or generate: blocks"))
        elif not isinstance(doc["worlds"], list) or not doc["worlds"]:
            self.error(doc, "worlds", "worlds must be a non-empty list (one world per item)")
        else:
            for i in range(len(doc["worlds"])):
                worlds += self.entries(doc["worlds"], i, limit)
                if self.too_many:   # said once; nothing past the limit is loaded or generated
                    self.error(doc, "worlds", f"more than {MAX_WORLDS} worlds (counted before loading them):"
                                              f" a study holds at most {MAX_WORLDS}")
                    break
        if matching and worlds and self.room_for(1):
            practice = Entry(TUTORIAL, open_world(matching_tutorial(worlds)), limit)
        if practice is not None and practice.world.is_clembench() \
                and any(isinstance(e.world.meta.get("zmachine"), dict) for e in worlds):
            self.error(doc, "practice", f"{practice.label} teaches clembench's moves (\"go hallway\"), but this"
                                        " study's story files take classic commands (north, take lamp, look):"
                                        " use practice: tutorial")
        if self.errors:
            raise SourceErrors(self.errors)
        return Study(self.name, title, worlds, instructions, practice, order, show, consent, code, url)

    # -- values ---------------------------------------------------------------------------
    def text(self, doc, key: str, required: bool = False) -> str | None:
        if key not in doc:
            if required:
                self.errors.append(SourceError(self.name, getattr(doc, "pos", None), f"the study needs {key}:"))
            return None
        value = doc[key]
        if not isinstance(value, str) or not value.strip():
            self.error(doc, key, f"{key} must be text")
            return None
        return value.strip()

    def code(self, doc) -> str | None:
        """A completion code is typed or pasted by the participant into the platform: short, no spaces."""
        value = doc.get("completion_code")
        if value is None:
            return None
        value = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
        if not isinstance(value, str) or not CODE.fullmatch(value):
            self.error(doc, "completion_code", "completion_code is 1 to 64 letters, digits, '-' or '_' (the code"
                                               f" the platform gave you, e.g. C1A2B3C4), not {value!r}")
            return None
        return value

    def url(self, doc) -> str | None:
        """Where a browser goes at the end: an http(s) address, nothing a page could run (javascript:)."""
        from urllib.parse import urlsplit

        value = doc.get("completion_url")
        if value is None:
            return None
        problem = None
        if not isinstance(value, str):
            problem = "is text"
        elif len(value) > MAX_URL or any(c.isspace() or not c.isprintable() for c in value):
            problem = f"is one address of at most {MAX_URL} characters, with no spaces"
        else:
            try:
                parts = urlsplit(value)
            except ValueError as exc:
                parts, problem = None, f"is not an address ({exc})"
            if parts is not None and (parts.scheme not in ("http", "https") or not parts.hostname):
                problem = "starts with https:// (or http://) and names a host"
        if problem:
            self.error(doc, "completion_url", f"completion_url {problem}, e.g."
                                              " https://app.prolific.com/submissions/complete?cc=C1A2B3C4")
            return None
        return value

    def seconds(self, doc, key: str) -> float | None:
        if key not in doc:
            return None
        value = doc[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIME_LIMIT:
            self.error(doc, key, f"{key} is seconds per world: a number from 1 to {MAX_TIME_LIMIT}, not {value!r}")
            return None
        return float(value)

    def show(self, doc) -> Visibility:
        """``show: [par, progress]`` (or a mapping of names to true/false): what the participant may see
        beyond a model's prompt; nothing by default."""
        value = doc.get("show", [])
        names = Visibility.names()
        if isinstance(value, dict):
            chosen = value
        elif isinstance(value, list):
            chosen = {v: True for v in value if isinstance(v, str)}
            if len(chosen) != len(value):
                self.error(doc, "show", "show lists names, e.g. [par, progress]")
        else:
            self.error(doc, "show", f"show is a list of what to show: {', '.join(names)}")
            return Visibility.blind()
        given = {}
        for key, on in chosen.items():
            if key not in names:
                where = value if isinstance(value, dict) else doc
                self.error(where, key if isinstance(value, dict) else "show",
                           f"show: unknown {key!r}{did_you_mean(key, names)} (choose from {', '.join(names)})",
                           at_key=isinstance(value, dict))
            elif not isinstance(on, bool):
                self.error(value, key, f"show: {key} is true or false")
            else:
                given[key] = on
        return Visibility.blind(**given)

    # -- worlds -----------------------------------------------------------------------------
    def room_for(self, n: int) -> bool:
        """Whether ``n`` more worlds fit the study's limit; asked before they are loaded or generated
        (thousands of them took minutes and gigabytes before a refusal counted after loading)."""
        self.counted += n
        self.too_many = self.too_many or self.counted > MAX_WORLDS
        return not self.too_many

    def entries(self, container, key, limit: float | None) -> list[Entry]:
        """The worlds one item names: a file or packaged name, a folder or ``clembench/EXPERIMENT`` (all
        of it), ``{world: NAME, time_limit: S}``, or ``{generate: {knobs..., seeds: [...]}}``."""
        item = container[key]
        if isinstance(item, PosDict) and "generate" in item:
            return self.generated(item, limit)
        if isinstance(item, PosDict):
            for k in item:
                if k not in ENTRY_KEYS:
                    self.error(item, k, f"unknown key {k!r}{did_you_mean(k, ENTRY_KEYS + ('generate',))}"
                                        " (a world item has world:, time_limit: or generate:)", at_key=True)
            limit = self.seconds(item, "time_limit") if "time_limit" in item else limit
            if "world" not in item:
                self.error(container, key, "this item needs world: (a file or packaged name) or generate:")
                return []
            container, key, item = item, "world", item["world"]
        if not isinstance(item, str) or not item.strip():
            self.error(container, key, "a world is a file, a folder or a packaged name (adventure list shows them)")
            return []
        local = self.folder / item
        names = expand([str(local)] if local.exists() else [item])
        if not self.room_for(len(names)):
            return []
        out = []
        for name in names:
            try:
                out.append(Entry(item if len(names) == 1 else name, open_world(name), limit))
            except SourceErrors as exc:
                first = exc.errors[0]
                self.error(container, key, f"{item}: {first}" + (f" (and {len(exc.errors) - 1} more)"
                                                                  if len(exc.errors) > 1 else ""))
                return []
            except (OSError, ValueError) as exc:
                self.error(container, key, f"{item}: {exc}")
                return []
        if not out:
            self.error(container, key, f"{item}: a folder with no world files in it")
        return out

    def generated(self, item: PosDict, limit: float | None) -> list[Entry]:
        """Worlds from ``adventure generate``'s knobs, one per seed: the same knobs and seeds make the
        same worlds for ``adventure generate``, so models can play exactly what participants played."""
        from ..generate import Knobs, KnobError, check_seeds, generate_world, parse_par

        block = item["generate"]
        for k in item:
            if k not in ("generate", "time_limit"):
                self.error(item, k, f"unknown key {k!r} beside generate: (time_limit: is allowed)", at_key=True)
        limit = self.seconds(item, "time_limit") if "time_limit" in item else limit
        if not isinstance(block, PosDict):
            self.error(item, "generate", "generate: is a mapping of adventure generate's knobs and seeds:")
            return []
        knobs: dict = {}
        for k, v in block.items():
            if k not in GENERATE_KEYS:
                self.error(block, k, f"unknown knob {k!r}{did_you_mean(k, GENERATE_KEYS)}", at_key=True)
            elif k not in ("seed", "seeds", "par"):
                knobs[k] = v
        seeds = block.get("seeds", [block.get("seed", 0)])
        where = "seeds" if "seeds" in block else "seed"
        if not isinstance(seeds, list) or not seeds:
            self.error(block, where, "seeds: is a list of whole numbers")
            return []
        try:   # the seeds adventure generate takes, so models can replay exactly what participants played
            for seed in seeds:
                check_seeds(seed, what=f"{where}:")
        except KnobError as exc:
            self.error(block, where, str(exc))
            return []
        if not self.room_for(len(seeds)):
            return []
        try:
            par = parse_par(str(block["par"])) if "par" in block else None
            spec = Knobs(**knobs)
            texts = []
            for seed in seeds:
                key = json.dumps([knobs, seed, par], sort_keys=True, default=str)
                if key not in self.made:
                    self.made[key] = generate_world(spec, seed, par, name=f"generated_{spec.theme}").text
                texts.append(self.made[key])
        except (KnobError, TypeError, ValueError) as exc:
            self.error(item, "generate", f"generate: {exc}")
            return []
        return [Entry(f"generated {spec.theme} seed {seed}", load_world_text(text, f"<generated seed {seed}>"),
                      limit) for seed, text in zip(seeds, texts)]
