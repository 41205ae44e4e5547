"""A story file as a Gymnasium environment: gymnasium.make, the env checker, score as reward, endings."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import tui_adventure  # noqa: F401  (registers the ids)
from needs import module
from stories import STORIES, walkthrough


@pytest.fixture
def make():
    module("jericho", "zmachine")
    made = []

    def make(name: str, **kwargs):
        env = gymnasium.make("tui_adventure/World-v0", world=str(STORIES / name), **kwargs)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()


def test_gymnasiums_checker_passes_on_a_story_file(make):
    check_env(make("lighthouse.z5").unwrapped, skip_render_check=True)


def test_the_walkthrough_earns_the_score_as_reward_and_terminates_won(make):
    env = make("lighthouse.z5")
    obs, info = env.reset(seed=0)
    assert "Score:" not in obs and info["score"] == 0 and info["max_score"] == 30 and info["moves"] == 0
    assert info["location"] and "admissible_commands" not in info   # an uncatalogued game lists none
    rewards, ended = [], None
    for command in walkthrough("lighthouse"):
        obs, reward, terminated, truncated, info = env.step(command)
        rewards.append(reward)
        if terminated or truncated:
            ended = (terminated, truncated)
            break
    assert ended == (True, False)
    assert sum(rewards) == 30 and rewards[1] == 5 and info["score"] == 30
    assert info["turn"] == len(walkthrough("lighthouse"))
    with pytest.raises(RuntimeError):
        env.step("look")


def test_a_loss_terminates_and_keeps_the_score(make):
    env = make("cellar.z5", reward="win")
    env.reset()
    lose = [line.strip() for line in (STORIES / "cellar.lose").read_text().splitlines() if line.strip()]
    rewards, terminated = [], False
    for command in lose:
        _, reward, terminated, truncated, info = env.step(command)
        rewards.append(reward)
        if terminated:
            break
    assert terminated and sum(rewards) == 0 and info["score"] == 15


def test_the_turn_limit_truncates_and_inventory_is_read_without_a_move(make):
    env = make("tower.z3", max_turns=2)
    _, info = env.reset()
    assert info["inventory"] and info["moves"] == 0
    env.step("look")
    _, _, terminated, truncated, info = env.step("look")
    assert (terminated, truncated) == (False, True) and info["moves"] == 2


def test_what_a_story_file_cannot_do_is_one_clear_error(make):
    with pytest.raises(ValueError, match="progress"):
        make("lighthouse.z5", reward="progress")
    with pytest.raises(ValueError, match="unknown info 'par'"):
        make("lighthouse.z5", infos=["par"])


def test_a_saved_state_branches_the_story(make):
    env = make("lighthouse.z5")
    env.reset()
    env.step("open chest")
    saved = env.unwrapped.get_state()
    _, reward, *_ = env.step("take key from chest")
    env.step("west")
    env.unwrapped.set_state(saved)
    _, again, _, _, info = env.step("take key from chest")
    assert reward == again == 5 and info["score"] == 5 and info["turn"] == 2 and info["location"] == "Beach"


def test_a_house_env_cannot_be_switched_to_a_story_file(make):
    env = gymnasium.make("tui_adventure/house-v0")
    env.reset()
    with pytest.raises(ValueError, match="a story file plays in its own environment"):
        env.reset(options={"world": str(STORIES / "lighthouse.z5")})
    env.close()
