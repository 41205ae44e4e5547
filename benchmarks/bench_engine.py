"""Engine speed on the native worlds: steps/s, load time, exact par time.

    python benchmarks/bench_engine.py [--seconds 3]

Steps are `Game.step(command)` with goal tracking (every step reports the goals
achieved and the change in their number). "warm" replays the optimal plan over
and over (memoised parses and room texts hit, as when a player or a model
revisits states); "cold" clears every memo before each episode and mixes in
random admissible commands, so every state is new. Figures are CPU time.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from tui_adventure.engine.game import Game
from tui_adventure.engine.loading import load_world
from tui_adventure.engine.planning import Planner

ROOT = Path(__file__).resolve().parent.parent


def clear_memos(world) -> None:
    for name in ("_descriptions", "_scopes"):
        getattr(world.style, name, {}).clear()
    world.parser._memo.clear()


def steps_per_second(world, episodes, seconds: float, cold: bool) -> float:
    n = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        for commands in episodes:
            if cold:
                clear_memos(world)
            game = Game(world)
            for c in commands:
                game.step(c)
            n += len(commands)
    return n / (time.process_time() - t0)


def random_episode(world, rng: random.Random, length: int) -> list[str]:
    planner = Planner(world)
    game = Game(world)
    out = []
    for _ in range(length):
        c = rng.choice(planner.admissible_commands(game.state))
        game.step(c)
        out.append(c)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    for name in ("tutorial", "house", "manor"):
        path = ROOT / "worlds" / f"{name}.yaml"
        t = time.perf_counter()
        world = load_world(path)
        load_ms = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        plan = Planner(world).solve()
        par_s = time.perf_counter() - t
        print(f"{name}: load {load_ms:.1f} ms; exact par {plan.par} in {par_s:.3f} s ({plan.expanded} states)")
        warm = steps_per_second(world, [plan.commands], args.seconds, cold=False)
        rng = random.Random(7)
        mixed = [plan.commands, random_episode(world, rng, 40), random_episode(world, rng, 40)]
        cold = steps_per_second(world, mixed, args.seconds, cold=True)
        print(f"  steps/s with goal tracking: warm {warm:,.0f}, cold {cold:,.0f}")


if __name__ == "__main__":
    main()
