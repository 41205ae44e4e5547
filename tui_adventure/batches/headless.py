"""The non-interactive jobs behind `adventure check`, `solve` and `script`.

They print to the streams they are given, so tests call them in-process and
the CLI stays argument parsing only.
"""

from __future__ import annotations

import json
import re
import sys
import time
from typing import IO, Iterable

from ..catalog import is_story, open_world as load_world, our_world
from ..games import open_game
from ..engine.planning import Planner, PlannerLimit
from ..engine.text import plural, visible
from ..engine.yamlpos import SourceError, SourceErrors

CHECK_NODE_LIMIT = 200_000  # enough for worlds far larger than manor; bounds memory too


def check(paths: list[str], out: IO | None = None, err: IO | None = None) -> int:
    """Validate worlds; every error as ``file:line:col: message``; 1 if any file is bad.
    ``out`` and ``err`` default to the current ``sys.stdout`` and ``sys.stderr``."""
    out, err = out or sys.stdout, err or sys.stderr
    bad = False
    for path in paths:
        if is_story(path):   # a story file: its own checks (zmachine/story.py), no interpreter needed
            bad = not _check_story(path, out) or bad
            continue
        try:
            world = our_world(path)
        except SourceErrors as exc:
            for e in exc.errors:
                print(visible(str(e)), file=out)
            bad = True
            continue
        problems, par = reachability(world)
        for p in problems:
            print(visible(str(p)), file=out)
            bad = True
        if not problems:
            rooms = len(world.rooms())
            # doors are objects to the engine but passages to an author: counted apart, so a world
            # generated with --objects 20 and two doors reads "20 objects, 2 doors"
            doors = {f[1] for f in world.initial_facts if f[0] == "door" and len(f) == 2}
            spec = world.scene.spec if world.scene is not None else None
            people = {"character": set(spec.characters) if spec else set(), "player": set(spec.players) if spec else set()}
            apart = doors.union(*people.values())
            objects = sum(1 for e in world.entities.values() if e.kind == "object" and e.id not in apart)
            par_text = f"par {world.par}" if world.par is not None else (f"par {par}" if par is not None else "par not computed")
            counts = [plural(rooms, "room"), plural(objects, "object")] + [
                plural(len(ids), word) for word, ids in (("door", doors), *people.items()) if ids]
            print(visible(f"{path}: ok ({', '.join(counts)}, {plural(len(world.goals), 'goal')}, {par_text})"), file=out)
    return 1 if bad else 0


def _check_story(path: str, out: IO) -> bool:
    """One line for a story file: what its header says, or what is wrong with it."""
    from ..zmachine.story import read_story

    try:
        story = read_story(path)
    except SourceErrors as exc:
        print(visible(str(exc.errors[0])), file=out)
        return False
    print(visible(f"{path}: ok (a Z-machine story file, version {story.version}, release {story.release},"
                  f" serial {story.serial}{', in a Blorb' if story.blorb else ''})"), file=out)
    return True


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


def parse_budget(text: str | None) -> tuple[float | None, int | None]:
    """``--budget`` as (seconds, states expanded); ValueError with the forms it takes."""
    if text is None:
        return None, None
    t = text.strip().lower().replace(" ", "")
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(k|m)?states?", t)
    if m:
        return None, int(float(m.group(1)) * {"k": 1_000, "m": 1_000_000, None: 1}[m.group(2)])
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(s|m|min|h)?", t)
    if m:
        seconds = float(m.group(1)) * {"s": 1, None: 1, "m": 60, "min": 60, "h": 3600}[m.group(2)]
        if seconds > 0:
            return seconds, None
    raise ValueError(f"--budget {text!r}: give seconds (30, 30s, 2m) or states expanded (500000 states, 500k states)")


def solve(path: str, as_json: bool, out: IO | None = None, max_nodes: int = 3_000_000,
          budget: tuple[float | None, int | None] = (None, None)) -> int:
    """par and its plan; past the budget, the bounds proven so far and the best plan found (exit 3).
    ``out`` defaults to the current ``sys.stdout``."""
    out = out or sys.stdout
    world = _load_or_report(path, out)
    if world is None:
        return 1
    seconds, states = budget
    deadline = time.perf_counter() + seconds if seconds else None
    try:   # three quarters of a time budget for the exact search, the rest for a plan if it gives up
        plan = Planner(world, max_nodes=states or max_nodes, max_seconds=seconds * EXACT_SHARE if seconds else None).solve()
    except PlannerLimit as exc:
        return _bounded(world, path, exc, as_json, out, deadline)
    if plan is None:
        if as_json:
            print(json.dumps({"par": None, "commands": [], "optimal": True, "expanded": 0, "seconds": 0}), file=out)
        else:
            print(visible(f"{path}: the goals cannot be reached"), file=out)
        return 1
    data = plan.as_json()
    if "optimal_turns" in world.meta:
        data["upstream_optimal_turns"] = world.meta["optimal_turns"]
    drawn = world.scene is not None and world.scene.spec.tables
    if drawn:   # another seed draws other entries: the plan (and par) hold for this one
        data["seed"] = world.seed
    voiced = [c.id for c in world.scene.spec.characters.values() if c.voice] if world.scene is not None else []
    if voiced:   # a model's choices cannot be planned: par is for a voice that helps
        data["assumes"] = "cooperative voices: " + ", ".join(voiced)
    if as_json:
        print(json.dumps(data), file=out)
    else:
        print(f"par {plan.par} ({plural(plan.expanded, 'state')} expanded, {plan.seconds:.3f} s)"
              + (f", for seed {world.seed} (it fixes every draw from the world's tables)" if drawn else ""), file=out)
        if voiced:
            print(visible(f"assuming cooperative voices ({', '.join(voiced)}): each calls its tools as soon as it is"
                          " spoken to and their conditions hold"), file=out)
        if "optimal_turns" in world.meta:
            print(visible(f"upstream optimal_turns {world.meta['optimal_turns']}"), file=out)
        for i, c in enumerate(plan.commands, 1):
            print(visible(f"{i:3}. {c}"), file=out)
    return 0


BOUND_WEIGHTS = (2.0, 5.0)   # weighted searches for a plan once the exact one gave up: quick, then quicker
EXACT_SHARE = 0.75           # of a time budget, for the exact search; the weighted ones share the rest


def _bounded(world, path: str, limit: PlannerLimit, as_json: bool, out: IO, deadline: float | None) -> int:
    """What is known when the exact search ran out of budget: a proven lower bound, and an upper
    bound from the best plan a weighted search finds in what is left of the same budget (exit 3)."""
    lower = limit.lower_bound
    plan = None
    for weight in BOUND_WEIGHTS:
        left = deadline - time.perf_counter() if deadline is not None else None
        if left is not None and left <= 0:
            break
        try:
            plan = Planner(world, max_nodes=max(limit.expanded, 10_000), max_seconds=left).solve(weight=weight)
            break
        except PlannerLimit:
            continue
    upper = plan.par if plan is not None else None
    if as_json:
        print(json.dumps({"par": lower if lower is not None and lower == upper else None,
                          "lower_bound": lower, "upper_bound": upper, "optimal": lower is not None and lower == upper,
                          "commands": plan.commands if plan else [], "expanded": limit.expanded}), file=out)
    elif upper is not None and lower is not None and upper == lower:
        print(f"par {upper} (the exact search ran out of budget, but a plan of its proven lower bound was found)",
              file=out)
    else:
        low = f"{lower}" if lower is not None else "?"
        said = f"par is between {low} and {upper}" if upper is not None else f"par is at least {low}"
        print(visible(f"{path}: {said} (the exact search stopped at its budget after {plural(limit.expanded, 'state')} expanded;"
                      " raise --budget for the exact value)"), file=out)
        if plan is not None:
            print(f"best plan found ({plural(plan.par, 'turn')}):", file=out)
            for i, c in enumerate(plan.commands, 1):
                print(visible(f"{i:3}. {c}"), file=out)
    return 0 if upper is not None and upper == lower else 3


def script(path: str, commands: Iterable[str], jsonl: bool, out: IO | None = None) -> int:
    """Apply every command in order, at the engine level: no turn limit, no stop on a win or done
    (a story file that has ended answers that it is over). ``out`` defaults to the current ``sys.stdout``.
    Each JSON line has the turn, command, observation, done and fail; a game with goals adds them,
    any other its score, max score and moves."""
    out = out or sys.stdout
    world = _load_or_report(path, out)
    if world is None:
        return 1
    game = open_game(world)
    first = game.first_observation()
    if jsonl:
        print(json.dumps({"turn": 0, "observation": first, **_figures(game)}), file=out)
    else:
        print(visible(first), file=out)
    for line in commands:
        command = line.rstrip("\r\n")
        result = game.step(command)
        if jsonl:
            moves = game.status().moves
            print(json.dumps({"turn": moves, "command": command, "observation": result.observation,
                              **_figures(game, result), "fail": result.fail, "done": result.done}), file=out)
        else:
            print(visible(f"\n> {command}\n{result.observation}"), file=out)
    game.close()
    return 0


def _figures(game, result=None) -> dict:
    """A script line's figures: goals where the game has them (our worlds), else its score."""
    gained = {} if result is None else {"goal_score": result.goal_score}
    if game.goals is not None:
        achieved = game.goals.achieved()
        return ({"goals": game.goals.facts(), "goals_achieved": achieved} if result is None
                else {"goals_achieved": achieved, **gained})
    status = game.status()
    return {"score": status.score, "max_score": status.max_score, **gained}


def _load_or_report(path: str, out: IO):
    try:
        return load_world(path)
    except SourceErrors as exc:
        for e in exc.errors:
            print(visible(str(e)), file=out)
        return None
