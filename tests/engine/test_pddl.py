"""PDDL out: what is refused, and Fast Downward's optimal plans as long as our par.

The ``fd`` tests use up-fast-downward (Fast Downward's binaries on PyPI, the
``[fd]`` extra, which ``.ci/setup.sh`` installs; without it they fail) to hold every world to
two things: Fast Downward's optimal plan is exactly as long as our par, and it
replays step by step in our engine (so the PDDL allows nothing our rules do not).
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import TEST_WORLDS, adventure
from needs import module
from tui_adventure.catalog import open_world
from tui_adventure.engine.loading.loader import load_world_text
from tui_adventure.engine.planning.planner import Planner, PlannerLimit
from tui_adventure.export.pddl import Inexpressible, to_pddl, write_pddl

# LM-cut refuses axioms (our `visible`, `encloses`, and the ones Fast Downward makes of negated
# quantifiers); h_max takes them and conditional effects, and stays admissible
FD_SEARCH = "astar(hmax())"
RANDOM_WORLDS = 30
CLEMBENCH = ["clembench/home_deliver_three_basic_easy/0", "clembench/home_deliver_three_planning_hard/0"]

COUNTING = """
start: a
rooms: {a: {}}
objects:
  ball: {traits: [takeable], at: a}
actions:
  - id: juggle
    syntax: ["juggle {obj}"]
    params: {obj: thing}
    checks: [["count(held(_)) < 2", "Your hands are full."]]
    effects: ["add juggled(obj)"]
    success: "You juggle."
goal: [juggled(ball)]
"""


# -- without Fast Downward ------------------------------------------------------------------
def test_tutorial_as_pddl():
    pddl = to_pddl(open_world("tutorial"))
    assert "(:derived (visible ?x - object)" in pddl.domain
    assert pddl.actions == ("go", "take", "drop", "put_in", "put_on", "open", "close", "unlock", "lock", "eat")
    for not_a_move in ("look", "examine", "go_to", "take_from", "wait", "done"):
        assert f"(:action {not_a_move}\n" not in pddl.domain and f";; {not_a_move}: not a move" in pddl.domain
    assert "(in letter mailbox)" in pddl.problem and "(at player kitchen)" in pddl.problem
    assert pddl.names == {}


def test_count_is_refused_naming_action_and_construct():
    with pytest.raises(Inexpressible, match=r"action 'juggle': count\(held\(_\)\) < 2"):
        to_pddl(load_world_text(COUNTING, "counting.yaml"))


def test_clembench_worlds_are_expressed_unless_they_count():
    pddl = to_pddl(open_world(CLEMBENCH[0]))
    assert "(nameable table1)" in pddl.problem and "(nameable kitchen1floor1)" in pddl.problem
    assert "(nameable pantry1floor1)" not in pddl.problem   # "floor" names the first floor only
    with pytest.raises(Inexpressible, match=r"action 'take': count\(in\(_, inventory\)\) < 2"):
        to_pddl(open_world("clembench/home_deliver_three_basic_easy_invlimittwo/0"))


def test_names_pddl_cannot_take_are_renamed_and_listed():
    world = load_world_text("""
start: object
rooms:
  object: {exits: {north: and}}
  and: {exits: {south: object}}
objects:
  ball: {traits: [takeable], at: and}
goal: ["at(ball, object)"]
""", "renamed.yaml")
    pddl = to_pddl(world)
    assert pddl.names == {"object": "object_", "and": "and_"}
    assert ";; object -> object_" in pddl.problem and "(at ball and_)" in pddl.problem
    assert "names renamed for PDDL" in pddl.problem.splitlines()[0]


def test_the_problem_header_says_one_thing_about_names():
    first, second = to_pddl(open_world("house")).problem.splitlines()[:2]
    assert first.endswith("every id and predicate is the world's own") and "renamed" not in first
    assert not second.startswith(";;")


def test_cli_writes_both_files(tmp_path):
    out = adventure("export", "pddl", "house", "--out", str(tmp_path / "house"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(tmp_path / "house" / "domain.pddl"), str(tmp_path / "house" / "problem.pddl")]
    assert (tmp_path / "house" / "domain.pddl").read_text().startswith(";; The House")


def test_cli_refuses_a_file_as_out_and_inexpressible_worlds(tmp_path):
    (tmp_path / "file").write_text("x")
    out = adventure("export", "pddl", "house", "--out", str(tmp_path / "file"))
    assert out.returncode == 1 and "is a file" in out.stderr
    (tmp_path / "counting.yaml").write_text(COUNTING)
    out = adventure("export", "pddl", str(tmp_path / "counting.yaml"), "--out", str(tmp_path / "x"))
    assert out.returncode == 1 and len(out.stderr.strip().splitlines()) == 1
    assert "'juggle'" in out.stderr and "count(" in out.stderr
    assert not (tmp_path / "x").exists()


# -- random classic worlds -------------------------------------------------------------------
# a world action with the rest of the rule language: exists, a conditional and a universal effect
KNOCK = """actions:
  - id: knock
    syntax: ["knock on {obj}"]
    params: {obj: thing}
    checks:
      - ["not (exists h: held(h) and h != obj)", "Your hands are full."]
      - ["not knocked(obj)", "You knocked already."]
    effects:
      - "when not held(obj): add knocked(obj)"
      - "forall x where on(x, obj) or in(x, obj): add knocked(x)"
    success: "Knock knock."
"""
OPPOSITE = {"north": "south", "east": "west", "up": "down"}


def random_world(seed: int) -> str:
    """A small classic world: a tree of 2-3 rooms, doors (one locked, its key on the near side),
    containers and supports, takeables, and 1-3 goals about them."""
    rng = random.Random(seed)
    rooms = [f"r{i}" for i in range(rng.randint(2, 3))]
    exits: dict[str, dict] = {r: {} for r in rooms}
    objects: dict[str, dict] = {}
    edges = []
    for i, room in enumerate(rooms[1:], 1):
        other = rooms[rng.randrange(i)]
        way = rng.choice([d for d in OPPOSITE if d not in exits[other] and OPPOSITE[d] not in exits[room]])
        edges.append((other, way, room))
    locked_edge = rng.randrange(len(edges)) if rng.random() < 0.5 else None
    for k, (a, way, b) in enumerate(edges):
        door = None
        if k == locked_edge or rng.random() < 0.3:
            door = f"door{k}"
            objects[door] = {"traits": ["door", "openable"] + (["lockable"] if k == locked_edge else [])}
            if k == locked_edge:
                objects[door].update(locked=True, key="key")
        exits[a][way] = {"to": b, "door": door} if door else b
        exits[b][OPPOSITE[way]] = {"to": a, "door": door} if door else a
    near = {rooms[0]}   # rooms reachable from the start without the locked door
    for k, (a, _way, b) in enumerate(edges):
        if k != locked_edge and a in near:
            near.add(b)
    holders = []
    for i in range(rng.randint(1, 2)):
        kind = rng.choice(["box", "table"])
        name = f"{kind}{i}"
        if kind == "box":
            objects[name] = {"traits": ["container"] + (["openable"] if rng.random() < 0.5 else []), "at": rng.choice(rooms)}
        else:
            objects[name] = {"traits": ["support"], "at": rng.choice(rooms)}
        holders.append(name)
    if locked_edge is not None:
        objects["key"] = {"traits": ["takeable"], "at": rng.choice(sorted(near))}
    things = []
    for i in range(rng.randint(1, 3)):
        name = f"thing{i}"
        place = rng.choice(["at", "at", "in", "on"])
        spot = [h for h in holders if ("container" if place == "in" else "support") in objects[h]["traits"]]
        objects[name] = {"traits": ["takeable"] + (["edible"] if rng.random() < 0.2 else []),
                         **({place: rng.choice(spot)} if place != "at" and spot else {"at": rng.choice(rooms)})}
        things.append(name)
    goals = set()
    knock = rng.random() < 0.3
    if knock:
        goals.add(f"knocked({rng.choice(things)})")
    for _ in range(rng.randint(1, 3) - knock):
        thing = rng.choice(things)
        holder = rng.choice(holders)
        choice = rng.random()
        if choice < 0.6:
            goals.add(f"{'in' if 'container' in objects[holder]['traits'] else 'on'}({thing}, {holder})")
        elif choice < 0.75:
            goals.add(f"at({thing}, {rng.choice(rooms)})")
        elif choice < 0.85 and "edible" in objects[thing]["traits"]:
            goals.add(f"eaten({thing})")
        elif locked_edge is not None:
            goals.add(f"{rng.choice(['', 'not '])}locked(door{locked_edge})")
        else:
            goals.add(f"at(player, {rng.choice(rooms)})")
    lines = [f"game: random{seed}", "start: r0", "rooms:"]
    lines += [f"  {r}: {{exits: {_flow(exits[r])}}}" for r in rooms]
    lines += ["objects:"] + [f"  {o}: {_flow(spec)}" for o, spec in objects.items()]
    lines += ["goal:"] + [f"  - {g}" for g in sorted(goals)]
    return "\n".join(lines + (KNOCK.splitlines() if knock else [])) + "\n"


def _flow(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def solvable_random_worlds(tmp_path: Path, count: int):
    """(path, world, par) for the first ``count`` seeds whose world our planner solves."""
    out = []
    seed = 0
    while len(out) < count:
        path = tmp_path / f"random{seed}.yaml"
        path.write_text(random_world(seed))
        seed += 1
        world = open_world(path)
        try:
            plan = Planner(world, max_nodes=50_000).solve()
        except PlannerLimit:
            continue
        if plan is not None and plan.par > 0:
            out.append((path, world, plan.par))
    return out


def test_random_worlds_load_and_mostly_solve(tmp_path):
    worlds = solvable_random_worlds(tmp_path, 5)
    assert {len(w.goals) for _p, w, _par in worlds} and all(par > 0 for *_, par in worlds)


# -- against Fast Downward ------------------------------------------------------------------
@pytest.fixture(scope="session")
def fast_downward() -> Path:
    """Fast Downward's driver script, from up-fast-downward (the [fd] extra)."""
    spec = module("up_fast_downward", "fd")   # found, never imported: its __init__ needs unified-planning
    return Path(list(spec.submodule_search_locations)[0]) / "downward" / "fast-downward.py"


def fd_plan(driver: Path, world, where: Path) -> tuple[list[list[str]], float]:
    """Fast Downward's optimal plan for ``world`` (one [action, arg, ...] per step) and its time."""
    domain, problem = write_pddl(world, where)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, str(driver), "--plan-file", "sas_plan", str(domain), str(problem),
                           "--search", FD_SEARCH], cwd=where, capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - t0
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = (where / "sas_plan").read_text().splitlines()
    return [ln.strip("()").split() for ln in lines if not ln.startswith(";")], seconds


def replay(world, steps: list[list[str]]) -> None:
    """Play Fast Downward's plan in our engine: every step is a move our planner could take (its
    arguments among those it grounds, typeable where the style says so) and the goals hold at the end."""
    ids = {pddl_name: eid for eid, pddl_name in to_pddl(world).names.items()}
    style = world.style
    st = world.initial
    for name, here, *args in steps:
        action = next(a for a in world.actions if a.id.lower() == name)
        env = {p: ids.get(v, v) for p, v in zip(action.params, args)}
        assert style.player_room(st) == ids.get(here, here)
        for p, kind in action.spec.params.items():
            assert env[p] in style.domains[kind](st), (name, env)
        assert style.plannable is None or style.plannable(action, env, st), (name, env)
        st, message, failed = action.attempt(st, env)
        assert failed is None, (name, env, message)
    assert all(g.holds(st) for g in world.goals)


@pytest.mark.fd
@pytest.mark.parametrize("name", ["tutorial", "house", str(TEST_WORLDS / "candle.yaml"), *CLEMBENCH])
def test_fast_downward_agrees_on_shipped_worlds(name, fast_downward, tmp_path):
    world = open_world(name)
    plan = Planner(world).solve()
    steps, _seconds = fd_plan(fast_downward, world, tmp_path)
    assert len(steps) == plan.par
    replay(world, steps)


@pytest.mark.fd
def test_fast_downward_agrees_on_random_worlds(fast_downward, tmp_path):
    worlds = solvable_random_worlds(tmp_path, RANDOM_WORLDS)
    mismatches = []
    for path, world, par in worlds:
        steps, _seconds = fd_plan(fast_downward, world, tmp_path / path.stem)
        if len(steps) != par:
            mismatches.append(f"{path.name}: Fast Downward {len(steps)}, par {par}")
        replay(world, steps)
    assert not mismatches, "\n".join(mismatches)
