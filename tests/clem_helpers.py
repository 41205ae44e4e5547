"""Shared helpers for the clembench reference tests."""

import json
from functools import lru_cache

from conftest import jsonl
from tui_adventure.instances.packaged import INSTANCES


@lru_cache(maxsize=None)
def instances() -> dict:
    data = json.loads(INSTANCES.read_text())
    return {(e["name"], i["game_id"]): i for e in data["experiments"] for i in e["game_instances"]}


@lru_cache(maxsize=None)
def world(experiment: str, game_id: int):
    from tui_adventure.instances.convert import load_definitions, world_from_instance

    inst = instances()[(experiment, game_id)]
    return world_from_instance(inst, experiment, load_definitions(INSTANCES, inst))


def traces(name: str = "sample_traces.jsonl") -> list[dict]:
    return jsonl(name)


def replay(trace: dict):
    """Our observations, goals and fails for a trace's commands, ready to compare."""
    from tui_adventure.instances.canonical import canonical
    from tui_adventure.engine.game import Game

    game = Game(world(trace["experiment"], trace["game_id"]))
    out = {"first": canonical(game.first_observation()), "obs": [], "goals": [], "fails": []}
    for command in trace["commands"]:
        r = game.step(command)
        out["obs"].append(canonical(r.observation))
        out["goals"].append(sorted(r.goals_achieved))
        out["fails"].append(None if r.fail is None else {"phase": r.fail["phase"], "fail_type": r.fail["type"]})
    return out
