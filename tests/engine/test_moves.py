"""The planner's shortcuts in making moves give the moves grounding every binding gives, in its order:
a goal move bound from its effects (``goal_moves``), and a neighbour's key read from what a move changes
(``Distances.key_after``) rather than from the state it makes."""

from __future__ import annotations

import random

import pytest

from random_states import five_worlds as _worlds, walk as _walk
from tui_adventure.engine.facts import State
from tui_adventure.engine.game import Game
from tui_adventure.engine.planning import goal_moves
from tui_adventure.engine.planning.distances import Distances
from tui_adventure.engine.planning.planner import Planner


def _moves(planner, st):
    return [(a.id, sorted(env.items()), new.facts) for a, env, new in planner.successors(State.of(st.facts))]


@pytest.mark.parametrize("name, world", list(_worlds()), ids=lambda x: x if isinstance(x, str) else "")
def test_goal_moves_bound_from_their_effects_are_the_grounded_ones(name, world, monkeypatch):
    states = _walk(world, 150, seed=len(name))
    fast = Planner(world)
    want = {}
    with monkeypatch.context() as m:   # every goal move grounded over every binding, as before
        m.setattr(goal_moves.GoalWrites, "targets", lambda self, unmet, here, key=None: None)
        slow = Planner(world)
        for st in states:
            want[st.facts] = _moves(slow, st)
    narrowed = 0
    for st in states:
        got = _moves(fast, st)
        assert got == want[st.facts]   # the same moves, in the same order (a search's ties fall alike)
        narrowed += any(a in fast._writes for a, _, _ in got)
    if name in ("house", "generated"):
        assert fast._writes and narrowed   # goal moves were made through their targets


@pytest.mark.parametrize("name, world", list(_worlds()), ids=lambda x: x if isinstance(x, str) else "")
def test_a_neighbours_key_from_what_the_move_changes_is_its_states_key(name, world):
    distances = Distances(Planner(world))
    planner = distances.planner
    for st in _walk(world, 150, seed=len(name) + 1):
        here = distances.key(st)
        for action, env, adds, dels in planner.changes(st):
            key = distances.key_after(st, here, adds, dels)
            if key is None:   # it widens what is relevant: the caller makes the state
                continue
            assert key == distances.key(st.apply(adds, dels)), (action.id, env)
            here = distances.key(st)   # a key made for a new state may have grown the relevant things


@pytest.mark.slow
@pytest.mark.parametrize("name, world", list(_worlds()), ids=lambda x: x if isinstance(x, str) else "")
def test_the_bound_read_up_to_a_plans_length_is_the_whole_bound(name, world):
    """``Distances`` reads the estimate only until it reaches the length of a plan it knows: on states
    whose optimum is that length, what it reads is the whole estimate."""
    planner = Planner(world)
    if planner.h is None:
        pytest.skip("no estimate in a world with actions of its own")
    for st in _walk(world, 60, seed=7):
        plan = Planner(world).solve(st)
        if plan is not None:
            assert planner.h(st, plan.par) == planner.h(st), name


@pytest.mark.parametrize("name, world", list(_worlds()), ids=lambda x: x if isinstance(x, str) else "")
def test_a_stepped_states_key_read_through_its_base_is_its_facts_key(name, world):
    """A game's step makes a state that reads through its base; ``Distances`` keys it from the base's key
    and the facts the step flipped, without making its facts: the same key as from its facts."""
    fast, plain = Distances(Planner(world)), Distances(Planner(world))
    chooser = Planner(world)
    rng = random.Random(len(name))
    through = 0
    for _ in range(6):
        game = Game(world)
        for _ in range(50):
            st = game.state
            through += st._facts is None
            key = fast.key(st)   # before anything makes its facts
            assert key == plain.key(State.of(st.facts)), name
            # the commands worked out afresh: the memo's lookup makes a state met before read through
            # the known one (State.adopt), facts and all
            if game.step(rng.choice(chooser.admissible.compute(st))).done:
                break
    assert through >= 5   # the states a changing step made (a look or an examine keeps its state)
