"""Scenes: characters with rules, random tables, timed events and losing, exactly plannable."""

from __future__ import annotations

import asyncio
import json

import pytest

from conftest import TEST_WORLDS, adventure
from needs import module

from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world, load_world_text
from tui_adventure.engine.planning.planner import Planner
from tui_adventure.engine.yamlpos import SourceErrors
from reference import bfs

BRIDGE = TEST_WORLDS / "scene_bridge.yaml"
CROSSING = ["take coin", "north", "give coin to troll", "east", "take crown"]


def play(world, commands):
    game = Game(world)
    return game, [game.step(c) for c in commands]


def test_a_character_answers_and_opens_the_gate_for_a_coin():
    game, results = play(load_world(BRIDGE), ["take coin", "north", "talk to troll", "ask troll about the gate",
                                              "east", "give coin to troll", "east"])
    said = [r.observation for r in results]
    assert "A big grey troll leans on the gate" in said[2]
    assert said[3].startswith("Gate's mine.")
    assert "locked" in said[4] or "closed" in said[4]
    assert "swings the gate open" in said[5]
    assert said[6].startswith("Tower")
    rule = next(call for call in results[5].scene if call.get("character") == "troll")
    assert rule["character"] == "troll" and rule["arguments"]["after"] == "give"
    assert ["locked", "gate"] in rule["results"]["removed"]


def test_the_tide_drowns_a_dawdler_and_the_game_is_lost():
    game, results = play(load_world(BRIDGE), ["look"] * 9)
    assert results[-1].lost and "The sea sweeps you off the beach" in results[-1].observation
    assert "The tide rushes in" in results[-1].observation
    assert game.lost


def test_a_seed_fixes_every_draw_and_another_seed_changes_them():
    text = BRIDGE.read_text()
    weather = []
    for seed in (7, 7, 8, 9, 10):
        world = load_world_text(text.replace("seed: 7", f"seed: {seed}"), "bridge.yaml")
        _, results = play(world, ["look"] * 8)
        weather.append([r.observation.splitlines()[-1] for r in results if "weather turns" in r.observation])
    assert weather[0] == weather[1] and len(weather[0]) == 2
    assert any(w != weather[0] for w in weather[2:])


def test_par_is_exact_and_agrees_with_unpruned_bfs():
    world = load_world(BRIDGE)
    plan = Planner(world).solve()
    assert plan.par == 5 and plan.commands[2] == "give silver coin to troll"
    assert bfs(Planner(world, shortcuts=False)).par == plan.par
    _, results = play(world, plan.commands)
    assert results[-1].done and not any(r.lost for r in results)


SMALL = """
game: race
start: a
rooms:
  a: {description: Room A., exits: {east: b}}
  b: {description: Room B., exits: {west: a, east: c}}
  c: {description: Room C., exits: {west: b}}
objects:
  flag: {traits: [takeable], at: c}
  stone: {traits: [takeable], at: a}
events:
  - {id: bridge, at: AT, do: ["add broken(b)"], message: The floor of B gives way.}
  - {id: gust, every: 2, when: "held(stone)", do: ["add windy(a)"], message: A gust.}
lose:
  - {when: "at(player, b) and broken(b)", message: You fall.}
goal: [held(flag)]
"""


@pytest.mark.parametrize("at", [1, 2, 3, 4, 6])
def test_timed_events_and_losing_keep_par_exact_against_bfs(at):
    world = load_world_text(SMALL.replace("AT", str(at)), "race.yaml")
    try:
        astar = Planner(world).solve()
    except Exception as exc:   # pragma: no cover - shown if it happens
        raise AssertionError(exc) from exc
    plain = bfs(Planner(world, shortcuts=False))
    assert (astar is None) == (plain is None)
    if astar is not None:
        assert astar.par == plain.par
        _, results = play(world, astar.commands)
        assert results[-1].done and not any(r.lost for r in results)


def test_records_say_the_game_was_lost_and_score_it(tmp_path):
    from tui_adventure.batches.episodes import play_episode
    from tui_adventure.gamemaster.scoring import score_tree
    from tui_adventure.players.programmatic import ScriptedPlayer

    world = load_world(BRIDGE)
    asyncio.run(play_episode(world, ScriptedPlayer(["look"] * 12), tmp_path / "records"))
    folder = next((tmp_path / "records").rglob("interactions.json")).parent
    events = [e["action"]["type"] for turn in json.loads((folder / "interactions.json").read_text())["turns"]
              for e in turn]
    assert "game_lost" in events and "scene_function" in events
    assert len(json.loads((folder / "interactions.json").read_text())["turns"]) == 9
    score_tree(tmp_path / "records")
    scores = json.loads((folder / "scores.json").read_text())["episode scores"]
    assert scores["Lose"] == 1 and scores["Success"] == 0 and scores["Main Score"] == 0 and scores["Aborted"] == 0


BROKEN = [
    ("characters:\n  troll: {at: nowhere}\n", "needs at: a room"),
    ("events:\n  - {message: hi}\n", "needs at: N, every: K, when: CONDITION"),
    ("events:\n  - {at: 0, message: hi}\n", "turn number from 1"),
    ("events:\n  - {every: 2, draw: {dice: d}}\n", "tables: none"),
    ("lose:\n  - {message: bye}\n", "when: is required"),
    ("events:\n  - {when: 'at(player', message: hi}\n", "when:"),
    ("tables:\n  dice: []\n", "needs a non-empty list"),
    ("characters:\n  troll: {at: beach, rules: [{after: ask, say: hi}]}\n", "after: is for a character's rules"),
]


@pytest.mark.parametrize("extra, message", BROKEN)
def test_a_broken_scene_names_the_place_and_the_fix(tmp_path, extra, message):
    base = "game: b\nstart: beach\nrooms:\n  beach: {description: Sand.}\nobjects: {}\ngoal: [at(player, beach)]\n"
    path = tmp_path / "broken.yaml"
    path.write_text(base + extra)
    with pytest.raises(SourceErrors) as err:
        load_world(path)
    assert message in str(err.value) and "broken.yaml:" in str(err.value)


def test_check_and_solve_on_a_scene_world():
    result = adventure("check", str(BRIDGE))
    assert result.returncode == 0, result.stderr
    result = adventure("solve", str(BRIDGE))
    assert result.returncode == 0 and "give silver coin to troll" in result.stdout
    assert "for seed 7 (it fixes every draw" in result.stdout


def test_the_gym_environment_terminates_a_lost_game():
    module("gymnasium", "gym")
    import gymnasium

    from tui_adventure.envs.env import AdventureEnv

    env = AdventureEnv(world=str(BRIDGE))
    env.reset(seed=0)
    for _ in range(9):
        _obs, reward, terminated, truncated, _info = env.step("look")
    assert terminated and not truncated and reward == 0.0
    assert gymnasium is not None


def test_the_repl_says_the_game_is_lost(tmp_path):
    result = adventure("repl", str(BRIDGE), "--records", str(tmp_path / "records"), stdin="look\n" * 9, cwd=tmp_path)
    assert "lost after 9 turns: The sea sweeps you off the beach" in result.stdout


@pytest.mark.slow
def test_the_shipped_labyrinth_scene_checks_solves_and_plays(tmp_path):
    from conftest import WORLDS

    result = adventure("run", str(WORLDS / "labyrinth.yaml"), "--player", "oracle,oracle", "--records",
                       str(tmp_path / "records"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert adventure("score", str(tmp_path / "records"), cwd=tmp_path).returncode == 0
    oracle = next((tmp_path / "records" / "oracle+oracle").rglob("scores.json"))
    scores = json.loads(oracle.read_text())["episode scores"]
    assert scores["par_exact"] == 14   # the planner's par, counting both players' turns
    assert scores["Success"] == 1 and scores["turns_over_par"] == 1


@pytest.mark.slow
def test_the_labyrinth_against_bfs_and_with_mixed_seats(tmp_path):
    from conftest import WORLDS

    world = load_world(WORLDS / "labyrinth.yaml")
    assert bfs(Planner(world, shortcuts=False)).par == 14
    result = adventure("run", str(WORLDS / "labyrinth.yaml"), "--player", "oracle,random:3", "--records",
                       str(tmp_path / "records"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert next((tmp_path / "records" / "oracle+random-3").rglob("completed.json")).exists()


def test_a_misspelt_predicate_in_a_scene_or_a_bad_carrier_is_named(tmp_path):
    text = BRIDGE.read_text()
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace("when: held_by(coin, troll)", "when: hold_by(coin, troll)")
                        .replace("    at: tower\n  coin:", "    held_by: trol\n  coin:"))
    with pytest.raises(SourceErrors) as err:
        load_world(path)
    message = str(err.value)
    assert "'hold_by' is no predicate of this world; did you mean 'held_by'?" in message
    assert "held_by names a character, not 'trol'; did you mean 'troll'?" in message
