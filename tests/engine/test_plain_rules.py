"""TUI_ADVENTURE_PLAIN_RULES=1 runs every rule as plain closures: every shipped world plays the same.

Each shipped world is played in a Python of its own both ways (the switch is read at import): along
its solution, then a seeded walk over its admissible commands and some odd commands; clembench
instances along their optimal commands. Every observation, goal change and done must be the same.
"""

import pytest
import json
import os
import subprocess
import sys

from conftest import ROOT

CHILD = r"""
import json, random, sys
from pathlib import Path
from tui_adventure.catalog import open_world
from tui_adventure.instances.packaged import names
from tui_adventure.engine.game import Game
from tui_adventure.engine.planning import Planner
from tui_adventure.engine.rules import logic

root = Path(sys.argv[1])
out = {"plain": logic.PLAIN_RULES}
odd = ["take all", "drop it", "examine it", "xyzzy", "open it", "look", "inventory", "done"]
for path in sorted((root / "worlds").glob("*.yaml")):
    world = open_world(str(path))
    game = Game(world)
    solution = root / "worlds" / "solutions" / (path.stem + ".txt")
    commands = [c.strip() for c in solution.read_text().splitlines() if c.strip()] if solution.exists() else []
    seen = []
    for c in commands:
        r = game.step(c)
        seen.append([c, r.observation, r.goals_achieved, r.goal_score, r.done, r.fail])
    rng = random.Random(7)
    game = Game(world)
    planner = Planner(world)
    for _ in range(60):
        c = rng.choice(planner.admissible_commands(game.state) + odd)
        r = game.step(c)
        seen.append([c, r.observation, r.goals_achieved, r.goal_score, r.done, r.fail])
    out[path.stem] = seen
for name in names()[::8]:
    world = open_world(name)
    game = Game(world)
    out[name] = [[c, game.step(c).observation] for c in world.meta["instance"]["optimal_commands"] + ["look"]]
print(json.dumps(out))
"""


def _played(plain: bool) -> dict:
    env = {**os.environ, "TUI_ADVENTURE_PLAIN_RULES": "1" if plain else "0"}
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT)], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.slow
def test_every_shipped_world_plays_the_same_with_plain_rules():
    generated, plain = _played(False), _played(True)
    assert (generated.pop("plain"), plain.pop("plain")) == (False, True)
    assert set(generated) == set(plain) and len(generated) > 10
    for name in generated:
        assert plain[name] == generated[name], name
