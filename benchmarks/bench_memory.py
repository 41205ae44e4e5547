"""How much a long run grows the process: the figures behind docs/architecture.md's cache bounds.

    python benchmarks/bench_memory.py [--commands 100000] [--worlds 3000]

- **commands**: one Gymnasium env on ``house`` (admissible commands asked for), a
  warm-up, then that many distinct commands (every one a new text: what a model
  typing does), the episode reset every 100 steps. Bound: under 8 MB.
- **worlds**: an env with ``generate=`` (6 rooms, 12 objects), a warm-up of 100
  resets, then that many resets, each with a few steps. Bound: under 5 MB.

Growth is the resident set (``/proc/self/statm``) after less before, in a
process of its own per figure, after a collection at both ends.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def commands(n: int) -> float:
    from tui_adventure.envs.env import AdventureEnv

    env = AdventureEnv(world="house", infos=("admissible_commands",), max_turns=1000)
    env.reset(seed=0)
    verbs = ["take", "examine", "open", "drop", "go", "put"]

    def run(start: int, count: int) -> None:
        for i in range(start, start + count):
            if i % 100 == 0:
                env.reset()
            env.step(f"{verbs[i % len(verbs)]} thing{i}")

    run(0, 2_000)
    gc.collect()
    before = rss_mb()
    run(2_000, n)
    gc.collect()
    return rss_mb() - before


def worlds(n: int) -> float:
    from tui_adventure.envs.env import AdventureEnv

    env = AdventureEnv(generate={"rooms": 6, "objects": 12, "goals": 2}, infos=("admissible_commands",),
                       max_turns=50)
    _, info = env.reset(seed=0)

    def run(count: int) -> None:
        nonlocal info
        for _ in range(count):
            _, info = env.reset()
            for _ in range(3):
                _, _, terminated, truncated, info = env.step(info["admissible_commands"][0])
                if terminated or truncated:
                    break

    run(100)
    gc.collect()
    before = rss_mb()
    run(n)
    gc.collect()
    return rss_mb() - before


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commands", type=int, default=100_000)
    ap.add_argument("--worlds", type=int, default=3_000)
    ap.add_argument("--child", choices=["commands", "worlds"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        grown = commands(args.commands) if args.child == "commands" else worlds(args.worlds)
        print(json.dumps(grown))
        return
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for kind, n, bound in (("commands", args.commands, 8), ("worlds", args.worlds, 5)):
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", kind, f"--{kind}", str(n)], env=env,
                             capture_output=True, text=True, check=True)
        grown = json.loads(out.stdout)
        print(f"{n:>7,} {kind:<9} grew the process by {grown:6.1f} MB (bound {bound} MB)")


if __name__ == "__main__":
    main()
