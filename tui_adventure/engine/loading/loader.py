"""World files (YAML) -> World, with an exact, helpful message for every mistake.

All problems in a file are collected and reported together as
``file:line:col: what is wrong (how to fix it)``; nothing here raises anything
but ``SourceErrors`` for a bad file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Mapping

from .goal_checks import GoalChecks
from ..names import RULE as NAME_RULE, is_safe_name
from .placement import PlacementChecks
from ..sources import read_source
from ..rules import load_ruleset
from ..styles.classic import COMPASS, DIRECTIONS
from ..world import Entity, World
from .scene_checks import SceneChecks
from ..rules import TRAITS, ActionChecks
from ..yamlpos import Pos, SourceError, SourceErrors, _kind, did_you_mean, key_pos_of, load_yaml, pos_of, start_of

TOP_KEYS = {"game", "title", "ruleset", "intro", "start", "max_turns", "par", "rooms", "objects",
            "goal", "actions", "strict", "seed", "clembench", "generated", "characters", "tables", "events",
            "lose", "players"}
ROOM_KEYS = {"name", "description", "exits"}
OBJECT_KEYS = {"name", "adjectives", "synonyms", "traits", "in", "on", "at", "held", "held_by", "open",
               "locked", "key", "description", "article", "type"}
ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
RESERVED = {"player", "inventory", "all", "everything", "it", "them"}


# A reader for a world file written in another format's terms: a top-level section of the file
# (e.g. ``clembench:``, an imported clembench instance) that a layer above the engine knows how
# to build a World from. The engine names no such layer; callers pass the readers they know.
SectionReader = Callable[[dict, str], World]
FOREIGN_SECTIONS = {"clembench": "an imported clembench instance"}


MAX_TURNS_LIMIT = 1_000    # bounds an episode's time, records and memory (clembench uses 50)


def generated_meta(generated) -> dict:
    """A generated world's making, and where its records go: one game per theme, one experiment per set
    of knobs, the seed as the instance, so ``eval`` reads a generated benchmark as clembench's tables read."""
    if not isinstance(generated, dict):
        return {}
    out: dict = {"generated": generated}
    if isinstance(generated.get("experiment"), str) and is_safe_name(generated["experiment"]):
        out["experiment"] = generated["experiment"]
    if isinstance(generated.get("seed"), int) and not isinstance(generated.get("seed"), bool):
        out["game_id"] = generated["seed"]
    return out


def load_world(path: str | Path, readers: Mapping[str, SectionReader] | None = None) -> World:
    path = Path(path)
    try:
        text = read_source(path)
    except FileNotFoundError:
        raise SourceErrors([SourceError(str(path), None, "no such file (check the path)")]) from None
    except UnicodeDecodeError as exc:
        raise SourceErrors([SourceError(str(path), None, f"not UTF-8 text ({exc.reason} at byte {exc.start});"
                                        " save the file as UTF-8")]) from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise SourceErrors([SourceError(str(path), None, f"cannot read the file ({reason})")]) from None
    return load_world_text(text, str(path), readers)


def load_world_text(text: str, path: str = "<world>", readers: Mapping[str, SectionReader] | None = None) -> World:
    try:
        data = load_yaml(text, path)
    except SourceError as exc:
        raise SourceErrors([exc]) from None
    return load_world_data(data, path, readers)


def load_world_data(data, path: str = "<world>", readers: Mapping[str, SectionReader] | None = None,
                    lazy: bool = False) -> World:
    """A world from its document as the YAML reader makes it (a generated world's own, with no text
    written and parsed back: the same checks, errors without positions). ``lazy``: see ``World.lazy``."""
    if data is None:
        raise SourceErrors([SourceError(path, Pos(1, 1), "the file is empty (a world is a mapping with at least"
                                        " rooms, start and goal; see docs/worlds.md)")])
    if not isinstance(data, dict):
        raise SourceErrors([SourceError(path, getattr(data, "pos", None) or Pos(1, 1),
                                        f"the file holds a {_kind(data)}, but a world is a mapping of keys"
                                        " (write at least 'start:', 'rooms:' and 'goal:' at the left margin)")])
    for section, what in FOREIGN_SECTIONS.items():
        if section not in data:
            continue
        reader = (readers or {}).get(section)
        if reader is None:
            raise SourceErrors([SourceError(path, key_pos_of(data, section), f"{what}: open it with an adventure"
                                            " command or tui_adventure.catalog.open_world, which know its format")])
        try:
            return reader(data, path)
        except SourceErrors:
            raise
        except Exception as exc:  # another module's reader: still never a traceback for a bad file
            raise SourceErrors([SourceError(path, key_pos_of(data, section),
                                            f"the {section} section cannot be read ({type(exc).__name__}: {exc});"
                                            " re-import the instance")]) from None
    return _Builder(data, path, lazy).build()


class _Builder(ActionChecks, GoalChecks, PlacementChecks, SceneChecks):
    def __init__(self, data, path: str, lazy: bool = False) -> None:
        self.d = data
        self.lazy = lazy
        self.path = path
        self.errors: list[SourceError] = []
        self.seen: dict[str, str] = {}

    def err(self, pos, message: str) -> None:
        self.errors.append(SourceError(self.path, pos, message))

    def fail(self) -> SourceErrors:
        self.errors.sort(key=lambda e: (e.path != self.path, e.pos is not None,
                                        (e.pos.line, e.pos.col) if e.pos else (0, 0)))   # stable: ties in order
        return SourceErrors(self.errors)

    def build(self) -> World:
        d = self.d
        suggested = set()
        for key in d:
            if key not in TOP_KEYS:
                hint = did_you_mean(key, TOP_KEYS - {"clembench"})
                if hint:
                    suggested.add(hint.split("'")[1])
                self.err(key_pos_of(d, key), f"unknown key {key!r}{hint}"
                         f" (allowed: {', '.join(sorted(TOP_KEYS - {'clembench'}))})")
        for key in ("rooms", "start", "goal"):
            if key not in d and key not in suggested:
                self.err(start_of(d), f"missing required key {key!r}" + {
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
        room_ids = [e for e in entities if entities[e].kind == "room"]
        if "start" in d and room_ids:       # no rooms at all is reported once, above
            if not isinstance(start, str) or start not in room_ids:
                if isinstance(start, str) and start in entities:
                    what = f"{start!r} is an object, not a room"
                else:
                    what = f"{start!r} is not a room{did_you_mean(start, room_ids)}"
                self.err(pos_of(d, "start"), f"start {what} (start names the room the player begins in;"
                         f" rooms: {', '.join(room_ids)})")
            else:
                facts.insert(0, ("at", "player", start))
        entities["player"] = Entity("player", "you", kind="player", hidden=True)
        scene, scene_actions = self.scene(entities, facts, room_ids)
        if scene is not None and ruleset is not None and ruleset.style != "classic":
            self.err(key_pos_of(d, next(k for k in d if k in ("characters", "tables", "events", "lose", "players"))),
                     "characters, tables, events and lose need the classic ruleset (remove ruleset: or them)")
        changeable = self.changeable_predicates(ruleset)
        goals = self.goals(entities, changeable) if room_ids else []   # without rooms every name would fail
        max_turns = self.integer("max_turns", 100, minimum=1, maximum=MAX_TURNS_LIMIT)
        par = self.integer("par", None, minimum=0)
        if par is not None and "max_turns" in d and par > max_turns:
            self.err(pos_of(d, "par"), f"par {par} is above max_turns {max_turns}: the game cannot be won in time"
                     " (raise max_turns or lower par)")
        seed = self.integer("seed", 0, minimum=0)
        extra = self.actions()
        for key, kind in (("title", str), ("intro", str), ("game", str), ("strict", bool)):
            if key in d and d[key] is not None and not isinstance(d[key], kind):
                self.err(pos_of(d, key), f"{key} must be {'text' if kind is str else 'true or false'},"
                         f" not a {_kind(d[key])}" + (" (put the text in quotes)" if kind is str
                                                       else " (write true or false)"))
        if isinstance(d.get("game"), str) and not is_safe_name(d["game"]):
            self.err(pos_of(d, "game"), f"game {d['game']!r} is used in file names: use {NAME_RULE}")
        self.cycles(objects)
        if scene is not None and ruleset is not None:
            self.scene_predicates(ruleset, facts)
        if self.errors or ruleset is None:
            raise self.fail()
        assert isinstance(start, str)   # a start that is not a room's id is an error, raised above
        try:
            world = World(path=self.path, game=str(d.get("game") or Path(self.path).stem),
                          title=str(d.get("title") or d.get("game") or Path(self.path).stem),
                          ruleset=ruleset, start=start, entities=entities, initial_facts=facts,
                          goals=goals, max_turns=max_turns, par=par, intro=str(d.get("intro") or "").strip(),
                          extra_actions=extra + scene_actions, strict=bool(d.get("strict", False)), seed=seed,
                          scene_spec=scene, lazy=self.lazy,
                          meta={"goal_pos": key_pos_of(d, "goal"), "par_pos": pos_of(d, "par"),
                                **generated_meta(d.get("generated"))})
        except SourceErrors:
            raise
        except (ValueError, KeyError) as exc:
            raise SourceErrors([SourceError(self.path, pos_of(d, "ruleset") if "ruleset" in d else None,
                                            f"the world cannot be built with this ruleset: {exc}")]) from None
        if extra:
            self.action_predicates(world)
            if self.errors:
                raise self.fail()
        return world

    # pieces -------------------------------------------------------------
    def ruleset(self):
        name = self.d.get("ruleset", "classic")
        where = pos_of(self.d, "ruleset")
        if not isinstance(name, str) or not name.strip():
            self.err(where, f"ruleset must be a name (classic, adventuregame) or a path to a ruleset file,"
                     f" not a {_kind(name)}")
            return None
        try:
            spec = load_ruleset(name, Path(self.path).parent)
            if spec.style != "classic":
                self.err(where, f"ruleset {name!r} has the {spec.style} style, which needs a world imported with"
                         " 'adventure import clembench' (a world written by hand uses classic,"
                         " or a ruleset file with style: classic)")
                return None
            return spec
        except FileNotFoundError:
            self.err(where, f"unknown ruleset {name!r}{did_you_mean(name, ['classic', 'adventuregame'])}"
                     " (use classic, adventuregame or the path of a .yaml ruleset file, relative to this world)")
        except SourceErrors as exc:
            self.errors.extend(exc.errors)
        except SourceError as exc:
            self.errors.append(exc)
        except (OSError, ValueError, TypeError, AttributeError, KeyError, RecursionError) as exc:
            self.err(where, f"ruleset {name!r} cannot be read ({type(exc).__name__}: {exc})"
                     " (check the file against tui_adventure/rulesets/classic.yaml)")
        return None

    def mapping(self, key: str) -> dict:
        value = self.d.get(key)
        if value is None:
            if key in self.d and key == "rooms":
                self.err(pos_of(self.d, key), "rooms is empty (a world needs at least one room: add 'id:' lines under it)")
            return {}
        if not isinstance(value, dict):
            self.err(pos_of(self.d, key), f"{key} must be a mapping of id: details, not a {_kind(value)}"
                     f" (write each {key[:-1]} as 'some_id:' on its own line, indented under '{key}:')")
            return {}
        return value

    def integer(self, key: str, default, minimum: int, maximum: int | None = None):
        if key not in self.d:
            return default
        value = self.d[key]
        if maximum is not None and isinstance(value, int) and not isinstance(value, bool) and value > maximum:
            self.err(pos_of(self.d, key), f"{key} {value} is more than {maximum:,}: an episode that long cannot be"
                     f" played, recorded or scored in reasonable time (use at most {maximum:,})")
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.err(pos_of(self.d, key), f"{key} must be a whole number >= {minimum}, not {value!r}"
                     f" (write e.g. '{key}: {max(minimum, 1) * 10 if key != 'seed' else 0}')")
            return default
        return value

    def check_id(self, container, key, what: str, seen: dict) -> bool:
        if not isinstance(key, str) or not ID_RE.match(key):
            fixed = re.sub(r"[^a-z0-9_]+", "_", str(key).strip().lower()).strip("_")
            suggestion = f"; e.g. {fixed!r}" if fixed and ID_RE.match(fixed) else ""
            self.err(key_pos_of(container, key), f"{what} id {key!r} is not valid"
                     f" (use lowercase letters, digits and _, starting with a letter{suggestion})")
            return False
        if key in RESERVED:
            self.err(key_pos_of(container, key), f"{key!r} is a reserved word (choose another {what} id)")
            return False
        if key in seen:
            self.err(key_pos_of(container, key), f"duplicate id {key!r}: it is already a {seen[key]}"
                     " (ids must be unique across rooms and objects; rename one)")
            return False
        seen[key] = what
        return True

    def unknown_keys(self, mapping, allowed, what: str) -> None:
        for k in mapping:
            if k not in allowed:
                self.err(key_pos_of(mapping, k), f"unknown {what} key {k!r}{did_you_mean(k, allowed)}"
                         f" (allowed: {', '.join(sorted(allowed))})")

    def rooms(self, rooms, entities) -> None:
        if "rooms" in self.d and isinstance(self.d["rooms"], dict) and not rooms:
            self.err(pos_of(self.d, "rooms"), "rooms is empty (a world needs at least one room)")
        for rid, room in rooms.items():
            if not self.check_id(rooms, rid, "room", self.seen):
                continue
            if room is None:
                room = {}
            if not isinstance(room, dict):
                self.err(pos_of(rooms, rid), f"room {rid!r} must be a mapping, not a {_kind(room)}"
                         " (indent 'description: ...' and 'exits: ...' under the room id)")
                room = {}
            self.unknown_keys(room, ROOM_KEYS, "room")
            name = self.text(room, "name", rid.replace("_", " "))
            entities[rid] = Entity(rid, name.lower(), kind="room", description=self.text(room, "description", ""))

    def text(self, mapping, key, default: str) -> str:
        value = mapping.get(key, default)
        if value is None:
            return default
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            self.err(pos_of(mapping, key), f"{key} must be text, not a {_kind(value)}"
                     f" (write it as plain text, e.g. '{key}: brass lamp'; quote it if it has ':' or '#')")
            return default
        return str(value).strip()

    def words(self, mapping, key, report: bool = True) -> tuple[str, ...]:
        value = mapping.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            parts = [w for w in re.split(r"[\s,]+", value) if w]
            if len(parts) > 1 and key == "traits":
                if report:
                    self.err(pos_of(mapping, key), f"{key} must be a list (write [{', '.join(parts)}])")
                return ()
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            if report:
                self.err(pos_of(mapping, key), f"{key} must be a list of words (write e.g. {key}: [red, small])")
            return ()
        return tuple(v.lower().strip() for v in value if v.strip())

    def objects(self, objects, rooms, entities) -> None:
        for oid, obj in objects.items():
            if not self.check_id(objects, oid, "object", self.seen):
                continue
            if obj is None:
                obj = {}
            if not isinstance(obj, dict):
                self.err(pos_of(objects, oid), f"object {oid!r} must be a mapping, not a {_kind(obj)}"
                         " (indent its keys under the id: traits, a location, ...)")
                obj = {}
            self.unknown_keys(obj, OBJECT_KEYS, "object")
            traits = self.words(obj, "traits")
            for i, t in enumerate(traits):
                if t not in TRAITS:
                    self.err(pos_of(obj.get("traits"), i) if isinstance(obj.get("traits"), list) else pos_of(obj, "traits"),
                             f"unknown trait {t!r}{did_you_mean(t, TRAITS)} (traits: {', '.join(sorted(TRAITS))})")
            article = obj.get("article")
            if article is not None and not isinstance(article, str):
                self.err(pos_of(obj, "article"), f"article must be text such as 'some' or 'the', not a {_kind(article)}")
                article = None
            entities[oid] = Entity(oid, self.text(obj, "name", oid.replace("_", " ")).lower(),
                                   adjectives=self.words(obj, "adjectives"), synonyms=self.words(obj, "synonyms"),
                                   description=self.text(obj, "description", ""),
                                   type=self.text(obj, "type", ""), article=article)
            if not entities[oid].name:
                self.err(pos_of(obj, "name"), f"the name of {oid!r} is empty (give it a name or leave name out)")

    def exits(self, rooms, objects, entities, facts) -> None:
        present = set(facts)   # what is in ``facts``, for a door's place: a scan of the list per door grew as n^2
        for rid, room in rooms.items():
            if rid not in entities or entities[rid].kind != "room":
                continue
            facts.append(("room", rid))
            if not isinstance(room, dict):
                continue
            exits = room.get("exits")
            if exits is None:
                continue
            if not isinstance(exits, dict):
                self.err(pos_of(room, "exits"), f"exits must be a mapping of direction: room, not a {_kind(exits)}"
                         " (write e.g. exits: {north: kitchen})")
                continue
            for label, target in exits.items():
                lab = str(label).lower()
                canon = DIRECTIONS.get(lab, lab)
                if canon not in COMPASS and not ID_RE.match(canon):
                    self.err(key_pos_of(exits, label), f"exit name {label!r} is not a direction or a one-word passage name"
                             f"{did_you_mean(lab, list(COMPASS))} (use north, south, ..., up, down, or a word like stairs)")
                    continue
                door = None
                where = pos_of(exits, label)
                if isinstance(target, dict):
                    unknown = [k for k in target if k not in ("to", "door")]
                    for k in unknown:
                        self.err(key_pos_of(target, k), f"unknown exit key {k!r}{did_you_mean(k, ['to', 'door'])}"
                                 " (an exit is {to: <room id>} or {to: <room id>, door: <door id>})")
                    door = target.get("door")
                    if "to" not in target:
                        if not unknown:
                            self.err(where, f"exit {label!r} of room {rid!r} has no 'to:' (add 'to: <room id>')")
                        continue
                    where = pos_of(target, "to")
                    target = target["to"]
                if target is None:
                    self.err(key_pos_of(exits, label), f"exit {label!r} of room {rid!r} leads nowhere"
                             f" (write '{label}: <room id>')")
                    continue
                if not isinstance(target, str) or target not in entities or entities[target].kind != "room":
                    if isinstance(target, str) and target in rooms:
                        continue   # a room with a bad id: reported there
                    what = "an object" if isinstance(target, str) and target in entities else "not a room"
                    self.err(where, f"exit {label!r} of room {rid!r} leads to {target!r}, which is {what}"
                             f"{did_you_mean(target, [r for r in rooms if isinstance(r, str)])}"
                             " (an exit leads to a room id)")
                    continue
                facts.append(("exit", rid, canon, target))
                if door is not None:
                    dpos = pos_of(exits[label], "door")
                    if not isinstance(door, str) or door not in objects:
                        self.err(dpos, f"exit {label!r} of room {rid!r} goes through door {door!r},"
                                 f" which is not an object{did_you_mean(door, [o for o in objects if isinstance(o, str)])}"
                                 " (add the door to objects with traits [door, openable])")
                        continue
                    if door not in entities:
                        continue   # a bad object id: reported there
                    traits = self.words(objects[door], "traits", report=False) if isinstance(objects[door], dict) else ()
                    if "door" not in traits:
                        self.err(dpos, f"{door!r} is used as a door but lacks the trait 'door'"
                                 " (add door to its traits)")
                    facts.append(("via", rid, canon, door))
                    if ("at", door, rid) not in present:
                        facts.append(("at", door, rid))
                        present.add(("at", door, rid))

    def object_facts(self, objects, entities, facts) -> None:
        doors_used = {f[3] for f in facts if f[0] == "via"}
        for oid, obj in objects.items():
            if oid not in entities or entities[oid].kind != "object" or not isinstance(obj, dict):
                continue
            traits = set(self.words(obj, "traits", report=False))
            for t in sorted(traits & TRAITS):
                facts.append((t, oid))
            locs = sorted((k for k in ("in", "on", "at", "held", "held_by") if k in obj),
                          key=lambda k: (obj.key_pos[k].line, obj.key_pos[k].col) if hasattr(obj, "key_pos") else (0, 0))
            if "door" in traits or oid in doors_used:
                if locs and "door" in traits:
                    self.err(key_pos_of(obj, locs[0]), f"door {oid!r} needs no location: it stands in the rooms"
                             f" its exits join (remove '{locs[0]}:')")
                if "door" in traits and oid not in doors_used:
                    self.err(key_pos_of(objects, oid), f"door {oid!r} is not used by any exit"
                             f" (add 'door: {oid}' to an exit, as in north: {{to: kitchen, door: {oid}}})")
                if "door" in traits and "openable" not in traits:
                    self.err(pos_of(obj, "traits"), f"door {oid!r} must also be openable (add the trait openable)")
            elif not locs:
                self.err(key_pos_of(objects, oid), f"object {oid!r} has no location"
                         " (give it one of in: <container>, on: <support>, at: <room>, held: true"
                         " or held_by: <character>)")
            elif len(locs) > 1:
                self.err(key_pos_of(obj, locs[1]), f"object {oid!r} has two locations ({' and '.join(locs)});"
                         " keep one")
            else:
                self.location(obj, oid, locs[0], objects, entities, facts)
            for flag, needs in (("open", "openable"), ("locked", "lockable")):
                if flag in obj:
                    if not isinstance(obj[flag], bool):
                        self.err(pos_of(obj, flag), f"{flag} must be true or false, not {obj[flag]!r}"
                                 " (write true or false)")
                    elif needs not in traits:
                        self.err(key_pos_of(obj, flag), f"{oid!r} has '{flag}' but lacks the trait {needs!r}"
                                 f" (add {needs} to its traits, or remove {flag})")
                    elif obj[flag]:
                        facts.append((flag, oid))
            if obj.get("open") is True and obj.get("locked") is True:
                self.err(key_pos_of(obj, "locked"), f"{oid!r} cannot start both open and locked"
                         " (remove one of open: true and locked: true)")
            if "key" in obj:
                key = obj["key"]
                if "lockable" not in traits:
                    self.err(key_pos_of(obj, "key"), f"{oid!r} has a key but is not lockable"
                             " (add the trait lockable, or remove key)")
                elif not isinstance(key, str) or key not in objects:
                    self.err(pos_of(obj, "key"), f"key {key!r} of {oid!r} is not an object"
                             f"{did_you_mean(key, [o for o in objects if isinstance(o, str)])}"
                             " (key names the object that locks and unlocks it)")
                elif key == oid:
                    self.err(pos_of(obj, "key"), f"{oid!r} cannot be its own key (name another object)")
                elif key in entities:
                    facts.append(("unlocks", key, oid))
            elif "lockable" in traits:
                self.err(pos_of(obj, "traits"), f"{oid!r} is lockable but has no key (add 'key: <object id>')")
