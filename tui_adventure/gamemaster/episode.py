"""The game-master loop: one world, one player, one recorder; no front end.

The Textual app, the REPL and batch runs all drive this loop, so turn rules,
scoring and recording live here once. A turn is one reply of the player:
the reply is checked for format, its command goes to the engine, goal status
is updated, and the end rules are applied. Imported clembench worlds follow
upstream's game master exactly (docs/clembench/ADVENTUREGAME.md section 7): a reply must
start with ">", only its first line counts, a planning variant needs
"Next actions:", and 50 turns end the episode. Their records say what
upstream's would, quirks included (see ``clembench/exploration.py``: goals
after a failed command, what a simulated plan leaves behind); the player's
own view (``Turn.goal_score``, ``outcome``) follows the game itself. Native
worlds are forgiving by default (a bare command is fine) unless the world
asks for ``strict``.

The game is played through the one game interface (``games.interface.Playable``,
``Episode.play``): our worlds and Z-machine story files alike. Upstream's bookkeeping
(goals in its shapes, exploration, plans) needs our engine's game (``Playable.engine``);
a game without it is scored by its own score (``Outcome.scored``: Main Score is
100 x score / max score, TALES's normalised score).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from ..engine import metrics
from ..engine.game import Game
from ..engine.text import MAX_COMMAND
from ..engine.world import World
from ..games import Step, open_game
from ..players import ContextFull
from ..players.reply import Reply
from ..zmachine.game import StorySource
from .interpreter import Interpreter, ScoreKeeper

HALLUCINATION_WORDS = ("complete", "finish", "done", "successfully")


@dataclass
class Turn:
    index: int                       # 1-based
    reply: str
    command: str | None = None       # what the engine was given (None: the reply was refused)
    observation: str | None = None   # what the player reads next (None when the episode aborted)
    result: Step | None = None       # our engine's turns: an engine.game.StepResult
    invalid_format: str | None = None
    hallucinated_finish: bool = False
    plan: list[str] | None = None            # the plan this reply gave (planning variant)
    plan_results: list[list] | None = None   # the current plan simulated: [goals, text, info] per command
    events: list[tuple[str, object]] = field(default_factory=list)   # (type, content), in order
    answer: Reply | None = None              # the player's Reply (request record, usage), if any
    actor: str | None = None                 # a world of several players: whose turn this was (its id)

    @property
    def goal_score(self) -> int:
        return self.result.goal_score if self.result else 0

    @property
    def fail(self) -> dict | None:
        return self.result.fail if self.result else None


@dataclass
class Outcome:
    turns: int
    aborted: bool
    success: bool
    goals_achieved: int
    goal_count: int
    invalid_format: str | None
    turn_limit_reached: bool
    par: int | None
    lost: bool = False
    scored: bool = False   # goals_achieved/goal_count are the game's score/max score (a story file's)

    @property
    def achieved_goal_ratio(self) -> float:
        if self.scored and self.goal_count <= 0:   # a game that states no max score: won is all of it
            return 1.0 if self.success else 0.0
        return metrics.achieved_goal_ratio(self.goals_achieved, self.goal_count)

    @property
    def main_score(self) -> float:
        """clembench's Main Score; for a game scored by its own score, 100 x score / max score (a loss
        keeps what was scored, as TALES's normalised score does), NaN when aborted."""
        if self.scored:
            return math.nan if self.aborted else self.achieved_goal_ratio * 100
        return metrics.main_score(self.achieved_goal_ratio, self.aborted, self.lost)

    @property
    def turns_over_par(self) -> float:
        """Upstream-faithful: a number only for a won episode with a par."""
        if not self.success or self.par is None:
            return math.nan
        return metrics.turns_over_par(self.turns, self.par)


class Episode:
    """Submit replies one at a time; read ``messages``, ``turns``, ``ended``, ``outcome``.

    Every turn's ``events`` are the game master's own log entries in
    upstream's order and with upstream's contents (what the recorder writes
    after the two messages and ``metadata``), so front ends and records see
    one account of the turn.
    """

    def __init__(self, world: World | StorySource, *, par: int | None = None, strict: bool | None = None,
                 listener: Callable[[str, object], None] | None = None, voices=None) -> None:
        """``world``: one of our worlds or a story file's ``zmachine.game.StorySource`` (a source:
        ``games.open_game``). ``voices``: the world's model-voiced characters (``voices.Voices``),
        asked after each turn that turns to them; None plays them silent (a replay, a planner, a scorer)."""
        self.world = world
        self.voices = voices
        self.play = open_game(world)   # the game, through the one game interface
        engine = self.play.engine
        self.game: Game | None = engine if isinstance(engine, Game) else None   # None: another engine's game
        self.clembench = world.is_clembench()
        self.strict = world.strict if strict is None else strict
        self.planning = world.meta.get("variant") == "plan"
        # clembench scores against the instance's own optimal_turns (what upstream's scorer uses)
        self.par = par if par is not None else (world.meta.get("optimal_turns") if self.clembench else world.par)
        self.max_turns = world.max_turns
        self.turns: list[Turn] = []
        self.finished = False            # all goals reached at some point (sticky, like upstream)
        self.ended = False
        self.aborted = False
        self.invalid_format: str | None = None
        self.turn_limit_reached = False
        self.done_by_player = False
        self.ended_by: str | None = None  # an end with no reply to judge: "context_exhausted"
        self.lost: str | None = None      # a scene's lose condition held: the game is lost (its message)
        self.error: BaseException | None = None
        self.listener = listener
        self.interpreter = Interpreter(world, self.game) if self.game is not None else ScoreKeeper(self.play)
        self.goals: list = []            # the goals as upstream's game master last heard of them
        self.plans: list[list[str]] = []
        self._before: list[tuple] = []   # per turn: what undo puts back
        prompt = world.meta.get("prompt", "") if self.clembench else ""
        self.first_message = prompt + self.play.first_observation()
        self.messages: list[dict] = [{"role": "user", "content": self.first_message}]

    # -- the loop ---------------------------------------------------------
    def whose_turn(self) -> str | None:
        """The id of the player to move in a world of several players (None: one player)."""
        scene = self.world.scene
        return scene.active(self.game.state) if scene is not None and scene.spec.players and self.game else None

    def submit(self, reply: str) -> Turn:
        """Play one reply. Raises RuntimeError if the episode already ended. A command (the part of the
        reply played) over ``MAX_COMMAND`` characters is an invalid reply, ``command_too_long``."""
        if self.ended:
            raise RuntimeError("the episode has ended")
        reply = reply if isinstance(reply, str) else str(reply)
        self._before.append((self.interpreter.snapshot(), list(self.goals), self.finished, len(self.plans)))
        turn = Turn(len(self.turns) + 1, reply, actor=self.whose_turn())
        self.turns.append(turn)
        self.messages.append({"role": "assistant", "content": reply})
        command, problem = self.command_of(reply)
        if command is not None and len(command) > MAX_COMMAND:   # never played, so never kept as a command
            command, problem = None, "command_too_long"
        if problem is not None:
            if problem == "command_tag_missing" and any(w in reply for w in HALLUCINATION_WORDS):
                turn.hallucinated_finish = True
                self._event(turn, "hallucinated_finish", reply)
            turn.invalid_format = problem
            self.aborted = True
            self.invalid_format = problem
            self._event(turn, "invalid_format", problem)
            self._end(turn)
            return turn
        if self.planning:
            plan = self.plan_of(reply)
            if plan is not None:
                turn.plan = plan
                self.plans.append(plan)
                self._event(turn, "turn_plan", plan)
        assert command is not None   # command_of gives a command whenever it finds no problem
        turn.command = command
        goals, observation, info, result = self.interpreter.process(command)
        turn.result = result
        turn.observation = observation
        self._event(turn, "action_fail" if result.fail is not None else "action_info", info)
        for call in result.scene:   # what the scene did: its functions with their arguments and results
            self._event(turn, "scene_function", call)
        prior = len(self.goals)
        self.goals = goals
        self._event(turn, "goal_status", {"goal_states_achieved": list(goals), "turn_goal_score": len(goals) - prior})
        if self.planning:
            self._plan_events(turn, command)
        self.messages.append({"role": "user", "content": observation})
        if self._all_goals(goals):
            self.finished = True
            self._event(turn, "adventure_finished", list(goals))
        if result.lost is not None:
            self.lost = result.lost
            self._event(turn, "game_lost", result.lost)
            self._end(turn)
        elif self.play.over:   # the game ended itself (a story file won): it takes no more moves
            self._end(turn)
        elif len(self.turns) >= self.max_turns:
            self.turn_limit_reached = True
            self.aborted = True
            self._event(turn, "turn_limit_reached", f"Turn limit {self.max_turns} reached, end episode.")
            self._end(turn)
        elif result.fail is None and result.action == "done":
            self.done_by_player = True
            self._event(turn, "model_done", f"Model produced DONE action at turn {turn.index}, end episode.")
            self._end(turn)
        return turn

    def _plan_events(self, turn: Turn, command: str) -> None:
        """The current plan (the last one given) simulated from here; it never changes the world.

        Upstream crashes when no plan was ever given (a first reply "> done"):
        here that plan is empty.
        """
        plan = self.plans[-1] if self.plans else []
        self._event(turn, "current_plan", str(plan))
        self._event(turn, "plan_length", len(plan))
        results = self.interpreter.simulate(plan)
        turn.plan_results = results
        self._event(turn, "plan_results", results)
        ok = sum(1 for _, _, info in results if "fail_type" not in info)
        self._event(turn, "plan_command_success_ratio", ok / len(plan) if plan else 0.0)
        if len(self.plans) >= 2:
            self._event(turn, "plan_followed", int(self.plans[-2][0] == command))

    def _all_goals(self, goals: list) -> bool:
        if self.clembench:
            return self.interpreter.all_goals(goals)
        return self.play.won

    def _end(self, turn: Turn) -> None:
        self.ended = True
        self._event(turn, "game_result", {"goal_states_achieved": list(self.goals),
                                          "game_successfully_finished": self.finished})

    def command_of(self, reply: str) -> tuple[str | None, str | None]:
        """(command, None) or (None, invalid_format) under this episode's reply rules."""
        if self.clembench or self.strict:
            if not reply.startswith(">"):
                return None, "command_tag_missing"
            if self.planning and "\nNext actions:" not in reply and "done" not in reply:
                return None, "next_actions_missing"
            return reply[1:].split("\n", 1)[0].strip(), None
        # forgiving: an optional ">" and the first non-empty line
        lines = [ln.strip() for ln in reply.strip().splitlines() if ln.strip()]
        first = lines[0] if lines else ""
        return (first[1:].strip() if first.startswith(">") else first), None

    @staticmethod
    def plan_of(reply: str) -> list[str] | None:
        """The plan after "Next actions:" (to the end of the reply), split at commas; None when there is none.

        Empty parts stay (a trailing comma gives ""), as upstream keeps them.
        """
        if reply == "> done":
            return None
        parts = reply.split("\nNext actions:")
        if len(parts) < 2:
            return None
        return [a.strip() for a in parts[1].split(",")]

    def scene_event(self, turn: Turn, kind: str, content) -> None:
        """A game-master event from outside the engine's step (a voiced character's line or call)."""
        self._event(turn, kind, content)

    def scene_lines(self, turn: Turn, lines: list[str]) -> None:
        """What voiced characters said and did, after the turn's own text (the player reads it next);
        the goals follow any change their tools made."""
        if self.game is None:   # voiced characters live in our worlds' scenes only
            return
        if lines and turn.observation is not None:
            turn.observation = "\n".join([turn.observation, *lines])
            if self.messages and self.messages[-1]["role"] == "user":
                self.messages[-1] = {"role": "user", "content": turn.observation}
        goals = [str(g) for g in self.world.goals if g.holds(self.game.state)]
        if not self.clembench and goals != list(self.goals):
            self.interpreter.goals = frozenset(g for g in self.world.goals if g.holds(self.game.state))
            prior = len(self.goals)
            self.goals = goals
            self._event(turn, "goal_status", {"goal_states_achieved": list(goals),
                                              "turn_goal_score": len(goals) - prior})
            if not self.finished and self._all_goals(goals):
                self.finished = True
                self._event(turn, "adventure_finished", list(goals))

    def _event(self, turn: Turn, kind: str, content) -> None:
        turn.events.append((kind, content))
        if self.listener is not None:
            self.listener(kind, content)

    def end_early(self, reason: str) -> None:
        """End without a reply to judge (the model's context is full): played, and aborted."""
        self.ended = self.aborted = True
        self.ended_by = reason

    # -- time travel (a person debugging by hand; models never call these) --------
    def undo(self, turns: int = 1) -> int:
        """Take back the last ``turns`` turns, as if they were never played (records follow)."""
        n = 0
        while n < turns and self.turns:
            turn = self.turns.pop()
            self.messages.pop()                       # the reply
            if turn.observation is not None:
                self.messages.pop()                   # and what the player read after it
            if turn.result is not None and self.game is not None:
                self.game.undo(1)   # our engine's own undo; another engine's comes back with the interpreter
            interp, goals, finished, plans = self._before.pop()
            self.interpreter.restore(interp)
            self.goals, self.finished = goals, finished
            del self.plans[plans:]
            n += 1
        if n:
            self.ended = self.aborted = self.turn_limit_reached = self.done_by_player = False
            self.invalid_format = self.ended_by = None
            self.error = None
        return n

    # -- results ------------------------------------------------------------
    @property
    def outcome(self) -> Outcome:
        status = self.play.status()   # our worlds: goals achieved of goals; a story file: score of max score
        return Outcome(turns=len(self.turns), aborted=self.aborted,
                       success=self.finished and not self.aborted and self.lost is None,
                       goals_achieved=status.score, goal_count=status.max_score or 0,
                       invalid_format=self.invalid_format, turn_limit_reached=self.turn_limit_reached,
                       par=self.par, lost=self.lost is not None, scored=self.game is None)


class PlayerFailed(RuntimeError):
    """The player could not produce a reply (a backend gave up after its retries)."""


class ContextExhausted(PlayerFailed):
    """The model's context is full: the episode ended as played and aborted (``context_exhausted``),
    not as an error, so a rerun does not ask again what cannot succeed."""


async def play_turn(episode: Episode, player, recorder=None, stream: Callable[[str], None] | None = None) -> Turn:
    """The one turn every front end runs: ask the player, submit its reply, record it.

    A player that raises ends the episode as an error (``error.json``), and
    ``PlayerFailed`` tells the front end, which goes on running.
    """
    import asyncio

    try:
        answer = await player.reply(episode, stream)
    except asyncio.CancelledError:
        raise
    except ContextFull as exc:
        episode.end_early("context_exhausted")
        if recorder is not None:
            recorder.end_early(episode, "context_exhausted", str(exc))
        raise ContextExhausted(f"{player.name}: {exc}") from exc
    except Exception as exc:
        episode.ended = True
        episode.error = exc
        if recorder is not None:
            recorder.error(exc)
        raise PlayerFailed(f"{player.name}: {type(exc).__name__}: {exc}") from exc
    bare = isinstance(answer, str)   # a player of a few lines may answer with the text alone
    turn = episode.submit(answer if bare else answer.text)
    turn.answer = None if bare else answer
    if episode.voices is not None and not episode.ended:
        try:
            await episode.voices.after_turn(episode, turn)
        except asyncio.CancelledError:
            raise
        except Exception as exc:   # a voice's backend gave up: the episode ends as an error, as for a player's
            episode.ended = True
            episode.error = exc
            if recorder is not None:
                recorder.log_turn(episode, turn, call=None if bare else answer.call, played_by=player.name,
                                  secrets=() if bare else answer.secrets)
                recorder.error(exc)
            raise PlayerFailed(f"a voiced character: {type(exc).__name__}: {exc}") from exc
    if recorder is not None:
        recorder.log_turn(episode, turn, call=None if bare else answer.call, played_by=player.name,
                          secrets=() if bare else answer.secrets)
        if episode.ended:
            recorder.finish(episode)
    return turn
