"""CPU instructions per cold step, by callgrind: the engine's speed as a figure that reproduces.

    python benchmarks/bench_instructions.py [--world house] [--worlds 100] [--seeds 0,1] [--read]
    python benchmarks/bench_instructions.py --world clembench --worlds 2 --read
    python benchmarks/bench_instructions.py --resets 30
    python benchmarks/bench_instructions.py --walk generated [--replay]

Timings of identical runs on a shared 2-core VM differ by 10-20%, and the
same commit runs a house step cold at 101,700 steps/s on one VM and at
81,000-87,000 on another of the same size. Instruction counts do not move
with the machine or its load: this script counts them, so a change can be
judged by one run and a target stated once for every machine.

A cold step is what ``bench_cold.py`` times: a freshly loaded world and a new
``Game`` replay the world's solution. Before counting, a first world of each is
played once: an action's code is written and compiled on its first try, once
a process, as ``bench_cold.py``'s first pass does it (before 2026-11-28 only
loaded, so those counts include that once-a-process work: 132,564 against
114,612 instructions a clembench step at a958931). Each count runs a child under valgrind's
callgrind twice, loading ``--worlds`` worlds with and without their replays,
and divides the difference by the steps played, so loading is not counted.
The child turns the collector off (no collection lands in a cold replay's
steps when it is timed either: every one is set off while a world loads) and
leaves by ``os._exit``, so the interpreter's last collection is not counted.
Set iteration order, and so the count, depends on the hash seed by about 1.5%:
each seed in ``--seeds`` is counted (two at a time, one a core) and the mean
printed. Needs valgrind (``apt-get install valgrind``); a count takes a minute
or two.

``--read`` reads every step's observation too (the engine renders a message
only when it is read: an episode reads every one). ``--world clembench``
replays each of the 128 packaged clembench instances' ``optimal_commands``
on a newly built world, ``--worlds`` times over: what ``bench_cold.py`` sets
against upstream's interpreter. ``--resets N`` counts a Gymnasium env's
``generate=`` reset instead (a new 6-room world each, as ``bench_vs_twx.py``
times them): N resets less none, after a few that fill the caches.
``--walk generated|house`` counts a warm step instead: ``bench_vs_twx.py``'s
random agent on the admissible commands through the Gymnasium env (the
generated world is its coin pair's), a second round of 10,000 steps after a
first, less the first alone, collector on as there; ``--replay`` walks the
first round's walk again, so every step is a memo hit. A child runs
``python -c``, so it imports ``tui_adventure`` from the current directory
first: to count another commit, run this from that commit's checkout.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import gc, os, sys
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world
path, solution, n, play, read = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5] == "1"
if path == "clembench":   # every packaged instance, its optimal commands
    from tui_adventure.instances import packaged
    names = packaged.names()
    experiments = packaged.experiments()
    runs = [(lambda name=name: packaged.world(name),
             experiments[name.split("/")[1]][int(name.split("/")[2])]["optimal_commands"]) for name in names]
else:
    commands = [c.strip() for c in open(solution, encoding="utf-8").read().split("\\n") if c.strip()]
    runs = [(lambda: load_world(path), commands)]
for make, commands in runs:   # a first world of each, played, fills the per-ruleset caches every later
    game = Game(make())          # one shares: an action's code is written and compiled on its first try,
    for c in commands:           # once a process (in both counts, so it cancels out)
        game.step(c).observation
gc.disable()
for _ in range(n):
    for make, commands in runs:
        world = make()
        if play:
            game = Game(world)
            for c in commands:
                r = game.step(c)
                if read:
                    r.observation
os._exit(0)
"""


RESETS = """
import gc, os, sys
from tui_adventure.envs.env import AdventureEnv
env = AdventureEnv(generate=dict(rooms=6, objects=12, goals=2), infos=(), max_turns=100)
env.reset(seed=1)
for _ in range(5):
    env.reset()
gc.disable()
for _ in range(int(sys.argv[1])):
    env.reset()
os._exit(0)
"""


WALK = """
import os, random, sys
sys.path.insert(0, sys.argv[4])
from bench_vs_twx import CAP, generated_world, random_agent
from tui_adventure.envs.env import AdventureEnv
from tui_adventure.catalog import open_world
which, rounds, steps, replay = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[5] == "1"
world = generated_world() if which == "generated" else open_world(which)
env = AdventureEnv(world=world, infos=("admissible_commands",), max_turns=CAP)
for r in range(rounds):
    random_agent(env, random.Random(0 if replay else r), steps)
os._exit(0)
"""


def walk(world: str, steps: int, seed: int, replay: bool) -> float:
    def count(rounds: int) -> int:
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c",
                              WALK, world, str(rounds), str(steps), str(ROOT / "benchmarks"), "1" if replay else "0"],
                             capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED=str(seed)), check=True)
        return int(re.search(r"Collected\s*:\s*(\d+)", out.stderr).group(1))
    return (count(2) - count(1)) / steps


def resets(n: int, seed: int) -> float:
    def count(k: int) -> int:
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c",
                              RESETS, str(k)], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONHASHSEED=str(seed)), check=True)
        return int(re.search(r"Collected\s*:\s*(\d+)", out.stderr).group(1))
    return (count(n) - count(0)) / n


def collected(path: Path, solution: Path, n: int, play: bool, seed: int, read: bool = False) -> int:
    """The instructions callgrind counted in one child."""
    env = dict(os.environ, PYTHONHASHSEED=str(seed))
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, "-c", CHILD, str(path), str(solution), str(n), "1" if play else "0",
                          "1" if read else "0"],
                         capture_output=True, text=True, env=env, check=True)
    m = re.search(r"Collected\s*:\s*(\d+)", out.stderr)
    if m is None:
        sys.exit(f"callgrind printed no count:\n{out.stderr[-2000:]}")
    return int(m.group(1))


def per_step(path: Path, solution: Path, n: int, seed: int, steps: int, read: bool = False) -> float:
    return (collected(path, solution, n, True, seed, read) - collected(path, solution, n, False, seed)) / (n * steps)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--world", default="house", help="a world under worlds/ with a solution in worlds/solutions/")
    ap.add_argument("--worlds", type=int, default=100, help="worlds loaded (and replayed) per count")
    ap.add_argument("--seeds", default="0,1", help="hash seeds, comma-separated: the mean is printed")
    ap.add_argument("--read", action="store_true", help="read every step's observation (renders its message)")
    ap.add_argument("--resets", type=int, default=0, help="count a generate= reset instead, over this many")
    ap.add_argument("--walk", default="", help="count a warm random-agent step on this world (generated, house)")
    ap.add_argument("--replay", action="store_true", help="with --walk: the first round's walk again (memo hits)")
    ap.add_argument("--steps", type=int, default=10_000, help="with --walk: steps a round")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    if args.walk:
        seeds = [int(s) for s in args.seeds.split(",")]
        with ThreadPoolExecutor(max_workers=2) as pool:
            counts = list(pool.map(lambda s: walk(args.walk, args.steps, s, args.replay), seeds))
        kind = "the same walk again" if args.replay else "a new walk"
        for seed, c in zip(seeds, counts):
            print(f"hash seed {seed}: {c:,.0f} instructions a warm {args.walk} step ({kind})")
        print(f"mean: {sum(counts) / len(counts):,.0f} instructions a warm {args.walk} step ({kind}, round 2 of"
              f" {args.steps:,}, admissible commands, collector on)")
        return
    if args.resets:
        seeds = [int(s) for s in args.seeds.split(",")]
        with ThreadPoolExecutor(max_workers=2) as pool:
            counts = list(pool.map(lambda s: resets(args.resets, s), seeds))
        print(f"mean: {sum(counts) / len(counts):,.0f} instructions a generate= reset (6 rooms, collector off)")
        return
    if args.world == "clembench":
        from tui_adventure.instances import packaged

        path = solution = Path("clembench")
        steps = sum(len(packaged.experiments()[n.split("/")[1]][int(n.split("/")[2])]["optimal_commands"])
                    for n in packaged.names())
    else:
        path = ROOT / "worlds" / f"{args.world}.yaml"
        solution = ROOT / "worlds" / "solutions" / f"{args.world}.txt"
        if not path.is_file() or not solution.is_file():
            sys.exit(f"no world {path} with a solution {solution}")
        steps = sum(1 for c in solution.read_text(encoding="utf-8").split("\n") if c.strip())
    seeds = [int(s) for s in args.seeds.split(",")]
    with ThreadPoolExecutor(max_workers=2) as pool:   # a child a core
        counts = list(pool.map(lambda s: per_step(path, solution, args.worlds, s, steps, args.read), seeds))
    read = ", observations read" if args.read else ""
    for seed, c in zip(seeds, counts):
        print(f"hash seed {seed}: {c:,.0f} instructions a cold {args.world} step{read}")
    print(f"mean: {sum(counts) / len(counts):,.0f} instructions a cold {args.world} step{read}"
          f" ({args.worlds} worlds x {steps} steps, collector off, loading not counted)")


if __name__ == "__main__":
    main()
