"""Random classic worlds: a grid of rooms, doors (some locked, their keys reachable), containers,
supports, things to carry, and goals "put X in/on Y", each with its exact par.

Every choice comes from one ``random.Random`` seeded by a hash of the
generator's version, every knob and the seed, so the same command gives
byte-identical files on any machine and Python 3.10+ (integer seeding and
``randrange``/``shuffle`` are stable across versions; nothing iterates a
set or hashes a string with Python's per-process salt). A world is written
as YAML and read back with the loader, so what is generated is exactly what
``check`` and ``play`` read; par is then computed by the exact planner.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field, fields, replace

import yaml

from .vocab import COLOURS, MATERIALS, PLACES, SPLITS, THEMES, words

VERSION = 1
DIRS = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
MAX_ROOMS, MAX_OBJECTS, MAX_GOALS = 400, 2_000, 50


class KnobError(ValueError):
    """Knobs that cannot make a world (the message says which and what would)."""


@dataclass(frozen=True)
class Knobs:
    rooms: int = 8
    objects: int = 20
    goals: int = 3
    doors: int | None = None          # default: a quarter of the rooms
    locked: int | None = None         # default: half the doors
    containers: int | None = None     # default: an eighth of the objects (at least one)
    supports: int | None = None       # default: an eighth of the objects (at least one)
    distractors: int | None = None    # default: every object left over
    theme: str = "house"
    split: str | None = None          # train | dev | test: words of that split only

    def resolved(self) -> "Knobs":
        """Defaults filled in and every knob checked against the others."""
        for name in ("rooms", "objects", "goals", "doors", "locked", "containers", "supports", "distractors"):
            value = getattr(self, name)
            if (value is not None or name in ("rooms", "objects", "goals")) and (
                    isinstance(value, bool) or not isinstance(value, int)):
                raise KnobError(f"--{name} must be a whole number, not {value!r}")
        if not isinstance(self.theme, str) or not (self.split is None or isinstance(self.split, str)):
            raise KnobError("--theme and --split are names (adventure generate --help lists them)")
        if self.theme not in THEMES:
            raise KnobError(f"unknown theme {self.theme!r} (themes: {', '.join(THEMES)})")
        if self.split is not None and self.split not in SPLITS:
            raise KnobError(f"unknown split {self.split!r} (use {', '.join(SPLITS)})")
        for name, value, low, high in (("rooms", self.rooms, 1, MAX_ROOMS), ("objects", self.objects, 1, MAX_OBJECTS),
                                       ("goals", self.goals, 1, MAX_GOALS)):
            if not low <= value <= high:
                raise KnobError(f"--{name} must be from {low} to {high}, not {value}")
        links = self.rooms - 1 + self.rooms // 4
        doors = min(self.rooms // 4, links) if self.doors is None else self.doors
        if not 0 <= doors <= links:
            raise KnobError(f"--doors {doors}: {self.rooms} rooms have {links} passages, so at most {links} doors")
        locked = doors // 2 if self.locked is None else self.locked
        if not 0 <= locked <= doors:
            raise KnobError(f"--locked {locked}: at most the number of doors ({doors})")
        containers = max(1, self.objects // 8) if self.containers is None else self.containers
        supports = max(1, self.objects // 8) if self.supports is None else self.supports
        if containers < 0 or supports < 0:
            raise KnobError("--containers and --supports cannot be negative")
        fixed = containers + supports + locked + self.goals
        distractors = self.objects - fixed if self.distractors is None else self.distractors
        if distractors < 0 or fixed + distractors != self.objects:
            raise KnobError(f"--objects {self.objects} cannot hold {containers} containers, {supports} supports,"
                            f" {locked} keys, {self.goals} goal things and {max(distractors, 0)} distractors"
                            f" (they add up to {fixed + max(distractors, 0)}): raise --objects or lower the others")
        return replace(self, doors=doors, locked=locked, containers=containers, supports=supports,
                       distractors=distractors)

    @classmethod
    def of(cls, knobs: dict) -> "Knobs":
        """Knobs from a mapping (a study's generate: block, the gym's generate=), its keys checked."""
        known = [f.name for f in fields(cls)]
        unknown = [k for k in knobs if k not in known]
        if unknown:
            raise KnobError(f"unknown knob {unknown[0]!r} (knobs: {', '.join(known)})")
        return cls(**knobs)

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}   # asdict's, without its deep copies of ints


@dataclass
class Draft:
    """A world before its par is known: the YAML document and what the features need of its making."""
    doc: dict
    lock_depth: dict[str, int] = field(default_factory=dict)   # door id -> locks crossed to reach its key, + 1


_KNOBS_JSON: dict[Knobs, str] = {}   # knobs -> their JSON in rng_for's text (a trainer's env draws per reset)


def rng_for(knobs: Knobs, seed: int, attempt: int = 0) -> random.Random:
    """The draft's generator, seeded by a hash of ``json.dumps({"v", "knobs", "seed", "attempt"},
    sort_keys=True)``: that text, with the knobs' part made once."""
    knobs_json = _KNOBS_JSON.get(knobs)
    if knobs_json is None:
        knobs_json = json.dumps(knobs.as_dict(), sort_keys=True)
        if len(_KNOBS_JSON) > 256:
            _KNOBS_JSON.clear()
        _KNOBS_JSON[knobs] = knobs_json
    text = f'{{"attempt": {int(attempt)}, "knobs": {knobs_json}, "seed": {int(seed)}, "v": {VERSION}}}'
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big"))


_SLUGS: dict[str, str] = {}   # a theme's names are few: each slugged once


def slug(name: str) -> str:
    hit = _SLUGS.get(name)
    if hit is None:
        hit = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        if len(_SLUGS) > 10_000:
            _SLUGS.clear()
        _SLUGS[name] = hit
    return hit


# -- the map --------------------------------------------------------------------------------
def layout(rng: random.Random, n: int) -> list[tuple[int, int, str]]:
    """Passages (room a, room b, direction from a to b) over n rooms on a grid: a random tree grown
    from room 0, then a quarter as many loops between neighbours not yet joined."""
    cells = {(0, 0): 0}
    pos = [(0, 0)]
    links: list[tuple[int, int, str]] = []
    names = list(DIRS)
    while len(pos) < n:
        a = rng.randrange(len(pos))
        d = names[rng.randrange(4)]
        x, y = pos[a][0] + DIRS[d][0], pos[a][1] + DIRS[d][1]
        if (x, y) in cells:
            continue
        cells[(x, y)] = len(pos)
        pos.append((x, y))
        links.append((a, len(pos) - 1, d))
    joined = {(a, b) for a, b, _ in links} | {(b, a) for a, b, _ in links}
    spare = []
    for a, (x, y) in enumerate(pos):
        for d in ("north", "east"):
            b = cells.get((x + DIRS[d][0], y + DIRS[d][1]))
            if b is not None and (a, b) not in joined:
                spare.append((a, b, d))
    rng.shuffle(spare)
    return links + spare[:n // 4]


def reachable(start: int, links, barred: set[int]) -> set[int]:
    """Rooms reachable from ``start`` without crossing the passages indexed in ``barred``."""
    seen = {start}
    todo = [start]
    while todo:
        r = todo.pop()
        for i, (a, b, _) in enumerate(links):
            if i in barred:
                continue
            for x, y in ((a, b), (b, a)):
                if x == r and y not in seen:
                    seen.add(y)
                    todo.append(y)
    return seen


def locks_to_reach(start: int, target: int, links, locked: set[int]) -> int:
    """The fewest locked passages crossed on a way from start to target (0-1 breadth-first search)."""
    best = {start: 0}
    todo = [(0, start)]
    while todo:
        todo.sort()
        cost, r = todo.pop(0)
        if r == target:
            return cost
        for i, (a, b, _) in enumerate(links):
            for x, y in ((a, b), (b, a)):
                if x == r:
                    c = cost + (1 if i in locked else 0)
                    if c < best.get(y, 1 << 30):
                        best[y] = c
                        todo.append((c, y))
    return best.get(target, 0)


# -- names ----------------------------------------------------------------------------------
def name_all(rng: random.Random, pool: tuple[str, ...] | list[str], n: int, adjectives, taken: set[str]) -> list[tuple[str, list[str]]]:
    """n (name, adjectives) pairs from ``pool`` (nouns of other kinds excluded); an adjective only
    where names collide."""
    free = [w for w in pool if w not in taken] or list(pool)
    nouns = rng.sample(free, min(n, len(free)))
    while len(nouns) < n:
        nouns.append(free[rng.randrange(len(free))])
    taken.update(nouns)
    out: list[tuple[str, list[str]]] = []
    counts: dict[str, int] = {}
    for noun in nouns:
        counts[noun] = counts.get(noun, 0) + 1
    used: dict[str, int] = {}
    for noun in nouns:
        if counts[noun] == 1:
            out.append((noun, []))
            continue
        k = used.get(noun, 0)
        used[noun] = k + 1
        adj = adjectives[k % len(adjectives)] + ("" if k < len(adjectives) else f" {k // len(adjectives) + 1}")
        out.append((f"{adj} {noun}", [adj.split()[0]]))
    return out


def _ids(names: list[str], taken: set[str]) -> list[str]:
    out = []
    for name in names:
        base = slug(name) or "thing"
        if not base[0].isalpha():
            base = "x_" + base
        ident, n = base, 2
        while ident in taken or ident in ("player", "inventory", "all", "everything", "it", "them"):
            ident, n = f"{base}_{n}", n + 1
        taken.add(ident)
        out.append(ident)
    return out


# -- the world ------------------------------------------------------------------------------
def draft(knobs: Knobs, seed: int, attempt: int = 0) -> Draft:
    """One world of ``knobs`` (resolved) from ``seed``; the same arguments give the same document."""
    # resolved knobs have every count filled in
    doors_n, locked_n = knobs.doors, knobs.locked
    containers_n, supports_n, distractors_n = knobs.containers, knobs.supports, knobs.distractors
    assert (doors_n is not None and locked_n is not None and containers_n is not None
            and supports_n is not None and distractors_n is not None), "draft takes Knobs.resolved()"
    rng = rng_for(knobs, seed, attempt)
    theme = THEMES[knobs.theme]
    links = layout(rng, knobs.rooms)
    taken: set[str] = set()
    rooms = name_all(rng, words(theme, "rooms", knobs.split), knobs.rooms, PLACES, taken)
    ids: set[str] = set()
    room_ids = _ids([n for n, _ in rooms], ids)
    door_links = rng.sample(range(len(links)), doors_n)
    locked_links = door_links[:locked_n]
    doors = name_all(rng, theme.doors, doors_n, MATERIALS, set())
    door_ids = _ids([f"{n}" for n, _ in doors], ids)
    door_of = dict(zip(door_links, door_ids))

    containers = name_all(rng, words(theme, "containers", knobs.split), containers_n, COLOURS, taken)
    supports = name_all(rng, words(theme, "supports", knobs.split), supports_n, COLOURS, taken)
    things = name_all(rng, words(theme, "things", knobs.split), knobs.goals + distractors_n, COLOURS,
                      taken)
    keys = name_all(rng, ["key"], locked_n, MATERIALS, set())
    container_ids = _ids([n for n, _ in containers], ids)
    support_ids = _ids([n for n, _ in supports], ids)
    thing_ids = _ids([n for n, _ in things], ids)
    key_ids = _ids([n for n, _ in keys], ids)

    objects: dict[str, dict] = {}
    where: dict[str, tuple[str, str]] = {}   # object id -> (relation, holder)
    holders_in: dict[int, list[tuple[str, str]]] = {r: [] for r in range(knobs.rooms)}
    for ids_, named, kind in ((container_ids, containers, "container"), (support_ids, supports, "support")):
        for ident, (name, adjs) in zip(ids_, named):
            room = rng.randrange(knobs.rooms)
            entry = _object(name, adjs, [kind, "openable"] if kind == "container" else [kind])
            entry["at"] = room_ids[room]
            if kind == "container" and rng.random() < 0.3:
                entry["open"] = True
            objects[ident] = entry
            where[ident] = ("at", room_ids[room])
            holders_in[room].append(("in" if kind == "container" else "on", ident))

    def place(ident: str, room: int) -> None:
        spots = [("at", room_ids[room])] + holders_in[room]
        rel, holder = spots[rng.randrange(len(spots))]
        objects[ident][rel] = holder
        where[ident] = (rel, holder)

    # locked doors in an order that can be opened, each key where it can be reached by then
    start = 0
    pending = list(locked_links)
    barred = set(locked_links)
    depth: dict[str, int] = {}
    key_for: dict[int, str] = {}
    for key_id, (name, adjs) in zip(key_ids, keys):
        region = reachable(start, links, barred)
        ready = [i for i in pending if links[i][0] in region or links[i][1] in region]
        link = ready[rng.randrange(len(ready))]
        pending.remove(link)
        objects[key_id] = _object(name, adjs, ["takeable"], f"A small {name} with a worn bow.")
        room = sorted(region)[rng.randrange(len(region))]
        place(key_id, room)
        depth[door_of[link]] = 1 + locks_to_reach(start, room, links, set(locked_links))
        key_for[link] = key_id
        barred.discard(link)
    for link, ident, (name, adjs) in zip(door_links, door_ids, doors):
        a, b, _ = links[link]
        entry = _object(name, adjs, ["door", "openable"] + (["lockable"] if link in key_for else []),
                        f"A sturdy {name} between the {rooms[a][0]} and the {rooms[b][0]}.")
        if link in key_for:
            entry.update(locked=True, key=key_for[link])
        objects[ident] = entry
    for ident, (name, adjs) in zip(thing_ids, things):
        objects[ident] = _object(name, adjs, ["takeable"])
        place(ident, rng.randrange(knobs.rooms))

    goals = []
    targets = container_ids + support_ids
    for ident in thing_ids[:knobs.goals]:
        options = [t for t in targets if where[ident][1] != t]
        if options:
            t = options[rng.randrange(len(options))]
            goals.append(f"{'in' if t in container_ids else 'on'}({ident}, {t})")
        else:   # nothing to put things in or on: carry it to another room
            others = [r for r in room_ids if where[ident] != ("at", r)] or room_ids
            goals.append(f"at({ident}, {others[rng.randrange(len(others))]})")

    room_docs: dict[str, dict] = {}
    moods = theme.moods
    ways: dict[int, list] = {r: [] for r in range(knobs.rooms)}   # each room's exits, in the links' order
    for i, (a, b, d) in enumerate(links):
        ways[a].append((d, b, i))
        ways[b].append((OPPOSITE[d], a, i))
    for r, (ident, (name, _)) in enumerate(zip(room_ids, rooms)):
        room_doc: dict = {} if ident == slug(name) and ident.replace("_", " ") == name else {"name": name}
        room_doc["description"] = f"{_a(moods[rng.randrange(len(moods))])} {name}."
        exits: dict = {}
        for way, y, i in ways[r]:
            exits[way] = {"to": room_ids[y], "door": door_of[i]} if i in door_of else room_ids[y]
        room_doc["exits"] = {d: exits[d] for d in DIRS if d in exits}
        room_docs[ident] = room_doc

    title = f"{theme.name.title()} {seed}"
    doc = {"game": f"{knobs.theme}_{seed}", "title": title, "ruleset": "classic",
           "intro": "Your task: " + _goal_text(goals, objects, room_docs) + ".",
           "start": room_ids[start], "rooms": room_docs, "objects": objects, "goal": goals}
    return Draft(doc, depth)


def _object(name: str, adjs: list[str], traits: list[str], description: str | None = None) -> dict:
    entry: dict = {"name": name}
    if adjs:
        entry["adjectives"] = adjs
    entry["traits"] = traits
    entry["description"] = description or f"{_a(name)[0].upper()}{_a(name)[1:]}, nothing out of the ordinary."
    return entry


def _a(words_: str) -> str:
    return ("An " if words_[0] in "aeiou" else "A ") + words_ if words_ else words_


def _goal_text(goals: list[str], objects: dict, rooms: dict) -> str:
    def name(ident: str) -> str:
        if ident in objects:
            return objects[ident]["name"]
        return rooms[ident].get("name", ident.replace("_", " "))
    parts = []
    for g in goals:
        pred, args = g.split("(", 1)
        x, y = [a.strip() for a in args.rstrip(")").split(",")]
        where = 'into' if pred == 'in' else 'onto' if pred == 'on' else 'to'
        parts.append(f"{'put' if pred != 'at' else 'bring'} the {name(x)} {where} the {name(y)}")
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


class _Dumper(yaml.SafeDumper):
    pass


def _list(dumper, value: list):
    """Short lists of words (traits, adjectives) on one line, as a person writes them."""
    flow = all(isinstance(v, (str, int)) and len(str(v)) < 30 for v in value) and len(value) <= 8
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


_Dumper.add_representer(list, _list)


def dump(doc: dict) -> str:
    """The YAML text of a world document: the same bytes for the same document, everywhere."""
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
