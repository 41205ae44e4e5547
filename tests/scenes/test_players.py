"""Several players in one world: turns go round, seats are played by any mix of players, PettingZoo's AEC."""

from __future__ import annotations

import json

import pytest

from conftest import TEST_WORLDS, adventure
from needs import module

from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world, load_world_text
from tui_adventure.engine.planning.planner import Planner
from tui_adventure.engine.yamlpos import SourceErrors
from reference import bfs

TWO = TEST_WORLDS / "scene_two.yaml"


def test_turns_go_round_and_each_player_has_their_own_place_and_things():
    game = Game(load_world(TWO))
    east = game.step("east")
    assert east.observation.startswith("Vault") and "Bo here" in east.observation
    assert east.observation.endswith("It is now Bo's turn.")
    bo = game.step("look")
    assert bo.observation.startswith("Vault") and "Ava here" in bo.observation   # Bo's own view
    give = game.step("give key to bo")
    assert "You give the iron key to Bo." in give.observation
    assert "iron key" in game.step("inventory").observation   # Bo's turn: he holds it now


def test_joint_par_is_exact_against_bfs():
    world = load_world(TWO)
    plan = Planner(world).solve()
    assert plan.par == bfs(Planner(world, shortcuts=False)).par == 9
    game = Game(world)
    assert [game.step(c) for c in plan.commands][-1].done


@pytest.mark.slow
def test_a_seat_per_player_in_any_mix(tmp_path):
    for spec in ("oracle,random:3", "oracle,oracle"):
        result = adventure("run", str(TWO), "--player", spec, "--records", str(tmp_path / "r"), cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    assert adventure("score", str(tmp_path / "r"), cwd=tmp_path).returncode == 0
    scores = json.loads(next((tmp_path / "r" / "oracle+oracle").rglob("scores.json")).read_text())["episode scores"]
    assert scores["Success"] == 1 and scores["turns_over_par"] == 1   # the plan, then a closing done
    result = adventure("run", str(TWO), "--player", "oracle,oracle,oracle", "--records", str(tmp_path / "r"),
                       cwd=tmp_path)
    assert "give one spec per player" in result.stdout + result.stderr


@pytest.mark.parametrize("world", [TWO, "labyrinth"])
def test_pettingzoos_own_api_and_seed_tests_pass(world):
    module("pettingzoo", "gym")
    import warnings

    from pettingzoo.test import api_test, seed_test
    from tui_adventure.envs.multi import decode, env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # its advice on agent names and Box actions, not failures
        api_test(env(str(world), observation="bytes"), num_cycles=40)
        seed_test(lambda: env(str(world), observation="bytes"), num_cycles=20)
    as_text, as_bytes = env(str(world)), env(str(world), observation="bytes")
    as_text.reset(seed=2)
    as_bytes.reset(seed=2)
    for command in ("look", "inventory"):
        as_text.step(command)
        as_bytes.step(command)
        assert decode(as_bytes.observe(as_bytes.agent_selection)) == as_text.observe(as_text.agent_selection)


@pytest.mark.slow
def test_records_name_each_player_as_clemcores_multi_player_games_do(tmp_path):
    from clemcore_check import require_clemcore, transcribe_all

    result = adventure("run", str(TWO), "--player", "oracle,random:3", "--records", str(tmp_path / "r"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    episode = next((tmp_path / "r").rglob("interactions.json")).parent
    data = json.loads((episode / "interactions.json").read_text())
    assert data["players"]["Player 1"] == {"game_role": "Adventurer (ava)", "model_name": "oracle"}
    assert data["players"]["Player 2"] == {"game_role": "Adventurer (bo)", "model_name": "random-3"}
    movers = [e["from"] for turn in data["turns"] for e in turn if e["action"]["type"] == "get message"]
    assert movers[:4] == ["Player 1", "Player 2", "Player 1", "Player 2"]
    for k in (1, 2):
        calls = json.loads((episode / f"player_{k}.requests.json").read_text())
        assert calls["meta"]["player_name"] == f"Player {k}"
        assert len(calls["calls"]) == movers.count(f"Player {k}")
    assert adventure("score", str(tmp_path / "r"), cwd=tmp_path).returncode == 0
    scores = json.loads((episode / "scores.json").read_text())
    assert len(scores["turn scores"]) == len(movers)
    from tui_adventure.records.files import read_episode

    recorded = read_episode(episode)   # what replay and score read back: every player's replies, in turn order
    assert len(recorded.replies) == len(movers)
    game = Game(recorded.world)
    results = [game.step(r.lstrip("> ")) for r in recorded.replies]
    assert results[-1].done or game.all_goals_achieved()
    require_clemcore()
    transcripts = transcribe_all(tmp_path / "r")
    assert len(transcripts) == 1 and "Player 2" in transcripts[0].read_text()


def test_the_pettingzoo_environment_runs_the_turns():
    module("pettingzoo", "gym")
    from tui_adventure.envs.multi import env

    aec = env(str(TWO))
    aec.reset(seed=1)
    plan = iter(Planner(aec.world).solve().commands)
    seen = []
    for agent in aec.agent_iter(max_iter=50):
        _obs, reward, terminated, truncated, _info = aec.last()
        action = None if terminated or truncated else next(plan)
        seen.append((agent, reward))
        aec.step(action)
    assert [a for a, _ in seen[:4]] == ["ava", "bo", "ava", "bo"]
    assert seen[-2:] == [("bo", 1.0), ("ava", 1.0)]   # shared goals: both are rewarded, both terminated


@pytest.mark.parametrize("players, message", [
    ("players:\n  - {id: ava}\n", "two or more players"),
    ("players:\n  - {id: ava, start: vault}\n  - {id: bo}\n", "the first player starts at start:"),
    ("players:\n  - {id: ava}\n  - {id: bo, start: attic}\n", "needs start: a room"),
])
def test_bad_players_are_named(players, message):
    base = ("game: p\nstart: hall\nrooms:\n  hall: {description: A hall., exits: {east: vault}}\n"
            "  vault: {description: A vault., exits: {west: hall}}\nobjects: {}\ngoal: [at(player, vault)]\n")
    with pytest.raises(SourceErrors) as err:
        load_world_text(base + players, "p.yaml")
    assert message in str(err.value) and "p.yaml:" in str(err.value)


@pytest.mark.slow
async def test_hot_seat_in_the_app_shows_the_panels_of_the_player_whose_turn_it_is(tmp_path):
    from pilot import type_line

    from tui_adventure.app import make_app
    from tui_adventure.widgets.panels import RoomPanel

    app = make_app(TWO, records=tmp_path / "records", saves=tmp_path / "saves", cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        panels = app.screen.query_one(RoomPanel).data
        assert panels.room == "Hall" and panels.inventory == ["iron key"] and panels.player == "human: Ava's turn"
        await type_line(pilot, "east")
        panels = app.screen.query_one(RoomPanel).data
        assert panels.room == "Vault" and panels.inventory == [] and panels.player == "human: Bo's turn"
