"""The exact planner at scale: time and peak memory per generated world, and the ratio to Fast Downward.

    python benchmarks/bench_planner.py [--sizes 8/20/3,36/60/5,...] [--seeds 3] [--budget 60] [--fd]

Worlds come from ``adventure generate``'s classic generator (a grid of rooms,
a third of the passages with doors, a sixth locked with their keys elsewhere,
containers, supports, things to carry, goals "put X in/on Y"), one per size
and seed. Each search runs in a fresh process, so its peak memory (max RSS,
less the process's size before the search) is its own; h0, the heuristic's
estimate at the start, shows how far below par the search begins. A search that
exceeds the budget reports par's proven bounds instead. With ``--fd`` and
the ``up-fast-downward`` package installed, Fast Downward's optimal planner
(A* with h_max: the export writes doors and reach as axioms, which LM-cut
refuses, as tests/engine/test_pddl.py does) solves the same world from
``adventure export pddl``, with the same budget, and the ratio is printed
where both found par.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = "8/20/3,16/30/4,25/45/5,36/60/5,42/70/6,49/80/6,64/120/8"

CHILD = r"""
import json, resource, sys, time
from tui_adventure.engine.loading.loader import load_world_text
from tui_adventure.engine.planning.planner import Planner, PlannerLimit
world = load_world_text(open(sys.argv[1]).read(), sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
cpu = time.process_time()
planner = Planner(world, max_seconds=float(sys.argv[2]), max_nodes=10**9)
h0 = planner.h(world.initial) if planner.h else 0
try:
    plan = planner.solve()
    out = {"par": plan.par, "expanded": plan.expanded}
except PlannerLimit as exc:
    out = {"par": None, "lower_bound": exc.lower_bound, "expanded": exc.expanded}
out["seconds"] = time.perf_counter() - t
out["cpu"] = time.process_time() - cpu
out["h0"] = h0
out["peak_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps(out))
"""


def ours(path: Path, budget: float) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), str(budget)], capture_output=True, text=True,
                          timeout=budget * 3 + 60)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout)


def fast_downward(path: Path, budget: float) -> dict | None:
    """Fast Downward's optimal plan length and time, or None when it (or the PDDL export) is missing."""
    try:
        from tui_adventure.export.pddl import write_pddl
    except ImportError:
        return None
    spec = importlib.util.find_spec("up_fast_downward")   # its __init__ needs unified-planning: never imported
    if spec is None:
        return None
    from tui_adventure.catalog import open_world

    fd = Path(list(spec.submodule_search_locations)[0]) / "downward" / "fast-downward.py"
    with tempfile.TemporaryDirectory() as tmp:
        write_pddl(open_world(str(path)), Path(tmp))
        t = time.perf_counter()
        try:
            subprocess.run([sys.executable, str(fd), "--plan-file", f"{tmp}/plan", f"{tmp}/domain.pddl",
                            f"{tmp}/problem.pddl", "--search", "astar(hmax())"], capture_output=True,
                           timeout=budget, cwd=tmp)
        except subprocess.TimeoutExpired:
            return {"par": None, "seconds": budget}
        seconds = time.perf_counter() - t
        plan = Path(tmp, "plan")
        if not plan.exists():
            return {"par": None, "seconds": seconds}
        steps = [ln for ln in plan.read_text().splitlines() if ln.startswith("(")]
        return {"par": len(steps), "seconds": seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sizes", default=SIZES, help="rooms/objects/goals, comma-separated")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per search")
    ap.add_argument("--fd", action="store_true", help="also run Fast Downward (needs up-fast-downward)")
    args = ap.parse_args()
    from tui_adventure.generate import Knobs
    from tui_adventure.generate.classic import draft, dump

    print(f"{'world':>12} {'seed':>4} {'h0':>4} {'par':>10} {'expanded':>9} {'seconds':>8} {'cpu s':>7} {'peak MB':>8}"
          + ("  FD par  FD s  ratio" if args.fd else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            r, o, g = (int(x) for x in size.split("/"))
            knobs = Knobs(rooms=r, objects=o, goals=g, doors=r // 3, locked=r // 6).resolved()
            for seed in range(args.seeds):
                path = Path(tmp, f"w{r}_{o}_{g}_{seed}.yaml")
                path.write_text(dump(draft(knobs, seed).doc))   # the draft: solving it is what is measured
                res = ours(path, args.budget)
                if "error" in res:
                    print(f"{size:>12} {seed:>4} error: {res['error']}")
                    continue
                par = str(res["par"]) if res["par"] is not None else f">= {res['lower_bound']}"
                line = (f"{size:>12} {seed:>4} {res['h0']:>4} {par:>10} {res['expanded']:>9} {res['seconds']:>8.2f}"
                        f" {res['cpu']:>7.2f} {res['peak_mb']:>8.0f}")
                if args.fd:
                    fd = fast_downward(path, args.budget)
                    if fd is None:
                        line += "  (FD or the PDDL export is not installed)"
                    else:
                        both = res["par"] is not None and fd["par"] is not None
                        ratio = f"{fd['seconds'] / res['seconds']:>6.1f}x" if both else "     -"
                        line += f"  {str(fd['par'] or '-'):>6} {fd['seconds']:>5.1f} {ratio}"
                print(line, flush=True)


if __name__ == "__main__":
    main()
