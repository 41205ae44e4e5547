"""TextWorld as a speed peer: steps per second on a small generated house world.

Runs in a separate environment that has TextWorld installed (it is not a
dependency of tui-adventure), for example::

    python3 -m venv /work/bench-venv
    /work/bench-venv/bin/pip install textworld pyyaml
    /work/bench-venv/bin/python benchmarks/textworld_peer.py --steps 2000

The game is generated with ``tw-make`` (offline) into a cache directory the
first time it is needed; see ``TW_MAKE_ARGS``. The replayed workload is the
game's own walkthrough, repeated with a reset after each episode (``done``
or the end of the walkthrough), until ``steps`` commands have been sent.
Resets are inside the timed region; the first ``reset`` (loading the story
file) is not.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The generation command: 6 rooms, 20 objects, a 10-step quest that uses two
# locked things (a locker and a door), containers and supports. Seed 2 gives
# the walkthrough:
#   go south / unlock locker with passkey / open locker / take latchkey from
#   locker / go north / unlock portal with latchkey / open portal / go east /
#   take plant from shelf / drop plant
TW_MAKE_ARGS = ["custom", "--world-size", "6", "--nb-objects", "20",
                "--quest-length", "10", "--seed", "2"]
GAME_NAME = "tw_house"


def cache_dir() -> Path:
    """Where generated games live: $TUI_BENCH_CACHE, else ~/.cache/tui-adventure-bench."""
    env = os.environ.get("TUI_BENCH_CACHE")
    if env:
        return Path(env)
    home = Path.home() / ".cache"
    try:
        home.mkdir(parents=True, exist_ok=True)
        return home / "tui-adventure-bench"
    except OSError:
        return Path(tempfile.gettempdir()) / "tui-adventure-bench"


def _tw_make() -> list[str]:
    beside = Path(sys.executable).parent / "tw-make"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("tw-make")
    if found:
        return [found]
    raise RuntimeError("tw-make not found: install TextWorld in this environment (pip install textworld)")


def generation_command(output: Path) -> list[str]:
    return _tw_make() + TW_MAKE_ARGS + ["--output", str(output)]


def ensure_game(directory: Path | None = None, force: bool = False) -> Path:
    """Path of the generated ``.z8`` (its ``.json`` lies beside it); generates it when missing."""
    directory = Path(directory) if directory else cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    z8 = directory / f"{GAME_NAME}.z8"
    if force or not (z8.exists() and z8.with_suffix(".json").exists()):
        cmd = generation_command(z8) + ["-f", "--silent"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return z8


# -- infos -------------------------------------------------------------------

def full_infos():
    """Every EnvInfos flag on: admissible commands, facts, policy commands, rewards, ..."""
    import textworld
    flags = {name: True for name in textworld.EnvInfos.__slots__ if name != "extras"}
    return textworld.EnvInfos(extras=["walkthrough"], **flags)


def minimal_infos():
    """Nothing requested beyond what every step returns (feedback, score, done)."""
    import textworld
    return textworld.EnvInfos()


def walkthrough(game_path: Path) -> list[str]:
    import textworld
    return list(textworld.Game.load(str(Path(game_path).with_suffix(".json"))).walkthrough)


# -- running -----------------------------------------------------------------

class _StartEnv:
    """``textworld.start``: one environment in this process."""

    def __init__(self, game_path: Path, infos):
        import textworld
        self.env = textworld.start(str(game_path), request_infos=infos)

    def reset(self):
        return self.env.reset()

    def step(self, command: str):
        state, score, done = self.env.step(command)
        return score, done, bool(state.get("won"))

    def close(self):
        self.env.close()


class _GymEnv:
    """``textworld.gym``, synchronous, batch of one."""

    def __init__(self, game_path: Path, infos):
        import textworld.gym
        infos.won = True  # gym only reports what is requested; 'won' is one flag
        env_id = textworld.gym.register_game(str(game_path), request_infos=infos,
                                             max_episode_steps=10_000, asynchronous=False)
        self.env = textworld.gym.make(env_id)

    def reset(self):
        return self.env.reset()

    def step(self, command: str):
        _obs, score, done, infos = self.env.step(command)
        return score, done, bool(infos.get("won"))

    def close(self):
        self.env.close()


def _make_env(game_path: Path, infos, api: str):
    if api == "start":
        return _StartEnv(game_path, infos)
    if api == "gym":
        return _GymEnv(game_path, infos)
    raise ValueError(f"api must be 'start' or 'gym', not {api!r}")


def play_walkthrough(game_path: Path, commands: list[str] | None = None) -> dict:
    """One episode of ``commands`` (default: the walkthrough) with full infos: did it win?"""
    commands = walkthrough(game_path) if commands is None else commands
    env = _make_env(game_path, full_infos(), "start")
    try:
        env.reset()
        score, done, won, used = 0, False, False, 0
        for cmd in commands:
            score, done, won = env.step(cmd)
            used += 1
            if done:
                break
        return {"won": won, "score": score, "done": done, "steps": used}
    finally:
        env.close()


def run_textworld(game_path: Path, commands: list[str], steps: int = 2000,
                  infos=None, api: str = "start") -> dict:
    """Sends ``steps`` commands, cycling through ``commands`` and resetting after
    each episode; returns steps, seconds (wall), steps_per_sec, cpu_seconds
    (this process's CPU time: steadier on a busy machine), episodes, wins."""
    if infos is None:
        infos = full_infos()
    env = _make_env(game_path, infos, api)
    try:
        env.reset()
        sent = episodes = wins = 0
        t0, c0 = time.perf_counter(), time.process_time()
        while sent < steps:
            for cmd in commands:
                _score, done, won = env.step(cmd)
                sent += 1
                if done or sent >= steps:
                    wins += won
                    break
            episodes += 1
            if sent < steps:
                env.reset()
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        env.close()
    return {"steps": sent, "seconds": seconds, "steps_per_sec": sent / seconds, "cpu_seconds": cpu,
            "episodes": episodes, "wins": wins}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=2000, help="commands per configuration (default 2000)")
    ap.add_argument("--dir", type=Path, default=None, help="where the game is generated (default: cache)")
    ap.add_argument("--gym", action="store_true", help="also measure through textworld.gym")
    args = ap.parse_args(argv)

    import textworld
    game = ensure_game(args.dir)
    cmds = walkthrough(game)
    print(f"textworld {textworld.__version__}; game {game}")
    print(f"generated by: tw-make {' '.join(TW_MAKE_ARGS)} --output {game}")
    print(f"walkthrough ({len(cmds)} commands): {' / '.join(cmds)}")
    check = play_walkthrough(game, cmds)
    print(f"walkthrough wins: {check['won']} (score {check['score']}, {check['steps']} steps)")
    configs = [("start", "full infos", full_infos), ("start", "minimal infos", minimal_infos)]
    if args.gym:
        configs += [("gym", "full infos", full_infos), ("gym", "minimal infos", minimal_infos)]
    for api, label, infos in configs:
        r = run_textworld(game, cmds, args.steps, infos(), api)
        print(f"textworld.{api:5s} {label:13s}: {r['steps_per_sec']:8.1f} steps/s "
              f"({r['steps']} steps in {r['seconds']:.2f} s wall, {r['cpu_seconds']:.2f} s CPU, "
              f"{r['episodes']} episodes, {r['wins']} won)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
