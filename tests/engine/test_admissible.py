"""The fast admissible commands (memoised, canonical states, grounding without successors) answer exactly
what the plain definition, ``reference.admissible_commands``, answers."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from conftest import WORLDS
from tui_adventure.engine.planning.admissible import Admissible
from tui_adventure.engine.facts import State
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world, load_world_text
from tui_adventure.engine.planning.planner import Planner
from tui_adventure.engine.planning.sight import local_view
from tui_adventure.engine.planning.touches import read_patterns
from tui_adventure.generate import Knobs, generate_world
from random_states import five_worlds as _worlds, walk as _walk
from reference import admissible_commands, touched


@pytest.mark.slow
@pytest.mark.parametrize("name, world", list(_worlds()), ids=lambda x: x if isinstance(x, str) else "")
def test_the_fast_commands_are_the_references_on_random_states(name, world):
    planner = Planner(world)
    fast = Admissible(world)
    states = _walk(world, 400, seed=len(name))
    for st in states:
        want = admissible_commands(planner, State.of(st.facts))
        assert list(fast.compute(State.of(st.facts))) == want   # a fresh state: nothing cached
        assert planner.admissible_commands(st) == want           # the memo, on the walk's own state objects
    assert planner.admissible.misses == len(states)              # each state met once
    if name in ("generated", "house", "manor"):   # rules proved local: states with the same surroundings share
        assert planner.admissible.view is not None
        assert planner.admissible.computed < len(states)
    else:   # candle reads held(matches) wherever the matches are; the clembench style promises nothing
        assert planner.admissible.view is None


def test_equal_states_share_one_canonical_state_and_its_answer():
    world = load_world(WORLDS / "house.yaml")
    fast = Admissible(world)
    game = Game(world)
    first, commands = fast.lookup(game.state)
    exit_word = next(c for c in commands if c.split()[0] in ("north", "south", "east", "west", "go"))
    game.step(exit_word)
    back = next(c for c in fast.lookup(game.state)[1] if c.split()[0] in ("north", "south", "east", "west", "go")
                and Game(world).state != game.state)
    game.step(back)
    if game.state == world.initial:   # walked back to the start: a new object, the same facts
        canonical, again = fast.lookup(game.state)
        assert canonical is first and again == commands
    assert fast.misses <= 3


def test_a_state_met_again_by_a_new_way_reads_through_the_first():
    """A walk meets most of its states again by new ways (the same moves in another order); looked up, the
    new way's state is found equal to the first and reads through that one's overlay and cache from then
    on, so a long run keeps one overlay per state rather than one per way. A step met again from its memo
    (whose next state now reads through another's parts) still reports its own change."""
    world = load_world_text(generate_world(Knobs(rooms=6, objects=12, goals=2), 1).text, "<generated>")
    fast = Admissible(world)
    rng = random.Random(5)
    ways, steps = [], []
    for _ in range(40):
        game = Game(world)
        for _ in range(30):
            canonical, commands = fast.lookup(game.state)
            if canonical is not game.state:
                ways.append((game.state, canonical))
                game.state = canonical   # as the env plays on
            command = rng.choice(commands)
            steps.append((game.state, command))
            game.step(command)
    assert len(ways) > 100
    for st, canonical in ways:
        assert st == canonical and hash(st) == hash(canonical) and st.facts == canonical.facts
        assert st.over is canonical.over and st.cache is canonical.cache
    for before, command in steps[::7]:
        game = Game(world)
        game.state = before
        game.step(command)
        added, removed = game._log[-1][:2]
        assert (set(added), set(removed)) == tuple(map(set, before.diff(game.state)))


def test_a_pronoun_is_read_afresh_whatever_the_memo_holds():
    """The parse memo ignores what "it" means only for words without a pronoun."""
    world = load_world(WORLDS / "house.yaml")
    parser = world.parser
    st = world.initial
    things = [x for x in world.style.scope_list(st) if x != "player"][:2]
    if len(things) < 2:
        pytest.skip("house has fewer than two things in sight at the start")
    a = parser.parse("examine it", st, [things[0]])
    b = parser.parse("examine it", st, [things[1]])
    assert a.env[next(iter(a.action.params))] == things[0]
    assert b.env[next(iter(b.action.params))] == things[1]


CELLAR = """
game: far
title: A Bell and a Far Box
start: hall
rooms:
  hall: {description: A hall., exits: {east: study}}
  study: {description: A study., exits: {west: hall}}
objects:
  bell: {traits: takeable, at: hall}
  box: {traits: [container, openable], at: study}
actions:
  - id: ring
    syntax: ["ring {obj}"]
    params: {obj: thing}
    checks:
      - ["%s", "Nothing happens.", no_ring]
    effects: ["add rung(obj)"]
    success: "Ding."
goal: [held(bell)]
"""


@pytest.mark.parametrize("check, local", [
    ("held(obj)", True),
    ("not (exists e: exists d: via(here, e, d) and locked(d))", True),   # tied by a fixed fact to the room: the door
    ("exists r: at(obj, r) and at(player, r)", True),
    ("visible(obj) and not encloses(obj, player)", True),
    ("open(box)", False),               # a thing named, wherever it is
    ("exists d: locked(d)", False),     # anything anywhere
    ("count(in(_, obj)) < 2", True),    # what is in a thing in sight
    ("count(open(_)) < 2", False),
    ("forall x: not open(x)", False),
    ("visible(box)", False),            # a builtin given a thing that may be out of sight
])
def test_the_commands_are_keyed_on_the_surroundings_only_when_the_rules_are_proved_local(check, local):
    world = load_world_text(CELLAR % check, "<far>")
    assert (local_view(world) is not None) is local


def test_a_far_fact_read_by_a_rule_keys_the_commands_on_the_whole_state():
    """Ringing needs the box in the study open: in the hall, two states that differ only there differ in
    their commands, so they must not share them."""
    world = load_world_text(CELLAR % "open(box)", "<far>")
    planner = Planner(world)
    shut = world.initial
    box_open = State.of(shut.facts | {("open", "box")})
    assert planner.admissible_commands(shut) == admissible_commands(planner, shut)
    assert planner.admissible_commands(box_open) == admissible_commands(planner, box_open)
    assert "ring bell" in planner.admissible_commands(box_open)
    assert "ring bell" not in planner.admissible_commands(shut)


def test_a_stepped_states_key_is_the_key_of_its_facts():
    """The key read through a step's overlay (the base's changeable facts, less and plus the overlay's) is
    the key of a state holding the same facts in full."""
    made = generate_world(Knobs(rooms=6, objects=12, goals=2), 1)
    world = load_world_text(made.text, "<generated>")
    view = local_view(world)
    planner = Planner(world)
    rng = random.Random(2)
    derived = 0
    for _ in range(30):
        game = Game(world)
        for _ in range(40):
            st = game.state
            derived += st._base is not None
            assert view.key(st) == view.key(State.of(st.facts))
            game.step(rng.choice(planner.admissible_commands(st)))
    assert derived > 500


def _played(world, steps: int, seed: int):
    """(the state looked up, its commands) along a random walk that plays on from the canonical states,
    as the Gymnasium environment does: each new state is one step from the one looked up before."""
    fast = Admissible(world)
    rng = random.Random(seed)
    seen = []
    game = Game(world)
    for n in range(steps):
        canonical, commands = fast.lookup(game.state)
        game.state = canonical
        seen.append((canonical, commands))
        if game.step(rng.choice(commands)).done or n % 60 == 59:
            game = Game(world)
    return fast, seen


@pytest.mark.slow
@pytest.mark.parametrize("name, world", list(_worlds()), ids=lambda x: x if isinstance(x, str) else "")
def test_a_new_states_commands_from_the_state_before_are_the_references(name, world):
    planner = Planner(world)
    fast, seen = _played(world, 1500, seed=len(name))
    for st, commands in seen:
        assert list(commands) == admissible_commands(planner, State.of(st.facts))
    if name in ("generated", "house", "manor"):   # the classic style promises what its texts and builtins read
        assert fast.stepped > 0
    else:   # candle's rules read far; the clembench style promises nothing
        assert fast.stepped == 0


def test_an_action_reads_the_facts_its_rules_name_and_no_others():
    """Going reads where the player is, not where a thing is: taking one leaves its commands alone."""
    world = load_world(WORLDS / "house.yaml")
    go = next(a for a in world.actions if a.spec.id == "go")
    reads = read_patterns(world, go, world.style.sight.builtin_reads)
    assert reads["at"] == (((1, "player"),),)
    assert not touched(reads, [("at", "lamp", "hall"), ("held", "lamp")])
    assert touched(reads, [("at", "player", "hall")])
    take = next(a for a in world.actions if a.spec.id == "take")
    assert touched(read_patterns(world, take, world.style.sight.builtin_reads), [("held", "lamp")])


def test_an_action_whose_facts_changed_is_worked_out_again():
    """Ringing the bell marks it rung, which its rule reads: the state after has no "ring bell"."""
    world = load_world_text(CELLAR % "held(obj) and not rung(obj)", "<rung>")
    fast = Admissible(world)
    game = Game(world)
    for command in ("take bell", "ring bell"):
        canonical, commands = fast.lookup(game.state)
        assert command in commands
        game.state = canonical
        game.step(command)
    canonical, commands = fast.lookup(game.state)
    assert fast.stepped >= 1
    assert "ring bell" not in commands
    assert list(commands) == admissible_commands(Planner(world), State.of(canonical.facts))


def test_worlds_of_one_ruleset_share_the_proofs_and_keep_their_own_ids_and_ties():
    """A world drawn each episode reads what the rules read from the ruleset's proof, made once; the ids
    a rule names and the ties of the world's own exits are still its own."""
    world = load_world_text(CELLAR % "open(box)", "<far>")
    ring = next(a for a in world.actions if a.spec.id == "ring")
    reads = world.style.sight.builtin_reads
    assert read_patterns(world, ring, reads)["open"] == (((1, "box"),),)   # the box, an id of this world
    no_box = SimpleNamespace(compiler=world.compiler, entities={k: v for k, v in world.entities.items() if k != "box"})
    assert read_patterns(no_box, ring, reads)["open"] == ((),)             # elsewhere a name like any other
    assert read_patterns(world, ring, reads)["open"] == (((1, "box"),),)
    views = []
    for seed in (1, 2, 3):
        made = generate_world(Knobs(rooms=6, objects=6, goals=1, doors=3, locked=1), seed)
        drawn = load_world_text(made.text, f"<generated {seed}>")
        views.append(local_view(drawn))
        fast, seen = _played(drawn, 150, seed)
        planner = Planner(drawn)
        assert fast.view is not None
        for st, commands in seen:
            assert list(commands) == admissible_commands(planner, State.of(st.facts))
    assert len({frozenset(v.ties.items()) for v in views}) == 3   # each world's doors tie its own rooms
