"""A scene of the Labyrinth game-manager project as a world skeleton for the author to finish.

The Labyrinth's scenes (the game-manager project's gameplay format: NPCs with
persona, goal, trait and flaw; environment objects; random tables; success
and failure conditions in prose; players with inventories) have no map and
no rules: a language model is their game master. What carries over as data
does: characters, objects in one room, tables, the first player's inventory.
What needs a person is written as comments beside placeholders that
``adventure check`` reports by line: the success condition above ``goal:``,
the failure condition above ``lose:``, the game flow and the other players.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from ..engine import names
from ..engine.snapshot import OutputRefused, write_atomic
from ..engine.sources import parse_json, read_source

RESERVED = {"player", "inventory", "all", "everything", "it", "them"}
TODO = "TODO"


class LabyrinthError(ValueError):
    """A file that is not a Labyrinth scene: one line saying what was expected."""


def make_id(name: str, taken: set[str]) -> str:
    return names.make_id(name, taken, RESERVED)


def load_scene(path: str | Path) -> tuple[dict, list[dict]]:
    """(scene, players) from a gameplay log (a list whose items hold ``scene`` and ``players``) or a bare scene."""
    try:
        data = parse_json(read_source(Path(path), "Labyrinth scene"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise LabyrinthError(f"{path}: cannot read it as JSON ({getattr(exc, 'strerror', None) or exc})") from None
    if isinstance(data, list):
        first = next((item for item in data if isinstance(item, dict) and isinstance(item.get("scene"), dict)), None)
        if first is None:
            raise LabyrinthError(f"{path}: a gameplay log whose items have no \"scene\" object")
        return first["scene"], _players(first, path)
    if isinstance(data, dict) and isinstance(data.get("scene"), dict):
        return data["scene"], _players(data, path)
    if isinstance(data, dict) and ("npcs" in data or "scene_summary" in data):
        return data, []
    raise LabyrinthError(f"{path}: expected a Labyrinth scene (with npcs, environment, random_tables) or a"
                         " gameplay log of them")


def _players(holder: dict, path) -> list[dict]:
    players = holder.get("players") or []
    if not isinstance(players, list):
        raise LabyrinthError(f"{path}: \"players\" is a list of player objects, not a {_kind(players)}")
    return [p for p in players if isinstance(p, dict)]


def _kind(value) -> str:
    return {dict: "object", list: "list", str: "string", bool: "true/false"}.get(type(value), "number" if
                                                                                  value is not None else "null")


def _mapping(holder: dict, key: str, what: str, shape: str = "name: description") -> dict:
    """``holder[key]`` when it is a JSON object (absent or null: empty); a scene from another tool may hold
    anything there, and a LabyrinthError names the field instead of failing inside the conversion."""
    value = holder.get(key) or {}
    if not isinstance(value, dict):
        raise LabyrinthError(f"{what}'s \"{key}\" is an object of {shape}, not a {_kind(value)}")
    return value


def _lines(value) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [str(v) for v in value if str(v).strip()]
    if isinstance(value, dict):
        return [f"{k}: {v}" for k, v in value.items()]
    return []


def _comment(text: str, indent: str = "") -> str:
    return "\n".join(f"{indent}# {line}" for line in str(text).splitlines() or [""])


def _dump(key: str, value) -> str:
    return yaml.safe_dump({key: value}, sort_keys=False, allow_unicode=True, width=100).rstrip()


def convert_scene(scene: dict, players: list[dict], source: str = "scene") -> str:
    """The world file's text (YAML with the author's to-dos as comments)."""
    taken: set[str] = set()
    title = " - ".join(str(scene[k]) for k in ("chapter", "scene") if scene.get(k)) or "A Labyrinth scene"
    room = make_id(scene.get("scene") or "scene", taken)
    summary = " ".join(_lines(scene.get("scene_summary"))) or "A place in the Labyrinth."
    objects: dict = {}
    for name, description in _mapping(scene, "environment", "the scene").items():
        objects[make_id(name, taken)] = {"name": str(name).lower(), "description": str(description), "at": room}
    player = players[0] if players else {}
    for name, description in _mapping(player, "inventory", "the player").items():
        objects[make_id(name, taken)] = {"name": str(name).lower(), "description": str(description),
                                         "traits": ["takeable"], "held": True}
    characters: dict = {}
    for name, npc in _mapping(scene, "npcs", "the scene", "name: character").items():
        npc = npc if isinstance(npc, dict) else {}
        characters[make_id(name, taken)] = {
            "name": str(name).lower(), "description": f"{name}, a {npc.get('kin', 'creature')}.", "at": room,
            "persona": _lines(npc.get("persona")), "goal": str(npc.get("goal", "")),
            "traits": _lines(npc.get("trait")), "flaws": _lines(npc.get("flaw"))}
    tables = {make_id(name, taken): [str(e) for e in entries]
              for name, entries in _mapping(scene, "random_tables", "the scene", "name: [entries]").items()
              if isinstance(entries, list) and entries}
    out = [f"# Imported from {source} by adventure import labyrinth: a skeleton to finish by hand.",
           "# The Labyrinth's game master is a model; here the rules are data. Turn each TODO below into facts",
           "# (docs/worlds.md), then run adventure check until it passes.", ""]
    out += [_dump("game", room), _dump("title", title), _dump("intro", summary), "seed: 0", f"start: {room}", ""]
    out += [_dump("rooms", {room: {"description": summary}}), ""]
    if objects:
        out += [_dump("objects", objects), ""]
    else:
        out += ["objects: {}", ""]
    if characters:
        out += [_dump("characters", characters), ""]
    if tables:
        out += ["# The tables are drawn by events: add draw: {TABLE: x} to an event (docs/worlds.md, Scenes)."]
        out += [_dump("tables", tables), ""]
    for key in ("game_flow", "consequences"):
        if scene.get(key):
            out += [f"# {key.replace('_', ' ')}:"] + [_comment(line) for line in _lines(scene[key])] + [""]
    for other in players[1:]:
        out += [f"# another player (several players are not supported yet): {other.get('name', '?')},"
                f" {other.get('kin', '')}; inventory: {', '.join(_mapping(other, 'inventory', 'a player')) or 'none'}"]
    if players[1:]:
        out.append("")
    if player:
        out += [_comment(f"the player: {player.get('name', '?')} ({player.get('kin', '')}); goal: {player.get('goal', '')}")]
        out += [_comment(f"trait {k}: {v}") for k, v in _mapping(player, "traits", "the player").items()]
        out += [_comment(f"flaw {k}: {v}") for k, v in _mapping(player, "flaws", "the player").items()] + [""]
    success = scene.get("success_condition") or "(none given)"
    failure = scene.get("failure_condition")
    out += ["# success condition: " + str(success), f"# {TODO}: write the success condition as goal facts.",
            "goal:", f"  - {TODO}_success()", ""]
    if failure:
        out += ["# failure condition: " + str(failure), f"# {TODO}: write the failure condition as a condition.",
                "lose:", f"  - when: {TODO}_failure()", f"    message: {json.dumps(str(failure))}", ""]
    return "\n".join(out)


def import_scene(path: str | Path, out: str | Path | None = None) -> tuple[Path, str]:
    """Write the skeleton beside the scene (or to ``out``); (where, the text)."""
    scene, players = load_scene(path)
    try:
        text = convert_scene(scene, players, Path(path).name)
    except LabyrinthError as exc:
        raise LabyrinthError(f"{path}: {exc}") from None
    target = Path(out) if out else Path(path).with_suffix(".yaml")
    if target.is_dir() and not target.is_symlink():
        raise LabyrinthError(f"--out {target}: is a folder; name the world file to write")
    try:
        write_atomic(target, text.encode("utf-8"))
    except OutputRefused as exc:
        raise LabyrinthError(f"{target}: {exc.strerror}") from None
    except OSError as exc:
        raise LabyrinthError(f"{target}: cannot write it ({exc.strerror or exc})") from None
    return target, text
