"""Players that need no person and no model: for baselines, tests and debugging."""

from __future__ import annotations

import json
import random
from pathlib import Path

from ..records.files import read_episode
from ..engine.planning import Planner
from ..engine.sources import parse_json
from .base import as_reply
from .reply import Reply


class OraclePlayer:
    """Follows the exact planner from wherever the game is now (it replans after any surprise)."""

    name = "oracle"

    def __init__(self) -> None:
        self._planner: Planner | None = None
        self._plan: list[str] = []
        self._expect = None

    async def reply(self, episode, stream=None) -> Reply:
        game = episode.game
        if game is None:   # a game without our engine: its known walkthrough, where it has one
            return Reply(as_reply(episode, _walkthrough_move(episode)))
        if self._planner is None or self._planner.world is not game.world:
            self._planner = Planner(game.world)
        if self._expect is None or game.state.facts != self._expect or not self._plan:
            plan = self._planner.solve(game.state) if not game.all_goals_achieved() else None
            self._plan = list(plan.commands) if plan else []
        if not self._plan:
            self._expect = None
            return Reply(as_reply(episode, "done"))
        command = self._plan.pop(0)
        self._expect = None
        # remember where this command should lead, to notice if it did not
        preview = type(game)(game.world)
        preview.set_state(game.state)
        preview.step(command)
        self._expect = preview.state.facts
        return Reply(as_reply(episode, command, self._plan[:2] or ["done"]))


def _walkthrough_move(episode) -> str:
    """The next command of the game's known walkthrough (Jericho's, on its catalogued games), then done;
    ValueError when the game has none."""
    walk = episode.play.walkthrough
    if not walk:
        raise ValueError("the oracle follows our planner or a known walkthrough, and this game has neither"
                         " (Jericho knows walkthroughs of its catalogued games only)")
    i = len(episode.turns)
    return walk[i] if i < len(walk) else "done"


class RandomPlayer:
    """Uniform over the admissible commands of the current state (seeded, so reproducible)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.name = f"random-{seed}"
        self.rng = random.Random(seed)
        self._planner: Planner | None = None

    async def reply(self, episode, stream=None) -> Reply:
        game = episode.game
        if game is None:   # a game without our engine: the valid actions it can list
            commands = episode.play.valid_actions()
            if commands is None:
                raise ValueError("random picks among the valid actions, which this game cannot list (Jericho"
                                 " finds them on its catalogued games, with spaCy's en_core_web_sm installed)")
            commands = [c for c in commands if c != "done"] or ["done"]
            return Reply(as_reply(episode, self.rng.choice(commands)))
        if self._planner is None or self._planner.world is not game.world:
            self._planner = Planner(game.world)
        commands = [c for c in self._planner.admissible_commands(game.state) if c != "done"] or ["done"]
        return Reply(as_reply(episode, self.rng.choice(commands), [self.rng.choice(commands)]))


class ScriptedPlayer:
    """Replies from a list, verbatim (format mistakes included: that is the point of a script)."""

    def __init__(self, replies: list[str], name: str = "scripted") -> None:
        self.replies = list(replies)
        self.name = name

    @classmethod
    def from_file(cls, path: Path) -> "ScriptedPlayer":
        try:   # both errors said what was wrong but not in which file
            text = path.read_text(encoding="utf-8")
            data = parse_json(text) if text.lstrip().startswith("[") else None
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not UTF-8 text (byte {exc.start}); save the script as UTF-8") from exc
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg}); a script is a JSON list"
                             " of reply strings, or a text file with one reply a line") from exc
        except ValueError as exc:   # nested too deep, or a number Python will not read
            raise ValueError(f"{path}: not a script ({exc}); a script is a JSON list of reply strings, or a"
                             " text file with one reply a line") from None
        if data is not None:
            if not isinstance(data, list) or not all(isinstance(r, str) for r in data):
                raise ValueError(f"{path}: a JSON script is a list of reply strings")
            return cls(data)
        return cls([line for line in text.splitlines() if line.strip()])

    async def reply(self, episode, stream=None) -> Reply:
        """The reply for the episode's next turn: after an undo or a jump back the script follows."""
        i = len(episode.turns)
        if i >= len(self.replies):
            return Reply(as_reply(episode, "done"))
        return Reply(self.replies[i])


class ReplayPlayer(ScriptedPlayer):
    """The replies of a recorded episode (its interactions.json), in order."""

    @classmethod
    def from_episode(cls, directory: Path) -> "ReplayPlayer":
        recorded = read_episode(directory, world=False)
        return cls(recorded.replies, name=f"replay-{recorded.player}")
