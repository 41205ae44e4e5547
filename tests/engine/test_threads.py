"""Worlds of one ruleset played in threads share the ruleset's tables (its compiled rules, shapes,
steps, layouts) and the process's immutable caches: each thread gets exactly what its worlds give
when played alone (observations, states, scores, admissible commands), however finely the threads
are interleaved. See docs/architecture.md, "Threads"."""

from __future__ import annotations

import pytest

import json
import subprocess
import sys

from conftest import ROOT

# Plays each seed's worlds (generated afresh, so loading and compiling race too) in a fresh process,
# one after another ("alone") or each seed in a thread of its own ("threads"), switching threads as
# often as the interpreter allows.
PLAY = """
import json, random, sys, threading
mode, seeds, episodes, steps = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sys.setswitchinterval(1e-6)
from tui_adventure.engine.game import Game
from tui_adventure.engine.planning import Planner
from tui_adventure.generate import Knobs, generated_world

def play(seed, out):
    got = []
    for episode in range(episodes):
        world = generated_world(Knobs(rooms=6, objects=12, goals=2), seed * 100 + episode, solve=False)
        planner = Planner(world)
        game = Game(world)
        rng = random.Random(seed)
        rows = [game.first_observation()]
        for _ in range(steps):
            commands = planner.admissible_commands(game.state)
            command = rng.choice(commands)
            result = game.step(command)
            rows.append([commands, command, result.observation, result.done, result.goal_score,
                         sorted(map(list, game.state.facts))])
        got.append({"rows": rows, "achieved": game.goals_achieved()})
    out[seed] = got

out = {}
if mode == "alone":
    for seed in seeds:
        play(seed, out)
else:
    threads = [threading.Thread(target=play, args=(seed, out)) for seed in seeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
print(json.dumps({str(seed): out.get(seed) for seed in seeds}))
"""

SEEDS = [1, 2, 3, 4]


def played(mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PLAY, mode, json.dumps(SEEDS), "3", "30"], capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


@pytest.mark.slow
def test_worlds_of_one_ruleset_in_threads_play_as_each_alone():
    alone, threaded = played("alone"), played("threads")
    assert all(alone[str(seed)] for seed in SEEDS)
    for seed in SEEDS:
        assert threaded[str(seed)] == alone[str(seed)], f"seed {seed} played differently in a thread"
