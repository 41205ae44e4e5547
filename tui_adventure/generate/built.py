"""The World of a classic draft, built straight from the document the generator made.

A trainer's env makes a world per reset (``generated_world``), and the
loader's checks, every key looked up and every id, name and trait checked
for a person's mistakes, were a third of that reset. A draft cannot hold
those mistakes: it is made from the theme's words by code, and every
generated world is still read by the loader where it is written or solved
(``adventure generate``, ``generate_world``). So the document is turned into
the same entities, facts and goals the loader makes of it, in the same order,
with nothing checked; ``tests/generate/test_built.py`` holds the two equal
over many seeds and knobs. A document with any key a draft does not write
goes to the loader.
"""

from __future__ import annotations

import re

from ..engine.facts import parse_fact
from ..engine.loading import load_world_data
from ..engine.loading.loader import generated_meta
from ..engine.rules import TRAITS, load_ruleset
from ..engine.styles.classic import DIRECTIONS
from ..engine.world import Entity, Goal, World

_TOP = frozenset({"game", "title", "ruleset", "intro", "start", "max_turns", "par", "rooms", "objects", "goal",
                  "generated"})
_ROOM = frozenset({"name", "description", "exits"})
_OBJECT = frozenset({"name", "adjectives", "traits", "description", "at", "in", "on", "open", "locked", "key"})
_FACT = re.compile(r"(?:in|on|at)\([a-z][a-z0-9_]*, [a-z][a-z0-9_]*\)\Z")   # a goal as a draft writes it
_PLACES = ("in", "on", "at")   # the loader's order of an object's location keys (a draft writes one)


def world_of_draft(doc: dict, path: str, lazy: bool = True) -> World:
    """What ``load_world_data(doc, path, lazy=lazy)`` returns for a draft's document."""
    if not _draft_shaped(doc):
        return load_world_data(doc, path, lazy=lazy)
    rooms, objects = doc["rooms"], doc["objects"]
    entities: dict[str, Entity] = {}
    # the facts as the loader lists them: the player's place, each room and its exits (a door where
    # it stands), then each object's traits, place, open or locked, and key
    start = doc["start"]
    facts: list[tuple] = [("at", "player", start)]
    add = facts.append
    doors_at: set = set()
    for rid, room in rooms.items():
        name = room.get("name")
        entities[rid] = Entity(rid, (rid.replace("_", " ") if name is None else str(name).strip()).lower(), "room",
                               (), (), str(room.get("description") or "").strip())
        add(("room", rid))
        for label, target in (room.get("exits") or {}).items():
            lab = str(label).lower()
            canon = DIRECTIONS.get(lab, lab)
            door = None
            if type(target) is dict:
                door, target = target.get("door"), target["to"]
            add(("exit", rid, canon, target))
            if door is not None:
                add(("via", rid, canon, door))
                if (door, rid) not in doors_at:
                    doors_at.add((door, rid))
                    add(("at", door, rid))
    doors = {door for door, _ in doors_at}
    for oid, obj in objects.items():
        adjectives = obj.get("adjectives")
        entities[oid] = Entity(oid, str(obj["name"]).strip().lower(), "object",
                               tuple(a.lower().strip() for a in adjectives if a.strip()) if adjectives else (), (),
                               str(obj.get("description") or "").strip())
        traits = {t.lower().strip() for t in obj.get("traits") or ()}
        for t in sorted(traits & TRAITS):
            add((t, oid))
        if "door" not in traits and oid not in doors:
            for rel in _PLACES:
                if rel in obj:
                    add((rel, oid, obj[rel]))
                    break
        if obj.get("open") is True:
            add(("open", oid))
        if obj.get("locked") is True:
            add(("locked", oid))
        if "key" in obj:
            add(("unlocks", obj["key"], oid))
    entities["player"] = Entity("player", "you", kind="player", hidden=True)
    goals = [Goal(parse_fact(g)) for g in doc["goal"]]   # goal_from_text's of a fact (a draft writes no other)
    return World(path=path, game=doc["game"], title=doc["title"], ruleset=load_ruleset("classic"), start=start,
                 entities=entities, initial_facts=facts, goals=goals, max_turns=doc.get("max_turns", 100),
                 par=doc.get("par"), intro=doc["intro"].strip(), lazy=lazy,
                 meta={"goal_pos": None, "par_pos": None, **generated_meta(doc.get("generated"))})


def _draft_shaped(doc) -> bool:
    """Whether ``doc`` holds only what a draft writes, as a draft writes it (else the loader reads it)."""
    if type(doc) is not dict or not _TOP.issuperset(doc) or doc.get("ruleset", "classic") != "classic":
        return False
    if not all(type(doc.get(k)) is str and doc[k] for k in ("game", "title", "intro", "start")):
        return False
    if not all(type(doc.get(k, 0)) is int for k in ("max_turns", "par")):
        return False
    rooms, objects, goal = doc.get("rooms"), doc.get("objects"), doc.get("goal")
    if type(rooms) is not dict or type(objects) is not dict or type(goal) is not list or not goal:
        return False
    if not all(type(g) is str and _FACT.match(g) for g in goal):
        return False
    if doc["start"] not in rooms or "player" in objects:
        return False
    for room in rooms.values():
        if type(room) is not dict or not _ROOM.issuperset(room):
            return False
    for obj in objects.values():
        if type(obj) is not dict or not _OBJECT.issuperset(obj) or not isinstance(obj.get("name"), str):
            return False
    return True

