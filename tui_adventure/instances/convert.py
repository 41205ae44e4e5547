"""clembench adventuregame instances <-> world files.

An imported world file keeps the original instance dict verbatim (records
need it) plus the names the parser must know, and opens with a comment that
says in English what the adventure is. The instance, not the comment, is what
the game is built from, so the two can never disagree in play.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ..engine.facts import parse_fact
from ..engine.loading import MAX_TURNS_LIMIT, load_world
from ..engine.names import RULE as NAME_RULE, check_name, inside, is_safe_name
from ..engine.rules import load_ruleset
from ..engine.snapshot import write_atomic
from ..engine.sources import parse_json, read_source
from ..engine.styles.clembench import ClembenchStyle
from ..engine.world import Entity, Goal, World
from ..engine.yamlpos import SourceError, SourceErrors, pos_of
from ..engine.text import plural

HIDDEN_TYPES = {"player", "floor", "inventory"}


PACKAGED_DEFINITIONS = (Path(__file__).resolve().parent.parent / "data" / "clembench" / "adventuregame"
                        / "resources" / "definitions")


def load_definitions(instances_path: Path, instance: dict) -> dict:
    """Surface names and adjectives from the definition files beside the instances file
    (upstream's layout: ``in/instances.json`` and ``resources/definitions/``), else the packaged ones."""
    base = Path(instances_path).resolve().parent.parent / "resources" / "definitions"
    if not base.is_dir():
        base = PACKAGED_DEFINITIONS
    entity_names: dict[str, str] = {}
    room_names: dict[str, str] = {}
    adjectives: list[str] = []
    for name in instance.get("entity_definitions", ["home_entities.json"]):
        for e in _definitions(base, name):
            entity_names[e["repr_str"]] = e["type_name"]
            adjectives.extend(a for a in e.get("possible_adjs", ()) if a not in adjectives)
    for name in instance.get("room_definitions", ["home_rooms.json"]):
        for r in _definitions(base, name):
            room_names[r["repr_str"]] = r["type_name"]
    return {"entity_names": entity_names, "room_names": room_names, "adjectives": adjectives}


def _definitions(base: Path, name) -> list:
    """One definitions file an instance names: a plain file name in the definitions folder, nothing else
    on the disk (an instances file comes from anywhere)."""
    if not isinstance(name, str) or not is_safe_name(name):
        raise ValueError(f"definitions file {name!r}: not a plain file name in {base.name}/")
    data = parse_json(read_source(inside(base, name), "definitions"))
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise ValueError(f"{name}: not a list of definitions")
    return data


def load_world_file(path: str | Path) -> World:
    """A world file, native or imported from clembench (its ``clembench:`` section)."""
    return load_world(path, readers={"clembench": world_from_document})


def ruleset_for(instance: dict, experiment: str) -> str:
    limited = "invlimit" in experiment or any("invlimit" in a for a in instance.get("action_definitions", ()))
    return "adventuregame_invlimit" if limited else "adventuregame"


def world_from_document(doc: dict, path: str) -> World:
    """Build the World of an imported world file (its ``clembench`` section)."""
    limit = doc.get("max_turns")   # the file's own turn limit is honoured (the instance keeps upstream's)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or not 1 <= limit <= MAX_TURNS_LIMIT):
        raise SourceErrors([SourceError(path, pos_of(doc, "max_turns"), f"max_turns must be a whole number"
                                        f" from 1 to {MAX_TURNS_LIMIT}, not {limit!r} (clembench plays 50)")])
    try:
        cb = doc["clembench"]
        inst = cb["instance"]
        if not is_safe_name(cb["experiment"]):
            raise SourceErrors([SourceError(path, pos_of(cb, "experiment"), f"experiment {cb['experiment']!r}"
                                            f" is used in folder names: use {NAME_RULE}")])
        title = doc.get("title")   # the file's own (an import writes the instance's "EXPERIMENT #ID")
        world = world_from_instance(inst, cb["experiment"], cb, path, ruleset=doc.get("ruleset"), max_turns=limit,
                                    title=title.strip() if isinstance(title, str) and title.strip() else None)
    except (KeyError, TypeError, ValueError) as exc:
        raise SourceErrors([SourceError(path, pos_of(doc, "clembench"),
                                        f"the clembench section is incomplete or damaged ({exc}); re-import the instance")]) from None
    return world


def world_from_instance(inst: dict, experiment: str, names: dict, path: str = "<instance>",
                        ruleset: str | None = None, max_turns: int | None = None, title: str | None = None) -> World:
    """The World of a clembench instance; ``max_turns``: a world file's own turn limit, else the instance's;
    ``title``: a world file's own title, else the instance's ``EXPERIMENT #GAME_ID``."""
    facts = [parse_fact(f) for f in inst["initial_state"]]
    entity_repr = {t: s for s, t in names["entity_names"].items()}
    room_repr = {t: s for s, t in names["room_names"].items()}
    kinds: dict[str, tuple[str, str]] = {}
    for f in facts:
        if f[0] == "room" and len(f) == 3:
            kinds[f[1]] = ("room", f[2])
        elif f[0] == "type" and len(f) == 3:
            kinds[f[1]] = ("player" if f[2] == "player" else "object", f[2])
    entities: dict[str, Entity] = {}
    for f in facts:
        for a in f[1:]:
            if a in kinds and a not in entities:
                kind, t = kinds[a]
                name = room_repr.get(t, t) if kind == "room" else entity_repr.get(t, t)
                entities[a] = Entity(a, name, kind=kind, type=t, hidden=t in HIDDEN_TYPES)
    entities["inventory"] = Entity("inventory", "inventory", kind="object", type="inventory", hidden=True)
    facts += initial_accessible(facts, kinds)
    start = next(f[2] for f in facts if f[0] == "at" and f[1] == "player1")
    rs = load_ruleset(ruleset or ruleset_for(inst, experiment))
    meta = {
        "clembench": {"entity_names": names["entity_names"], "room_names": names["room_names"],
                      "adjectives": list(names.get("adjectives", ()))},
        "experiment": experiment, "game_id": inst.get("game_id", 0), "variant": inst.get("variant", "basic"),
        "optimal_turns": inst.get("optimal_turns"), "prompt": inst.get("prompt", ""), "instance": inst,
    }
    return World(path=path, game="adventuregame", title=title or f"{experiment} #{inst.get('game_id', 0)}", ruleset=rs,
                 start=start, entities=entities, initial_facts=facts,
                 goals=[Goal(parse_fact(g)) for g in inst["goal_state"]],
                 max_turns=max_turns or int(inst.get("max_turns", 50)), par=None, meta=meta, strict=True)


def initial_accessible(facts: list[tuple], kinds: dict) -> list[tuple]:
    """What upstream marks accessible at the start: supported, in open containers, held, or free-standing."""
    present = set(facts)
    on = {f[1] for f in facts if f[0] == "on"}
    holders: dict = {}   # x -> what x is in
    for f in facts:
        if f[0] == "in":
            holders.setdefault(f[1], []).append(f[2])
    out = []
    for eid, (kind, t) in kinds.items():
        if kind != "object" or t == "floor":
            continue
        if ("needs_support", eid) in present:
            ok = eid in on or any(c == "inventory" or ("closed", c) not in present for c in holders.get(eid, ()))
        else:
            ok = True
        if ok:
            out.append(("accessible", eid))
    return out


def document(inst: dict, experiment: str, names: dict) -> tuple[str, dict]:
    """(comment header, YAML mapping) for one instance's world file."""
    world = world_from_instance(inst, experiment, names)
    st = world.initial
    style = world.style
    assert isinstance(style, ClembenchStyle)   # an instance's world plays an adventuregame ruleset
    name = world.name_of
    lines = [f"clembench adventuregame v2.1: {experiment}, instance {inst.get('game_id', 0)}"
             f" ({inst.get('variant', 'basic')} variant).",
             f"Goal: {', '.join(inst['goal_state'])}.",
             f"The player starts in the {name(world.start)}."]
    for room in style.rooms:
        things = [name(x) for x in world.sort_ids(st.by2.get(("at", room), ()))
                  if not world.entities[x].hidden]
        exits = [name(e.target) for e in style.exits(st, room)]
        lines.append(f"{name(room)}: {', '.join(things) or 'nothing'}; exits to {', '.join(exits) or 'nowhere'}.")
    optimal = "; ".join(inst.get("optimal_commands", []))
    turns = inst.get("optimal_turns")   # an instance without it says no count (not "None turns")
    count = "" if turns is None else f" ({plural(turns, 'turn')})"
    lines.append(f"The instance's optimal_commands{count}: {optimal}.")
    header = "\n".join(f"# {line}" for line in lines)
    doc = {
        "game": "adventuregame",
        "title": f"{experiment} #{inst.get('game_id', 0)}",
        "ruleset": ruleset_for(inst, experiment),
        "max_turns": int(inst.get("max_turns", 50)),
        "goal": list(inst["goal_state"]),
        "clembench": {
            "experiment": experiment,
            "game_id": inst.get("game_id", 0),
            "variant": inst.get("variant", "basic"),
            "optimal_turns": inst.get("optimal_turns"),
            "prompt": inst.get("prompt", ""),
            "entity_names": names["entity_names"],
            "room_names": names["room_names"],
            "adjectives": list(names.get("adjectives", ())),
            "instance": inst,
        },
    }
    return header, doc


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def import_instances(instances_path: str | Path, out_dir: str | Path) -> list[Path]:
    """One world file per instance at ``out/<experiment>/instance_<id:05d>.yaml``."""
    instances_path = Path(instances_path)
    data = parse_json(read_source(instances_path, "clembench instances"))   # bounded, regular, not too deep
    written = []
    names_cache: dict = {}
    for exp in data["experiments"]:
        for inst in exp["game_instances"]:
            key = (tuple(inst.get("entity_definitions", ())), tuple(inst.get("room_definitions", ())))
            if key not in names_cache:
                names_cache[key] = load_definitions(instances_path, inst)
            experiment = check_name(exp["name"], "the experiment name")
            header, doc = document(inst, experiment, names_cache[key])
            target = inside(Path(out_dir), experiment, f"instance_{int(inst.get('game_id', 0)):05d}.yaml")
            text = header + "\n" + yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, text.encode("utf-8"))
            written.append(target)
    return written
