"""The non-interactive jobs behind `adventure check`, `solve` and `script`.

They print to the streams they are given, so tests call them in-process and
the CLI stays argument parsing only.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Iterable

from .engine.game import Game
from .catalog import open_world as load_world
from .engine.planner import Planner, PlannerLimit
from .engine.text import visible
from .engine.yamlpos import SourceError, SourceErrors

CHECK_NODE_LIMIT = 200_000  # enough for worlds far larger than manor; bounds memory too


def check(paths: list[str], out: IO = sys.stdout, err: IO = sys.stderr) -> int:
    """Validate worlds; every error as ``file:line:col: message``; 1 if any file is bad."""
    bad = False
    for path in paths:
        try:
            world = load_world(path)
        except SourceErrors as exc:
            for e in exc.errors:
                print(e, file=out)
            bad = True
            continue
        problems, par = reachability(world)
        for p in problems:
            print(p, file=out)
            bad = True
        if not problems:
            rooms = len(world.rooms())
            objects = sum(1 for e in world.entities.values() if e.kind == "object")
            par_text = f"par {world.par}" if world.par is not None else (f"par {par}" if par is not None else "par not computed")
            print(f"{path}: ok ({rooms} rooms, {objects} objects, {len(world.goals)} goals, {par_text})", file=out)
    return 1 if bad else 0


def reachability(world) -> tuple[list[SourceError], int | None]:
    """Prove the goals reachable (or not) with the exact planner, within a node budget."""
    if not world.goals:
        return [], None
    try:
        plan = Planner(world, max_nodes=CHECK_NODE_LIMIT).solve()
    except PlannerLimit:
        return [], None
    if plan is None:
        pos = world.meta.get("goal_pos")
        return [SourceError(world.path, pos, "the goals cannot all be reached: no sequence of actions achieves them"
                            " (check locked doors and their keys, exits, and where the goal objects are)")], None
    if world.par is not None and world.par < plan.par:
        pos = world.meta.get("par_pos")
        return [SourceError(world.path, pos, f"par {world.par} is below the true optimum {plan.par}"
                            " (remove par to have it computed)")], plan.par
    return [], plan.par


def solve(path: str, as_json: bool, out: IO = sys.stdout, max_nodes: int = 3_000_000) -> int:
    world = _load_or_report(path, out)
    if world is None:
        return 1
    try:
        plan = Planner(world, max_nodes=max_nodes).solve()
    except PlannerLimit as exc:
        print(f"{path}: {exc}", file=out)
        return 1
    if plan is None:
        if as_json:
            print(json.dumps({"par": None, "commands": [], "optimal": True, "expanded": 0, "seconds": 0}), file=out)
        else:
            print(f"{path}: the goals cannot be reached", file=out)
        return 1
    data = plan.as_json()
    if "optimal_turns" in world.meta:
        data["upstream_optimal_turns"] = world.meta["optimal_turns"]
    if as_json:
        print(json.dumps(data), file=out)
    else:
        print(f"par {plan.par} ({plan.expanded} states expanded, {plan.seconds:.3f} s)", file=out)
        if "optimal_turns" in world.meta:
            print(f"upstream optimal_turns {world.meta['optimal_turns']}", file=out)
        for i, c in enumerate(plan.commands, 1):
            print(f"{i:3}. {c}", file=out)
    return 0


def script(path: str, commands: Iterable[str], jsonl: bool, out: IO = sys.stdout) -> int:
    """Apply every command in order, at the engine level: no turn limit, no stop on a win or done."""
    world = _load_or_report(path, out)
    if world is None:
        return 1
    game = Game(world)
    first = game.first_observation()
    if jsonl:
        print(json.dumps({"turn": 0, "observation": first, "goals": game.goal_facts(),
                          "goals_achieved": game.goals_achieved()}), file=out)
    else:
        print(visible(first), file=out)
    for line in commands:
        command = line.rstrip("\r\n")
        result = game.step(command)
        if jsonl:
            print(json.dumps(result.as_json(game.turn)), file=out)
        else:
            print(visible(f"\n> {command}\n{result.observation}"), file=out)
    return 0


def _load_or_report(path: str, out: IO):
    try:
        return load_world(path)
    except SourceErrors as exc:
        for e in exc.errors:
            print(e, file=out)
        return None
