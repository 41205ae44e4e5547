"""The player protocol, and the one rule every player follows to write a command.

A player is asked for its next reply with the episode in hand (programmatic
players read the game; model players read ``episode.messages``). Replies are
whole texts, as a model would write them: the episode applies the format
rules, so every kind of player is judged the same way.

This module imports only ``reply.py``, so every player can import it
and ``factory.py``, which imports the players, sits above them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, runtime_checkable

from .reply import Reply

if TYPE_CHECKING:   # the registry imports the backends: not at run time here
    from .registry import ModelSpec


@runtime_checkable
class Player(Protocol):
    name: str   # the records' run directory and model name ("human", "oracle", a model's registry name)

    async def reply(self, episode, stream: Callable[[str], None] | None = None) -> Reply:
        """The next reply; ``stream`` receives text as it arrives (model players)."""
        ...


@runtime_checkable
class ModelBacked(Protocol):
    """A player that asks a model: its records name the backend, the generation arguments and
    how the run asks (``run_facts``: mode, tools, tool choice), and keep its key out."""
    name: str
    backend: str
    gen_args: dict
    spec: ModelSpec   # model id, server, key, config

    def run_facts(self, episode) -> dict: ...

    def secrets(self) -> tuple: ...


@runtime_checkable
class Seated(Protocol):
    """Several players at one world (``seats.Seats``): who plays each, in the world's turn order."""
    seat_names: tuple[str, ...]


def recorder_options(player, episode) -> dict:
    """The Recorder keywords for ``player``'s records (for a person or a program: only the seats of
    a world of several players)."""
    if isinstance(player, Seated):
        return {"seats": player.seat_names}
    if not isinstance(player, ModelBacked):
        return {}
    return {"backend": player.backend, "gen_args": dict(player.gen_args) or None,
            "secrets": player.secrets(), "run_facts": player.run_facts(episode)}


def as_reply(episode, command: str, next_actions: list[str] | None = None) -> str:
    """A command written the way this episode's rules want it (``> take key`` where strict;
    with the "Next actions:" line the planning variant asks for: ``done`` when no plan is given
    (``None``), empty for an empty plan)."""
    reply = f"> {command}" if (episode.clembench or episode.strict) else command
    if episode.planning:
        reply += "\nNext actions: " + ("done" if next_actions is None else ", ".join(next_actions))
    return reply
