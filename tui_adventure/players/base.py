"""The player protocol and the ``--player SPEC`` parser.

A player is asked for its next reply with the episode in hand (programmatic
players read the game; model players read ``episode.messages``). Replies are
whole texts, as a model would write them: the episode applies the format
rules, so every kind of player is judged the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol, runtime_checkable


@runtime_checkable
class Player(Protocol):
    name: str          # the records' run directory and model name ("human", "oracle", ...)

    async def reply(self, episode, stream: Callable[[str], None] | None = None) -> str:
        """The next reply; ``stream`` receives text as it arrives (model players)."""
        ...


def as_reply(episode, command: str, next_actions: list[str] | None = None) -> str:
    """A command written the way this episode's rules want it (``> take key`` where strict;
    with the "Next actions:" line the planning variant asks for)."""
    reply = f"> {command}" if (episode.clembench or episode.strict) else command
    if getattr(episode, "planning", False):
        reply += "\nNext actions: " + ", ".join(next_actions or ["done"])
    return reply


def make_player(spec: str, world=None, mode: str = "text", **options):
    """``human``, ``oracle``, ``random[:seed]``, ``scripted:FILE``, ``replay:EPISODE_DIR``, or a model:
    a name from model_registry.json or ``BACKEND:MODEL[@BASE_URL]`` (``players/registry.py``).

    ``mode`` (``text``, ``tool``, ``tools``) and ``options`` (``timeout``,
    ``max_retries``, ...) only concern models; a model's SDK is imported only then.
    """
    from .programmatic import OraclePlayer, RandomPlayer, ReplayPlayer, ScriptedPlayer

    kind, _, arg = spec.partition(":")
    if kind == "human":
        from .human import HumanPlayer
        return HumanPlayer()
    if kind == "oracle":
        return OraclePlayer()
    if kind == "random":
        try:
            seed = int(arg) if arg else (world.seed if world is not None else 0)
        except ValueError:
            raise ValueError(f"random:SEED needs a whole number, not {arg!r}") from None
        return RandomPlayer(seed)
    if kind == "scripted":
        if not arg:
            raise ValueError("scripted:FILE needs a file (a JSON list of replies, or one reply a line)")
        return ScriptedPlayer.from_file(Path(arg))
    if kind == "replay":
        if not arg:
            raise ValueError("replay:EPISODE_DIR needs the directory of a recorded episode")
        return ReplayPlayer.from_episode(Path(arg))
    from .llm import model_player

    return model_player(spec, world, mode, **options)
