"""Our engine's worlds behind the one game interface (``games.interface.Playable``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.game import Game, StepResult
from ..engine.world import World
from .interface import Status

if TYPE_CHECKING:   # imported when first asked (valid_actions)
    from ..engine.planning.admissible import Admissible


class WorldGoals:
    """A world's goals as facts, read from its game (``interface.Goals``)."""

    def __init__(self, game: Game) -> None:
        self._game = game

    def facts(self) -> list[str]:
        return self._game.goal_facts()

    def achieved(self) -> list[str]:
        return self._game.goals_achieved()


class NativeGame:
    """One play-through of one of our worlds (``interface.Playable``): a thin face over ``engine.game.Game``,
    which stays reachable as ``engine`` for what only our engine answers."""

    walkthrough = None

    def __init__(self, world: World, game: Game | None = None) -> None:
        """``game``: an engine game already made for ``world`` (the episode's own), else a new one."""
        self.world = world
        self.engine = game if game is not None else Game(world)
        self.title = world.title
        self.par = world.par
        self.goals = WorldGoals(self.engine)   # a world without goals has none to list
        self._admissible: Admissible | None = None   # made when first asked

    def first_observation(self) -> str:
        return self.engine.first_observation()

    def step(self, command: str) -> StepResult:
        return self.engine.step(command)

    @property
    def won(self) -> bool:
        return bool(self.world.goals) and self.engine.all_goals_achieved()

    @property
    def over(self) -> bool:
        """Lost: a won world plays on until the player's ``done`` (clembench's rule)."""
        return self.engine.lost is not None

    def location(self) -> str:
        room = self.world.style.player_room(self.engine.state)
        return self.world.name_of(room).capitalize() if room else "?"

    def inventory(self) -> list[str]:
        return [self.world.name_of(x) for x in self.world.style.held(self.engine.state)]

    def status(self) -> Status:
        return Status(score=len(self.engine.achieved), max_score=len(self.world.goals), moves=self.engine.turn)

    def snapshot(self) -> tuple:
        return self.engine.snapshot()

    def restore(self, moment: tuple) -> None:
        self.engine.restore(moment)

    def restart(self) -> None:
        self.engine.restart()

    def valid_actions(self) -> list[str]:
        """Our engine's admissible commands in the current state (exact)."""
        if self._admissible is None:
            from ..engine.planning.admissible import Admissible

            self._admissible = Admissible(self.world)
        return self._admissible.commands(self.engine.state)

    def object_tree(self) -> list[str]:
        """The state's facts, one a line (our worlds have no object tree; the facts say where each thing is)."""
        return self.engine.facts()

    def close(self) -> None:
        """Nothing to let go: the world is shared, the game is plain Python."""
