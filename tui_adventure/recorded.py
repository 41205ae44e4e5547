"""A recorded episode read back: its world and the replies, for ``adventure replay``.

The world is found, in order, from ``--world``, the pointer file the
recorder leaves beside the records (``tui_adventure.json``), or the world
path a native world's ``instance.json`` carries. Replaying the replies
through a fresh episode rebuilds every state exactly, since the engine is
deterministic, so the records need not store states.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .catalog import open_world
from .clembench import packaged
from .engine.yamlpos import SourceErrors
from .engine.world import World

POINTER = "tui_adventure.json"


class RecordedError(Exception):
    """The directory is not a recorded episode we can replay; the message says why and what to do."""


@dataclass
class Recorded:
    directory: Path
    world: World
    replies: list[str]
    player: str


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordedError(f"{path} is missing: EPISODE_DIR is an instance_NNNNN directory of a records tree") from None
    except (OSError, ValueError) as exc:
        raise RecordedError(f"{path}: cannot read it ({exc})") from None


def world_path_of(directory: Path) -> Path | None:
    pointer = directory / POINTER
    if pointer.exists():
        world = _read(pointer).get("world")
        if world:
            return Path(world)
    inst = directory / "instance.json"
    if inst.exists():
        world = _read(inst).get("world")
        if isinstance(world, str) and world.endswith((".yaml", ".yml")):
            return Path(world)
    return None


def read_episode(directory: str | Path, world: str | Path | None = None) -> Recorded:
    directory = Path(directory)
    data = _read(directory / "interactions.json")
    replies = [e["action"]["content"] for turn in data.get("turns", []) for e in turn
               if e.get("from") == "Player 1" and e.get("action", {}).get("type") == "get message"]
    path = Path(world) if world else world_path_of(directory)
    if path is None:
        raise RecordedError(f"{directory}: cannot tell which world this episode was played in; "
                            "pass it with --world WORLD.yaml")
    if not path.exists() and not (world is None and packaged.is_name(str(path))):
        raise RecordedError(f"{directory}: its world {path} is gone; pass the world with --world WORLD.yaml")
    player = data.get("players", {}).get("Player 1", {}).get("model_name", "?")
    try:
        loaded = open_world(str(path))
    except SourceErrors as exc:
        raise RecordedError(f"{directory}: its world cannot be loaded: {exc.errors[0]}") from None
    return Recorded(directory, loaded, replies, player)
