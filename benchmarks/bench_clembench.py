"""clembench adventuregame figures: load, replay speed, exact par for all 128 instances.

    python benchmarks/bench_clembench.py [--instances PATH] [--list]

Upstream builds its interpreter in ~0.55 s per instance, replays ~400 steps/s
and its clingo solver takes 4-60 s per adventure. Here: the imported world
files are loaded with `load_world`, the instance's `optimal_commands` replayed
with `Game.step` (CPU time), and the exact optimum found with the planner
(identical problems, such as the basic and planning variants of one
adventure, are solved once). `--list` prints every instance whose optimum is
shorter than upstream's `optimal_turns`, with the shorter plan.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tui_adventure.instances.convert import import_instances
from tui_adventure.engine.game import Game
from tui_adventure.instances.convert import load_world_file as load_world
from tui_adventure.engine.planning import Planner

ROOT = Path(__file__).resolve().parent.parent
from tui_adventure.instances.packaged import INSTANCES as DEFAULT  # noqa: E402  (the copy that ships)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", default=str(DEFAULT))
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        files = import_instances(args.instances, tmp)
        print(f"import: {len(files)} world files in {time.perf_counter() - t:.2f} s")
        t = time.perf_counter()
        worlds = [load_world(f) for f in files]
        load = (time.perf_counter() - t) / len(files)
        print(f"load: {load * 1000:.1f} ms per instance (upstream ~550 ms)")

    n = 0
    t = time.process_time()
    for w in worlds:
        game = Game(w)
        for c in w.meta["instance"]["optimal_commands"]:
            game.step(c)
            n += 1
    print(f"replay of optimal_commands: {n / (time.process_time() - t):,.0f} steps/s over {n} steps (upstream ~400)")

    t = time.perf_counter()
    solved: dict = {}
    rows = []
    for w in worlds:
        key = (w.ruleset.name, w.initial.facts, tuple(map(str, w.goals)))
        if key not in solved:
            solved[key] = Planner(w).solve()
        rows.append((w, solved[key]))
    total = time.perf_counter() - t
    shorter = [(w, p) for w, p in rows if p is not None and p.par < w.meta["optimal_turns"]]
    unsolvable = [w for w, p in rows if p is None]
    print(f"exact par: {len(rows)} instances ({len(solved)} distinct problems) in {total:.2f} s")
    print(f"shorter than upstream's optimal_turns: {len(shorter)} instances;"
          f" no plan exists: {', '.join(w.title for w in unsolvable) or 'none'}")
    adventures = {(w.meta['experiment'].replace('_invlimittwo', '').replace('planning', 'basic'), w.meta['game_id'])
                  for w, _ in shorter if 'invlimit' not in w.meta['experiment']}
    print(f"  of the unlimited adventures: {len(adventures)} of 32 have a shorter optimum")
    if args.list:
        for w, p in shorter:
            print(f"{w.title}: upstream {w.meta['optimal_turns']}, exact {p.par}: {'; '.join(p.commands)}")


if __name__ == "__main__":
    main()
