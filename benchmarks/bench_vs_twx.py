"""A random agent on valid actions, against TextWorldExpress, side by side in one driver.

    python benchmarks/bench_vs_twx.py [--rounds 3] [--steps 20000] [--no-twx]

What a trainer pays for: every step the agent picks uniformly among the
valid actions (ours: ``info["admissible_commands"]`` from the Gymnasium
environment; TWX: ``validActions``), episodes end on a win, a loss, a
``done`` or 100 steps, and every reset is counted in the time. The pairs:
TWX ``coin`` (6 locations, doors) against a generated 6-room world
(``adventure generate --rooms 6 --objects 12 --goals 2 --seed 1``), and TWX
``cookingworld`` (6 locations) against ``house``. A third pair, ``coinsize``,
sets TWX's ``coin`` against a world of its size (6 rooms, 2 doors, one
thing to bring to a room: ``--objects 1 --goals 1 --doors 2 --locked 0
--containers 0 --supports 0``): TWX's coin walk shows 24 distinct (look,
inventory) texts, where the 12-object world goes on meeting about a
thousand new states a round after six rounds. Our rows print those new
states per round (each costs a new turn and its commands; a state met again
is a lookup), and the summary TWX's distinct (look, inventory) in a walk of
a round's length. Each world is the same every episode on both sides (TWX
regenerates its game from the seed at each reset: that is its reset).
Both sides' resets are warmed before the first round (1,000 each: TWX's
JIT takes its Python reset from about 500 to 3,000-5,000 a second over
them). Configurations:

- ``valid``: our env with ``infos=("admissible_commands",)`` against TWX's
  native loop (a small Java program calling TWX's own ``PythonInterface``
  in the JVM, no Python between steps: the loop behind TWX's speed figures);
- ``progress``: our env with its default infos (admissible commands, exact
  par and progress, ...), against our ``valid`` row;
- ``no env``: ``Game.step`` with a command drawn from the planner's
  admissible commands (memoised, the game played on from the canonical
  state, as the env does), without the Gymnasium layer;
- ``generate``: a new generated world per reset (``generate=``) against
  TWX's Python ``reset(seed)`` with a new seed each time;
- ``fresh``: a new world each episode, played with valid actions: TWX's
  native loop on a new ``coin`` game from a new seed each episode, against
  our env with ``generate=`` of TWX coin's size (nothing met before: a
  trainer's procedural worlds).

Rounds alternate the engines, driven by one process: the JVM runs beside it
and plays one round when told, and each configuration of ours runs in a
worker process of its own, as a trainer's environment does (``--one-process``
runs them all in the driver, the harness of rounds 1-6: there every
configuration's memos, and TWX's Python objects, are walked by each full
collection of Python's cyclic collector, whichever row it lands in). A busy
machine slows both alike; wall clock and CPU time are both printed (for the
JVM: the whole process's CPU, its compiler and collector threads included).
The JVM's JIT goes on compiling for up to a second after its loop reports:
the driver waits until both JVMs are idle before it times a row of ours,
and a row of its own gives TWX's CPU with that work counted.
Each of our rows' random agent is seeded by the round (``random.Random(r)``).
A trainer with two cores runs two envs (its actors) in two processes; the
row "two envs in two processes at once" plays a round in each of two more
workers at the same time (walks seeded apart) and gives their steps summed
over the driver's wall clock: the machine's throughput, where TWX's loop
too keeps both cores busy.
Our rows also print, per round, the share of their wall time spent in the
cyclic collector.

TWX is optional and never a dependency of tui-adventure::

    pip install textworld-express        # the jar and its Python API (py4j)
    apt-get install default-jdk-headless # java and javac (Debian's JDK) for the native loop

Without it (or without ``java``), our side runs alone.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

from tui_adventure.envs.env import AdventureEnv
from tui_adventure.catalog import open_world
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading import load_world_text
from tui_adventure.engine.planning import Planner
from tui_adventure.generate import Knobs, generate_world

sys.path.insert(0, str(Path(__file__).resolve().parent))
from twx_peer import CAP, JvmLoop, jvms_side_by_side, settle, twx_home, twx_python_resets, twx_states  # noqa: E402
GEN = dict(rooms=6, objects=12, goals=2)
WARM_RESETS = 1_000   # resets played by each side before the first round (TWX's JIT warms over them)
# TWX's coin world in size: 6 rooms, 2 doors and one thing, to be brought to a room (TWX's coin game ends
# when the coin is taken): player, doors and the thing make at most 6 x 4 x 7 = 168 states
COIN_SIZE = dict(rooms=6, objects=1, goals=1, doors=2, locked=0, containers=0, supports=0)
PAIRS = {"coin": ("coin", "numLocations=6,includeDoors=1", "generated 6 rooms"),
         "cooking": ("cookingworld", "numLocations=6", "house"),
         "coinsize": ("coin", "numLocations=6,includeDoors=1", "generated 6 rooms, 1 thing, 2 doors")}

class Figures:
    """Rates per configuration, one per round: (wall, cpu), and our rows' share of wall time spent in
    Python's cyclic collector (its full collections land in whichever row is running)."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[float, float]]] = {}
        self.collector: dict[str, list[float]] = {}
        self.new: dict[str, list[int]] = {}   # our rows: states met for the first time, per round

    def add(self, name: str, count: int, wall: float, cpu: float, collector: float | None = None,
            new: int | None = None) -> None:
        self.rows.setdefault(name, []).append((count / wall, count / max(cpu, 1e-9)))
        if collector is not None:
            self.collector.setdefault(name, []).append(collector / wall)
        if new is not None:
            self.new.setdefault(name, []).append(new)

    def line(self, name: str) -> str:
        vals = self.rows.get(name) or []
        if not vals:
            return f"  {name:44} (not run)"
        walls = [w for w, _ in vals]
        cpus = [c for _, c in vals]
        rounds = "  ".join(f"{w:,.0f}/{c:,.0f}" for w, c in vals)
        shares = self.collector.get(name)
        gc_part = f"   collector: {'  '.join(f'{x:.0%}' for x in shares)}" if shares else ""
        new = self.new.get(name)
        new_part = f"   new states: {'  '.join(f'{x:,}' for x in new)}" if new else ""
        return (f"  {name:44} wall {statistics.median(walls):>11,.0f}  cpu {statistics.median(cpus):>11,.0f}"
                f"   rounds (wall/cpu): {rounds}{gc_part}{new_part}")


class Collector:
    """Wall time inside Python's cyclic collector (``gc.callbacks``), read per timed row."""

    def __init__(self) -> None:
        self.total = 0.0
        self._start = 0.0
        gc.callbacks.append(self._seen)

    def _seen(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._start


COLLECTOR = Collector()


def timed(fn):
    w, c, g = time.perf_counter(), time.process_time(), COLLECTOR.total
    n = fn()
    return n, time.perf_counter() - w, time.process_time() - c, COLLECTOR.total - g


# -- our side ---------------------------------------------------------------------------------
def generated_world(knobs: dict = GEN):
    made = generate_world(Knobs(**knobs), 1)
    return load_world_text(made.text, f"<generated {knobs['rooms']} rooms {knobs['objects']} objects seed 1>")


def our_world(pair: str):
    return {"coin": generated_world, "coinsize": lambda: generated_world(COIN_SIZE)}.get(
        pair, lambda: open_world("house"))()


def random_agent(env: AdventureEnv, rng: random.Random, steps: int) -> int:
    n = 0
    while n < steps:
        _, info = env.reset()
        for _ in range(CAP):
            _, _, terminated, truncated, info = env.step(rng.choice(info["admissible_commands"]))
            n += 1
            if terminated or truncated or n >= steps:
                break
    return n


def bare_agent(world, planner: Planner, rng: random.Random, steps: int) -> int:
    n = 0
    lookup = planner.admissible.lookup
    while n < steps:
        game = Game(world)
        for _ in range(CAP):
            canonical, commands = lookup(game.state)   # as the env does: play on from the canonical state
            game.state = canonical
            result = game.step(rng.choice(commands))
            n += 1
            if result.done or n >= steps:
                break
    return n


def generate_resets(env: AdventureEnv, count: int) -> int:
    for _ in range(count):
        env.reset()
    return count


class Job:
    """One of our configurations and what it keeps between rounds (its env, or planner): ``kind`` is
    ``valid``, ``noenv``, ``progress``, ``generate`` or ``fresh``; ``pair`` one of ``PAIRS``."""

    def __init__(self, kind: str, pair: str | None) -> None:
        self.kind = kind
        world = None if kind == "generate" else our_world(pair)
        self.world = world
        if kind == "valid":
            self.env = AdventureEnv(world=world, infos=("admissible_commands",), max_turns=CAP)
        elif kind == "progress":
            self.env = AdventureEnv(world=world, max_turns=CAP)
        elif kind == "noenv":
            self.planner = Planner(world)
        elif kind == "fresh":   # a new world of TWX coin's size each episode: nothing met before
            self.env = AdventureEnv(generate=COIN_SIZE, infos=("admissible_commands",), max_turns=CAP)
            self.env.reset(seed=1)
            random_agent(self.env, random.Random(0), WARM_RESETS)   # the ruleset's actions compiled
        else:
            self.env = AdventureEnv(generate=GEN, infos=(), max_turns=CAP)
            self.env.reset(seed=1)
            generate_resets(self.env, WARM_RESETS)   # as TWX's reset is warmed: the ruleset's actions compiled

    def run(self, r: int, count: int) -> tuple:
        """(count, wall, cpu, collector[, new states]) of one round, its random agent seeded by the round;
        new states: those the round met for the first time (each a new turn's step and message, and its
        commands looked up or worked out: where the round's time goes; a state met again is a lookup)."""
        rng = random.Random(r)
        if self.kind == "generate":
            return timed(lambda: generate_resets(self.env, count))
        if self.kind == "fresh":
            return timed(lambda: random_agent(self.env, rng, count))
        before = self.states_met()
        if self.kind == "noenv":
            out = timed(lambda: bare_agent(self.world, self.planner, rng, count))
        else:
            out = timed(lambda: random_agent(self.env, rng, count))
        return (*out, self.states_met() - before)

    def states_met(self) -> int:
        # the env's memo is its own (a private part, read here by a benchmark only), made on first use
        memo = self.planner.admissible if self.kind == "noenv" else self.env._commands
        return 0 if memo is None else memo.misses


def _serve(conn, kind: str, pair: str | None, cpus: set[int] | None = None) -> None:
    """A worker process's loop: one ``Job``, a round each time the driver asks."""
    if cpus is not None:
        os.sched_setaffinity(0, cpus)
    job = Job(kind, pair)
    conn.send("ready")
    while (ask := conn.recv()) is not None:
        conn.send(job.run(*ask))


class Worker:
    """A ``Job`` in a process of its own, as a trainer runs an environment: the cyclic collector's full
    collections there walk that job's memos only, not every configuration's (and TWX's Python objects)
    as they do with ``--one-process``."""

    def __init__(self, kind: str, pair: str | None, cpus: set[int] | None = None) -> None:
        ctx = multiprocessing.get_context("spawn")   # the driver has py4j's threads: no fork
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, kind, pair, cpus), daemon=True)
        self.proc.start()
        if self.conn.recv() != "ready":
            raise RuntimeError(f"worker {kind} {pair} did not start")

    def run(self, r: int, count: int) -> tuple:
        self.start(r, count)
        return self.result()

    def start(self, r: int, count: int) -> None:
        self.conn.send((r, count))

    def result(self) -> tuple:
        return self.conn.recv()

    def close(self) -> None:
        self.conn.send(None)
        self.proc.join(timeout=30)


def side_by_side(workers: list[Worker], r: int, count: int) -> tuple:
    """(steps, wall, cpu, collector, new states) of one round played by each worker at once (each walk
    seeded on its own), as a trainer's actors run: steps, CPU and new states summed, wall clock the
    driver's from start to last; the collector's time is the workers' mean."""
    w = time.perf_counter()
    for i, worker in enumerate(workers):
        worker.start(r * len(workers) + i + 1_000, count)
    done = [worker.result() for worker in workers]
    wall = time.perf_counter() - w
    return (sum(d[0] for d in done), wall, sum(d[2] for d in done), sum(d[3] for d in done) / len(done),
            sum(d[4] for d in done))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20_000, help="random-agent steps a round, per configuration")
    ap.add_argument("--progress-steps", type=int, default=5_000)
    ap.add_argument("--resets", type=int, default=300, help="generated worlds a round")
    ap.add_argument("--fresh-steps", type=int, default=5_000,
                    help="steps a round of the fresh rows: a new world each episode (a trainer's procedural worlds)")
    ap.add_argument("--pairs", default="coin,cooking,coinsize",
                    help="coin and cooking: the issue's pairs; coinsize: TWX's coin against a world of its size")
    ap.add_argument("--no-twx", action="store_true", help="our side only")
    ap.add_argument("--machine", action="store_true",
                    help="also the machine's rows: each side on one core (TWX's JVM and our env pinned to the same"
                         " core), and each side twice at once (two JVM loops, two envs)")
    ap.add_argument("--one-process", action="store_true",
                    help="every configuration of ours in the driver's process (rounds 1-6's harness)")
    args = ap.parse_args()

    home = None if args.no_twx else twx_home()
    jvm = None
    twx_py = None
    if home is None and not args.no_twx:
        print("textworld-express is not installed (pip install textworld-express): our side only")
    elif home is not None:
        if shutil.which("java") and shutil.which("javac"):
            jvm = JvmLoop(home)
        else:
            print("java/javac not found (apt-get install default-jdk-headless): no native TWX loop")
        from textworld_express import TextWorldExpressEnv
        twx_py = TextWorldExpressEnv(envStepLimit=CAP)

    pairs = [p for p in args.pairs.split(",") if p]
    sizes = {}   # TWX's game -> the distinct (look, inventory) a round's walk meets, read once, untimed
    if twx_py is not None:
        for game, params in dict.fromkeys(PAIRS[p][:2] for p in pairs):
            twx_py.load(game, params)
            sizes[game] = twx_states(twx_py, args.steps)
        twx_py.load("coin", PAIRS["coin"][1])
    # the machine's rows: one core each (the JVM sized for one core, as a trainer's actor on one core
    # runs it), and two of each at once over both cores
    machine = args.machine and jvm is not None and not args.one_process
    one_core = {min(os.sched_getaffinity(0))}
    jvm_one = JvmLoop(home, one_core) if machine else None
    jvm_two = [jvm, JvmLoop(home)] if machine else []
    solo = {p: Worker("valid", p, one_core) for p in pairs} if machine else {}
    make = Job if args.one_process else Worker
    jobs = {(kind, p): make(kind, p) for p in pairs for kind in ("valid", "noenv", "progress")}
    jobs["generate", None] = make("generate", None)
    jobs["fresh", None] = make("fresh", None)
    # two envs of the valid row in two processes at once: the machine's two cores, as TWX's loop uses them
    twins = {} if args.one_process else {p: [Worker("valid", p) for _ in range(2)] for p in pairs}
    figs = Figures()
    # the JVMs whose CPU we wait on before each of our rows: the native loop's and py4j's gateway
    loops = [x for x in (jvm, jvm_one, *jvm_two[1:]) if x is not None]
    jvms = [*(x.proc.pid for x in loops), *([twx_py._gateway.java_process.pid] if twx_py is not None else [])]
    for loop in loops:   # the JIT's warm-up, not reported
        for p in pairs:
            loop.round(PAIRS[p][0], PAIRS[p][1], 1, args.steps // 2)
        settle(jvms)
    if jvm is not None:
        jvm.round("coin", PAIRS["coin"][1], 1, args.steps // 2, fresh=True)
        settle(jvms)
    if twx_py is not None:   # its reset's JIT warm-up too: from ~500 to 3,000-5,000 resets/s over its first 1,000
        twx_python_resets(twx_py, [random.randrange(1, 10_000) for _ in range(WARM_RESETS)])
        settle(jvms)
    for r in range(args.rounds):
        for p in pairs:
            game, params, ours = PAIRS[p]
            if jvm is not None:
                n, wall, cpu = jvm.round(game, params, 1, args.steps)
                figs.add(f"{p}: TWX native JVM loop ({game})", n, wall, cpu)
                after = settle(jvms)   # its JIT's work after the loop, not beside our row
                figs.add(f"{p}: TWX, CPU with its JIT's work after the loop", n, wall, cpu + after)
            figs.add(f"{p}: ours, valid actions ({ours})", *jobs["valid", p].run(r, args.steps))
            if p in twins:
                figs.add(f"{p}: ours, two envs in two processes at once", *side_by_side(twins[p], r, args.steps))
            if machine:
                n, wall, cpu = jvm_one.round(game, params, 1, args.steps)
                figs.add(f"{p}: TWX native JVM loop, one core", n, wall, cpu + settle(jvms))
                figs.add(f"{p}: ours, valid actions, one core", *solo[p].run(r, args.steps))
                n, wall, cpu = jvms_side_by_side(jvm_two, game, params, args.steps)
                figs.add(f"{p}: TWX, two JVM loops at once", n, wall, cpu + settle(jvms))
            figs.add(f"{p}: ours, Game.step on valid actions, no env", *jobs["noenv", p].run(r, args.steps))
            figs.add(f"{p}: ours, default infos (progress)", *jobs["progress", p].run(r, args.progress_steps))
        if jvm is not None:   # a new game each episode, from a new seed each round
            n, wall, cpu = jvm.round("coin", PAIRS["coin"][1], 10_000 * (r + 1), args.fresh_steps, fresh=True)
            figs.add("fresh: TWX native JVM loop, a new coin game each episode", n, wall, cpu)
            settle(jvms)
        figs.add("fresh: ours, a new world of coin's size each episode", *jobs["fresh", None].run(r, args.fresh_steps))
        if twx_py is not None:
            seeds = [random.randrange(1, 10_000) for _ in range(args.resets)]
            figs.add("reset: TWX Python reset(seed), coin (CPU: both processes)", *twx_python_resets(twx_py, seeds))
            settle(jvms)
        figs.add("reset: ours, generate= (6 rooms)", *jobs["generate", None].run(r, args.resets))
        print(f"round {r + 1} done", file=sys.stderr)
    where = "all in this process" if args.one_process else "each of ours in its own process"
    print(f"random agent on valid actions, {args.rounds} rounds ({where}), medians (steps or resets per second)")
    for name in figs.rows:
        print(figs.line(name))
    for game, n in sizes.items():
        print(f"  TWX {game}: {n:,} distinct (look, inventory) in a walk of {args.steps:,} steps (ours: new states above)")
    for job in [*jobs.values(), *(w for ws in twins.values() for w in ws), *solo.values()]:
        if isinstance(job, Worker):
            job.close()
    for loop in loops:
        loop.close()
    if twx_py is not None:
        twx_py.close()


if __name__ == "__main__":
    main()
