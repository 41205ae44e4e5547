"""Worlds as the instances of a clemgame, and an instance back to its world.

An instance is what our recorder writes as an episode's ``instance.json`` (upstream's own instance
for an imported clembench world; file, title, turn limit, par and goals for a native one) plus
``world``, where the world is: a packaged name (``clembench/<experiment>/<game_id>``) or the world
file's absolute path. clemcore copies the instance into the records, so ``adventure replay`` and
``adventure score`` find the world of a ``clem run`` episode the way they find ours.
"""

from __future__ import annotations

from pathlib import Path

from ..catalog import open_world
from ..records.recorder import instance_of
from ..engine.names import check_name
from ..engine.text import plural
from ..engine.world import World
from ..zmachine.game import StorySource
from ..gamemaster.voices import voiced


class NotAnInstance(ValueError):
    """A world that cannot be a clemgame instance; the message is one line that says why."""


def refusal(world: World | StorySource) -> str | None:
    """Why ``world`` cannot be played under clemcore's runner, or None."""
    if not isinstance(world, World):   # a story file has no characters of ours
        return None
    for character in voiced(world):
        return (f"its character {world.name_of(character.id)!r} speaks through a model (voice: {character.voice}),"
                " and clemcore's runner gives a game no model but its players' (play it with adventure run)")
    return None


def seats(world: World | StorySource) -> tuple[str, ...]:
    """The world's players in turn order (empty: one player)."""
    return tuple(world.scene.spec.players) if world.scene is not None else ()


def reference(world: World | StorySource) -> str:
    packaged = world.meta.get("packaged")
    if packaged:
        return packaged
    path = Path(str(world.path))
    return str(path.resolve())


def instances_document(worlds: list[tuple[str, World | StorySource]]) -> tuple[dict, tuple[str, ...]]:
    """clemcore's ``{"experiments": [...]}`` for ``worlds`` (each with the argument that named it), and
    the seats every instance has (one game has one number of players: clemgame.json's ``players``).

    Experiments and game ids are the ones our own records use (the world's experiment, else its game;
    its game id); a game id taken twice in one experiment moves to the next free one.
    ``NotAnInstance`` for a world that cannot be one.
    """
    experiments: dict[str, dict] = {}
    first: tuple[str, tuple[str, ...]] | None = None
    for arg, world in worlds:
        why = refusal(world)
        if why:
            raise NotAnInstance(f"{arg}: cannot be a clemgame instance: {why}")
        order = seats(world)
        if first is None:
            first = (arg, order)
        elif len(order) != len(first[1]):
            raise NotAnInstance(f"{arg}: cannot join {first[0]} in one clemgame: it has {plural(max(1, len(order)), 'player')}"
                                f" and {first[0]} {max(1, len(first[1]))}, and a clemgame has one number of players"
                                " (export them as two games with --name)")
        experiment = check_name(world.meta.get("experiment") or world.game, "the experiment name")
        group = experiments.setdefault(experiment, {"name": experiment, "game_instances": []})
        taken = {i["game_id"] for i in group["game_instances"]}
        game_id = int(world.meta.get("game_id", 0))
        while game_id in taken:
            game_id += 1
        group["game_instances"].append({**instance_of(world, game_id), "game_id": game_id,
                                        "world": reference(world)})
    return {"experiments": list(experiments.values())}, (first[1] if first else ())


def world_of(instance: dict) -> World | StorySource:
    """The world (or story file) an exported instance names (``SourceErrors`` when it is gone or broken)."""
    where = instance.get("world") if isinstance(instance, dict) else None
    if not isinstance(where, str) or not where:
        raise NotAnInstance("the instance names no world (its 'world' key): write the game with"
                            " adventure export clemgame")
    return open_world(where)
