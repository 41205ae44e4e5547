"""tui-adventure against TextWorld on the same world, in one process.

Needs an environment with both installed (TextWorld is not a dependency)::

    python3 -m venv /work/bench-venv
    /work/bench-venv/bin/pip install textworld pyyaml
    /work/bench-venv/bin/pip install -e .
    /work/bench-venv/bin/python benchmarks/bench_vs_textworld.py            # ~1 minute
    /work/bench-venv/bin/python benchmarks/bench_vs_textworld.py --full     # + TextWorld with every info

What it does:

1. generates a TextWorld game with ``tw-make`` (``textworld_peer.TW_MAKE_ARGS``;
   cached in ``$TUI_BENCH_CACHE`` or ``~/.cache/tui-adventure-bench``);
2. converts it to a classic world YAML and its walkthrough to classic commands
   (``tui_adventure.textworld``, what ``adventure import textworld`` runs);
3. checks the two are the same game: the walkthrough wins on both, and at every
   state along it the admissible commands agree (ours also offers ``done``,
   ``go to ROOM`` and ``take X`` for a thing in an open container, which
   TextWorld's grammar has no form for; those are left out of the comparison);
4. replays the walkthrough, resetting after each episode, for ``--steps``
   commands on each engine (in ``--rounds`` rounds that alternate the engines)
   and prints steps/s, by wall clock and by this process's CPU time (steadier
   when other work shares the machine), and the ratios.

Pairings (resets are timed on both sides):

* ``minimal``: TextWorld with no extra infos / our ``Game.step`` alone
  (both still produce the observation text and know whether the game is won);
* ``facts+admissible``: TextWorld asked for facts, admissible commands,
  description, inventory, score and won / our ``step`` plus ``Game.facts()``
  and ``Planner.admissible_commands`` every step;
* ``full`` (``--full``; TextWorld only, for reference): every EnvInfos flag, including
  policy commands, intermediate reward and possible commands; ours has no
  cheap counterpart of TextWorld's quest-tracking policy (our planner is an
  exact search, not a tracker), so no ratio is printed for it.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import textworld_peer as peer  # noqa: E402
from tui_adventure.textworld import convert_command, import_game  # noqa: E402

# Commands our classic ruleset offers that TextWorld's grammar has no form for.
_OURS_ONLY = re.compile(r"^(done|go to .+|take [^ ].*)$")


def prepare(directory: Path | None = None):
    """Generate (if needed) and convert; returns (z8, world yaml path, Converted)."""
    z8 = peer.ensure_game(directory)
    out = z8.with_name(f"{z8.stem}_converted.yaml")      # beside the game, in the cache
    conv = import_game(z8.with_suffix(".json"), out, out.with_suffix(".txt")).converted
    return z8, out, conv


# -- our engine --------------------------------------------------------------

def load_ours(world_path: Path):
    from tui_adventure.engine.game import Game
    from tui_adventure.engine.loading import load_world
    world = load_world(world_path)
    return world, Game(world)


def verify_ours(world, commands: list[str]) -> dict:
    """One episode: did the walkthrough win, and which commands did our engine refuse?"""
    from tui_adventure.engine.game import Game
    game = Game(world)
    refused, won, used = [], False, 0
    for cmd in commands:
        r = game.step(cmd)
        used += 1
        if r.fail:
            refused.append((cmd, r.observation, r.fail))
        if r.done:
            won = game.all_goals_achieved()
            break
    return {"won": won, "steps": used, "refused": refused, "goals": game.goals_achieved()}


def run_ours(world, commands: list[str], steps: int, full: bool = False) -> dict:
    from tui_adventure.engine.game import Game
    from tui_adventure.engine.planning import Planner
    game = Game(world)
    planner = Planner(world) if full else None
    sent = episodes = wins = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while sent < steps:
        for cmd in commands:
            r = game.step(cmd)
            if full:
                game.facts()
                planner.admissible_commands(game.state)
            sent += 1
            if r.done or sent >= steps:
                wins += r.done and game.all_goals_achieved()
                break
        episodes += 1
        if sent < steps:
            game.restart()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"steps": sent, "seconds": seconds, "steps_per_sec": sent / seconds, "cpu_seconds": cpu,
            "episodes": episodes, "wins": int(wins)}


def _add(total: dict | None, r: dict) -> dict:
    if total is None:
        return dict(r)
    for k in ("steps", "seconds", "cpu_seconds", "episodes", "wins"):
        total[k] += r[k]
    total["steps_per_sec"] = total["steps"] / total["seconds"]
    return total


# -- the same game? ------------------------------------------------------------

def compare_admissible(z8: Path, world, conv) -> list[str]:
    """Differences in admissible commands at each state along the walkthrough (empty: none)."""
    import textworld
    from tui_adventure.engine.game import Game
    from tui_adventure.engine.planning import Planner
    env = textworld.start(str(z8), request_infos=textworld.EnvInfos(admissible_commands=True))
    game, planner = Game(world), Planner(world)
    out = []
    try:
        state = env.reset()
        pairs = [(None, None)] + list(zip(conv.tw_commands, conv.commands))
        for tw_cmd, our_cmd in pairs:
            if tw_cmd is not None:
                state, _, _ = env.step(tw_cmd)
                game.step(our_cmd)
            tw = {convert_command(c) for c in state["admissible_commands"]}
            ours = set(planner.admissible_commands(game.state))
            extra = {c for c in ours - tw if not _OURS_ONLY.match(c)}
            missing = tw - ours
            where = f"after {our_cmd!r}" if our_cmd else "at the start"
            if missing:
                out.append(f"{where}: TextWorld admits, ours not: {sorted(missing)}")
            if extra:
                out.append(f"{where}: ours admits, TextWorld not: {sorted(extra)}")
    finally:
        env.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="tui-adventure vs TextWorld: steps/s on the same world")
    ap.add_argument("--steps", type=int, default=2000, help="commands per configuration (default 2000)")
    ap.add_argument("--dir", type=Path, default=None, help="where the TextWorld game is generated")
    ap.add_argument("--full", action="store_true",
                    help="also time TextWorld with every info (the slowest run: about +30-60 s)")
    ap.add_argument("--rounds", type=int, default=4,
                    help="split the steps into rounds that alternate the engines (default 4), "
                         "so a busy machine slows both alike")
    args = ap.parse_args(argv)

    import textworld
    import tui_adventure
    z8, world_path, conv = prepare(args.dir)
    world, _ = load_ours(world_path)
    print(f"textworld {textworld.__version__}, tui-adventure {getattr(tui_adventure, '__version__', '?')}, "
          f"Python {sys.version.split()[0]}")
    print(f"game: tw-make {' '.join(peer.TW_MAKE_ARGS)}  ->  {z8}")
    print(f"converted: {world_path} ({len(conv.world['rooms'])} rooms, {len(conv.world['objects'])} objects, "
          f"goal {', '.join(conv.world['goal'])})")
    for w in conv.warnings:
        print(f"  conversion warning: {w}")
    print(f"walkthrough, {len(conv.commands)} commands: {' / '.join(conv.commands)}")

    tw_check = peer.play_walkthrough(z8, conv.tw_commands)
    our_check = verify_ours(world, conv.commands)
    print(f"walkthrough wins: TextWorld {tw_check['won']} ({tw_check['steps']} steps), "
          f"ours {our_check['won']} ({our_check['steps']} steps, goals {our_check['goals']})")
    for cmd, msg, fail in our_check["refused"]:
        print(f"  ours refused {cmd!r}: {msg!r} {fail}")
    diffs = compare_admissible(z8, world, conv)
    print("admissible commands along the walkthrough: "
          + ("the same on both (ours' extra done / go to / take X aside)" if not diffs else "DIFFER"))
    for d in diffs:
        print(f"  {d}")
    fair = tw_check["won"] and our_check["won"] and not our_check["refused"]

    def line(label, r):
        print(f"  {label:34s} {r['steps_per_sec']:9.1f} steps/s wall {r['steps'] / r['cpu_seconds']:9.1f} CPU"
              f"  ({r['steps']} steps, {r['seconds']:.2f} s, {r['episodes']} episodes, {r['wins']} won)")

    matched = textworld.EnvInfos(facts=True, admissible_commands=True, description=True,
                                 inventory=True, score=True, won=True)
    runs = {
        "tw_min": ("TextWorld, minimal infos",
                   lambda n: peer.run_textworld(z8, conv.tw_commands, n, peer.minimal_infos())),
        "ours_min": ("ours, step only", lambda n: run_ours(world, conv.commands, n)),
        "tw_fa": ("TextWorld, facts+admissible",
                  lambda n: peer.run_textworld(z8, conv.tw_commands, n, matched)),
        "ours_fa": ("ours, step+facts+admissible", lambda n: run_ours(world, conv.commands, n, full=True)),
    }
    if args.full:
        runs["tw_full"] = ("TextWorld, full infos (reference)",
                           lambda n: peer.run_textworld(z8, conv.tw_commands, n, peer.full_infos()))
    rounds = max(1, args.rounds)
    print(f"\n{args.steps} steps each, walkthrough repeated with a reset after each episode, "
          f"in {rounds} interleaved rounds:")
    results: dict[str, dict] = {}
    for i in range(rounds):
        n = args.steps // rounds + (1 if i < args.steps % rounds else 0)
        for key, (_label, fn) in runs.items():
            results[key] = _add(results.get(key), fn(n))
    for key, (label, _fn) in runs.items():
        line(label, results[key])

    def ratio(a, b):
        wall = results[a]["steps_per_sec"] / results[b]["steps_per_sec"]
        cpu = (results[a]["steps"] / results[a]["cpu_seconds"]) / (results[b]["steps"] / results[b]["cpu_seconds"])
        return f"{wall:7.1f}x wall {cpu:7.1f}x CPU"

    print("\nratio (ours / TextWorld):")
    print(f"  minimal                            {ratio('ours_min', 'tw_min')}")
    print(f"  facts+admissible                   {ratio('ours_fa', 'tw_fa')}")
    if "tw_full" in results:
        print(f"  ours f+a vs TextWorld full infos   {ratio('ours_fa', 'tw_full')}")
    if not fair:
        print("\nWARNING: the walkthrough did not win on both engines; the figures do not compare like with like.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
