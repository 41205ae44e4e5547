"""The interpreter every episode runs: upstream's ``process_action`` as the game master sees it.

It wraps the engine's ``Game`` with what clembench's game master reports
besides the text (goals in upstream's shapes, exploration, the ``arg`` of a
failure) and simulates planning-variant plans on the live interpreter, leaks
included, as upstream does (see ``exploration.py`` for the bookkeeping).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..instances.feedback import fail_arg
from ..engine.game import Game, StepResult
from ..games import Step
from .exploration import INVENTORY, Exploration


class Interpreter:
    """Upstream's ``process_action`` as the game master sees it: (goals, text, info) for a command.

    ``goals`` is JSON-ready: goal strings after a success, ``[pred, a, b]``
    lists of the last success's goals after a failure (clembench worlds).
    """

    def __init__(self, world, game: Game) -> None:
        self.world = world
        self.game = game
        self.clembench = world.is_clembench()
        self.exploration = Exploration(world, game.state)
        self.goals: frozenset = frozenset()     # goal facts achieved as of the last successful command
        self.required = {str(g) for g in world.goals}

    def process(self, command: str, game: Game | None = None) -> tuple[list, str, dict, StepResult]:
        game = game or self.game
        before = game.state
        result = game.step(command)
        ex = self.exploration
        if result.fail is None:
            ex.track(game.state, self._removed(before, game.state, result))
            self.goals = frozenset(g for g in self.world.goals if g.holds(game.state))
            goals: list = [str(g) for g in self.world.goals if g in self.goals]   # lists after a failure
            info: dict[str, object] = {"action_type": result.action, "exploration_info": ex.info(result.action)}
            if result.action == "done":
                info["done_action"] = True
            return goals, result.observation, info, result
        ex.track(game.state)
        # parsing failures (and upstream's parser-side ones, like "take X from inventory") carry no action type
        action_type = result.action
        info = {"phase": result.fail["phase"], "fail_type": result.fail["type"],
                "arg": fail_arg(self.world, before, result), "exploration_info": ex.info(action_type)}
        if self.clembench:
            goals = [list(g.fact) for g in self.world.goals if g in self.goals]
        else:
            goals = [str(g) for g in self.world.goals if g.holds(game.state)]
        return goals, result.observation, info, result

    def all_goals(self, goals: list) -> bool:
        """Upstream compares its goal set with the instance's: lists (after a failure) never match."""
        return all(isinstance(g, str) for g in goals) and set(goals) == self.required

    def _removed(self, before, after, result: StepResult) -> set:
        """What the action's effects deleted, as upstream lists it (a deletion of an absent fact included)."""
        removed = set(before.facts - after.facts)
        if self.clembench:
            if result.action == "put" and result.args.get("e"):
                removed.add(("in", result.args["e"], INVENTORY))   # "(not (in ?e ?i))" is unconditional
            if self.exploration.counted:
                old, new = Exploration.itemcount(before), Exploration.itemcount(after)
                if old != new:
                    removed.add(old)
        return removed

    def simulate(self, plan: list[str]) -> list[list]:
        """Upstream's ``execute_plan_sequence``: the plan runs on a copy of the world until its first
        failure; the world comes back, the exploration history is cut by the number of successes."""
        copy = Game(self.world)
        copy.set_state(self.game.state)
        results, successes = [], 0
        for command in plan:
            goals, text, info, r = self.process(command, copy)
            results.append([goals, text, info])
            if r.fail is not None:
                break
            successes += 1
        if successes:
            ex = self.exploration
            del ex.history[-successes:]
            ex.state = ex.history[-1]
        return results

    def snapshot(self) -> tuple:
        return self.exploration.snapshot(), self.goals

    def restore(self, snap: tuple) -> None:
        ex, self.goals = snap
        self.exploration.restore(ex)


@dataclass
class Stopped:
    """The step of a ``done`` the player gave a game without our engine (``interface.Step``)."""

    command: str
    observation: str = "You stop playing."
    fail: dict | None = None
    done: bool = True
    lost: str | None = None
    action: str | None = "done"
    goal_score: int = 0
    scene: list = field(default_factory=list)


class ScoreKeeper:
    """The interpreter of a game without our engine (a story file): the game's text, and its score and
    moves as the turn's info; no goals in upstream's shapes, no exploration, no plans."""

    clembench = False

    def __init__(self, play) -> None:
        self.play = play            # a games.interface.Playable
        self.goals: frozenset = frozenset()

    def process(self, command: str) -> tuple[list, str, dict, Step]:
        """(no goals, the game's text, its score and moves, the step); ``done`` is not sent to the game:
        the player ends the episode there, as in our worlds."""
        if command.strip().lower() == "done":
            return [], "You stop playing.", {"action_type": "done", "done_action": True}, Stopped(command)
        result = self.play.step(command)
        status = self.play.status()
        info = {"score": status.score, "max_score": status.max_score, "moves": status.moves}
        if self.play.over:
            info["game_over"] = "won" if self.play.won else "lost"
        return [], result.observation, info, result

    @staticmethod
    def all_goals(goals: list) -> bool:
        return False

    def simulate(self, plan: list[str]) -> list[list]:
        return []

    def snapshot(self) -> object:
        return self.play.snapshot()

    def restore(self, snap: object) -> None:
        self.play.restore(snap)
