"""A long random walk on one world, with Python's cyclic collector as it comes and as a trainer may set it.

    python benchmarks/bench_collector.py [--rounds 10] [--steps 20000] [--pairs coin,cooking]

The env keeps what a walk meets (the admissible commands per state, each
turn's outcome), so its memos grow through a long run, and each full
collection of the cyclic collector walks all of them, though a walk leaves
nothing for it to free (``tests/engine/test_world_freed.py``). Settings,
each in a process of its own, one after the other, the same walks (round r
seeded r, after a warm-up walk):

- ``default``: the collector as Python starts it;
- ``thresholds``: ``gc.set_threshold(50_000, 20, 100)`` before the walk;
- ``freeze``: ``gc.freeze()`` after each round (what is alive is left out of
  later collections);
- ``off``: ``gc.disable()``, the bound.

Prints steps per second of wall clock per round, the collector's share of
each round (``gc.callbacks``), and the settings' rates over all rounds.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

SETTINGS = ("default", "thresholds", "freeze", "off")


def walk(pair: str, setting: str, rounds: int, steps: int) -> dict:
    from bench_vs_twx import CAP, our_world, random_agent, timed
    from tui_adventure.envs.env import AdventureEnv

    env = AdventureEnv(world=our_world(pair), infos=("admissible_commands",), max_turns=CAP)
    random_agent(env, random.Random(99), 2_000)
    if setting == "thresholds":
        gc.set_threshold(50_000, 20, 100)
    elif setting == "off":
        gc.disable()
    rates, shares, wall_all, steps_all, collector_all = [], [], 0.0, 0, 0.0
    for r in range(rounds):
        n, wall, _cpu, collector = timed(lambda r=r: random_agent(env, random.Random(r), steps))
        rates.append(n / wall)
        shares.append(collector / wall)
        wall_all += wall
        steps_all += n
        collector_all += collector
        if setting == "freeze":
            gc.freeze()
    return {"rates": rates, "shares": shares, "all": steps_all / wall_all, "collector": collector_all / wall_all}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--steps", type=int, default=20_000)
    ap.add_argument("--pairs", default="coin,cooking", help="coin: the generated 12-object world; cooking: house")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(walk(args.child[0], args.child[1], args.rounds, args.steps)))
        return
    for pair in args.pairs.split(","):
        print(f"{pair}: {args.rounds} rounds of {args.steps:,} steps, steps a second by wall clock (collector's share)")
        for setting in SETTINGS:
            out = subprocess.run([sys.executable, __file__, "--child", pair, setting, "--rounds", str(args.rounds),
                                  "--steps", str(args.steps)], capture_output=True, text=True, check=True)
            got = json.loads(out.stdout)
            rounds = "  ".join(f"{r:,.0f} ({s:.0%})" for r, s in zip(got["rates"], got["shares"]))
            print(f"  {setting:10} all {got['all']:>9,.0f} ({got['collector']:.0%})   rounds: {rounds}")


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    if "--child" not in sys.argv:
        print(f"({time.perf_counter() - started:.0f} s)")
