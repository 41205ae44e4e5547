"""Any game behind the one game interface as a Gymnasium environment (a Z-machine story file's).

``gymnasium.make("tui_adventure/World-v0", world="stories/lighthouse.z5")`` comes here
(``make_env``): a WORLD whose game has our engine (``Playable.engine``) gets ``env.AdventureEnv``, with
its planner's par, progress and admissible commands; any other game gets ``GameEnv``, which asks only
what ``games.interface.Playable`` promises. Its reward is the change in the game's own score (``goal``)
or 1 on a win (``win``); an episode terminates when the game ends itself (won or lost) and is
truncated at ``max_turns``. ``info`` carries what the game has: score, max score, moves, location,
inventory, turn, max turns, and the admissible commands only where the game can list them
(``Playable.valid_actions`` is not None: Jericho's catalogued games).

A story file's own random numbers are fixed by its interpreter's seed, the same at every reset, so a
seed changes only ``action_space.sample``; a reset restarts the one interpreter rather than loading
the story file again.
"""

from __future__ import annotations

import string

import gymnasium as gym
from gymnasium import spaces

from ..catalog import open_world
from ..engine.loading import MAX_TURNS_LIMIT
from ..games import Playable, open_game
from .env import ACTION_CHARS, ACTION_CHARSET, OBSERVATION_CHARS, AdventureEnv

REWARDS = ("goal", "win")
INFOS = ("score", "max_score", "moves", "location", "inventory", "turn", "max_turns", "admissible_commands",
         "walkthrough")
# what an observation may hold: printable ASCII (a story file's other characters become "?")
OBSERVATION_CHARSET = "".join(sorted(set(string.printable) - {"\x0b", "\x0c"}))


def make_env(world=None, **kwargs) -> gym.Env:
    """The environment a WORLD needs: ``AdventureEnv`` for a game our engine plays (or ``generate=``),
    ``GameEnv`` for any other (a story file). Arguments as ``AdventureEnv``'s."""
    if not isinstance(world, str):
        return AdventureEnv(world, **kwargs)
    source = open_world(world)
    game = open_game(source)
    if game.engine is not None:   # our engine: the env with its planner's figures
        game.close()
        return AdventureEnv(source, **kwargs)
    return GameEnv(game, source_max_turns=getattr(source, "max_turns", None), **kwargs)


class GameEnv(gym.Env):
    """One ``Playable`` game as a text-in, text-out environment; see the module's docstring."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, game: Playable, *, reward: str = "goal", rules: str = "game", max_turns: int | None = None,
                 infos: tuple[str, ...] | list[str] | None = None, render_mode: str | None = None,
                 source_max_turns: int | None = None) -> None:
        """``game``: a new play-through (this env closes it). ``source_max_turns``: the game's own turn
        limit, used when ``max_turns`` is None."""
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)} for this game (it has no planner's"
                             f" progress), not {reward!r}")
        if rules != "game":
            raise ValueError("rules='clembench' needs one of our worlds; this game plays under its own rules"
                             " (rules='game')")
        if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int)
                                      or not 1 <= max_turns <= MAX_TURNS_LIMIT):
            raise ValueError(f"max_turns must be a whole number from 1 to {MAX_TURNS_LIMIT}, or None for the"
                             f" game's own; not {max_turns!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if infos is not None and (isinstance(infos, str) or not all(isinstance(k, str) for k in infos)):
            raise TypeError("infos= is a list of names, e.g. ['score', 'moves']")
        wanted = tuple(INFOS if infos is None else infos)
        unknown = [k for k in wanted if k not in INFOS]
        if unknown:
            raise ValueError(f"unknown info {unknown[0]!r} for this game (known: {', '.join(INFOS)})")
        self.game = game
        self.reward_kind, self.infos, self.render_mode = reward, wanted, render_mode
        self.max_turns = max_turns or source_max_turns or MAX_TURNS_LIMIT
        self.action_space = spaces.Text(ACTION_CHARS, min_length=0, charset=ACTION_CHARSET)
        self.observation_space = spaces.Text(OBSERVATION_CHARS, min_length=0, charset=OBSERVATION_CHARSET)
        self._chars = frozenset(OBSERVATION_CHARSET)
        self._turn = 0
        self._ended = False
        self._closed = False
        self._last_obs = ""

    # -- the Gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:   # Gymnasium leaves the spaces unseeded: a seed must fix sample() too
            self.action_space.seed(seed)
            self.observation_space.seed(seed)
        if options:
            raise ValueError(f"this environment takes no reset options, not {sorted(options)}")
        self.game.restart()
        self._turn, self._ended = 0, False
        self._last_obs = self._fit(self.game.first_observation())
        return self._last_obs, self._info()

    def step(self, action: str):
        if self._ended:
            raise RuntimeError("the episode has ended: call reset()")
        if type(action) is not str:
            action = str(action)
        step = self.game.step(action)
        self._turn += 1
        won = self.game.won
        terminated = bool(step.done or self.game.over)
        truncated = not terminated and self._turn >= self.max_turns
        self._ended = terminated or truncated
        if self.reward_kind == "goal":
            reward = float(step.goal_score)
        else:
            reward = 1.0 if won and terminated else 0.0
        self._last_obs = self._fit(step.observation)
        return self._last_obs, reward, terminated, truncated, self._info()

    def render(self):
        return self._last_obs if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Let go of the game's interpreter; closing twice is harmless."""
        if not self._closed:
            self._closed = True
            self.game.close()
        super().close()

    # -- branching --------------------------------------------------------------------------
    def get_state(self) -> tuple:
        """This moment (the game's snapshot, the turn, ended), for ``set_state``."""
        return (self.game.snapshot(), self._turn, self._ended, self._last_obs)

    def set_state(self, state: tuple) -> None:
        moment, self._turn, self._ended, self._last_obs = state
        self.game.restore(moment)

    # -- what info carries --------------------------------------------------------------------
    def _info(self) -> dict:
        want, game = self.infos, self.game
        info: dict = {}
        if {"score", "max_score", "moves"} & set(want):
            status = game.status()
            figures = {"score": status.score, "max_score": status.max_score, "moves": status.moves}
            info.update((k, v) for k, v in figures.items() if k in want)
        if "location" in want:
            info["location"] = game.location()
        if "inventory" in want:
            info["inventory"] = list(game.inventory())
        if "turn" in want:
            info["turn"] = self._turn
        if "max_turns" in want:
            info["max_turns"] = self.max_turns
        if "walkthrough" in want and game.walkthrough is not None:
            info["walkthrough"] = list(game.walkthrough)
        if "admissible_commands" in want:
            commands = game.valid_actions()
            if commands is not None:   # only a game that can list them says so
                info["admissible_commands"] = list(commands)
        return info

    def _fit(self, text: str) -> str:
        """The observation within the space: a character outside printable ASCII becomes '?', an
        overlong text is cut."""
        text = text[:OBSERVATION_CHARS]
        if self._chars.issuperset(text):
            return text
        return "".join(c if c in self._chars else "?" for c in text)
