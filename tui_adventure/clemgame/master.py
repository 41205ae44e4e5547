"""The game master clemcore runs for an exported game: our episode loop, turn for turn.

clemcore's ``DialogueGameMaster`` asks the player and logs the context and the reply; each reply
then goes to ``gamemaster.Episode.submit``, the same call every front end of ours makes, and the
episode's own events are logged after ``metadata`` in the order our recorder writes them. So the
prompt, the reading of a reply, the end of an episode and the records are the ones ``adventure run``
gives, and ``clem score`` scores with ``adventure score``'s scorer (clembench's names and formulas,
with our exact par beside them).

Each turn is one round (``Round: N``), as in our records, also in a world of several players, where
the world says whose turn is next. A model sees what our model players send: for a native world our
prompt as the system message, then the episode's messages (``get_perspective``). clemcore's
programmatic player (``-m mock``) is our exact planner, so ``clem run -g NAME -m mock`` wins every
instance in par.

This is the one module of the package that imports clemcore; only an exported game's ``master.py``
imports it.
"""

from __future__ import annotations

import asyncio
from typing import Sequence

from clemcore.clemgame import GameBenchmark, GameInstanceGenerator, Player
from clemcore.clemgame.legacy.scorer import GameScorer
from clemcore.clemgame.master import DialogueGameMaster

from ..records.recorder import adventure_info
from ..gamemaster.episode import Episode
from ..gamemaster.scoring import score_interactions
from ..players.programmatic import OraclePlayer
from ..players.prompting import system_prompt
from .instances import instances_document, seats, world_of


class Adventurer(Player):
    """One seat. Its model is asked with the episode's conversation; a programmatic model (``mock``)
    gets the oracle's reply."""

    def __init__(self, model, master: "AdventureGameMaster", role: str) -> None:
        super().__init__(model, game_role=role)
        self._master = master

    def _custom_response(self, context: dict) -> str:
        return self._master.oracle_reply()

    def get_perspective(self) -> list[dict]:
        """What a model reads before the context it is asked about: the system message a native
        world gets, then the episode so far (every seat's turns: one conversation, as ours)."""
        episode = self._master.episode
        system = system_prompt(episode, "text")
        head = [{"role": "system", "content": system}] if system else []
        return head + [dict(m) for m in episode.messages[:-1]]


class AdventureGameMaster(DialogueGameMaster):
    def _on_setup(self, **instance) -> None:
        self.world = world_of(instance)
        self.episode = Episode(self.world)
        self._oracle = OraclePlayer()
        order = seats(self.world)
        self.by_seat: dict[str, Adventurer] = {}
        for k, seat in enumerate(order or ("",)):
            role = f"Adventurer ({seat})" if order else "Adventurer"
            player = Adventurer(self.player_models[k], self, role)
            self.add_player(player)
            self.by_seat[seat] = player
        self._current_player_idx = self._index_of(self.episode.whose_turn())
        self.set_context_for(self.get_players()[self._current_player_idx], self.episode.first_message)

    def _on_before_game(self) -> None:
        self.log_key("adventure_info", adventure_info(self.world))

    def _index_of(self, seat: str | None) -> int:
        return list(self.by_seat).index(seat or "")

    def oracle_reply(self) -> str:
        return asyncio.run(self._oracle.reply(self.episode)).text

    def _parse_response(self, player: Player, response: str) -> str:
        return response   # the episode reads it (Episode.command_of), as in every runner of ours

    def _advance_game(self, player: Player, parsed_response: str) -> None:
        turn = self.episode.submit(parsed_response)
        self.log_to_self("metadata", f"Round: {self.current_round}")
        for kind, content in turn.events:
            self.log_to_self(kind, content)
        if turn.invalid_format:
            self.count_request_violation()
        if self.episode.ended:
            outcome = self.episode.outcome
            if outcome.aborted:
                self.state.abort()
            elif outcome.success:
                self.state.succeed()
            else:
                self.state.failed()
            return
        self._current_player_idx = self._index_of(self.episode.whose_turn())
        self.set_context_for(self.get_players()[self._current_player_idx], turn.observation or "")

    def _next_player(self) -> Player:
        return self.get_players()[self._current_player_idx]   # the world said whose turn is next

    def _start_next_round(self) -> bool:
        return True   # a turn is a round, as in our records


class AdventureGameScorer(GameScorer):
    """``clem score``: the scores.json ``adventure score`` writes for the same interactions."""

    def compute_scores(self, interactions: dict) -> None:
        try:
            world = world_of(self.game_instance)
        except Exception:   # a moved world: scored without per-turn progress, as adventure score does
            world = None
        self.scores = score_interactions(interactions, world=world)


class AdventureGameBenchmark(GameBenchmark):
    def create_game_master(self, experiment: dict, player_models: list) -> AdventureGameMaster:
        return AdventureGameMaster(self.game_spec, experiment, player_models)

    def create_game_scorer(self, experiment: dict, game_instance: dict) -> AdventureGameScorer:
        return AdventureGameScorer(self.game_name, experiment, game_instance)


class AdventureInstanceGenerator(GameInstanceGenerator):
    """clemcore's way to (re)write ``in/instances.json``: ``generate(worlds=[WORLD, ...])`` with the
    same arguments ``adventure export clemgame`` takes."""

    def on_generate(self, seed: int, worlds: Sequence[str] = (), **kwargs) -> None:
        from ..catalog import open_world

        document, _ = instances_document([(w, open_world(w)) for w in worlds])
        self.instances = document
