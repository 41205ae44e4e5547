"""Convert a generated TextWorld game (its ``.json`` file) into a world YAML for
the ``classic`` ruleset, and its walkthrough into commands that ruleset accepts.

Needs only the standard library and PyYAML: the TextWorld game file is plain
JSON (``world``: the initial facts; ``infos``: names and descriptions;
``quests``: the winning conditions and walkthrough).

    python benchmarks/tw_convert.py GAME.json OUT.yaml [--commands OUT.txt]

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

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

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


@dataclass
class Converted:
    world: dict                       # the world, ready for yaml.safe_dump
    commands: list[str]               # the walkthrough in classic commands
    tw_commands: list[str]            # the walkthrough as TextWorld wrote it
    ids: dict[str, str]               # TextWorld id (r_2, c_0, ...) -> our id
    warnings: list[str] = field(default_factory=list)

    def yaml(self) -> str:
        return world_yaml(self.world)


# -- helpers -----------------------------------------------------------------

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
    text = re.sub(r"\s+", " ", text).strip()
    return text


def make_id(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "thing"
    if not base[0].isalpha():
        base = "x" + base
    if base in RESERVED_IDS:
        base += "_1"
    out, n = base, 2
    while out in taken:
        out, n = f"{base}_{n}", n + 1
    taken.add(out)
    return out


def _adjectives(info: dict, name: str) -> list[str]:
    adj = info.get("adj")
    if adj:
        words = adj.lower().split()
    else:
        words = name.lower().split()[:-1]
        if " of " in f" {name.lower()} ":     # "loaf of bread": no simple adjectives
            words = []
    return [w for w in words if re.fullmatch(r"[a-z0-9][a-z0-9'-]*", w)]


# -- conversion --------------------------------------------------------------

def load_game(path: Path) -> dict:
    path = Path(path)
    if path.suffix != ".json":
        path = path.with_suffix(".json")
    return json.loads(path.read_text(encoding="utf-8"))


def convert(game: dict, name: str = "tw_house") -> Converted:
    warnings: list[str] = []
    infos = {eid: info for eid, info in game["infos"]}
    facts = _facts(game["world"])

    # types of every entity mentioned
    types: dict[str, str] = {eid: info["type"] for eid, info in infos.items()}
    for p in game["world"]:
        for a in p["arguments"]:
            types.setdefault(a["name"], a["type"])

    # ids: rooms first, then objects, in TextWorld's order of infos
    taken: set[str] = set()
    ids: dict[str, str] = {"P": "player"}
    entity_names: dict[str, str] = {}
    for eid, info in infos.items():
        if info["type"] in ("P", "I"):
            continue
        nm = (info.get("name") or eid).strip()
        entity_names[eid] = nm
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
    for f in facts:
        pred, args = f[0], f[1:]
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
        elif pred == "open":
            objects[ids[args[0]]]["open"] = True
        elif pred == "locked":
            objects[ids[args[0]]]["locked"] = True
        elif pred == "match":
            obj = objects[ids[args[1]]]
            if "lockable" not in obj["traits"]:
                obj["traits"].append("lockable")
            obj["key"] = ids[args[0]]
        elif pred == "edible":
            obj = objects[ids[args[0]]]
            if "edible" not in obj["traits"]:
                obj["traits"].append("edible")
        elif pred in ("closed", "free"):
            pass
        else:
            warnings.append(f"initial fact {pred}({', '.join(args)}) has no counterpart; left out")
    for src, direction, dst in sorted(set(exits), key=lambda e: (list(rooms).index(e[0]), e[1])):
        door = door_links.get((src, dst))
        rooms[src]["exits"][direction] = {"to": dst, "door": door} if door else dst
    for (src, dst), door in door_links.items():
        if not any(e[0] == src and e[2] == dst for e in exits):
            warnings.append(f"door {door} links {src} and {dst} but no direction fact says which way")
    for oid, obj in objects.items():
        if "door" in obj["traits"]:   # doors stand in both rooms; any location TextWorld gave is dropped
            for k in ("at", "in", "on", "held"):
                obj.pop(k, None)
        if obj.get("locked") and "key" not in obj:
            # Locked for good: TextWorld has no key that matches it. Our lockable things need
            # a key, so it is its own key: fixed in place, it can never be held, so never unlocked.
            obj["traits"].append("lockable")
            obj["key"] = oid
    for room in rooms.values():
        if not room["exits"]:
            del room["exits"]
    if start is None:
        raise ValueError("the game has no at(P, room) fact: cannot tell where the player starts")

    goal, tw_commands = _goal(game, ids, types, warnings)
    world = {
        "game": name,
        "title": f"TextWorld {name} (converted)",
        "ruleset": "classic",
        "intro": re.sub(r"\s+", " ", game.get("objective") or "").strip() or None,
        "start": start,
        "max_turns": 100,
        "rooms": rooms,
        "objects": objects,
        "goal": goal,
    }
    if world["intro"] is None:
        del world["intro"]
    commands = [convert_command(c) for c in tw_commands]
    return Converted(world, commands, tw_commands, ids, warnings)


def _goal(game: dict, ids: dict, types: dict, warnings: list[str]) -> tuple[list[str], list[str]]:
    quests = [q for q in game.get("quests", []) if not q.get("optional")]
    if len(quests) > 1:
        warnings.append(f"{len(quests)} quests: TextWorld needs each done once, in any order; "
                        "converted as one goal whose facts must all hold together")
    goal: list[str] = []
    commands: list[str] = []
    for q in quests:
        events = q.get("win_events") or []
        if len(events) > 1:
            warnings.append(f"a quest with {len(events)} alternative win events: only the first is converted")
        if events:
            cond = events[0].get("condition") or {}
            for pred, *args in _facts(cond.get("preconditions", [])):
                goal.extend(_goal_facts(pred, args, ids, types, warnings))
        commands.extend(q.get("commands") or [])
        if q.get("fail_events"):
            warnings.append("the quest has fail events; our goal has no counterpart (left out)")
    if not commands:
        commands = list((game.get("metadata") or {}).get("walkthrough") or [])
    seen: set[str] = set()
    return [g for g in goal if not (g in seen or seen.add(g))], commands


def _goal_facts(pred: str, args: list[str], ids: dict, types: dict, warnings: list[str]) -> list[str]:
    our = [ids.get(a, a) for a in args]
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
    head = "# Converted from a TextWorld game by benchmarks/tw_convert.py; do not edit by hand.\n"
    body = yaml.dump(world, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100,
                     default_flow_style=False)
    return head + body


def convert_file(game_json: Path, out_yaml: Path, commands_out: Path | None = None,
                 name: str | None = None) -> Converted:
    conv = convert(load_game(game_json), name=name or Path(out_yaml).stem)
    Path(out_yaml).write_text(conv.yaml(), encoding="utf-8")
    if commands_out is not None:
        Path(commands_out).write_text("".join(c + "\n" for c in conv.commands), encoding="utf-8")
    return conv


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Convert a TextWorld game (.json) to a classic world YAML.")
    ap.add_argument("game", type=Path, help="the TextWorld game's .json (or .z8 with the .json beside it)")
    ap.add_argument("out", type=Path, help="the world YAML to write")
    ap.add_argument("--commands", type=Path, default=None, help="write the converted walkthrough here, one a line")
    args = ap.parse_args(argv)
    conv = convert_file(args.game, args.out, args.commands)
    for w in conv.warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(f"wrote {args.out}: {len(conv.world['rooms'])} rooms, {len(conv.world['objects'])} objects, "
          f"goal {conv.world['goal']}")
    for tw, ours in zip(conv.tw_commands, conv.commands):
        print(f"  {tw:40s} -> {ours}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
