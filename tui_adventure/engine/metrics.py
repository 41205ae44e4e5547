"""Episode metrics: the one place each number is defined, and a cached progress tracker.

The panels, the episode outcome, the scorer and the REPL toolbar all compute
their numbers here, so a number means one thing wherever it is shown. Two
views exist and every function says which it follows:

- the *game* view (what the app and the REPL show while playing): bounded,
  never NaN, so a panel always has something to draw;
- the *upstream-faithful* view (what ``scores.json`` records): clembench's
  own formulas, NaN where upstream writes NaN, so ``clem eval`` and our
  ``adventure eval`` agree on upstream's records and ours.

The numbers shown live and written to records:

- ``turns``: turns played (the winning or ``done`` turn included)
- ``achieved_goal_ratio``: goals achieved at the end / goals (1.0 for a world without goals)
- ``turns_over_par``: turns - par, clembench's figure: every turn counts, a
  closing ``done`` included, against the par the instance states
  (``optimal_turns``), so an optimal clembench run reads +1. ``scores.json``
  keeps it under this name, NaN unless the episode was won, as upstream does.
- ``moves_over_par``: moves - par, ours, the one "over par" a person reads:
  *moves* are the turns but a closing ``done`` (par counts the moves that
  change the world, not the word that ends the game), *par* the exact optimum
  (the stated par where the exact one is unknown), and it exists only for a
  won episode, so an optimal run reads +0. The app's Score panel and the
  REPL's ``score`` show it once a game is won; ``scores.json`` writes it as
  ``moves_over_par`` and ``adventure eval`` compares it (paired.csv).
- ``turn_ratio``: 1 - turns_over_par / (max_turns - par), kept within [0, 1]
  (the clembench formula; it only leaves [0, 1] for a game shorter than par
  or longer than max_turns, where clembench reports no value at all)
- ``full_rating``: achieved_goal_ratio * turn_ratio
- ``main_score``: clembench's Main Score, 100 * achieved_goal_ratio
- ``progress``: (par_0 - par_now) / par_0 floored at 0, where par_now is the
  exact planner's optimum from the current state (1.0 when par_0 is 0;
  0.0 when the goals can no longer be reached)
- ``repetition_rate``: share of commands that repeat an earlier command of
  the episode (compared case- and whitespace-insensitively)
- ``invalid_commands``: turns whose StepResult.fail is set
- ``goal_score``: the sum of the per-turn goal score changes

Nothing here plays the game; ``ProgressTracker`` is the one piece that runs
the planner, and it remembers every state it has solved.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

from .facts import State
from .planning import Distances, Planner, PlannerLimit
from .world import World


# clembench's score names, spelled as clemcore's clemgame/metrics.py spells them (scores.json keys)
ABORTED = "Aborted"
SUCCESS = "Success"
LOSE = "Lose"
MAIN_SCORE = "Main Score"                      # clembench's BENCH_SCORE
REQUEST_COUNT = "Request Count"
REQUEST_COUNT_PARSED = "Parsed Request Count"
REQUEST_COUNT_VIOLATED = "Violated Request Count"
REQUEST_SUCCESS_RATIO = "Request Success Ratio"
# ours, written after upstream's keys
PROGRESS_RATE = "progress_rate"
REPETITION_RATE = "repetition_rate"
FULL_RATING = "full_rating"
TURN_RATIO = "turn_ratio"
TURNS_OVER_PAR = "turns_over_par"            # clembench's: a closing done included, the stated par
MOVES_OVER_PAR = "moves_over_par"            # ours: a closing done left out, the exact par; won episodes


# single numbers -----------------------------------------------------------------
def achieved_goal_ratio(achieved: int, total: int) -> float:
    """Goals achieved / goals; a world without goals counts as fully achieved."""
    if total <= 0:
        return 1.0
    return max(0, min(achieved, total)) / total


def turns_over_par(turns: int, par: int) -> int:
    """clembench's figure (upstream-faithful): every turn, a closing ``done`` included, minus the stated par."""
    return turns - par


def moves(turns: int, closing_done: bool) -> int:
    """The turns that count against par: all but a closing ``done`` (par never includes it)."""
    return turns - int(closing_done and turns > 0)


def moves_over_par(turns: int, closing_done: bool, par: int | None, won: bool) -> int | None:
    """Ours, the over-par figure shown and compared: moves minus par (the exact optimum, else the
    stated par) for a won episode; None for an episode not won or a world without a par."""
    if not won or par is None:
        return None
    return moves(turns, closing_done) - par


def turn_ratio(turns: int, par: int, max_turns: int, *, upstream: bool = False) -> float:
    """1 - turns_over_par / (max_turns - par): 1.0 at par, 0.0 at the turn limit.

    Game view (default): kept within [0, 1]; when max_turns <= par there is no
    room over par, so 1.0 at or under par and 0.0 over it.
    Upstream-faithful view (``upstream=True``, what scores.json records): the
    bare formula, above 1 for a game shorter than par (upstream's par is not
    always optimal) and NaN when max_turns == par, as clembench's scorer does.
    """
    over = turns - par
    room = max_turns - par
    if upstream:
        return 1.0 - over / room if room != 0 else math.nan
    if room <= 0:
        return 1.0 if over <= 0 else 0.0
    return min(1.0, max(0.0, 1.0 - over / room))


def full_rating(goal_ratio: float, t_ratio: float) -> float:
    """The old full rating: achieved_goal_ratio * turn_ratio (NaN when the turn ratio is)."""
    return goal_ratio * t_ratio


def main_score(goal_ratio: float, aborted: bool = False, lost: bool = False) -> float:
    """clembench's Main Score: 100 x achieved_goal_ratio, NaN for an aborted episode (both views);
    0 for a game a scene's lose condition ended, whatever goals were reached on the way."""
    return math.nan if aborted else 0.0 if lost else goal_ratio * 100


def progress_rate(par_0: int | None, par_now: int | None) -> float:
    """(par_0 - par_now) / par_0, floored at 0.

    ``par_now`` None: the goals can no longer be reached (0.0). ``par_0`` 0: the
    goals held from the start (1.0). ``par_0`` None: the world has no plan at
    all, so no progress is possible short of reaching the goals (par_now 0).
    """
    if par_now is None:
        return 0.0
    if par_0 is None:
        return 1.0 if par_now == 0 else 0.0
    if par_0 <= 0:
        return 1.0
    return max(0.0, min(1.0, (par_0 - par_now) / par_0))


def normalise_command(command: str) -> str:
    """Case- and whitespace-insensitive form used to spot repeated commands."""
    return " ".join(str(command).split()).casefold()


def repeated_flags(commands: Iterable[str]) -> list[bool]:
    """For each command: does it repeat an earlier command of the episode?"""
    seen: set[str] = set()
    out = []
    for c in commands:
        key = normalise_command(c)
        out.append(key in seen)
        seen.add(key)
    return out


def repetition_rate(commands: Sequence[str]) -> float:
    """Share of commands that repeat an earlier one (0.0 for no commands)."""
    flags = repeated_flags(commands)
    return sum(flags) / len(flags) if flags else 0.0


def invalid_count(fails: Iterable) -> int:
    """Turns that failed: pass StepResults, TurnData or the ``fail`` values themselves."""
    return sum(1 for f in fails if _fail_of(f) is not None)


def goal_score_total(scores: Iterable) -> int:
    """Sum of per-turn goal score changes: pass StepResults, TurnData or ints."""
    return sum(s if isinstance(s, int) else s.goal_score for s in scores)


def _fail_of(item):
    return item.fail if hasattr(item, "fail") else item


# an episode -----------------------------------------------------------------------
@dataclass(frozen=True)
class TurnData:
    """What the metrics need from one turn."""

    command: str
    fail: dict | None = None
    goal_score: int = 0
    achieved: int = 0                 # goals achieved after the turn
    par_now: int | None = None        # optimal turns left after the turn (None: unreachable/unknown)


@dataclass(frozen=True)
class EpisodeMetrics:
    turns: int
    goals_total: int
    goals_achieved: int
    achieved_goal_ratio: float
    par: int
    max_turns: int
    turns_over_par: int
    turn_ratio: float
    full_rating: float
    main_score: float
    progress: float
    repetition_rate: float
    invalid_commands: int
    goal_score: int

    def as_json(self) -> dict:
        return asdict(self)


def episode_metrics(turns: Sequence[TurnData], *, par: int, max_turns: int, goals_total: int,
                    goals_at_start: int = 0, par_0: int | None = None) -> EpisodeMetrics:
    """Every metric of an episode (or of the episode so far) from its per-turn data.

    ``par`` is the optimum from the start used for turns_over_par; ``par_0`` the
    one used for progress (defaults to ``par``). Progress is taken from the last
    turn's ``par_now`` (0.0 when it is unknown; for no turns, from the start).
    """
    n = len(turns)
    achieved = turns[-1].achieved if turns else goals_at_start
    ratio = achieved_goal_ratio(achieved, goals_total)
    t_ratio = turn_ratio(n, par, max_turns)
    p0 = par if par_0 is None else par_0
    if turns:
        prog = progress_rate(p0, turns[-1].par_now)
    else:
        prog = progress_rate(p0, p0)
    return EpisodeMetrics(
        turns=n, goals_total=goals_total, goals_achieved=achieved, achieved_goal_ratio=ratio,
        par=par, max_turns=max_turns, turns_over_par=turns_over_par(n, par), turn_ratio=t_ratio,
        full_rating=full_rating(ratio, t_ratio), main_score=main_score(ratio), progress=prog,
        repetition_rate=repetition_rate([t.command for t in turns]),
        invalid_commands=invalid_count(turns), goal_score=goal_score_total(turns))


# progress --------------------------------------------------------------------------


class ProgressTracker:
    """The exact optimum from any state, learned once per state, for a progress rate after every turn.

    States repeat all the time (looking, examining, failed commands, undo,
    walking back and forth), every state on an optimal plan is solved by the
    same search, and a new state's optimum mostly follows from the last one's
    plan with no search at all: ``engine.planning.distances`` says how, exactly.

    ``par(state)`` is None when the goals cannot be reached from ``state`` and
    also when the planner hit its node limit (``limited(state)`` tells which).
    """

    def __init__(self, world: World, planner: Planner | None = None, max_cache: int = 100_000,
                 max_nodes: int = 3_000_000, max_seconds: float | None = None) -> None:
        self.world = world
        self.planner = planner or Planner(world, max_nodes=max_nodes, max_seconds=max_seconds)
        self.max_cache = max_cache
        self.distances = Distances(self.planner, max_cache)
        self._mine = object()   # its key in a state's cache (as Distances', not itself: a cycle)
        self._limited: set[frozenset] = set()
        self._bounds: dict[frozenset, int] = {}   # for a state the planner gave up on: no plan is shorter
        self._par_0: int | None = None
        self._par_0_known = False

    @property
    def par_0(self) -> int | None:
        if not self._par_0_known:
            self._par_0 = self.par(self.world.initial)
            self._par_0_known = True
        return self._par_0

    @property
    def par_0_searched(self) -> bool:
        """The start's par is known (or known to be out of reach): reading ``par_0`` costs no search."""
        return self._par_0_known

    @property
    def searches(self) -> int:
        """Planner searches run so far (a state answered from a plan already found costs none)."""
        return self.distances.searches

    def par(self, state: State) -> int | None:
        if self._limited and state.facts in self._limited:   # (its facts made only when some are)
            return None
        try:
            return self.distances.par(state)
        except PlannerLimit as exc:
            key = state.facts
            if len(self._limited) >= self.max_cache:
                self._limited.clear()
                self._bounds.clear()
            self._limited.add(key)
            if exc.lower_bound is not None:
                self._bounds[key] = exc.lower_bound
            return None

    def limited(self, state: State) -> bool:
        """True when the planner gave up on ``state`` (its par is unknown, not impossible)."""
        return state.facts in self._limited

    def lower_bound(self, state: State) -> int | None:
        """For a state the planner gave up on: the proven least number of turns still needed."""
        return self._bounds.get(state.facts)

    def progress(self, state: State) -> float:
        # par is exact, so a state's progress never changes: kept on the state, which a walk meets again
        # (a trainer's env reads it every step); the state still counts as the last one asked about
        memo = state.cache.get(self._mine)
        if memo is not None and self.distances.seen(memo[1]):
            return memo[0]
        value = progress_rate(self.par_0, self.par(state))
        if not (self._limited and state.facts in self._limited):
            state.cache[self._mine] = (value, self.distances.key(state))
        return value

    @property
    def cached(self) -> int:
        """How many states have a known optimum."""
        return len(self.distances)
