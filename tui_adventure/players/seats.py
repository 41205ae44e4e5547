"""Several players at one world: a seat per player, each played by its own spec (``--player oracle,human``).

The world says whose turn it is (``engine.scene``: the ``active`` fact), so
the seats need no turn-keeping of their own: each turn goes to the seat of
the player whose turn it is. One episode, one records folder; the run is
named after all the seats (``oracle+random-3``).
"""

from __future__ import annotations

from typing import Callable

from .reply import Reply
from ..engine.text import plural


class Seats:
    def __init__(self, seats: list, world=None) -> None:
        """``world=None``: the specs checked before any world is loaded (``adventure run`` fails early)."""
        order = world.scene.spec.players if world is not None and world.scene is not None else ()
        if world is not None and len(order) != len(seats):
            raise ValueError(f"{world.game} has {plural(len(order) or 1, 'player')} ({', '.join(order) or 'one'});"
                             f" --player names {plural(len(seats), 'spec')}: give one spec per player, separated by commas")
        self.world = world
        self.by_player = dict(zip(order, seats))
        self.name = "+".join(s.name.replace(":", "-") for s in seats)
        self.seat_names = tuple(s.name for s in seats)

    def seat(self, state):
        return self.by_player[self.world.scene.active(state)]

    async def reply(self, episode, stream: Callable[[str], None] | None = None) -> Reply:
        return await self.seat(episode.game.state).reply(episode, stream)
