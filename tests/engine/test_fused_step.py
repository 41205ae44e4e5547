"""An action's step writes its effects straight into the next state (``Compiler.attempt``); it must
make exactly the state that filling the sets and ``State.apply`` make, in facts, indexes, change
and hash, for effects that write one fact twice (in a loop, or by two statements), add and delete
the same fact, write facts of one to four places, and under ``when``.
"""

import pytest
import random
from pathlib import Path

from tui_adventure.engine.facts import OVERLAY_LIMIT, State, pairs
from tui_adventure.engine.rules.logic import MEMO_STATES
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world_text

ROOT = Path(__file__).resolve().parents[2]

ODD = """
actions:
  - id: mark
    syntax: ["mark {obj} with {key}"]
    params: {obj: thing, key: thing}
    effects: ["add marked(obj); add marked(key); del marked(obj); add tied(obj, key, here)"]
    success: "Marked."
  - id: ring
    syntax: ["ring {obj}"]
    params: {obj: thing}
    effects: ["forall d where exit(here, d, _): add rang(obj)", "when marked(obj): del marked(obj)"]
    success: "Rung."
  - id: untie
    syntax: ["untie {obj}"]
    params: {obj: thing}
    effects: ["del tied(obj, _, _); when open(obj): del open(obj); when not open(obj): add open(obj)"]
    success: "Untied."
  - id: shuffle
    syntax: ["shuffle {obj} to {key}"]
    params: {obj: thing, key: thing}
    effects: ["del at(obj, _); add at(obj, key); add at(key, key); del at(key, _)"]
    success: "Shuffled."
  - id: wipe
    syntax: ["wipe {obj}"]
    params: {obj: thing}
    effects: ["forall t where marked(t): del marked(t)", "add wiped(obj)"]
    success: "Wiped."
"""


def same_state(got: State, want: State) -> None:
    assert got.facts == want.facts
    for a, b in ((got.by1, want.by1), (got.by2, want.by2)):
        assert {k: v for k, v in a.items() if v} == {k: v for k, v in b.items() if v}
    assert hash(got) == hash(State.of(want.facts))


@pytest.mark.slow
def test_a_step_makes_the_state_the_sets_make():
    text = (ROOT / "worlds" / "house.yaml").read_text(encoding="utf-8").replace("\ngoal:", ODD + "goal:", 1)
    world = load_world_text(text, "house_odd.yaml")
    rng = random.Random(3)
    names = sorted(world.entities) + ["north", "south", "east", "west", "up", "down", "hallway"]
    odd = [a for a in world.actions if a.id in ("mark", "ring", "untie", "shuffle", "wipe")]
    moves = [a for a in world.actions if a not in odd]
    stepped = near_limit = 0
    static = {f[0] for f in world.initial.facts} - world.compiler.changing
    for _ in range(20):
        st = world.initial
        for _ in range(120):
            action = rng.choice(odd if rng.random() < 0.6 else moves)
            env = {p: rng.choice(names) for p in action.params}
            got, _text, fail = action.attempt_later(st, dict(env))
            if fail is not None:
                assert got is st
                continue
            if action.effect is None:
                assert got is st
                continue
            env["here"] = world.style.player_room(st)
            adds, dels = set(), set()
            action.effect(st, dict(env), adds, dels)
            want = st.apply(adds, dels)
            near_limit += len(st.over) > OVERLAY_LIMIT - 12   # where a step leaves its effects to the sets
            stepped += 1
            if want is st:
                assert got is st
            else:
                assert (set(got.delta[0]), set(got.delta[1])) == (set(want.delta[0]), set(want.delta[1]))
            same_state(got, want)
            # the exits and doors a step reads by their first two arguments are the state's own
            assert unchanging(pairs(got), static) == unchanging(pairs(State.of(got.facts)), static)
            st = got
    assert stepped > 1_000 and near_limit > 5


def unchanging(index: dict, static: set) -> dict:
    return {k: v for k, v in index.items() if k[0] in static}


def test_the_index_by_first_two_follows_a_changed_exit():
    """Facts no action changes may change by a scene or an undo (``State.apply``): the index by the
    first two arguments is then made again; other changes share it."""
    world = load_world_text((ROOT / "worlds" / "house.yaml").read_text(encoding="utf-8"), "house.yaml")
    st = world.initial
    assert st.b12 is not None and st.advance({("open", "fridge")}, set()).b12 is st.b12
    assert st.apply({("open", "fridge")}, set()).b12 is st.b12
    walled = st.apply(set(), {f for f in st.facts if f[:3] == ("exit", "hallway", "west")})
    assert pairs(walled).get(("exit", "hallway", "west")) is None
    game = Game(world)
    game.set_state(walled)
    assert game.step("west").fail is not None and game.step("north").fail is None


def test_a_game_of_the_odd_actions_replays_as_it_played():
    text = (ROOT / "worlds" / "house.yaml").read_text(encoding="utf-8").replace("\ngoal:", ODD + "goal:", 1)
    world = load_world_text(text, "house_odd.yaml")
    commands = ["up", "north", "open jewellery box", "take brass key from jewellery box", "take lamp",
                "mark lamp with brass key", "ring lamp", "untie lamp", "untie jewellery box", "untie jewellery box",
                "shuffle lamp to jewellery box", "mark lamp with lamp", "ring lamp", "wipe lamp", "south",
                "ring brass key"]
    game = Game(world)
    for c in commands:
        assert game.step(c).fail is None, c
    facts = game.state.facts
    again = Game(world)
    for c in commands:
        again.step(c)
    assert again.state.facts == facts
    game.undo(len(commands))
    assert game.state.facts == world.initial.facts


def test_a_long_session_keeps_its_memo_bounded():
    """Every step that is not a memo hit remembers its transition in the state it left; past
    ``MEMO_STATES`` of them the world forgets the older half, and play goes on as before."""
    text = (ROOT / "worlds" / "house.yaml").read_text(encoding="utf-8").replace("\ngoal:", ODD + "goal:", 1)
    world = load_world_text(text, "house_odd.yaml")
    game = Game(world)
    for c in ["up", "north", "take lamp"]:
        assert game.step(c).fail is None
    memo = world.actions[0].memo
    sizes = []
    for i in range(2 * MEMO_STATES + 50):   # each toggle leaves a new state: no memo hit
        result = game.step("untie lamp")
        assert result.fail is None and (("open", "lamp") in game.state.facts) == (i % 2 == 0)
        sizes.append(len(memo))
    # forgotten three times (the older half each time), and filled again
    assert max(sizes) <= MEMO_STATES and sizes.count(MEMO_STATES // 2 + 1) >= 3


def test_a_memo_past_its_limit_keeps_the_states_met_lately():
    """Past its limit a world's transition memo empties the states it met longest ago and not since,
    so a walk that comes back to a state it met lately still finds its turn remembered (and an old one
    is worked out again, with the same outcome)."""
    text = (ROOT / "worlds" / "house.yaml").read_text(encoding="utf-8").replace("\ngoal:", ODD + "goal:", 1)
    world = load_world_text(text, "house_odd.yaml")
    game = Game(world)
    for c in ["up", "north", "take lamp"]:
        assert game.step(c).fail is None
    old = game.state
    memo = world.actions[0].memo
    start = len(memo)
    look = world.action_by_id["look"]
    recent = None
    for i in range(MEMO_STATES - start + 10):   # new states (each a toggle away), until the memo is past its limit
        assert game.step("untie lamp").fail is None
        if i == MEMO_STATES - start - 5:
            recent = game.state
            look.attempt_later(recent, {})   # met lately: in the newer half when the memo forgets
    assert len(memo) <= MEMO_STATES // 2 + 16
    key_head = next(iter(k for k in recent.cache if type(k) is tuple and type(k[0]) is int), None)
    assert key_head is not None, "the state met lately kept its remembered turns"
    assert not any(type(k) is tuple and type(k[0]) is int for k in old.cache), "the state met first was emptied"
