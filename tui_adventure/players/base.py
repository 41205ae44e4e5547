"""The player protocol, and the one rule every player follows to write a command.

A player is asked for its next reply with the episode in hand (programmatic
players read the game; model players read ``episode.messages``). Replies are
whole texts, as a model would write them: the episode applies the format
rules, so every kind of player is judged the same way.

This module imports only ``reply.py``, so every player can import it
and ``factory.py``, which imports the players, sits above them all.
"""

from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

from .reply import Reply


@runtime_checkable
class Player(Protocol):
    name: str   # the records' run directory and model name ("human", "oracle", a model's registry name)

    async def reply(self, episode, stream: Callable[[str], None] | None = None) -> Reply:
        """The next reply; ``stream`` receives text as it arrives (model players)."""
        ...


def as_reply(episode, command: str, next_actions: list[str] | None = None) -> str:
    """A command written the way this episode's rules want it (``> take key`` where strict;
    with the "Next actions:" line the planning variant asks for)."""
    reply = f"> {command}" if (episode.clembench or episode.strict) else command
    if getattr(episode, "planning", False):
        reply += "\nNext actions: " + ", ".join(next_actions or ["done"])
    return reply
