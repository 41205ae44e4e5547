"""The one game interface (``interface.Playable``) and the game a WORLD argument's source makes.

A source is what ``catalog.open_world`` returns: one of our ``World``s, or a story file's
``zmachine.game.StorySource``; each makes games that satisfy ``Playable``.
"""

from __future__ import annotations

# imported here, not when a game is opened: clemcore's runner unloads the modules a game's load imported
# once the game ends, and a module imported later would outlive them and mix their classes in the next game
from ..engine.game import Game
from ..engine.world import World
from .interface import GameSource, Goals, Playable, Status, Step
from .native import NativeGame

__all__ = ["GameSource", "Goals", "Playable", "Status", "Step", "open_game"]


def open_game(source: World | GameSource, engine: Game | None = None) -> Playable:
    """A new play-through of ``source``: our engine's for a ``World`` (over ``engine``, an
    ``engine.game.Game`` already made for it, when given), else the source's own (``new_game()``)."""
    if isinstance(source, World):
        return NativeGame(source, engine)
    return source.new_game()
