"""A TextWorld game's ``.json`` as a world for the ``classic`` ruleset, and its walkthrough in our words.

TextWorld games are a common benchmark; converting one lets the same quest be
played here, with an exact par, next to TextWorld's own (not always optimal)
walkthrough. Only the game's ``.json`` is read (plain JSON: ``world`` holds the
initial facts, ``infos`` the names and descriptions, ``quests`` the winning
conditions and walkthrough), so TextWorld itself is never needed.

Mapping (TextWorld -> classic):

=====================  ==========================================================
``at(P, r)``           ``start: r``
``at(x, r)``           ``at: r``;  ``in(x, I)`` -> ``held: true``
``in(x, c)``           ``in: c``;  ``on(x, s)`` -> ``on: s``
``north_of(a, b)``     exit ``b.north -> a`` and ``a.south -> b`` (same for the others)
``link(a, d, b)``      the exit from ``a`` to ``b`` goes through door ``d``
``open`` / ``locked``  ``open: true`` / ``locked: true``; ``closed`` is the default
``match(k, x)``        ``key: k`` and the trait ``lockable`` on ``x``
types                  ``c`` container+openable, ``s`` support, ``d`` door+openable,
                       ``o`` / ``k`` takeable, ``f`` takeable+edible, ``t`` fixed
win condition          ``at(P, r)`` -> ``at(player, r)``, ``in(x, I)`` -> ``held(x)``,
                       ``closed(x)`` -> ``not open(x)`` + ``not locked(x)``, ...
=====================  ==========================================================

TextWorld wins when each quest's condition has held at some point; our goal
facts must all hold at once. For one quest with one win event (what
``tw-make custom`` makes) the two agree; more are converted as a conjunction
and reported in ``warnings``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..engine import names
from ..engine.sources import parse_json, read_source
from ..engine.text import plural

DIR_PREDICATES = {"north_of": ("north", "south"), "south_of": ("south", "north"),
                  "east_of": ("east", "west"), "west_of": ("west", "east")}
TYPE_TRAITS = {
    "c": ["container", "openable"],
    "s": ["support"],
    "d": ["door", "openable"],
    "o": ["takeable"],
    "k": ["takeable"],
    "f": ["takeable", "edible"],
    "t": [],
}
RESERVED_IDS = {"player", "inventory", "all", "everything", "it", "them"}
STATIC = {"free", "match", "link", "edible", "event"} | set(DIR_PREDICATES)


class TextWorldError(ValueError):
    """A game file that cannot be imported; the message is one line a user can act on."""


@dataclass
class Converted:
    world: dict                       # the world, ready for yaml.safe_dump
    commands: list[str]               # the walkthrough in classic commands
    tw_commands: list[str]            # the walkthrough as TextWorld wrote it
    ids: dict[str, str]               # TextWorld id (r_2, c_0, ...) -> our id
    warnings: list[str] = field(default_factory=list)

    def yaml(self) -> str:
        return world_yaml(self.world)


# -- reading -----------------------------------------------------------------

def game_json_path(path: str | Path) -> Path:
    """tw-make prints the story file's path (.z8 / .ulx); the .json it wrote beside it is what we read."""
    path = Path(path)
    return path.with_suffix(".json") if path.suffix in (".z8", ".ulx") else path


def load_game(path: str | Path) -> dict:
    path = game_json_path(path)
    if path.is_dir():
        raise TextWorldError(f"{path}: is a folder, not a TextWorld game file (GAME.json, written by tw-make)")
    try:
        text = read_source(path, "TextWorld game")   # a regular file of bounded size: a FIFO never blocks
    except FileNotFoundError:
        raise TextWorldError(f"{path}: no such file (check the path)") from None
    except UnicodeDecodeError as exc:
        raise TextWorldError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}), so not a"
                             " TextWorld game file") from None
    except (OSError, ValueError) as exc:
        raise TextWorldError(f"{path}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        game = parse_json(text)
    except json.JSONDecodeError as exc:
        raise TextWorldError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg});"
                             " give the .json tw-make wrote beside the game") from None
    except ValueError as exc:
        raise TextWorldError(f"{path}: not a TextWorld game ({exc})") from None
    problem = shape_problem(game)
    if problem:
        raise TextWorldError(f"{path}: not a TextWorld game ({problem})")
    return game


def _is_prop(p) -> bool:
    return (isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("arguments"), list)
            and all(isinstance(a, dict) and isinstance(a.get("name"), str) and isinstance(a.get("type"), str)
                    for a in p["arguments"]))


def shape_problem(game) -> str | None:
    """What keeps ``game`` from being a TextWorld game file, or None: checked up front, so a wrong
    file is named as such instead of failing somewhere inside the conversion."""
    if not isinstance(game, dict):
        return f"the file holds a JSON {type(game).__name__}, but a game is an object with 'world' and 'infos'"
    missing = [k for k in ("world", "infos") if k not in game]
    if missing:
        return f"no {' or '.join(repr(k) for k in missing)} key; a tw-make game has 'world', 'infos' and 'quests'"
    if not isinstance(game["world"], list) or not all(_is_prop(p) for p in game["world"]):
        return "'world' is not a list of facts ({'name': ..., 'arguments': [{'name': ..., 'type': ...}]})"
    infos = game["infos"]
    if not isinstance(infos, list) or not all(
            isinstance(i, list) and len(i) == 2 and isinstance(i[0], str) and isinstance(i[1], dict)
            and isinstance(i[1].get("type"), str) and isinstance(i[1].get("name") or "", str) for i in infos):
        return "'infos' is not a list of [id, {'type': ..., 'name': ...}] pairs"
    quests = game.get("quests", [])
    if not isinstance(quests, list) or not all(isinstance(q, dict) for q in quests):
        return "'quests' is not a list of quests"
    for q in quests:
        events = q.get("win_events") or []
        if not isinstance(events, list) or not all(
                isinstance(e, dict) and isinstance(e.get("condition") or {}, dict)
                and isinstance((e.get("condition") or {}).get("preconditions") or [], list)
                and all(_is_prop(p) for p in (e.get("condition") or {}).get("preconditions") or []) for e in events):
            return "a quest's 'win_events' are not events with conditions"
        if not isinstance(q.get("commands") or [], list):
            return "a quest's 'commands' is not a list"
    known = {eid for eid, _ in infos} | {"P", "I"}
    for p in game["world"]:
        for a in p["arguments"]:
            if a["name"] not in known:
                return f"the fact {p['name']}(...) names {a['name']!r}, which 'infos' does not describe"
    return None


# -- conversion --------------------------------------------------------------

def _args(prop: dict) -> list[str]:
    return [a["name"] for a in prop["arguments"]]


def _facts(props: list[dict]) -> list[tuple]:
    return [(p["name"], *_args(p)) for p in props]


def _inform_free(text: str | None, first_paragraph: bool = False) -> str:
    """TextWorld descriptions carry Inform 7 code in [brackets]; keep the plain lead text."""
    if not text:
        return ""
    if first_paragraph:
        text = text.strip().split("\n\n")[0]
    text = text.split("[")[0]
    return re.sub(r"\s+", " ", text).strip()


def make_id(name: str, taken: set[str]) -> str:
    return names.make_id(name, taken, RESERVED_IDS)


def _adjectives(info: dict, name: str) -> list[str]:
    adj = info.get("adj")
    if adj:
        words = adj.lower().split()
    else:
        words = name.lower().split()[:-1]
        if " of " in f" {name.lower()} ":     # "loaf of bread": no simple adjectives
            words = []
    return [w for w in words if re.fullmatch(r"[a-z0-9][a-z0-9'-]*", w)]


def convert(game: dict, name: str = "tw_game") -> Converted:
    """The world and walkthrough of a game that passed ``shape_problem``; a fact that does not fit
    (an object said to be at a container, say) is a TextWorldError, never a traceback."""
    problem = shape_problem(game)
    if problem:
        raise TextWorldError(f"not a TextWorld game ({problem})")
    try:
        return _convert(game, name)
    except (KeyError, ValueError, TypeError, AttributeError, IndexError) as exc:
        what = f"no entity {exc}" if isinstance(exc, KeyError) else str(exc)
        raise TextWorldError(f"cannot convert it: {what}") from None


def _convert(game: dict, name: str) -> Converted:
    warnings: list[str] = []
    infos = {eid: info for eid, info in game["infos"]}
    facts = _facts(game["world"])

    types: dict[str, str] = {eid: info["type"] for eid, info in infos.items()}
    for p in game["world"]:
        for a in p["arguments"]:
            types.setdefault(a["name"], a["type"])

    # ids: rooms first, then objects, in TextWorld's order of infos
    taken: set[str] = set()
    ids: dict[str, str] = {"P": "player"}
    entity_names = {eid: (info.get("name") or eid).strip() for eid, info in infos.items()
                    if info["type"] not in ("P", "I")}
    for eid in [e for e in entity_names if types[e] == "r"] + [e for e in entity_names if types[e] != "r"]:
        ids[eid] = make_id(entity_names[eid], taken)

    rooms: dict[str, dict] = {}
    objects: dict[str, dict] = {}
    for eid, nm in entity_names.items():
        info, our = infos[eid], ids[eid]
        if types[eid] == "r":
            room: dict = {}
            if nm.lower() != our.replace("_", " "):
                room["name"] = nm.lower()
            desc = _inform_free(info.get("desc"), first_paragraph=True)
            if desc:
                room["description"] = desc
            room["exits"] = {}
            rooms[our] = room
            continue
        t = types[eid]
        if t not in TYPE_TRAITS:
            warnings.append(f"unknown TextWorld type {t!r} of {eid} ({nm}): converted as a fixed thing")
        obj: dict = {"name": nm.lower()}
        adj = _adjectives(info, nm)
        if adj:
            obj["adjectives"] = adj
        syn = info.get("synonyms")
        if syn:
            obj["synonyms"] = [s.lower() for s in syn]
        obj["traits"] = list(TYPE_TRAITS.get(t, []))
        desc = _inform_free(info.get("desc"))
        if desc:
            obj["description"] = desc
        objects[our] = obj

    start = None
    door_links: dict[tuple[str, str], str] = {}
    exits: list[tuple[str, str, str]] = []
    for pred, *args in facts:
        if pred in DIR_PREDICATES:
            a, b = args                      # a is <dir> of b
            there, back = DIR_PREDICATES[pred]
            exits.append((ids[b], there, ids[a]))
            exits.append((ids[a], back, ids[b]))
        elif pred == "link":
            door_links[(ids[args[0]], ids[args[2]])] = ids[args[1]]
        elif pred == "at" and args[0] == "P":
            start = ids[args[1]]
        elif pred == "at":
            objects[ids[args[0]]]["at"] = ids[args[1]]
        elif pred == "in" and args[1] == "I":
            objects[ids[args[0]]]["held"] = True
        elif pred == "in":
            objects[ids[args[0]]]["in"] = ids[args[1]]
        elif pred == "on":
            objects[ids[args[0]]]["on"] = ids[args[1]]
        elif pred in ("open", "locked"):
            objects[ids[args[0]]][pred] = True
        elif pred == "match":
            obj = objects[ids[args[1]]]
            if "lockable" not in obj["traits"]:
                obj["traits"].append("lockable")
            obj["key"] = ids[args[0]]
        elif pred == "edible":
            obj = objects[ids[args[0]]]
            if "edible" not in obj["traits"]:
                obj["traits"].append("edible")
        elif pred not in ("closed", "free"):
            warnings.append(f"initial fact {pred}({', '.join(args)}) has no counterpart; left out")
    for src, direction, dst in sorted(set(exits), key=lambda e: (list(rooms).index(e[0]), e[1])):
        door = door_links.get((src, dst))
        rooms[src]["exits"][direction] = {"to": dst, "door": door} if door else dst
    for (src, dst), door in door_links.items():
        if not any(e[0] == src and e[2] == dst for e in exits):
            warnings.append(f"door {door} links {src} and {dst} but no direction fact says which way")
    for oid, obj in list(objects.items()):   # _no_key may add one
        if "door" in obj["traits"]:   # doors stand in both rooms; any location TextWorld gave is dropped
            for k in ("at", "in", "on", "held"):
                obj.pop(k, None)
        if obj.get("locked") and "key" not in obj:
            obj["traits"].append("lockable")
            obj["key"] = _no_key(oid, objects, start, warnings)
    for room in rooms.values():
        if not room["exits"]:
            del room["exits"]
    if start is None:
        raise ValueError("no at(P, room) fact says where the player starts")

    goal, tw_commands = _goal(game, ids, warnings)
    if not goal:
        left_out = sorted({w.split()[2].split("(")[0] for w in warnings if w.startswith("win condition ")})
        if left_out:   # e.g. tw-cooking's fried, sliced, consumed
            raise ValueError(f"its win conditions use {', '.join(left_out)}, which the classic ruleset has no"
                             " counterpart for; games of tw-make custom convert (see docs/textworld.md)")
        raise ValueError("no quest with a win condition: there is nothing to win")
    world: dict[str, Any] = {"game": name, "title": f"TextWorld {name} (converted)", "ruleset": "classic"}
    intro = game.get("objective")
    if isinstance(intro, str) and intro.strip():
        world["intro"] = re.sub(r"\s+", " ", intro).strip()
    world.update({"start": start, "max_turns": 100, "rooms": rooms, "objects": objects, "goal": goal})
    commands = [convert_command(c) for c in tw_commands]
    return Converted(world, commands, tw_commands, ids, warnings)


def _no_key(oid: str, objects: dict, room: str | None, warnings: list[str]) -> str:
    """Locked for good (TextWorld has no key that matches it), but our lockable things need a key:
    one that can never be held, a fixed thing, so it is never unlocked."""
    fixed = [o for o, obj in objects.items() if o != oid and "takeable" not in obj["traits"]]
    if fixed:
        return fixed[0]
    key = make_id(f"{oid} lock", set(objects))
    place = {"in": oid} if "container" in objects[oid]["traits"] else {"at": room}
    objects[key] = {"name": "lock", "traits": [], **place}
    warnings.append(f"{oid} is locked with no key: added the fixed thing {key} as a key nobody can hold")
    return key


def _goal(game: dict, ids: dict, warnings: list[str]) -> tuple[list[str], list[str]]:
    quests = [q for q in game.get("quests", []) if not q.get("optional")]
    walks = [[str(c) for c in q.get("commands") or []] for q in quests]
    # tw-make often adds a quest for the first steps of another: met on the way, so only the longer
    # one is a goal (as a conjunction theirs would contradict, e.g. closed, then locked)
    steps = [i for i, w in enumerate(walks)
             if any(len(v) > len(w) and v[:len(w)] == w for v in walks)]
    if steps:
        warnings.append(f"{plural(len(steps), 'quest')} whose walkthrough begins another's: converted as the longer"
                        " quest only (our goal does not ask that the shorter one's condition held on the way)")
    kept = [q for i, q in enumerate(quests) if i not in steps]
    if len(kept) > 1:
        warnings.append(f"{len(kept)} quests: TextWorld needs each done once, in any order; "
                        "converted as one goal whose facts must all hold together")
    goal: list[str] = []
    commands: list[str] = []
    for q in kept:
        events = q.get("win_events") or []
        if len(events) > 1:
            warnings.append(f"a quest with {len(events)} alternative win events: only the first is converted")
        if events:
            cond = events[0].get("condition") or {}
            for pred, *args in _facts(cond.get("preconditions") or []):
                goal.extend(_goal_facts(pred, args, ids, warnings))
        commands.extend(str(c) for c in q.get("commands") or [])
        if q.get("fail_events"):
            warnings.append("the quest has fail events; our goal has no counterpart (left out)")
    metadata = game.get("metadata")
    walkthrough = metadata.get("walkthrough") if isinstance(metadata, dict) else None
    if isinstance(walkthrough, list) and walkthrough:   # the whole game's, when tw-make wrote one
        commands = [str(c) for c in walkthrough]
    return list(dict.fromkeys(goal)), commands   # each fact once, in the order first met


def _goal_facts(pred: str, args: list[str], ids: dict, warnings: list[str]) -> list[str]:
    our = [ids[a] for a in args if a != "I"]
    if pred == "at":
        return [f"at({our[0]}, {our[1]})"]
    if pred == "in":
        return [f"held({our[0]})"] if args[1] == "I" else [f"in({our[0]}, {our[1]})"]
    if pred == "on":
        return [f"on({our[0]}, {our[1]})"]
    if pred in ("open", "locked", "eaten"):
        return [f"{pred}({our[0]})"]
    if pred == "closed":
        return [f"not open({our[0]})", f"not locked({our[0]})"]
    if pred in STATIC:
        return []
    warnings.append(f"win condition {pred}({', '.join(args)}) has no counterpart; left out")
    return []


_COMMAND_RULES = [
    (re.compile(r"^insert (.+) into (.+)$"), r"put \1 in \2"),
    (re.compile(r"^put (.+) on (.+)$"), r"put \1 on \2"),
]


def convert_command(command: str) -> str:
    """A TextWorld command in the words the classic ruleset reads (lowercase)."""
    text = re.sub(r"\s+", " ", command.strip().lower())
    for regex, repl in _COMMAND_RULES:
        if regex.match(text):
            return regex.sub(repl, text)
    return text   # go DIR, take X (from Y), drop X, open/close X, (un)lock X with K, eat X, examine X


# -- output ------------------------------------------------------------------

class _Dumper(yaml.SafeDumper):
    pass


def _flow_list(dumper, data):
    # traits, adjectives, synonyms on one line; goal facts one a line
    flow = all(isinstance(x, str) and re.fullmatch(r"[a-z0-9' -]+", x) for x in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


def _mapping(dumper, data):
    # an exit through a door reads {to: study, door: study_door}
    flow = set(data) == {"to", "door"}
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=flow)


_Dumper.add_representer(list, _flow_list)
_Dumper.add_representer(dict, _mapping)


def world_yaml(world: dict) -> str:
    head = "# Converted from a TextWorld game by `adventure import textworld`; do not edit by hand.\n"
    body = yaml.dump(world, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100,
                     default_flow_style=False)
    return head + body
