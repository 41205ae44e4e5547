"""Cold replay speed: our `Game.step` against upstream's interpreter, side by side in one process.

    python benchmarks/bench_cold.py [--repeat 5] [--limit N] [--seconds 3]
    CLEMBENCH_HOME=/path/to/clembench python benchmarks/bench_cold.py

"Cold" is what a new episode of a benchmark meets: every instance's world is
built afresh (not timed) and its `optimal_commands` replayed once on a new
`Game`, so no memo of an earlier replay can help. Upstream has no memos, so its
interpreter is always cold: it is built for the instance the way its game
master does (`AdventureIFInterpreter(game_path, instance)`, not timed) and
every command goes through `process_action`, as `_on_valid_player_response`
sends it. The two engines alternate instance by instance, so a busy machine
slows both alike. Figures are CPU time of the steps alone.

Upstream's interpreter needs `lark` and `jinja2`, and its `GameResourceLocator`
from clemcore (3.7.2, installed with `--no-deps`): clemcore's package
``__init__`` files import its whole runtime, so they are stubbed, as in
``tests/clemcore_check.py``, and only ``clemcore.clemgame.resources`` is loaded.
Building upstream's interpreter takes about half a second per instance, so
the whole comparison takes a minute or two.

house.yaml is replayed with its solution cold (a freshly loaded world per
episode) and warm (one world, its memos filled by the replays before).

The engine renders a step's message only when ``observation`` is read (upstream
always renders it), so the cold figures are printed twice: observations unread,
as a replay or a planner check uses the engine, and every observation read, as
an episode does. Load times (building a world) are printed beside them; they are
not in the step figures.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType

from tui_adventure.instances import packaged
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading import load_world

ROOT = Path(__file__).resolve().parent.parent
HINT = ("set CLEMBENCH_HOME to a clembench checkout (git clone https://github.com/clp-research/clembench)"
        " and install upstream's interpreter's needs beside ours: pip install lark jinja2 &&"
        " pip install --no-deps clemcore==3.7.2")


def upstream_interpreter(home: Path):
    """Upstream's `AdventureIFInterpreter` class, imported from the checkout without clemcore's runtime."""
    spec = importlib.util.find_spec("clemcore")
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"clemcore is not installed: {HINT}")
    pkg = Path(next(iter(spec.submodule_search_locations)))
    for name, folder in (("clemcore", pkg), ("clemcore.clemgame", pkg / "clemgame")):
        stub = ModuleType(name)
        stub.__path__ = [str(folder)]
        sys.modules[name] = stub
    resources = importlib.import_module("clemcore.clemgame.resources")
    sys.modules["clemcore.clemgame"].GameResourceLocator = resources.GameResourceLocator
    sys.path.insert(0, str(home / "adventuregame"))
    from if_wrapper import AdventureIFInterpreter  # noqa: E402  (upstream's, from CLEMBENCH_HOME)
    return AdventureIFInterpreter


def instances(limit: int | None) -> list[tuple[str, dict]]:
    out = [(name, exp[gid]) for name in packaged.names()
           for exp, gid in [(packaged.experiments()[name.split("/")[1]], int(name.split("/")[2]))]]
    return out[:limit] if limit else out


def ours_cold(name: str, commands: list[str], read: bool = False) -> tuple[float, float]:
    """(CPU seconds of the steps, of building the world). ``read``: every observation is read too
    (the engine renders a message only when it is read, so a replay that reads none renders none).

    Each side starts with the collector's debts paid: the two interpreters run in turn in one
    process, and a full collection set off by one side's garbage would otherwise land in the
    other's timed steps (it moved our figure with observations read by a third between runs)."""
    gc.collect()
    t = time.process_time()
    world = packaged.world(name)          # built afresh: no memo of another replay
    load = time.process_time() - t
    t = time.process_time()
    game = Game(world)
    for c in commands:
        r = game.step(c)
        if read:
            _ = r.observation
    return time.process_time() - t, load


def upstream_cold(interpreter, game_path: str, inst: dict) -> tuple[float, float]:
    gc.collect()   # as ours_cold
    t = time.process_time()
    it = interpreter(game_path, inst)
    load = time.process_time() - t
    t = time.process_time()
    for c in inst["optimal_commands"]:
        it.process_action(c)
    return time.process_time() - t, load


def house(seconds: float) -> dict[str, float]:
    """Steps per second cold (a freshly loaded world per episode; observations unread, then read) and
    warm (one world, its memos filled by the replays before); and the load time of one world."""
    path = ROOT / "worlds" / "house.yaml"
    solution = (ROOT / "worlds" / "solutions" / "house.txt").read_text(encoding="utf-8").split("\n")
    solution = [c.strip() for c in solution if c.strip()]
    out = {}
    loads = []
    for label, cold, read in (("cold", True, False), ("cold, read", True, True), ("warm", False, False)):
        world = load_world(path)
        n, spent = 0, 0.0
        while spent < seconds:
            if cold:
                t = time.process_time()
                world = load_world(path)
                loads.append(time.process_time() - t)
            t = time.process_time()
            game = Game(world)
            for c in solution:
                r = game.step(c)
                if read:
                    _ = r.observation
            spent += time.process_time() - t
            n += len(solution)
        out[label] = n / spent
    out["load"] = sum(loads) / len(loads)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5, help="cold replays of ours per instance (each on a new world)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N instances")
    ap.add_argument("--seconds", type=float, default=3.0, help="CPU seconds for each house figure")
    args = ap.parse_args()
    home = os.environ.get("CLEMBENCH_HOME")
    interpreter = upstream_interpreter(Path(home)) if home else None
    game_path = str(Path(home) / "adventuregame") if home else ""
    steps = ours_t = ours_read_t = up_t = ours_load = up_load = 0.0
    up_steps = n_worlds = n_up = 0
    for name, inst in instances(args.limit):
        commands = inst["optimal_commands"]
        if interpreter is not None:
            spent, load = upstream_cold(interpreter, game_path, inst)
            up_t, up_load, up_steps, n_up = up_t + spent, up_load + load, up_steps + len(commands), n_up + 1
        for _ in range(args.repeat):
            spent, load = ours_cold(name, commands)
            ours_t, ours_load, n_worlds = ours_t + spent, ours_load + load, n_worlds + 1
            ours_read_t += ours_cold(name, commands, read=True)[0]
            steps += len(commands)
    ours = steps / ours_t
    print(f"clembench optimal_commands, cold: ours {ours:,.0f} steps/s ({int(steps)} steps),"
          f" {steps / ours_read_t:,.0f} steps/s with every observation read;"
          f" load {1000 * ours_load / n_worlds:.1f} ms/world (not timed)")
    if interpreter is not None:
        up = up_steps / up_t
        print(f"  upstream AdventureIFInterpreter.process_action: {up:,.0f} steps/s ({up_steps} steps);"
              f" ours / upstream = {ours / up:,.0f}x ({steps / ours_read_t / up:,.0f}x with observations read);"
              f" upstream load {1000 * up_load / n_up:.0f} ms/instance (not timed)")
    else:
        print(f"  (no upstream figure: {HINT})")
    h = house(args.seconds)
    print(f"house.yaml solution: cold {h['cold']:,.0f} steps/s ({h['cold, read']:,.0f} with observations read),"
          f" warm {h['warm']:,.0f} steps/s; load {1000 * h['load']:.1f} ms/world (not timed)")


if __name__ == "__main__":
    main()
