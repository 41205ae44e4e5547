"""World files (YAML) -> World, with an exact, helpful message for every mistake.

All problems in a file are collected and reported together as
``file:line:col: what is wrong (how to fix it)``; nothing here raises anything
but ``SourceErrors`` for a bad file.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from .facts import parse_fact
from .ruleset import load_ruleset, parse_actions
from .styles.classic import COMPASS, DIRECTIONS
from .world import Entity, Goal, World
from .yamlpos import SourceError, SourceErrors, key_pos_of, load_yaml, pos_of

TOP_KEYS = {"game", "title", "ruleset", "intro", "start", "max_turns", "par", "rooms", "objects",
            "goal", "actions", "strict", "seed", "clembench"}
ROOM_KEYS = {"name", "description", "exits"}
OBJECT_KEYS = {"name", "adjectives", "synonyms", "traits", "in", "on", "at", "held", "open",
               "locked", "key", "description", "article", "type"}
TRAITS = {"takeable", "container", "support", "openable", "lockable", "edible", "door"}
ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
RESERVED = {"player", "inventory", "all", "everything", "it", "them"}


def did_you_mean(word: str, options) -> str:
    close = difflib.get_close_matches(str(word), sorted(options), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def load_world(path: str | Path) -> World:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SourceErrors([SourceError(str(path), None, "no such file")]) from None
    except UnicodeDecodeError as exc:
        raise SourceErrors([SourceError(str(path), None, f"not UTF-8 text ({exc.reason})")]) from None
    except OSError as exc:
        raise SourceErrors([SourceError(str(path), None, f"cannot read: {exc.strerror}")]) from None
    return load_world_text(text, str(path))


def load_world_text(text: str, path: str = "<world>") -> World:
    try:
        data = load_yaml(text, path)
    except SourceError as exc:
        raise SourceErrors([exc]) from None
    if data is None or not isinstance(data, dict):
        raise SourceErrors([SourceError(path, getattr(data, "pos", None),
                                        "a world file is a mapping with at least rooms, start and goal")])
    if "clembench" in data:
        from ..clembench.instances import world_from_document
        return world_from_document(data, path)
    return _Builder(data, path).build()


class _Builder:
    def __init__(self, data, path: str) -> None:
        self.d = data
        self.path = path
        self.errors: list[SourceError] = []

    def err(self, pos, message: str) -> None:
        self.errors.append(SourceError(self.path, pos, message))

    def build(self) -> World:
        d = self.d
        for key in d:
            if key not in TOP_KEYS:
                self.err(key_pos_of(d, key), f"unknown key {key!r}{did_you_mean(key, TOP_KEYS)}"
                         f" (allowed: {', '.join(sorted(TOP_KEYS - {'clembench'}))})")
        for key in ("rooms", "start", "goal"):
            if key not in d:
                self.err(d.pos, f"missing required key {key!r}" + {
                    "rooms": " (add a 'rooms:' mapping with at least one room)",
                    "start": " (add 'start: <room id>' naming the room the player starts in)",
                    "goal": " (add 'goal:' with a list of facts such as on(book, table))"}[key])
        ruleset = self.ruleset()
        rooms = self.mapping("rooms")
        objects = self.mapping("objects")
        entities: dict[str, Entity] = {}
        facts: list[tuple] = []
        self.rooms(rooms, entities)
        self.objects(objects, rooms, entities)
        self.exits(rooms, objects, entities, facts)
        self.object_facts(objects, entities, facts)
        start = d.get("start")
        if "start" in d:
            if not isinstance(start, str) or start not in rooms:
                self.err(pos_of(d, "start"), f"start {start!r} is not a room{did_you_mean(start, rooms)}"
                         f" (rooms: {', '.join(rooms) or 'none'})")
            else:
                facts.insert(0, ("at", "player", start))
        entities["player"] = Entity("player", "you", kind="player", hidden=True)
        goals = self.goals(entities)
        max_turns = self.integer("max_turns", 100, minimum=1)
        par = self.integer("par", None, minimum=0)
        extra = parse_actions(d.get("actions") or [], self.path, self.errors) if d.get("actions") else []
        for key, kind in (("title", str), ("intro", str), ("game", str), ("strict", bool)):
            if key in d and not isinstance(d[key], kind):
                self.err(pos_of(d, key), f"{key} must be {'text' if kind is str else 'true or false'}")
        self.cycles(objects)
        if self.errors or ruleset is None:
            raise SourceErrors(self.errors)
        try:
            return World(path=self.path, game=str(d.get("game") or Path(self.path).stem),
                         title=str(d.get("title") or d.get("game") or Path(self.path).stem),
                         ruleset=ruleset, start=start, entities=entities, initial_facts=facts,
                         goals=goals, max_turns=max_turns, par=par, intro=str(d.get("intro") or "").strip(),
                         extra_actions=extra, strict=bool(d.get("strict", False)), seed=int(d.get("seed") or 0),
                         meta={"goal_pos": pos_of(d, "goal"), "par_pos": pos_of(d, "par")})
        except SourceErrors:
            raise
        except (ValueError, KeyError) as exc:
            raise SourceErrors([SourceError(self.path, None, str(exc))]) from None

    # pieces -------------------------------------------------------------
    def ruleset(self):
        name = self.d.get("ruleset", "classic")
        if not isinstance(name, str):
            self.err(pos_of(self.d, "ruleset"), "ruleset must be a name (classic) or a path to a ruleset file")
            return None
        try:
            return load_ruleset(name, Path(self.path).parent)
        except FileNotFoundError:
            self.err(pos_of(self.d, "ruleset"), f"unknown ruleset {name!r}"
                     f"{did_you_mean(name, ['classic', 'adventuregame'])} (use classic, adventuregame or a .yaml path)")
        except SourceErrors as exc:
            self.errors.extend(exc.errors)
        except SourceError as exc:
            self.errors.append(exc)
        return None

    def mapping(self, key: str) -> dict:
        value = self.d.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.err(pos_of(self.d, key), f"{key} must be a mapping of id: details, not a {_kind(value)}")
            return {}
        return value

    def integer(self, key: str, default, minimum: int):
        if key not in self.d:
            return default
        value = self.d[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.err(pos_of(self.d, key), f"{key} must be a whole number >= {minimum}, not {value!r}")
            return default
        return value

    def check_id(self, container, key, what: str, seen: dict) -> bool:
        if not isinstance(key, str) or not ID_RE.match(key):
            self.err(key_pos_of(container, key), f"{what} id {key!r} is not valid"
                     " (use lowercase letters, digits and _, starting with a letter)")
            return False
        if key in RESERVED:
            self.err(key_pos_of(container, key), f"{key!r} is a reserved word; choose another id")
            return False
        if key in seen:
            self.err(key_pos_of(container, key), f"duplicate id {key!r}: it is already a {seen[key]}"
                     " (ids must be unique across rooms and objects)")
            return False
        seen[key] = what
        return True

    def rooms(self, rooms, entities) -> None:
        self.seen: dict[str, str] = {}
        if "rooms" in self.d and not rooms:
            self.err(pos_of(self.d, "rooms"), "rooms is empty (a world needs at least one room)")
        for rid, room in rooms.items():
            if not self.check_id(rooms, rid, "room", self.seen):
                continue
            if room is None:
                room = {}
            if not isinstance(room, dict):
                self.err(pos_of(rooms, rid), f"room {rid!r} must be a mapping (name, description, exits)")
                continue
            for k in room:
                if k not in ROOM_KEYS:
                    self.err(key_pos_of(room, k), f"unknown room key {k!r}{did_you_mean(k, ROOM_KEYS)}"
                             f" (allowed: {', '.join(sorted(ROOM_KEYS))})")
            name = self.text(room, "name", rid.replace("_", " "))
            entities[rid] = Entity(rid, name.lower(), kind="room", description=self.text(room, "description", ""))

    def text(self, mapping, key, default: str) -> str:
        value = mapping.get(key, default)
        if value is None:
            return default
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            self.err(pos_of(mapping, key), f"{key} must be text, not a {_kind(value)}")
            return default
        return str(value).strip()

    def words(self, mapping, key) -> tuple[str, ...]:
        value = mapping.get(key) or []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.err(pos_of(mapping, key), f"{key} must be a list of words")
            return ()
        return tuple(v.lower().strip() for v in value if v.strip())

    def objects(self, objects, rooms, entities) -> None:
        for oid, obj in objects.items():
            if not self.check_id(objects, oid, "object", self.seen):
                continue
            if obj is None:
                obj = {}
            if not isinstance(obj, dict):
                self.err(pos_of(objects, oid), f"object {oid!r} must be a mapping (name, traits, a location, ...)")
                continue
            for k in obj:
                if k not in OBJECT_KEYS:
                    self.err(key_pos_of(obj, k), f"unknown object key {k!r}{did_you_mean(k, OBJECT_KEYS)}"
                             f" (allowed: {', '.join(sorted(OBJECT_KEYS))})")
            traits = self.words(obj, "traits")
            for i, t in enumerate(traits):
                if t not in TRAITS:
                    self.err(pos_of(obj.get("traits"), i) if isinstance(obj.get("traits"), list) else pos_of(obj, "traits"),
                             f"unknown trait {t!r}{did_you_mean(t, TRAITS)} (traits: {', '.join(sorted(TRAITS))})")
            article = obj.get("article")
            entities[oid] = Entity(oid, self.text(obj, "name", oid.replace("_", " ")).lower(),
                                   adjectives=self.words(obj, "adjectives"), synonyms=self.words(obj, "synonyms"),
                                   description=self.text(obj, "description", ""),
                                   type=self.text(obj, "type", ""), article=str(article) if article is not None else None)

    def exits(self, rooms, objects, entities, facts) -> None:
        for rid, room in rooms.items():
            if rid not in entities or not isinstance(room, dict):
                continue
            facts.append(("room", rid))
            exits = room.get("exits") or {}
            if not isinstance(exits, dict):
                self.err(pos_of(room, "exits"), "exits must be a mapping of direction: room")
                continue
            for label, target in exits.items():
                where = pos_of(exits, label)
                lab = str(label).lower()
                canon = DIRECTIONS.get(lab, lab)
                if canon not in COMPASS and not ID_RE.match(canon):
                    self.err(key_pos_of(exits, label), f"exit name {label!r} is not a direction or a one-word passage name")
                    continue
                door = None
                if isinstance(target, dict):
                    for k in target:
                        if k not in ("to", "door"):
                            self.err(key_pos_of(target, k), f"unknown exit key {k!r}{did_you_mean(k, ['to', 'door'])} (use to and door)")
                    door = target.get("door")
                    target = target.get("to")
                if not isinstance(target, str) or target not in rooms:
                    self.err(where, f"exit {label!r} of room {rid!r} leads to {target!r}, which is not a room"
                             f"{did_you_mean(target, rooms)} (an exit needs 'to: <room id>')")
                    continue
                facts.append(("exit", rid, canon, target))
                if door is not None:
                    traits = (objects.get(door) or {}).get("traits") or [] if isinstance(objects.get(door), dict) else []
                    if door not in objects:
                        self.err(where, f"exit {label!r} of room {rid!r} goes through door {door!r}, "
                                 f"which is not an object{did_you_mean(door, objects)}")
                        continue
                    if "door" not in traits:
                        self.err(where, f"{door!r} is used as a door but lacks the trait 'door' (add it to its traits)")
                    facts.append(("via", rid, canon, door))
                    if ("at", door, rid) not in facts:
                        facts.append(("at", door, rid))

    def object_facts(self, objects, entities, facts) -> None:
        doors_used = {f[3] for f in facts if f[0] == "via"}
        for oid, obj in objects.items():
            if oid not in entities or not isinstance(obj, dict):
                continue
            traits = set(self.words(obj, "traits"))
            for t in sorted(traits & TRAITS):
                facts.append((t, oid))
            locs = [k for k in ("in", "on", "at", "held") if k in obj]
            if "door" in traits:
                if locs:
                    self.err(key_pos_of(obj, locs[0]), f"door {oid!r} needs no location: it stands in the rooms its exits join")
                if oid not in doors_used:
                    self.err(obj.pos, f"door {oid!r} is not used by any exit (add 'door: {oid}' to an exit)")
                if "openable" not in traits:
                    self.err(pos_of(obj, "traits"), f"door {oid!r} must also be openable (add the trait openable)")
            elif not locs:
                self.err(obj.pos, f"object {oid!r} has no location (give it one of in:, on:, at: <room> or held: true)")
            elif len(locs) > 1:
                self.err(key_pos_of(obj, locs[1]), f"object {oid!r} has two locations ({', '.join(locs)}); keep one")
            else:
                self.location(obj, oid, locs[0], objects, entities, facts)
            for flag, needs in (("open", "openable"), ("locked", "lockable")):
                if flag in obj:
                    if not isinstance(obj[flag], bool):
                        self.err(pos_of(obj, flag), f"{flag} must be true or false")
                    elif needs not in traits:
                        self.err(key_pos_of(obj, flag), f"{oid!r} has '{flag}' but lacks the trait {needs!r}")
                    elif obj[flag]:
                        facts.append((flag, oid))
            if obj.get("open") and obj.get("locked"):
                self.err(key_pos_of(obj, "locked"), f"{oid!r} cannot start both open and locked")
            if "key" in obj:
                key = obj["key"]
                if "lockable" not in traits:
                    self.err(key_pos_of(obj, "key"), f"{oid!r} has a key but is not lockable (add the trait lockable, or remove key)")
                elif not isinstance(key, str) or key not in objects:
                    self.err(pos_of(obj, "key"), f"key {key!r} of {oid!r} is not an object{did_you_mean(key, objects)}")
                else:
                    facts.append(("unlocks", key, oid))
            elif "lockable" in traits:
                self.err(pos_of(obj, "traits"), f"{oid!r} is lockable but has no key (add 'key: <object id>')")

    def location(self, obj, oid, rel, objects, entities, facts) -> None:
        where = obj[rel]
        if rel == "held":
            if where is not True:
                self.err(pos_of(obj, "held"), "held must be true (or leave it out)")
                return
            facts.append(("held", oid))
            return
        if rel == "at":
            if where not in entities or entities[where].kind != "room":
                self.err(pos_of(obj, "at"), f"{oid!r} is at {where!r}, which is not a room{did_you_mean(where, [e for e in entities if entities[e].kind == 'room'])}")
                return
        else:
            if not isinstance(where, str) or where not in objects:
                self.err(pos_of(obj, rel), f"{oid!r} is {rel} {where!r}, which is not an object{did_you_mean(where, objects)}")
                return
            other = objects.get(where)
            other_traits = set(other.get("traits") or []) if isinstance(other, dict) else set()
            needed = "container" if rel == "in" else "support"
            if needed not in other_traits:
                self.err(pos_of(obj, rel), f"{oid!r} is {rel} {where!r}, which is not a {needed} (add the trait {needed} to {where!r})")
        facts.append((rel, oid, where))

    def cycles(self, objects) -> None:
        parent = {}
        for oid, obj in objects.items():
            if isinstance(obj, dict):
                for rel in ("in", "on"):
                    if isinstance(obj.get(rel), str):
                        parent[oid] = obj[rel]
        for oid in parent:
            x, steps = parent.get(oid), 0
            while x is not None and steps <= len(parent):
                if x == oid:
                    self.err(pos_of(objects[oid], "in" if "in" in objects[oid] else "on"),
                             f"{oid!r} ends up inside itself (its in/on chain loops back to it)")
                    break
                x, steps = parent.get(x), steps + 1

    def goals(self, entities) -> list[Goal]:
        raw = self.d.get("goal")
        if raw is None:
            return []
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not raw:
            self.err(pos_of(self.d, "goal"), "goal must be a list of facts or sentences (at least one)")
            return []
        out = []
        for i, item in enumerate(raw):
            where = pos_of(raw, i) if hasattr(raw, "item_pos") else pos_of(self.d, "goal")
            try:
                goal = goal_from_text(str(item), entities)
            except ValueError as exc:
                self.err(where, str(exc))
                continue
            for arg in goal.fact[1:]:
                if arg not in entities:
                    self.err(where, f"goal {item!r} names {arg!r}, which is no room or object{did_you_mean(arg, entities)}")
            out.append(goal)
        return out


_SENTENCES = [
    (re.compile(r"^(?:the )?(.+?) (?:is|are) (in|inside|on|on top of) (?:the )?(.+?)\.?$"), None),
    (re.compile(r"^you (?:have|hold|are holding|are carrying|carry) (?:the )?(.+?)\.?$"), "held"),
    (re.compile(r"^you are in (?:the )?(.+?)\.?$"), "player_at"),
    (re.compile(r"^(?:the )?(.+?) (?:is|are) (open|closed|locked|unlocked|eaten)\.?$"), "state"),
]
GOAL_PREDICATES = {"at", "in", "on", "held", "open", "locked", "eaten"}


def goal_from_text(text: str, entities: dict) -> Goal:
    """A goal fact from ``pred(a,b)``, ``not pred(a)`` or an English sentence."""
    text = text.strip()
    negative = text.startswith("not ")
    body = text[4:].strip() if negative else text
    if re.match(r"^[A-Za-z_]\w*\s*\(", body):
        fact = parse_fact(body)
        if fact[0] not in GOAL_PREDICATES and fact[0] not in {"room", "exit"}:
            raise ValueError(f"goal predicate {fact[0]!r} is not one the rules change{did_you_mean(fact[0], GOAL_PREDICATES)}"
                             f" (use {', '.join(sorted(GOAL_PREDICATES))})")
        return Goal(fact, not negative)
    low = text.lower()
    for regex, kind in _SENTENCES:
        m = regex.match(low)
        if not m:
            continue
        if kind is None:
            x, rel, y = m.group(1), m.group(2), m.group(3)
            xid, yid = _named(x, entities, text), _named(y, entities, text)
            if entities[yid].kind == "room":
                return Goal(("at", xid, yid))
            return Goal(("in" if rel.startswith("in") else "on", xid, yid))
        if kind == "held":
            return Goal(("held", _named(m.group(1), entities, text)))
        if kind == "player_at":
            return Goal(("at", "player", _named(m.group(1), entities, text)))
        x, state = _named(m.group(1), entities, text), m.group(2)
        if state in ("closed", "unlocked"):
            return Goal(("open" if state == "closed" else "locked", x), False)
        return Goal((state, x))
    raise ValueError(f"cannot read goal {text!r} (write a fact like on(book, table) "
                     "or a sentence like 'the book is on the table')")


def _named(phrase: str, entities: dict, text: str) -> str:
    phrase = phrase.strip()
    if phrase in entities:
        return phrase
    hits = [e.id for e in entities.values() if e.name == phrase or e.id.replace("_", " ") == phrase]
    if not hits:
        words = set(phrase.split())
        hits = [e.id for e in entities.values() if e.kind != "player" and words <= e.words() | {e.name}]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise ValueError(f"goal {text!r}: nothing is called {phrase!r}"
                         f"{did_you_mean(phrase, [e.name for e in entities.values()])}")
    raise ValueError(f"goal {text!r}: {phrase!r} could be {', '.join(hits)} (use the id)")


def _kind(value) -> str:
    for kind, name in ((bool, "true/false"), (dict, "mapping"), (list, "list"), (str, "text"),
                       (int, "number"), (float, "number")):
        if isinstance(value, kind):
            return name
    return "nothing" if value is None else type(value).__name__
