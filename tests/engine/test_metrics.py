"""Episode metrics with hand-checked numbers on mini.yaml (par 9, max_turns 20)."""

import math
import random

import pytest

from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world_text
from tui_adventure.engine.metrics import (
    EpisodeMetrics, ProgressTracker, TurnData, achieved_goal_ratio, episode_metrics, full_rating, goal_score_total,
    invalid_count, main_score, normalise_command, progress_rate, repeated_flags, repetition_rate, turn_ratio,
    turns_over_par,
)
from tui_adventure.engine.planning.planner import Planner


def turn_data(result, par_now: int | None = None) -> TurnData:
    """A turn's figures from the engine's step result, as the game master records them."""
    return TurnData(result.command, result.fail, result.goal_score, len(result.goals_achieved), par_now)

PLAN = ["take book", "go east", "open box", "take brass key", "go west",
        "unlock door with key", "open door", "go north", "put book on shelf"]


def play(world, commands, tracker=None):
    g = Game(world)
    tracker = ProgressTracker(world) if tracker is None else tracker
    turns = []
    for c in commands:
        r = g.step(c)
        turns.append(turn_data(r, tracker.par(g.state)))
    return g, tracker, turns


def curve(turns, par_0):
    """The progress rate after each turn."""
    return [progress_rate(par_0, t.par_now) for t in turns]


def summary(world, turns, tracker):
    return episode_metrics(turns, par=tracker.par_0, max_turns=world.max_turns, goals_total=len(world.goals))


# single numbers -------------------------------------------------------------------
def test_achieved_goal_ratio():
    assert achieved_goal_ratio(0, 3) == 0.0
    assert achieved_goal_ratio(2, 3) == pytest.approx(2 / 3)
    assert achieved_goal_ratio(3, 3) == 1.0
    assert achieved_goal_ratio(0, 0) == 1.0


def test_turn_ratio():
    assert turns_over_par(11, 9) == 2
    assert turn_ratio(9, 9, 20) == 1.0
    assert turn_ratio(11, 9, 20) == pytest.approx(1 - 2 / 11)
    assert turn_ratio(20, 9, 20) == 0.0
    # clembench's records: 11 turns, par 10, 50 turns allowed -> 0.975
    assert turn_ratio(11, 10, 50) == pytest.approx(0.975)
    # kept within [0, 1] where clembench gives no number at all
    assert turn_ratio(5, 9, 20) == 1.0
    assert turn_ratio(25, 9, 20) == 0.0
    # max_turns == par (or below): no room over par
    assert turn_ratio(9, 9, 9) == 1.0
    assert turn_ratio(8, 9, 9) == 1.0
    assert turn_ratio(10, 9, 9) == 0.0
    assert turn_ratio(10, 9, 5) == 0.0


def test_full_rating_and_main_score():
    assert full_rating(1.0, 1.0) == 1.0
    assert full_rating(0.5, 0.8) == pytest.approx(0.4)
    assert main_score(2 / 3) == pytest.approx(66.6666667)


def test_progress_rate():
    assert progress_rate(9, 9) == 0.0
    assert progress_rate(9, 6) == pytest.approx(1 / 3)
    assert progress_rate(9, 0) == 1.0
    assert progress_rate(9, 12) == 0.0          # floored at 0
    assert progress_rate(9, None) == 0.0        # goals out of reach
    assert progress_rate(0, 0) == 1.0           # goals held from the start
    assert progress_rate(None, 0) == 1.0 and progress_rate(None, None) == 0.0


def test_repetition():
    cmds = ["look", "LOOK", "  look ", "take  book", "Take Book", "go east", "take book\t"]
    assert [normalise_command(c) for c in cmds[:3]] == ["look"] * 3
    assert repeated_flags(cmds) == [False, True, True, False, True, False, True]
    assert repetition_rate(cmds) == pytest.approx(4 / 7)
    assert repetition_rate([]) == 0.0
    assert repetition_rate(["a", "b"]) == 0.0
    assert repetition_rate(["look at book", "lookat book"]) == 0.0


def test_counts_accept_step_results_turndata_or_values(mini):
    g = Game(mini)
    results = [g.step(c) for c in ["jump", "take book", "take book", "go north", "look"]]
    assert invalid_count(results) == 3          # unknown verb, already held, locked door
    assert invalid_count([r.fail for r in results]) == 3
    assert invalid_count([turn_data(r) for r in results]) == 3
    assert goal_score_total([0, 1, -1, 1]) == 1
    assert goal_score_total(results) == 0


# episodes on mini.yaml ----------------------------------------------------------------
def test_optimal_play(mini):
    g, tracker, turns = play(mini, PLAN)
    assert tracker.par_0 == 9
    assert [t.par_now for t in turns] == [8, 7, 6, 5, 4, 3, 2, 1, 0]
    rates = curve(turns, tracker.par_0)
    assert rates == pytest.approx([i / 9 for i in range(1, 10)])
    assert all(a < b for a, b in zip([0.0] + rates, rates))   # 0 -> 1, strictly rising
    m = summary(mini, turns, tracker)
    assert m == EpisodeMetrics(turns=9, goals_total=1, goals_achieved=1, achieved_goal_ratio=1.0, par=9,
                               max_turns=20, turns_over_par=0, turn_ratio=1.0, full_rating=1.0,
                               main_score=100.0, progress=1.0, repetition_rate=0.0, invalid_commands=0,
                               goal_score=1)
    assert m.as_json()["turn_ratio"] == 1.0


def test_two_wrong_moves_first(mini):
    g, tracker, turns = play(mini, ["jump", "go north"] + PLAN)
    assert [t.par_now for t in turns[:3]] == [9, 9, 8]
    m = summary(mini, turns, tracker)
    assert (m.turns, m.turns_over_par, m.invalid_commands) == (11, 2, 2)
    assert m.turn_ratio == pytest.approx(9 / 11)        # 1 - 2 / (20 - 9)
    assert m.full_rating == pytest.approx(9 / 11)
    assert m.progress == 1.0 and m.achieved_goal_ratio == 1.0
    assert m.repetition_rate == pytest.approx(1 / 11)   # the plan's "go north" repeats the failed one


def test_detour_loses_progress_and_repeats(mini):
    cmds = ["take book", "go east", "go west", "go east", "look", "look"]
    g, tracker, turns = play(mini, cmds)
    assert [t.par_now for t in turns] == [8, 7, 8, 7, 7, 7]
    assert curve(turns, 9) == pytest.approx([1 / 9, 2 / 9, 1 / 9, 2 / 9, 2 / 9, 2 / 9])
    m = summary(mini, turns, tracker)
    assert m.achieved_goal_ratio == 0.0 and m.full_rating == 0.0 and m.main_score == 0.0
    assert m.turns_over_par == -3 and m.turn_ratio == 1.0
    assert m.repetition_rate == pytest.approx(2 / 6)     # the second "go east", the second "look"
    assert m.progress == pytest.approx(2 / 9)
    assert m.goal_score == 0 and m.invalid_commands == 0


def test_no_turns_yet(mini):
    m = episode_metrics([], par=9, max_turns=20, goals_total=1)
    assert (m.turns, m.turns_over_par, m.turn_ratio, m.progress, m.repetition_rate) == (0, -9, 1.0, 0.0, 0.0)


def test_goal_undone_counts_in_goal_score(mini):
    g, tracker, turns = play(mini, PLAN + ["take book"])
    assert [t.goal_score for t in turns][-2:] == [1, -1]
    m = summary(mini, turns, tracker)
    assert m.goal_score == 0 and m.goals_achieved == 0 and m.achieved_goal_ratio == 0.0
    assert m.progress == pytest.approx(8 / 9)


SMALL = """
game: small
start: hall
max_turns: 10
rooms:
  hall: {description: A hall., exits: {east: yard}}
  yard: {description: A yard., exits: {west: hall}}
objects:
  apple: {traits: [takeable, edible], at: hall}
  stone: {traits: [takeable], at: hall}
goal: [GOAL]
"""


def small(goal):
    return load_world_text(SMALL.replace("GOAL", goal), "small.yaml")


def test_progress_floored_when_further_than_at_start():
    w = small("you have the apple")
    g, tracker, turns = play(w, ["go east", "go west", "take apple"])
    assert tracker.par_0 == 1
    assert [t.par_now for t in turns] == [2, 1, 0]
    assert curve(turns, 1) == [0.0, 0.0, 1.0]


def test_progress_zero_when_goal_out_of_reach():
    w = small("the apple is in the yard")
    g, tracker, turns = play(w, ["take apple", "eat apple"])
    assert [t.par_now for t in turns] == [2, None]
    assert curve(turns, tracker.par_0) == [pytest.approx(1 / 3), 0.0]
    assert not tracker.limited(g.state)


def test_progress_one_when_goal_holds_at_start():
    w = small("the stone is in the hall")
    tracker = ProgressTracker(w)
    assert tracker.par_0 == 0
    assert tracker.progress(w.initial) == 1.0


def test_planner_limit_is_unknown_not_impossible(mini):
    tracker = ProgressTracker(mini, Planner(mini, max_nodes=1))
    assert tracker.par(mini.initial) is None and tracker.limited(mini.initial)
    assert tracker.progress(mini.initial) == 0.0


# the tracker's cache ----------------------------------------------------------------------
def test_tracker_caches_states_and_plans(mini):
    tracker = ProgressTracker(mini)
    assert tracker.par_0 == 9 and tracker.searches == 1
    own = Planner(mini).solve().commands   # one of the optimal plans (PLAN is another): the one found
    g, tracker, turns = play(mini, own, tracker)
    assert tracker.searches == 1        # the start's plan answers every state along it
    assert tracker.cached == 10
    g.undo(9)
    for c in ["look", "x book", "jump"] + own:
        g.step(c)
        tracker.par(g.state)
    assert tracker.searches == 1


def test_tracker_agrees_with_fresh_planner_on_random_walks(mini):
    rng = random.Random(7)
    planner = Planner(mini)
    tracker = ProgressTracker(mini)
    g = Game(mini)
    vocab = PLAN + ["take red key", "drop book", "drop key", "brass", "red", "eat apple", "close box",
                    "put key in box", "lock door with key", "close door", "go south", "take apple"]
    checked = 0
    for _ in range(150):
        g.step(rng.choice(vocab))
        cached = tracker.par(g.state)
        plan = planner.solve(g.state)
        assert cached == (plan.par if plan else None)
        checked += 1
    assert checked == 150 and tracker.searches < 150


def test_tracker_cache_is_bounded(mini):
    tracker = ProgressTracker(mini, max_cache=3)
    play(mini, PLAN, tracker)
    assert tracker.cached <= 3


def test_no_nan_anywhere(mini):
    g, tracker, turns = play(mini, ["x it", "", "look"])
    for value in summary(mini, turns, tracker).as_json().values():
        assert not (isinstance(value, float) and math.isnan(value))


def test_clembench_instance_progress():
    """A clembench instance: the exact planner's par can be below the instance's optimal_turns."""
    import clem_helpers as helpers

    world = helpers.world("home_deliver_three_basic_easy", 0)
    instance = helpers.instances()[("home_deliver_three_basic_easy", 0)]
    g, tracker, turns = play(world, instance["optimal_commands"])
    assert g.all_goals_achieved()
    assert tracker.par_0 == 8 < instance["optimal_turns"] == 10     # upstream walks kitchen and back
    assert [t.par_now for t in turns] == [7, 6, 5, 4, 3, 2, 3, 2, 1, 0]
    assert curve(turns, tracker.par_0)[-1] == 1.0
    # scored against upstream's par (10 turns + done = 11, as clembench counts): 1 - 1/40
    m = episode_metrics(turns + [TurnData("done", None, 0, 3, 0)], par=instance["optimal_turns"],
                        max_turns=world.max_turns, goals_total=len(world.goals))
    assert (m.turns_over_par, m.turn_ratio) == (1, pytest.approx(0.975))
