"""Progress learned incrementally (engine/planning/distances.py) stays exact: at every step of a random walk
the tracker's par is what a fresh planner's search answers from that state, though most answers cost it
no search."""

from __future__ import annotations

import random

import pytest

from conftest import TEST_WORLDS, WORLDS
from tui_adventure.instances import packaged
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world, load_world_text
from tui_adventure.engine.metrics import ProgressTracker
from tui_adventure.engine.planning import Distances, Planner
from tui_adventure.generate import Knobs, generate_world
from reference import bfs


def _worlds():
    made = generate_world(Knobs(rooms=6, objects=12, goals=2), 1)
    yield "generated", load_world_text(made.text, "<generated>")
    yield "house", load_world(WORLDS / "house.yaml")
    yield "candle", load_world(TEST_WORLDS / "candle.yaml")   # own actions: no heuristic
    yield "clembench", packaged.world(packaged.names()[0])   # the clembench style's moves


@pytest.mark.slow
@pytest.mark.parametrize("name, world", list(_worlds()), ids=lambda x: x if isinstance(x, str) else "")
def test_progress_on_a_random_walk_is_a_fresh_planners_par_at_every_step(name, world):
    tracker = ProgressTracker(world)
    chooser = Planner(world)   # picks the walk's moves (its own memo)
    rng = random.Random(len(name))
    steps = 0
    for _ in range(4):
        game = Game(world)
        for _ in range(40):
            fresh = Planner(world).solve(game.state)
            assert tracker.par(game.state) == (fresh.par if fresh is not None else None), (name, steps)
            if game.step(rng.choice(chooser.admissible_commands(game.state))).done:
                break
            steps += 1
    assert tracker.searches < steps / 2   # most states answered without a search of their own


def test_a_replayed_plan_answers_without_a_search():
    world = load_world(WORLDS / "house.yaml")
    distances = Distances(Planner(world))
    par = distances.par(world.initial)
    assert distances.searches == 1
    game = Game(world)
    game.step("examine table")   # changes nothing: the same state
    assert distances.par(game.state) == par and distances.searches == 1
    plan = Planner(world).solve()
    game.step(plan.commands[0])   # along the plan: known from the first search
    assert distances.par(game.state) == par - 1 and distances.searches == 1


def test_a_step_away_from_a_solved_state_answers_without_a_search():
    """A walk's step off the plan: one move back reaches a state whose distance is known, and when that
    plan is as long as the heuristic's lower bound it is the optimum."""
    world = load_world(WORLDS / "house.yaml")
    planner = Planner(world)
    distances = Distances(planner)
    st, left = world.initial, distances.par(world.initial)
    away = []
    for action_id, env in Planner(world).solve().steps:   # every state on the plan is known now
        for _action, _env, new in planner.successors(st):
            if distances.known(new) is None and planner.h(new) == left + 1:   # the bound says one more
                fresh = Planner(world).solve(new)
                if fresh is not None and fresh.par == left + 1:   # (eating the apple: out of reach)
                    away.append((new, fresh.par))
        st, left = world.action_by_id[action_id].successor(st, dict(env)), left - 1
    assert away   # house has such steps (a room the plan leaves behind)
    for new, want in away:
        assert distances.par(new) == want
    assert distances.searches == 1


def test_another_errand_first_answers_without_a_search():
    """From a room the plan comes back to (house's hallway), a walk may start a later errand first: one
    turn nearer, though no move from there reaches a known state. The last plan's moves less the one
    the walk took, each as soon as it can be taken, are a plan as long as the lower bound."""
    world = load_world(WORLDS / "house.yaml")
    planner = Planner(world)
    distances = Distances(planner)
    st, left = world.initial, distances.par(world.initial)
    found = 0
    for action_id, env in Planner(world).solve().steps:   # every state on the plan is known now
        for _action, _env, new in planner.successors(st):
            if distances.known(new) is None:
                fresh = Planner(world).solve(new)
                if fresh is not None and fresh.par == left - 1:   # another optimal first move
                    assert distances.par(st) == left   # the walk's last state
                    searches = distances.searches
                    assert distances.par(new) == left - 1
                    assert distances.searches == searches
                    found += 1
        st, left = world.action_by_id[action_id].successor(st, dict(env)), left - 1
    assert found


def test_a_step_away_like_one_taken_back_before_reads_one_move_not_all():
    """A random walk steps away and back the same ways again and again (into the living room and out):
    once a step's change was taken back, a new state made by the same change is checked by that one
    move back to the last state, not by every move from it, and its answer is still exact."""
    world = load_world(WORLDS / "house.yaml")
    planner = Planner(world)
    distances = Distances(planner)
    made = []
    changes = planner.changes
    planner.changes = lambda st: made.append(st) or changes(st)
    st, left = world.initial, distances.par(world.initial)
    cheap = 0
    for action_id, env in Planner(world).solve().steps:   # every state on the plan is known now
        for _action, _env, new in planner.successors(st):
            if distances.known(new) is None:
                fresh = Planner(world).solve(new)
                want = fresh.par if fresh is not None else None
                if want == left + 1 and planner.h(new) == want:   # a step away the bound shows
                    assert distances.par(st) == left
                    made.clear()
                    assert distances.par(new) == want
                    cheap += not made
        st, left = world.action_by_id[action_id].successor(st, dict(env)), left - 1
    assert cheap >= 3


def test_memory_is_bounded():
    world = load_world(WORLDS / "house.yaml")
    distances = Distances(Planner(world), max_entries=5)
    assert distances.par(world.initial) == Planner(world).solve().par
    assert len(distances) <= 5


@pytest.mark.parametrize("style", ["clembench", "classic"])
def test_a_goal_thing_shut_in_another_box_keeps_its_exact_par(style):
    """What matters is read from the state asked about, not from the start: the planner once left the
    wardrobe alone (it held no goal thing at the start) and called the goal out of reach (None)."""
    if style == "clembench":
        world = packaged.world("clembench/home_deliver_three_basic_easy/0")
        moves = ["open wardrobe", "take pillow", "put pillow in wardrobe", "close wardrobe"]
    else:
        world = load_world(TEST_WORLDS / "boxed.yaml")
        moves = ["open chest", "take coin", "put coin in chest", "close chest"]
    game = Game(world)
    for move in moves:
        assert game.step(move).fail is None, move
    tracker = ProgressTracker(world)
    tracker.par(world.initial)   # an episode's tracker has met the start first
    everything = Planner(world, prune=False).solve(game.state)
    assert everything is not None
    assert Planner(world).solve(game.state).par == everything.par
    assert tracker.par(game.state) == everything.par


def test_a_goal_thing_eaten_is_out_of_reach_at_once():
    """The apple eaten: the goal 'apple in fridge' can never hold. The bound says so itself, where a search
    once walked every state the other goals leave open to prove it (the most of a random walk's cost)."""
    world = load_world(WORLDS / "house.yaml")
    game = Game(world)
    for move in ["go north", "go east", "take apple", "eat apple"]:
        assert game.step(move).fail is None, move
    assert bfs(Planner(world), game.state) is None   # the plain search, no bound: none either
    tracker = ProgressTracker(world)
    assert tracker.par(game.state) is None
    assert tracker.searches == 0 and not tracker.limited(game.state)


def test_states_that_differ_only_in_a_distractor_share_one_answer():
    """Carrying the blue book changes nothing the goals need: its state is known from the search made for
    the start, and the answer is a fresh planner's."""
    world = load_world(WORLDS / "house.yaml")
    distances = Distances(Planner(world))
    assert distances.par(world.initial) == 21 and distances.searches == 1
    game = Game(world)
    for move in ["go west", "take blue book", "go east", "go north", "take biscuit", "go south"]:
        assert game.step(move).fail is None, move
    assert game.state.facts != world.initial.facts
    assert distances.known(game.state) == 21   # known already: no search, no replay
    assert distances.par(game.state) == Planner(world).solve(game.state).par == 21


def test_under_an_inventory_limit_a_distractor_held_counts():
    """clembench's inventory limit: holding the potted plant can cost a move (it must be put down to carry
    two goal things), so there states are not keyed on the goal things alone."""
    world = packaged.world("clembench/home_deliver_three_basic_easy_invlimittwo/0")
    tracker = ProgressTracker(world)
    game = Game(world)
    assert game.step("go hallway").fail is None
    empty_handed = tracker.par(game.state)
    assert game.step("take potted plant").fail is None
    assert tracker.par(game.state) == Planner(world).solve(game.state).par == empty_handed + 2


def test_a_goal_thing_put_in_a_distractor_makes_the_distractor_matter():
    """The wardrobe holds no goal thing at the start, so its door is no part of a state's key; once the lamp
    is in it, open and closed are a move apart, and the two states must not share an answer."""
    world = load_world(WORLDS / "house.yaml")
    tracker = ProgressTracker(world)
    game = Game(world)
    tracker.par(game.state)
    for move in ["go up", "go north", "take lamp", "open wardrobe", "put lamp in wardrobe"]:
        assert game.step(move).fail is None, move
        tracker.par(game.state)
    open_box = tracker.par(game.state)
    assert game.step("close wardrobe").fail is None
    assert tracker.par(game.state) == Planner(world).solve(game.state).par == open_box + 1
