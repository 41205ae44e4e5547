"""``--player SPEC``: the one place a spec becomes a player.

It sits above every kind of player and is imported by none of them (the
protocol they share is in ``base.py``), so players and the factory never
import each other. Each kind is imported when named: a batch of oracles
never loads the model code, and a model's SDK is imported only when it plays.
"""

from __future__ import annotations

from pathlib import Path

from .base import ModelBacked, Player


def make_player(spec: str, world=None, mode: str = "text", **options) -> Player:
    """``human``, ``oracle``, ``random[:seed]``, ``scripted:FILE``, ``replay:EPISODE_DIR``, or a model:
    a name from model_registry.json or ``BACKEND:MODEL[@BASE_URL]`` (``registry.py``).

    ``mode`` (``text``, ``tool``, ``tools``) and ``options`` (``timeout``,
    ``max_retries``, ``retry_delay``, ...) only concern models. ValueError
    (or OSError for a file) when the spec names no player.
    """
    if "," in spec:   # one spec per player of a world with several (docs/worlds.md, Scenes)
        from .seats import Seats

        made: dict = {}   # the same spec twice is one player (an oracle keeps its plan across both seats)
        for part in spec.split(","):
            if part.strip() not in made:
                made[part.strip()] = make_player(part.strip(), world, mode, **options)
        return Seats([made[part.strip()] for part in spec.split(",")], world)
    kind, _, arg = spec.partition(":")
    if kind == "human":
        from .human import HumanPlayer
        return HumanPlayer()
    if kind == "oracle":
        from .programmatic import OraclePlayer
        return OraclePlayer()
    if kind == "random":
        from .programmatic import RandomPlayer
        try:
            seed = int(arg) if arg else (world.seed if world is not None else 0)
        except ValueError:
            raise ValueError(f"random:SEED needs a whole number, not {arg!r}") from None
        return RandomPlayer(seed)
    if kind == "scripted":
        from .programmatic import ScriptedPlayer
        if not arg:
            raise ValueError("scripted:FILE needs a file (a JSON list of replies, or one reply a line)")
        return ScriptedPlayer.from_file(Path(arg))
    if kind == "replay":
        from .programmatic import ReplayPlayer
        if not arg:
            raise ValueError("replay:EPISODE_DIR needs the directory of a recorded episode")
        return ReplayPlayer.from_episode(Path(arg))
    return model_player(spec, mode, **options)


def model_player(spec: str, mode: str = "text", **overrides):
    """The player for a registry name or ``BACKEND:MODEL[@URL]``; ValueError when there is none.

    ``overrides`` (``timeout``, ``max_retries``, ``gen_args``, ...) replace the
    registry's values; ``retry_delay`` sets the first backoff of the player's own retries.
    A backend whose SDK is missing is refused here, before an episode starts.
    """
    from .backends import BACKENDS
    from .llm import ModelPlayer
    from .registry import resolve
    from .tools import MODES

    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (use {', '.join(MODES)})")
    retry_delay = overrides.pop("retry_delay", 0.5)
    model = resolve(spec, **overrides)
    problem = BACKENDS[model.backend].missing()
    if problem:
        raise ValueError(f"model {spec!r}: {problem}")
    return ModelPlayer(model, mode, retry_delay=retry_delay)


def learned_note(player) -> str | None:
    """What a run says before it starts when it will ask a server as the cache says it answered
    (``backends/learned.py``), or None."""
    if not isinstance(player, ModelBacked):
        return None
    from .backends.learned import note

    return note(player.spec)
