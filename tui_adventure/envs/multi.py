"""A world with several players as a PettingZoo AEC environment: one agent per player, in turn order.

PettingZoo's agent-environment cycle is exactly how such a world runs: the
world says whose turn it is (``engine.scene``), that agent acts, everyone's
observation is what they last read. Goals are shared, so each agent is
rewarded with the change in goals achieved on any turn; a win, a loss or
``done`` terminates every agent, the turn limit truncates them.

Observations are text (``spaces.Text``) by default. PettingZoo's own
``api_test`` insists on observations with a dtype, so ``observation="bytes"``
gives the same text as a fixed-size ``uint8`` array (UTF-8, zero-padded;
``decode`` reads it back), which passes it.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..catalog import open_world
from ..engine.game import Game
from ..engine.world import World
from .env import ACTION_CHARS, ACTION_CHARSET, OBSERVATION_CHARS


class AdventureAEC(AECEnv):
    metadata = {"render_modes": ["ansi"], "name": "tui_adventure_players_v0", "is_parallelizable": False}

    def __init__(self, world: str | World, render_mode: str | None = None, observation: str = "text") -> None:
        super().__init__()
        if observation not in ("text", "bytes"):
            raise ValueError(f"observation is 'text' or 'bytes', not {observation!r}")
        self.as_bytes = observation == "bytes"
        self.world = world if isinstance(world, World) else open_world(world)
        scene = self.world.scene
        if scene is None or not scene.spec.players:
            raise ValueError(f"{self.world.game} has one player: use gymnasium.make('tui_adventure/World-v0')")
        self.possible_agents = list(scene.spec.players)
        self.render_mode = render_mode
        charset = "".join(sorted(set(chr(c) for c in range(32, 127)) | {"\n"}))
        self._obs_space = (spaces.Box(0, 255, (OBSERVATION_CHARS,), np.uint8) if self.as_bytes
                           else spaces.Text(OBSERVATION_CHARS, charset=charset))
        self._act_space = spaces.Text(ACTION_CHARS, min_length=1, charset=ACTION_CHARSET)

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def reset(self, seed=None, options=None):
        if seed is not None:
            for _ in self.possible_agents:
                self._act_space.seed(seed)
        self.game = Game(self.world)
        self.agents = list(self.possible_agents)
        first = self.game.first_observation()
        self.observations = {a: first for a in self.agents}
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.world.scene.active(self.game.state)

    def observe(self, agent):
        text = self._printable(self.observations[agent])
        if not self.as_bytes:
            return text
        out = np.zeros(OBSERVATION_CHARS, np.uint8)
        raw = np.frombuffer(text.encode("ascii"), np.uint8)
        out[:len(raw)] = raw
        return out

    @staticmethod
    def _printable(text: str) -> str:
        return "".join(c if 32 <= ord(c) < 127 or c == "\n" else "?" for c in text)[:OBSERVATION_CHARS]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        result = self.game.step(str(action))
        for a in self.agents:
            self.rewards[a] = float(result.goal_score)
        self.observations[agent] = result.observation
        over = result.done or result.lost is not None or (result.fail is None and result.action == "done")
        limit = self.game.turn >= self.world.max_turns
        for a in self.agents:
            self.terminations[a] = over
            self.truncations[a] = limit and not over
            self.infos[a] = {"turn": self.game.turn, "lost": result.lost}
        nxt = self.world.scene.active(self.game.state)
        self.observations[nxt] = result.observation   # the next player reads what just happened, then acts
        self.agent_selection = nxt
        self._accumulate_rewards()

    def render(self):
        if self.render_mode == "ansi":
            return self.observations[self.agent_selection]
        gymnasium.logger.warn("render() needs render_mode='ansi'")
        return None

    def close(self):
        """Nothing to release: the game lives in this process and holds no files."""


def env(world: str | World, render_mode: str | None = None, observation: str = "text") -> AdventureAEC:
    return AdventureAEC(world, render_mode=render_mode, observation=observation)


def decode(observation) -> str:
    """The text of an observation, either kind."""
    return observation if isinstance(observation, str) else bytes(observation).rstrip(b"\0").decode("ascii")
