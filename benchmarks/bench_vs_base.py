"""This checkout's engine against a base commit's, on the four workloads users feel.

    python benchmarks/bench_vs_base.py [--base df4d40e] [--rounds 5] [--only house,generated,reset,clembench]

A git worktree of ``--base`` is made in a temporary folder; each round runs
every workload once on each side, each in a fresh Python process (the base's
and ours alternate, and which goes first alternates by round: a machine
loaded by others moves both alike). Figures are CPU seconds of the timed part
(``time.process_time``), imports and the warm-up untimed; printed per round
and as ours/base speed ratios (above 1: ours is faster), with their range.

- ``house``: a random agent choosing among ``info["admissible_commands"]``
  through the Gymnasium env on ``house``, episodes of at most 100 steps;
- ``generated``: the same on the world of ``adventure generate --rooms 6
  --objects 12 --goals 2 --seed 1``, played every episode;
- ``reset``: ``reset()`` with ``generate=`` (6 rooms, 12 objects), each
  followed by one step: a new world per episode;
- ``clembench``: the 128 packaged clembench instances, each loaded cold and
  played along its ``optimal_commands`` with every observation read.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ("house", "generated", "reset", "clembench")

CHILD = r"""
import json, random, sys, time
workload, size = sys.argv[1], int(sys.argv[2])
try:   # the base's layout first (agents/, clembench/): a name missing from it is not looked up elsewhere
    from tui_adventure.agents.env import AdventureEnv
except ModuleNotFoundError:
    from tui_adventure.envs.env import AdventureEnv

def walk(env, steps):
    rng = random.Random(0)
    _, info = env.reset(seed=0)
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(rng.choice(info["admissible_commands"]))
        if terminated or truncated:
            _, info = env.reset()

if workload in ("house", "generated"):
    if workload == "house":
        world = "house"
    else:
        from tui_adventure.generate import Knobs, generated_world
        world = generated_world(Knobs.of({"rooms": 6, "objects": 12, "goals": 2}), 1)
    env = AdventureEnv(world=world, infos=("admissible_commands",), max_turns=100)
    walk(env, 200)   # the first world's load and a warm-up
    env = AdventureEnv(world=world, infos=("admissible_commands",), max_turns=100)
    t = time.process_time()
    walk(env, size)
    n = size
elif workload == "reset":
    env = AdventureEnv(generate={"rooms": 6, "objects": 12, "goals": 2}, infos=("admissible_commands",),
                       max_turns=100)
    _, info = env.reset(seed=0)
    t = time.process_time()
    for _ in range(size):
        _, info = env.reset()
        env.step(info["admissible_commands"][0])
    n = size
else:
    from tui_adventure.catalog import open_world
    try:
        from tui_adventure.clembench.packaged import names
    except ModuleNotFoundError:
        from tui_adventure.instances.packaged import names
    from tui_adventure.engine.game import Game
    chosen = names()
    t = time.process_time()
    n = 0
    for name in chosen:
        world = open_world(name)
        game = Game(world)
        for command in world.meta["instance"]["optimal_commands"]:
            game.step(command).observation
            n += 1
print(json.dumps({"n": n, "seconds": time.process_time() - t}))
"""

SIZES = {"house": 20_000, "generated": 20_000, "reset": 2_000, "clembench": 0}


def run(root: Path, workload: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", CHILD, workload, str(SIZES[workload])], env=env, cwd=root,
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{workload} failed in {root}:\n{out.stderr[-2000:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return got["n"] / got["seconds"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="df4d40e")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default=",".join(WORKLOADS))
    args = ap.parse_args()
    chosen = [w for w in args.only.split(",") if w]
    unknown = [w for w in chosen if w not in WORKLOADS]
    if unknown:
        sys.exit(f"unknown workload {unknown[0]!r}: choose among {', '.join(WORKLOADS)}")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base],
                       check=True, capture_output=True)
        try:
            ratios: dict[str, list[float]] = {w: [] for w in chosen}
            for r in range(args.rounds):
                for w in chosen:
                    sides = [("ours", ROOT), ("base", base)]
                    if r % 2:
                        sides.reverse()
                    rate = {name: run(root, w) for name, root in sides}
                    ratios[w].append(rate["ours"] / rate["base"])
                    print(f"round {r + 1} {w:<10} ours {rate['ours']:>10,.0f}/s  base {rate['base']:>10,.0f}/s"
                          f"  ratio {ratios[w][-1]:.3f}", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], capture_output=True)
    print("\nours/base speed (1.0: the same; above: faster)")
    for w, rs in ratios.items():
        print(f"  {w:<10} median {statistics.median(rs):.3f}  range {min(rs):.3f}-{max(rs):.3f}  ({len(rs)} rounds)")


if __name__ == "__main__":
    main()
