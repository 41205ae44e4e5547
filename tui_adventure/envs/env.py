"""A world as a Gymnasium environment: text in, text out, seeds that really reproduce.

The engine is deterministic and its states are immutable, so an episode is
fixed by the world and the actions; what a seed adds is the environment's
own randomness (``action_space.sample``, the world drawn from a
``generate`` spec at each reset), and both come from ``np_random`` as
Gymnasium seeds it. Branching is cheap for the same reason: a saved state
is a handful of references (``get_state``/``set_state``, ``fork``), not a
copy of the world. What ``info`` carries is chosen with ``infos``: the exact
par and progress and the admissible commands cost a planner search, which a
training loop that does not read them should not pay for on every step.
"""

from __future__ import annotations

import copy
import json
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gymnasium as gym
from gymnasium import spaces

from ..catalog import open_world
from ..engine.game import Game
from ..engine.loading import MAX_TURNS_LIMIT
from ..engine.metrics import ProgressTracker
from ..engine.planning.admissible import Admissible
from ..engine.world import Goal, World
from ..gamemaster.episode import Episode
from ..gamemaster.interpreter import Interpreter
from ..zmachine.game import StorySource

if TYPE_CHECKING:   # imported where used: generate= is the only use of the generator
    from ..generate import Knobs

REWARDS = ("goal", "progress", "win")
RULES = ("game", "clembench")
INFOS = ("admissible_commands", "goals", "goals_achieved", "goal_score", "turn", "max_turns", "par", "progress")
OPTIONAL_INFOS = ("facts",)
OBSERVATION_CHARS = 16_384    # a room with its contents is a few hundred; the clembench prompt 2,000
ACTION_CHARS = 200
KEPT_TRANSITIONS = 32_768   # steps and parses remembered in the states' caches with admissible commands asked for
# what a command may hold: the parser reads words, numbers and a little punctuation
# (as sorted strings, not sets: a Text space indexes characters in charset order, and AsyncVectorEnv's
# shared memory passes indices between processes, whose set orders differ with their hash seeds)
ACTION_CHARSET = "".join(sorted(set(string.ascii_letters + string.digits + " ,.'-!?>:|\n")))


@dataclass(frozen=True)
class EnvState:
    """Everything an episode depends on at one moment (immutable, so saving it costs nothing)."""
    world: World
    game: tuple           # Game.snapshot()
    episode: tuple | None   # the clembench-rules Episode's snapshot (None under the game's rules)
    ended: bool
    rng: Mapping[str, Any]  # np_random's bit generator state: sampling after a restore repeats


class AdventureEnv(gym.Env):
    """``gymnasium.make("tui_adventure/World-v0", world="house")``; see docs/agents.md."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    action_space: spaces.Text
    observation_space: spaces.Text   # of the world's characters (_fit_space)

    def __init__(self, world: str | World | StorySource | None = None, *, reward: str = "goal", rules: str = "game",
                 max_turns: int | None = None, infos: tuple[str, ...] | list[str] | None = None,
                 generate: dict | None = None, render_mode: str | None = None) -> None:
        if (world is None) == (generate is None):
            raise ValueError("give world= (a file or packaged name) or generate= (the knobs of adventure generate)")
        if world is not None and not isinstance(world, (str, World)):
            raise TypeError(f"world= is a file, a packaged name or a World, not {type(world).__name__}")
        if generate is not None and not isinstance(generate, dict):
            raise TypeError(f"generate= is a mapping of adventure generate's knobs, not {type(generate).__name__}")
        if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int)
                                      or not 1 <= max_turns <= MAX_TURNS_LIMIT):
            raise ValueError(f"max_turns must be a whole number from 1 to {MAX_TURNS_LIMIT}, or None for the"
                             f" world's own; not {max_turns!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if infos is not None and (isinstance(infos, str) or not all(isinstance(k, str) for k in infos)):
            raise TypeError("infos= is a list of names, e.g. ['goals', 'turn']")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if rules not in RULES:
            raise ValueError(f"rules must be one of {', '.join(RULES)}, not {rules!r}")
        wanted = tuple(INFOS if infos is None else infos)
        unknown = [k for k in wanted if k not in INFOS + OPTIONAL_INFOS]
        if unknown:
            raise ValueError(f"unknown info {unknown[0]!r} (known: {', '.join(INFOS + OPTIONAL_INFOS)})")
        self.reward_kind, self.rules, self.infos = reward, rules, wanted
        self._admissible = "admissible_commands" in wanted
        self._admissible_only = wanted == ("admissible_commands",)
        self._default_infos = wanted == INFOS   # the usual case, built at once (see _info)
        self.render_mode = render_mode
        self._max_turns = max_turns
        self._tracker: ProgressTracker | None = None
        self._commands: Admissible | None = None   # the admissible commands' memo of the world played
        self._fitted: dict[str, str] = {}
        self._texts_for: World | None = None
        self._first_for: World | None = None   # the world whose first observation _first_obs is
        self._generate = dict(generate) if generate is not None else None
        self._knobs: Knobs | None = None   # the generate= knobs, read once (the first world's making checks them)
        # the world this env drew (generate=) and has handed out to no one (get_state, fork): it closes
        # it when it draws the next one, or at close(), so its memory comes back at once (World.close)
        self._made: World | None = None
        self._world = _ours(world, open_world(world) if isinstance(world, str) else world)
        if self._world is None:
            self._world = self._made = self._generated(0)
        self.action_space = spaces.Text(ACTION_CHARS, min_length=0, charset=ACTION_CHARSET)
        self._chars = ""
        self._fit_space(self._world)
        self._load(self._world)

    # -- the world -------------------------------------------------------------------------
    def _generated(self, seed: int) -> World:
        from ..generate import Knobs, generated_world

        if self._knobs is None:
            assert self._generate is not None   # only an env made with generate= draws its worlds
            self._knobs = Knobs.of(self._generate)
        # built from its document, no YAML round trip; solved only when its max_turns (made from par) is
        # wanted: the par and progress infos ask the tracker, which solves the world itself when read
        return generated_world(self._knobs, seed, solve=self._max_turns is None)

    def _fit_space(self, world: World) -> None:
        """The observation space of ``world``'s characters: the same space kept while they are the same
        (generated worlds of one theme mostly share them)."""
        chars = _charset(world)
        if chars != self._chars:
            self._chars = chars
            self.observation_space = spaces.Text(OBSERVATION_CHARS, min_length=0, charset=chars)

    def _load(self, world: World) -> None:
        self.world = world
        self.game = Game(world)
        self.episode = Episode(world, strict=True) if self.rules == "clembench" else None
        self.max_turns = world.max_turns if self._max_turns is None else self._max_turns
        if self._tracker is not None and self._tracker.world is not world:
            self._tracker = None   # a tracker's solved states belong to its world: kept across resets
        self._ended = False
        self._last_obs = ""
        if self._texts_for is not world:   # a world's goals are fixed: their texts made once per world
            self._texts_for, self._goal_texts = world, [str(x) for x in world.goals]
        self._achieved_for: frozenset[Goal] | None = None
        self._achieved_texts: list[str] = []

    @property
    def tracker(self) -> ProgressTracker:
        if self._tracker is None:
            self._tracker = ProgressTracker(self.world)
        return self._tracker

    # -- the Gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:   # Gymnasium leaves the spaces unseeded: a seed must fix sample() too
            self.action_space.seed(seed)
        options = options or {}
        if "world" in options:
            if not isinstance(options["world"], (str, World)):
                raise TypeError(f"options['world'] is a file, a packaged name or a World, not"
                                f" {type(options['world']).__name__}")
            named = options["world"]
            world = _ours(named, open_world(named) if isinstance(named, str) else named)
            self._world = world
            self._fit_space(world)
        elif self._generate is not None:   # a world drawn from the seeded generator: the seed fixes it
            self._world = self._generated(int(self.np_random.integers(0, 2 ** 31 - 1)))
            self._fit_space(self._world)
            self._close_made()
            self._made = self._world
        if seed is not None:
            self.observation_space.seed(seed)
        if self._fitted and self.world is not self._world:
            self._fitted.clear()
        self._load(self._world)
        if self.episode is not None:
            self._last_obs = self._fit(self.episode.first_message)
        else:   # the world's initial state's text: the same every reset of one world, fitted once
            if self._first_for is not self.world:
                self._first_for, self._first_obs = self.world, self._fit(self.game.first_observation())
            self._last_obs = self._first_obs
        return self._last_obs, self._info(0)

    def step(self, action: str):
        if self._ended:
            raise RuntimeError("the episode has ended: call reset()")
        if type(action) is not str:
            action = str(action)
        before = self._score() if self.reward_kind == "progress" else 0.0
        if self.episode is not None:
            turn = self.episode.submit(action)
            obs = turn.observation if turn.observation is not None else f"(aborted: {turn.invalid_format})"
            game = self.episode.game
            assert game is not None   # the env plays our worlds only: the episode's game is our engine's
            self.game = game
            won = self.episode.finished and not self.episode.aborted
            terminated = self.episode.ended and not self.episode.turn_limit_reached
            truncated = self.episode.turn_limit_reached
            goal_delta = turn.goal_score
            self._last_obs = self._fit(obs)
            text = None
        else:
            # Game.play: the turn as step plays it, played again from the state's cache when known
            game = self.game
            played = game.play(action)
            lost = game.lost
            won = game.finished and lost is None
            terminated = won or lost is not None or played.ended
            truncated = not terminated and game.turn >= self.max_turns
            goal_delta = played.goal_score
            text = played.text
        self._ended = terminated or truncated
        if self.reward_kind == "goal":
            reward = float(goal_delta)
        elif self.reward_kind == "win":
            reward = 1.0 if won and terminated else 0.0
        else:
            reward = float(self._score() - before)
        # the infos first: a state met before by a new way then reads through the known one
        # (Game.settle), whose cache may hold its room's text already
        info = self._info(goal_delta)
        if text is not None:
            self._last_obs = self._fit(text if type(text) is str else str(text))
        return self._last_obs, reward, terminated, truncated, info

    def close(self) -> None:
        """Let go of the world this env drew with ``generate=``, if it handed it to no one."""
        self._close_made()
        super().close()

    def _close_made(self) -> None:
        made, self._made = self._made, None
        if made is not None:
            if self._tracker is not None and self._tracker.world is made:
                self._tracker = None
            if self._commands is not None and self._commands.world is made:
                self._commands = None
            made.close()

    def render(self):
        if self.render_mode == "ansi":
            return self._last_obs
        return None

    # -- branching --------------------------------------------------------------------------
    def get_state(self) -> EnvState:
        self._made = None   # the snapshot holds the world: it is no longer this env's alone to close
        g = self.game
        return EnvState(self.world, g.snapshot(),
                        _interpreter(self.episode).snapshot() if self.episode is not None else None,
                        self._ended, copy.deepcopy(self.np_random.bit_generator.state))

    def set_state(self, state: EnvState) -> None:
        if state.world is not self.world:
            self._load(state.world)
        if self.episode is not None:
            self.episode = Episode(state.world, strict=True)
            assert state.episode is not None   # a state of an env under the same (clembench) rules
            _interpreter(self.episode).restore(state.episode)
            game = self.episode.game
            assert game is not None   # the env plays our worlds only: the episode's game is our engine's
            self.game = game
        self.game.restore(state.game)
        self._ended = state.ended
        self.np_random.bit_generator.state = copy.deepcopy(state.rng)

    def fork(self) -> "AdventureEnv":
        """A new environment at this one's state, for rollouts from here (as clemcore's branching runner
        does): the world is shared, nothing else."""
        other = copy.copy(self)
        other._made = None   # the world is shared: neither closes it
        other._np_random = copy.deepcopy(self.np_random)
        other._load(self.world)
        other._tracker = self._tracker
        other.set_state(self.get_state())
        return other

    # -- what info carries --------------------------------------------------------------------
    def _score(self) -> float:
        if self.reward_kind == "progress":
            return self.tracker.progress(self.game.state)
        return float(len(self.game.achieved))

    def _info(self, goal_delta: int) -> dict:
        g, want = self.game, self.infos
        info: dict = {}
        if not want:
            return info
        if self._admissible:
            if self._commands is None or self._commands.world is not self.world:   # one per world, not per step
                # the memo alone, not a planner: a world drawn each episode (generate=) would build a
                # planner's heuristic and goal moves for nothing
                self._commands = Admissible(self.world)
                # states recur (the canonical ones below): their memos are worth keeping longer
                self.world.keep_memos(KEPT_TRANSITIONS)
            # memoised on the state; the state a memo first met stands for the equal ones after it, so
            # the game plays on from states whose actions' memos are filled (engine.admissible)
            canonical, commands = self._commands.lookup(g.state)
            g.settle(canonical)
            if self._admissible_only:
                return {"admissible_commands": list(commands)}
            if self._default_infos:   # every entry below, in INFOS's order, with no test per key
                tracker = self.tracker
                return {"admissible_commands": list(commands), "goals": list(self._goal_texts),
                        "goals_achieved": self._achieved_list(), "goal_score": len(g.achieved),
                        "turn": g.turn, "max_turns": self.max_turns, "par": tracker.par_0,
                        "progress": tracker.progress(g.state)}
            info["admissible_commands"] = list(commands)
        if "goals" in want:
            info["goals"] = list(self._goal_texts)
        if "goals_achieved" in want:
            info["goals_achieved"] = self._achieved_list()
        if "goal_score" in want:
            info["goal_score"] = len(g.achieved)
        if "turn" in want:
            info["turn"] = g.turn
        if "max_turns" in want:
            info["max_turns"] = self.max_turns
        if "par" in want:
            info["par"] = self.tracker.par_0
        if "progress" in want:
            info["progress"] = self.tracker.progress(g.state)
        if "facts" in want:
            info["facts"] = g.facts()
        return info

    def _achieved_list(self) -> list:
        achieved = self.game.achieved
        if achieved is not self._achieved_for:   # the same set until a goal changes: sorted once
            self._achieved_for, self._achieved_texts = achieved, sorted(str(x) for x in achieved)
        return list(self._achieved_texts)

    def _fit(self, text: str) -> str:
        """The observation within the space: a character the space lacks (never seen in practice: the
        charset is every character of the world's texts) becomes '?', an overlong text is cut.
        Texts repeat (rooms, refusals), so each is checked once (a bounded memo)."""
        fitted = self._fitted.get(text)
        if fitted is None:
            chars = self.observation_space.character_set
            fitted = text if chars.issuperset(text) else "".join(c if c in chars else "?" for c in text)
            fitted = fitted[:OBSERVATION_CHARS]
            if len(self._fitted) > 4_096:
                self._fitted.clear()
            self._fitted[text] = fitted
        return fitted


def _interpreter(episode: Episode) -> Interpreter:
    """The clembench-rules episode's interpreter: our engine's, as the env plays our worlds only."""
    interpreter = episode.interpreter
    assert isinstance(interpreter, Interpreter)   # a story file's episode keeps score instead (ScoreKeeper)
    return interpreter


def _ours(named, source):
    """``source`` when it is one of our worlds (or None); a story file's source is a one-line ValueError
    naming the environment that plays it."""
    if source is not None and not isinstance(source, World):
        raise ValueError(f"{named}: a story file plays in its own environment, gymnasium.make("
                         "'tui_adventure/World-v0', world=...) (envs.playable.GameEnv); reset(options=...) cannot"
                         " switch to one")
    return source


_ACTION_CHARS: dict = {}   # the actions' definitions' ids -> (them, the characters of their texts)


_PRINTABLE = frozenset(string.printable) - {"\x0b", "\x0c"}
_NOT_PRINTABLE = str.maketrans(dict.fromkeys(_PRINTABLE))   # str.translate's table dropping them


def _charset(world: World) -> str:
    """Every character an observation of this world can hold: printable ASCII and the world's own texts
    (its actions' read once per ruleset: a generated world per reset shares them)."""
    instance = world.meta.get("instance")
    texts = [world.title or "", world.intro or "", str(world.meta.get("prompt", ""))]
    if instance:   # an empty one adds "{}", printable
        texts.append(json.dumps(instance, ensure_ascii=False))
    for e in world.entities.values():
        texts.append(e.name or "")
        texts.append(e.description or "")
    chars = _PRINTABLE.union("".join(texts).translate(_NOT_PRINTABLE))   # the rest, few or none: a set of them
    key = tuple(id(a.spec) for a in world.actions)
    hit = _ACTION_CHARS.get(key)
    if hit is None:
        said: set = set()
        for a in world.actions:
            said.update(a.spec.success)
            for check in a.spec.checks:
                for c in check:
                    said.update(str(c))
        if len(_ACTION_CHARS) > 256:
            _ACTION_CHARS.clear()
        hit = _ACTION_CHARS[key] = ([a.spec for a in world.actions], frozenset(said))
    chars |= hit[1]
    got = _CHARSETS.get(chars)
    if got is None:   # worlds of one theme mostly have the same characters: each set sorted once
        if len(_CHARSETS) > 256:
            _CHARSETS.clear()
        got = _CHARSETS[chars] = "".join(sorted(chars))
    return got


_CHARSETS: dict[frozenset, str] = {}   # a world's characters -> them in order
