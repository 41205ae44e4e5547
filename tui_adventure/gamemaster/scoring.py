"""Scores with per-turn progress: clembench's scorer, handed the game master's replay.

The scorer (``records/scorer.py``) reads records as ``clem score`` does and
sits below the game master; the progress rate of each turn needs the replies
played again under the episode's own rules, which only the game master knows.
This module joins the two, so ``adventure score`` and the tests use one entry.
"""

from __future__ import annotations

from pathlib import Path

from ..records import scorer
from ..records.scorer import ScoreReport, WorldFinder, episode_status, world_finder  # noqa: F401  (one entry)
from .episode import Episode


def replay_states(world, replies: list[str]) -> list | None:
    """The state after each reply, or None when the episode ends before the replies do."""
    episode = Episode(world)
    states = []
    for reply in replies:
        if episode.ended:
            return None
        episode.submit(reply)
        assert episode.game is not None   # replayed for progress: one of our worlds (scorer.WorldFinder), with states
        states.append(episode.game.state)
    return states


def score_interactions(data: dict, exact_par: int | None = None, world=None, tracker=None) -> dict:
    """The scores.json of one episode's interactions (with per-turn progress when ``world`` is given)."""
    return scorer.score_interactions(data, exact_par, world, tracker, replay=replay_states)


def score_root(root: str | Path, exact_par=None, find_world: WorldFinder | None = None) -> ScoreReport:
    """``adventure score``: scores.json for every completed episode under ``root``, and what was left out."""
    return scorer.score_root(root, exact_par, find_world, replay=replay_states)


def score_tree(root: str | Path, exact_par=None, find_world: WorldFinder | None = None) -> list[Path]:
    """The scores.json files written under ``root``."""
    return score_root(root, exact_par, find_world).written
