"""``adventure generate --flavour clembench``: instances in upstream's schema and home domain that our
loader, checker and game read, whose ``optimal_turns`` is our exact par, the same bytes from the same
command, and (with a clembench checkout in CLEMBENCH_HOME) that upstream's own interpreter plays our
par plan to every goal in exactly par turns."""

import contextlib
import importlib.util
import json
import os
import sys
import types
from pathlib import Path

import pytest

from conftest import adventure
from tui_adventure.instances.convert import load_world_file, world_from_instance
from tui_adventure.instances.packaged import INSTANCES, names_for
from tui_adventure.engine.facts import parse_fact
from tui_adventure.engine.game import Game
from tui_adventure.engine.planning.planner import Planner
from tui_adventure.generate import ClemKnobs, KnobError, generate_clembench
from tui_adventure.engine.planning.planner import Plan
from tui_adventure.generate.clembench_flavour import Adventure, definitions, instance, layouts, solve, typed_plan

UPSTREAM = json.loads(INSTANCES.read_text(encoding="utf-8"))
UPSTREAM_KEYS = list(UPSTREAM["experiments"][0]["game_instances"][0])


def instances_of(doc: dict) -> list[tuple[str, dict]]:
    return [(e["name"], i) for e in doc["experiments"] for i in e["game_instances"]]


def world_of(experiment: str, inst: dict):
    return world_from_instance(inst, experiment, names_for(inst))


def replay_ours(experiment: str, inst: dict) -> int | None:
    """The turn at which our game first has every goal, replaying ``optimal_commands``; fails on a failed step."""
    game = Game(world_of(experiment, inst))
    for turn, command in enumerate(inst["optimal_commands"], 1):
        r = game.step(command)
        assert r.fail is None, (experiment, inst["game_id"], turn, command, r.observation)
        if set(r.goals_achieved) == set(inst["goal_state"]):
            return turn
    return None


@pytest.mark.slow
def test_the_same_command_gives_the_same_bytes_in_any_process(in_tmp):
    args = ["generate", "--flavour", "clembench", "--count", "6", "--seed", "11", "--variant", "both"]
    one = adventure(*args, "--out", "a", env={"PYTHONHASHSEED": "1"}, subprocess=True)
    two = adventure(*args, "--out", "b", env={"PYTHONHASHSEED": "2"}, subprocess=True)
    assert one.returncode == two.returncode == 0, one.stderr
    a = sorted(p.relative_to(in_tmp / "a") for p in (in_tmp / "a").rglob("*") if p.is_file())
    b = sorted(p.relative_to(in_tmp / "b") for p in (in_tmp / "b").rglob("*") if p.is_file())
    assert a == b and len(a) == 2 + 12
    assert all((in_tmp / "a" / p).read_bytes() == (in_tmp / "b" / p).read_bytes() for p in a)
    assert "wrote a/instances.json and 12 world files" in one.stdout


def test_instances_have_upstreams_schema_and_share_adventures_across_variants():
    doc, made = generate_clembench(5, 3, ClemKnobs(variant="both"))
    assert list(doc) == ["experiments"]
    assert [e["name"] for e in doc["experiments"]] == ["home_deliver_three_basic_generated",
                                                       "home_deliver_three_planning_generated"]
    basic, planning = (e["game_instances"] for e in doc["experiments"])
    template = {v: (INSTANCES.parent.parent / "resources" / "initial_prompts" / f"{v}_prompt_done.template")
                .read_text(encoding="utf-8") for v in ("basic", "plan")}
    for b, p in zip(basic, planning):
        assert list(b) == list(p) == UPSTREAM_KEYS
        assert (b["variant"], p["variant"]) == ("basic", "plan")
        for k in ("initial_state", "goal_state", "optimal_turns", "optimal_commands", "optimal_solution"):
            assert b[k] == p[k]
        goal = b["prompt"].split("Your goal for this game is: ")[1].split("\n")[0]
        assert b["prompt"] == template["basic"].replace("$GOAL$", goal)
        assert p["prompt"] == template["plan"].replace("$GOAL$", goal)
        assert goal.startswith("Put the ") and goal.count(" the ") == 6
        assert b["action_definitions"] == ["basic_actions_v2.json"] and b["domain_definitions"] == ["home_domain.json"]
        assert b["max_turns"] == 50 and b["optimal_turns"] == len(b["optimal_commands"]) == len(b["optimal_solution"])
    assert [a["par"] for a in made["adventures"]] == [i["optimal_turns"] for i in basic]
    assert made["knobs"] == {"rooms": 6, "goals": 3, "variant": "both", "inventory_limit": None}
    limited, _ = generate_clembench(5, 3, ClemKnobs(inventory_limit=2))
    (exp,) = limited["experiments"]
    assert exp["name"] == "home_deliver_three_basic_generated_invlimittwo"
    for b, inst in zip(basic, exp["game_instances"]):
        assert inst["initial_state"] == b["initial_state"] and inst["goal_state"] == b["goal_state"]
        assert inst["action_definitions"] == ["basic_actions_v2_invlimit.json"]
        assert inst["domain_definitions"] == ["home_domain_invlimit.json"]
        assert "You can have up to two objects in your inventory at the same time." in inst["prompt"]


def test_upstreams_own_layouts_are_among_those_its_rules_allow():
    """Our reading of home_rooms.json's exit rules admits every layout of upstream's 32 adventures."""
    allowed = {edges for _, edges in layouts(6)}
    order = [r["type_name"] for r in definitions().rooms]
    for _, inst in instances_of(UPSTREAM):
        passages = set()
        for f in inst["initial_state"]:
            if f.startswith("exit("):
                a, b = (x[:-1] for x in f[5:-1].split(","))
                passages.add(tuple(sorted((a, b), key=order.index)))
        assert tuple(sorted(passages, key=lambda p: (order.index(p[0]), order.index(p[1])))) in allowed
    assert len(allowed) == 16


@pytest.mark.parametrize("knobs", [ClemKnobs(), ClemKnobs(rooms=3, goals=2), ClemKnobs(rooms=4, goals=5),
                                   ClemKnobs(goals=4, inventory_limit=2)])
def test_adventures_follow_the_home_domain_and_our_par_plan_reaches_every_goal_at_par(knobs):
    doc, _ = generate_clembench(6, 20, knobs)
    entities = {e["type_name"]: e for e in definitions().entities}
    for experiment, inst in instances_of(doc):
        facts = [parse_fact(f) for f in inst["initial_state"]]
        rooms = {f[1]: f[2] for f in facts if f[0] == "room"}
        at = {f[1]: f[2] for f in facts if f[0] == "at"}
        types_ = {f[1]: f[2] for f in facts if f[0] == "type"}
        assert len(rooms) == knobs.rooms and len(set(rooms.values())) == knobs.rooms
        for ident, t in types_.items():
            if t in entities and "standard_locations" in entities[t]:
                assert rooms[at[ident]] in entities[t]["standard_locations"]
                if "openable" in entities[t]["traits"]:
                    assert ("closed", ident) in facts
            if ("needs_support", ident) in facts:
                (holder,) = [f[2] for f in facts if f[0] in ("on", "in") and f[1] == ident]
                assert at[holder] == at[ident]
        goals = [parse_fact(g) for g in inst["goal_state"]]
        assert len(goals) == knobs.goals and len({g[1] for g in goals}) == knobs.goals
        for pred, thing, target in goals:
            assert ("takeable", thing) in facts and types_[target] != "floor"
            assert (pred, thing, target) not in facts and ("container" if pred == "in" else "support", target) in facts
        world = world_of(experiment, inst)
        assert Planner(world).solve().par == inst["optimal_turns"]
        assert replay_ours(experiment, inst) == inst["optimal_turns"]


def test_the_inventory_limit_is_respected_by_the_par_plan():
    doc, _ = generate_clembench(6, 40, ClemKnobs(goals=4, inventory_limit=2))
    for experiment, inst in instances_of(doc):
        game = Game(world_of(experiment, inst))
        for command in inst["optimal_commands"]:
            assert game.step(command).fail is None
            assert sum(1 for f in game.state.facts if f[0] == "in" and f[2] == "inventory") <= 2
        assert game.all_goals_achieved()


def two_places() -> dict:
    """A plate lying on both the counter and the table (as upstream's ``put`` leaves a thing), to go
    on the pantry's shelf: taking it must name the place it is taken from."""
    facts = ["at(kitchen1floor1,kitchen1)", "at(pantry1floor1,pantry1)", "at(counter1,kitchen1)",
             "at(table1,kitchen1)", "at(shelf1,pantry1)", "at(plate1,kitchen1)", "at(player1,kitchen1)",
             "type(kitchen1floor1,floor)", "type(pantry1floor1,floor)", "type(player1,player)",
             "type(counter1,counter)", "type(table1,table)", "type(shelf1,shelf)", "type(plate1,plate)",
             "room(kitchen1,kitchen)", "room(pantry1,pantry)", "support(kitchen1floor1)", "support(pantry1floor1)",
             "support(counter1)", "support(table1)", "support(shelf1)", "on(plate1,counter1)", "on(plate1,table1)",
             "exit(kitchen1,pantry1)", "exit(pantry1,kitchen1)", "takeable(plate1)", "movable(plate1)",
             "needs_support(plate1)"]
    adv = Adventure(0, 0, facts, ["on(plate1,shelf1)"], "Put the plate on the shelf.")
    assert solve(adv, False)
    return instance(adv, 0, "basic", False)


def test_a_thing_on_two_places_is_taken_from_one_named_and_a_floor_is_never_named():
    inst = two_places()
    assert inst["optimal_turns"] == 3 and inst["optimal_commands"][0] in ("take plate from counter",
                                                                            "take plate from table")
    assert inst["optimal_solution"][0][:2] == ["take", "plate1"] and len(inst["optimal_solution"][0]) == 3
    assert replay_ours("home_deliver_one_basic_generated", inst) == 3
    world = world_of("home_deliver_one_basic_generated", inst)
    onto_floor = Plan(["put plate on floor"], [("put", {"e": "plate1", "t": "kitchen1floor1"})])
    assert typed_plan(world, onto_floor) is None


@pytest.mark.slow
def test_world_files_check_import_and_play(in_tmp):
    out = adventure("generate", "--flavour", "clembench", "--count", "3", "--seed", "5", "--inventory-limit", "2",
                    "--variant", "planning", "--out", "g")
    assert out.returncode == 0, out.stderr
    files = sorted((in_tmp / "g").rglob("*.yaml"))
    assert [p.parent.name for p in files] == ["home_deliver_three_planning_generated_invlimittwo"] * 3
    checked = adventure("check", *map(str, files))
    assert checked.returncode == 0 and checked.stdout.count(": ok") == 3, checked.stdout + checked.stderr
    doc = json.loads((in_tmp / "g" / "instances.json").read_text())
    made = json.loads((in_tmp / "g" / "generated.json").read_text())
    assert made["generator"] == "tui-adventure clembench" and made["knobs"]["inventory_limit"] == 2
    for path, (_experiment, inst) in zip(files, instances_of(doc)):
        world = load_world_file(path)
        assert world.meta["instance"] == inst and world.meta["optimal_turns"] == inst["optimal_turns"]
        assert world.ruleset.name == "adventuregame_invlimit"
    imported = adventure("import", "clembench", str(in_tmp / "g" / "instances.json"), "--out", "x")
    assert imported.returncode == 0, imported.stderr
    again = sorted((in_tmp / "x").rglob("*.yaml"))
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in files]
    script = adventure("script", str(files[0]), stdin="\n".join(doc["experiments"][0]["game_instances"][0]
                                                                ["optimal_commands"]) + "\n")
    assert script.returncode == 0, script.stderr
    run = adventure("run", "g", "--player", "oracle", "--records", "rec")
    assert run.returncode == 0, run.stdout + run.stderr
    scored = adventure("score", "rec")
    assert scored.returncode == 0, scored.stderr
    scores = sorted((in_tmp / "rec").rglob("scores.json"))
    assert len(scores) == 3
    for s in scores:
        episode = json.loads(s.read_text())["episode scores"]
        assert episode["Success"] == 1 and episode["turns_over_par"] == 1   # oracle's par turns, then "done"
        assert episode["par_given"] == episode["par_exact"]


@pytest.mark.slow
def test_par_ranges_are_honoured_or_refused_clearly():
    doc, made = generate_clembench(4, 0, ClemKnobs(), par=(17, 19))
    assert all(17 <= a["par"] <= 19 for a in made["adventures"])
    assert any(a["attempt"] > 0 for a in made["adventures"])
    with pytest.raises(KnobError, match=r"no adventure with par in 60\.\.70 .*par ranged"):
        generate_clembench(1, 0, ClemKnobs(rooms=2, goals=1), par=(60, 70))   # small drafts: cheap to refuse


@pytest.mark.parametrize("args, says", [
    (["--rooms", "7"], "--rooms must be from 2 to 6"),
    (["--goals", "0"], "--goals must be from 1 to 11"),
    (["--inventory-limit", "3"], "only have a limit of 2"),
    (["--objects", "5"], "--objects: classic knobs"),
    (["--split", "test"], "too small for held-out splits"),
    (["--par", "90..99"], "no adventure with par in 90..99"),
])
def test_knobs_that_cannot_make_an_adventure_are_one_clear_line(in_tmp, monkeypatch, args, says):
    from tui_adventure.generate import clembench_flavour

    monkeypatch.setattr(clembench_flavour, "MAX_ATTEMPTS", 20)   # the message, not the count, is said here
    out = adventure("generate", "--flavour", "clembench", "--out", "w", *args)
    assert out.returncode == 2 and says in out.stderr, out.stderr
    assert not (in_tmp / "w").exists() or not any((in_tmp / "w").iterdir())


def test_classic_refuses_clembench_knobs(in_tmp):
    out = adventure("generate", "--variant", "planning", "--out", "w")
    assert out.returncode == 2 and "clembench flavour" in out.stderr


# -- upstream's own interpreter ------------------------------------------------------------------
@contextlib.contextmanager
def _upstream_interpreter():
    """clembench's ``AdventureIFInterpreter`` from CLEMBENCH_HOME, imported with clemcore's real
    ``GameResourceLocator`` but without clemcore's package ``__init__`` (which needs its model backends)."""
    from clemcore_check import _modules

    home = Path(os.environ["CLEMBENCH_HOME"]) / "adventuregame"
    if not (home / "if_wrapper.py").is_file():
        pytest.fail(f"CLEMBENCH_HOME={os.environ['CLEMBENCH_HOME']}: no adventuregame/if_wrapper.py there")
    for module in ("lark", "jinja2"):
        if importlib.util.find_spec(module) is None:
            pytest.fail(f"upstream's interpreter needs {module}: {sys.executable} -m pip install lark jinja2")
    resources = _modules()["resources"]
    saved = {k: v for k, v in sys.modules.items() if k in ("clemcore", "clemcore.clemgame", "if_wrapper", "adv_util")}
    root, game = types.ModuleType("clemcore"), types.ModuleType("clemcore.clemgame")
    game.GameResourceLocator = resources.GameResourceLocator
    root.clemgame = game
    sys.modules.update({"clemcore": root, "clemcore.clemgame": game})
    sys.path.insert(0, str(home))
    try:
        sys.modules.pop("if_wrapper", None)
        import if_wrapper
        yield lambda inst: if_wrapper.AdventureIFInterpreter(str(home), inst)
    finally:
        sys.path.remove(str(home))
        for k in ("clemcore", "clemcore.clemgame", "if_wrapper", "adv_util"):
            sys.modules.pop(k, None)
        sys.modules.update(saved)


@pytest.mark.skipif(not os.environ.get("CLEMBENCH_HOME"), reason="needs a clembench checkout in CLEMBENCH_HOME")
@pytest.mark.parametrize("count, seed, knobs", [
    (10, 0, ClemKnobs()),
    (8, 100, ClemKnobs(variant="planning", inventory_limit=2)),
    (6, 200, ClemKnobs(rooms=4, goals=5)),
    (6, 300, ClemKnobs(rooms=3, goals=2, inventory_limit=2)),
    (4, 400, ClemKnobs(goals=8)),
    (6, 500, ClemKnobs(goals=4, inventory_limit=2)),
])
def test_upstreams_interpreter_plays_our_par_plan_to_every_goal_in_exactly_par_turns(count, seed, knobs):
    doc, _ = generate_clembench(count, seed, knobs)
    cases = instances_of(doc) + ([("two_places", two_places())] if seed == 0 else [])
    with _upstream_interpreter() as interpreter:
        for experiment, inst in cases:
            game = interpreter(inst)
            first = None
            for turn, command in enumerate(inst["optimal_commands"], 1):
                achieved, text, info = game.process_action(command)
                assert "fail_type" not in info, (experiment, inst["game_id"], turn, command, text)
                if first is None and set(achieved) == set(inst["goal_state"]):
                    first = turn
            assert first == inst["optimal_turns"], (experiment, inst["game_id"], inst["optimal_commands"])
