"""The Gymnasium environment as a training loop uses it: Gymnasium's own checker, ids after
``import tui_adventure``, seeds that reproduce across processes, rewards, branching, vector envs."""

import json
import subprocess
import sys

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import tui_adventure  # noqa: F401  (registers the ids)
from tui_adventure.envs.env import AdventureEnv
from tui_adventure.engine.planning.planner import Planner


@pytest.mark.parametrize("world", ["house", "clembench/home_deliver_three_planning_easy/3"])
def test_gymnasiums_own_checker_passes(world):
    check_env(AdventureEnv(world=world), skip_render_check=True)


def test_a_generated_world_per_reset_passes_the_checker_too():
    env = AdventureEnv(generate={"rooms": 4, "objects": 8, "goals": 1}, infos=["par", "turn"])
    check_env(env, skip_render_check=True)
    first, _ = env.reset(seed=5)
    again, _ = env.reset(seed=5)
    other, _ = env.reset(seed=6)
    assert first == again and env.unwrapped.world.title   # the seed fixes the world drawn


@pytest.mark.parametrize("order", ["tui_adventure first", "gymnasium first"])
def test_the_ids_exist_after_import_in_either_order(order):
    imports = "import tui_adventure, gymnasium" if order == "tui_adventure first" else "import gymnasium, tui_adventure"
    code = (f"{imports}; env = gymnasium.make('tui_adventure/house-v0'); obs, info = env.reset(seed=0);"
            " print(info['par'], 'tui_adventure/clembench.home_deliver_three_basic_easy.0-v0' in gymnasium.registry)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["21", "True"]


def test_the_cli_does_not_import_gymnasium():
    code = "import sys, tui_adventure.cli; print('gymnasium' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False"


RANDOM_AGENT = """
import json, sys, gymnasium, tui_adventure
trails = []
for seed in json.loads(sys.argv[3]):   # a fresh env for each seed
    env = gymnasium.make(sys.argv[1], **json.loads(sys.argv[2]))
    obs, info = env.reset(seed=seed)
    trail = [obs]
    for _ in range(25):
        commands = info["admissible_commands"]
        action = commands[int(env.unwrapped.np_random.integers(len(commands)))]
        obs, reward, terminated, truncated, info = env.step(action)
        trail.append([action, obs, reward, terminated, truncated])
        if terminated or truncated:
            break
    trail.append(env.action_space.sample())
    trails.append(trail)
print(json.dumps(trails))
"""


@pytest.mark.slow
@pytest.mark.parametrize("env_id, kwargs", [("tui_adventure/house-v0", {}),
                                            ("tui_adventure/World-v0", {"generate": {"rooms": 5, "objects": 10,
                                                                                     "goals": 2}})])
def test_the_same_seed_gives_the_same_trajectory_in_two_processes(env_id, kwargs):
    runs = [subprocess.run([sys.executable, "-c", RANDOM_AGENT, env_id, json.dumps(kwargs), seeds],
                           capture_output=True, text=True, timeout=120, env={"PYTHONHASHSEED": str(i),
                                                                             **_env()})
            for i, seeds in enumerate(["[7, 8]", "[7]"])]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr
    (one, other), (two,) = (json.loads(r.stdout) for r in runs)
    assert one == two and one != other and len(one) > 3


def _env():
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}


def _play(env, commands):
    out = []
    for c in commands:
        out.append(env.step(c))
    return out


def test_rewards_terminated_and_truncated_mean_what_they_say():
    plan = Planner(AdventureEnv(world="house").world).solve().commands
    for kind, total in (("goal", 3.0), ("win", 1.0), ("progress", 1.0)):
        env = AdventureEnv(world="house", reward=kind, infos=["goal_score"])
        env.reset(seed=0)
        steps = _play(env, plan)
        assert sum(s[1] for s in steps) == pytest.approx(total), kind
        assert steps[-1][2] is True and not any(s[2] for s in steps[:-1])   # terminated on the winning step
    env = AdventureEnv(world="house", max_turns=3, infos=["turn"])
    env.reset(seed=0)
    steps = _play(env, ["look", "look", "look"])
    assert [s[3] for s in steps] == [False, False, True] and not steps[-1][2]
    with pytest.raises(RuntimeError, match="reset"):
        env.step("look")


def test_clembench_rules_are_upstreams_when_asked():
    env = AdventureEnv(world="clembench/home_deliver_three_basic_easy/0", rules="clembench", infos=["turn"])
    obs, _ = env.reset(seed=0)
    assert obs.startswith("You are playing a text adventure game")   # the instance's prompt, as a model reads it
    obs, reward, terminated, truncated, _ = env.step("> take pillow")
    assert not terminated and "pillow" in obs
    obs, reward, terminated, truncated, _ = env.step("take plate")   # no ">": upstream aborts the episode
    assert terminated and not truncated and "aborted" in obs


def test_get_state_set_state_and_fork_branch_exactly():
    env = AdventureEnv(world="house", infos=["goals_achieved", "turn"])
    env.reset(seed=3)
    env.step("go north")
    saved = env.get_state()
    a = [s[0] for s in _play(env, ["open fridge", "go east", "take apple"])]
    env.set_state(saved)
    b = [s[0] for s in _play(env, ["open fridge", "go east", "take apple"])]
    assert a == b
    env.set_state(saved)
    branch = env.fork()
    branch.step("go south")
    obs, *_ = env.step("open fridge")
    assert "fridge" in obs.lower() and branch.game.turn == env.game.turn == 2
    assert branch.game.state is not env.game.state


def test_vector_envs_step_in_lockstep():
    envs = gymnasium.vector.SyncVectorEnv([lambda: AdventureEnv(world="house", infos=["turn"])] * 2)
    obs, info = envs.reset(seed=[1, 2])
    assert len(obs) == 2 and obs[0] == obs[1]
    obs, reward, terminated, truncated, info = envs.step(["go north", "go west"])
    assert obs[0] != obs[1] and list(info["turn"]) == [1, 1]
    envs.close()


def _house():
    return AdventureEnv(world="house", infos=["turn"])


@pytest.mark.slow
def test_async_vector_envs_run_in_their_own_processes():
    # shared_memory=False: Gymnasium 1.4 reads a Text space back from shared memory as empty (all padding)
    envs = gymnasium.vector.AsyncVectorEnv([_house, _house], context="spawn", shared_memory=False)
    try:
        obs, info = envs.reset(seed=[1, 2])
        obs, reward, terminated, truncated, info = envs.step(["go north", "go west"])
        assert obs[0] != obs[1] and list(info["turn"]) == [1, 1]
    finally:
        envs.close()


@pytest.mark.slow
def test_a_random_walk_keeps_one_copy_of_each_state_it_meets():
    """A state met again by a new way is a new object equal to the known one; the env plays on from
    the known one, and the copy must not stay alive in the step's memo: a trainer's long run would
    keep a third more states than it met (and the collector would walk them all)."""
    import gc
    import random

    from tui_adventure.engine.facts import State
    from tui_adventure.engine.loading import load_world_text
    from tui_adventure.generate import Knobs, generate_world

    world = load_world_text(generate_world(Knobs(rooms=6, objects=12, goals=2), 1).text, "<generated>")
    env = AdventureEnv(world=world, infos=("admissible_commands",), max_turns=100)
    gc.collect()
    alive_before = sum(type(o) is State for o in gc.get_objects())
    rng = random.Random(0)
    for _ in range(600):   # about 6,000 steps: a random agent says "done" one turn in ten
        _, info = env.reset()
        for _ in range(100):
            _, _, terminated, truncated, info = env.step(rng.choice(info["admissible_commands"]))
            if terminated or truncated:
                break
    gc.collect()
    alive = sum(type(o) is State for o in gc.get_objects()) - alive_before
    met = env._commands.misses
    assert met > 500   # the walk met many states, a good share of them again by new ways
    assert alive <= met * 1.1 + 20, (alive, met)
