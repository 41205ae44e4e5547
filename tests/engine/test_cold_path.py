"""The shortcuts a fresh game takes must answer exactly as the long way round.

A message is rendered when it is read, so reading it late (after more steps,
or after other games of the same world) must give the same text; and the
classic parser asks whether one thing is in sight by climbing from it, which
must agree with the whole scope in every state, odd ones included.
"""

import pytest
import random
from pathlib import Path

from tui_adventure.instances import packaged
from tui_adventure.engine.facts import State
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world, load_world_text

ROOT = Path(__file__).resolve().parents[2]


def solution(name: str) -> list[str]:
    text = (ROOT / "worlds" / "solutions" / f"{name}.txt").read_text(encoding="utf-8")
    return [c.strip() for c in text.splitlines() if c.strip()]


def test_a_message_read_late_is_the_message_read_at_once():
    for world, commands in [(load_world(ROOT / "worlds" / "house.yaml"), solution("house") + ["look", "i"]),
                            (packaged.world(packaged.names()[0]), ["look", "take pillow", "go hallway",
                                                                  "examine pillow", "go hallway", "open"])]:
        at_once = Game(world)
        texts = [at_once.step(c).observation for c in commands]
        late = Game(world)
        results = [late.step(c) for c in commands]
        Game(world).step(commands[0])   # another game of the same world in between
        assert [r.observation for r in results] == texts
        assert [r.as_json(i)["observation"] for i, r in enumerate(results)] == texts


SCOPE = """
start: hall
rooms:
  hall: {exits: {north: den}}
  den: {exits: {south: hall}}
objects:
  chair: {traits: [support], at: hall}
  box: {traits: [container, openable], at: hall}
  chest: {traits: [container, openable], open: true, in: box}
  coin: {traits: [takeable], in: chest}
  tray: {traits: [support, takeable], on: chair}
  cup: {traits: [container, takeable], on: tray}
  bead: {traits: [takeable], in: cup}
  sword: {traits: [takeable], at: den}
  bag: {traits: [container, takeable], at: den}
goal: [held(sword)]
"""


def test_visible_agrees_with_scope_in_odd_states():
    world = load_world_text(SCOPE, "scope.yaml")
    style = world.style
    things = list(world.entities)
    holders = things + ["hall", "den", "nowhere"]
    rng = random.Random(7)
    base = [f for f in world.initial.facts if f[0] not in ("on", "in", "at", "open", "held")]
    for _ in range(400):
        facts = set(base)
        facts.add(("at", "player", rng.choice(["hall", "den", "nowhere"])))
        for x in things:
            for _ in range(rng.choice([0, 1, 1, 2])):   # none, one or two places: cycles and strays
                pred = rng.choice(["on", "in", "at", "held"])
                facts.add(("held", x) if pred == "held" else (pred, x, rng.choice(holders)))
            if rng.random() < 0.5:
                facts.add(("open", x))
        if rng.random() < 0.3:
            facts.add(("on", "player", rng.choice(things)))
        scope = style.scope(State.of(facts))
        fresh = State.of(facts)
        assert {x for x in things + ["player"] if style.visible(fresh, x)} == set(scope) & (set(things) | {"player"})


def test_visible_agrees_with_scope_along_the_packaged_solutions():
    for name in ("house", "manor", "tutorial"):
        world = load_world(ROOT / "worlds" / f"{name}.yaml")
        game = Game(world)
        for command in solution(name):
            game.step(command)
            facts = game.state.facts
            scope = world.style.scope(State.of(facts))
            fresh = State.of(facts)
            assert {x for x in world.entities if world.style.visible(fresh, x)} == set(scope) & set(world.entities)


@pytest.mark.slow
def test_encloses_climbs_as_parent_does_in_odd_states():
    """``encloses`` reads ``parent`` written out: it must answer as the walk up ``parent`` does, in
    states with cycles, things in two places, chains longer than it climbs and strays; and it answers
    at once of a thing with nothing in, on or at it (a thing no fact names, "ghost", among them)."""
    world = load_world_text(SCOPE, "scope.yaml")
    style = world.style
    things = list(world.entities)
    holders = things + ["hall", "den", "nowhere"]

    def climbed(st, inner) -> list:
        """What the walk up ``parent`` from ``inner`` meets in 64 steps: ``inner`` is enclosed by those."""
        out = []
        x = style.parent(st, inner)
        for _ in range(64):
            if x is None:
                break
            out.append(x)
            x = style.parent(st, x)
        return out

    rng = random.Random(11)
    base = [f for f in world.initial.facts if f[0] not in ("on", "in", "at", "held")]
    chain = [f"c{i}" for i in range(70)]
    for n in range(300):
        facts = set(base)
        facts.add(("at", "player", rng.choice(["hall", "den", "nowhere"])))
        for x in things + ["hall", "den"]:
            for _ in range(rng.choice([0, 1, 1, 2])):
                facts.add((rng.choice(["on", "in", "at"]), x, rng.choice(holders)))
        if n % 10 == 0:   # a chain longer than the climb
            facts.update(("in", a, b) for a, b in zip(chain, chain[1:]))
            facts.add(("in", rng.choice(things), chain[0]))
        st = State.of(facts)
        if n % 2:   # a few changes more, read through an overlay (a game's state)
            moved = [(rng.choice(["on", "in", "at"]), rng.choice(things), rng.choice(holders)) for _ in range(4)]
            st = st.advance(set(moved[:2]), set(moved[2:]) | set(rng.sample(sorted(facts), 3)))
            assert st._base is not None
        for inner in things + ["hall", "player"]:
            above = climbed(st, inner)
            for outer in holders + (chain if n % 10 == 0 else []) + ["player", "ghost"]:
                assert style.encloses(st, outer, inner) == (outer in above), (outer, inner)


def test_an_action_reads_the_players_room_as_player_room_does():
    """``attempt_later`` reads the style's ``player_at`` entry in place of calling ``player_room``: on
    states a game meets and on odd ones (the player nowhere, or in two rooms) it must give the same."""
    for world in (load_world(ROOT / "worlds" / "house.yaml"), packaged.world(packaged.names()[0])):
        style = world.style
        game = Game(world)
        states = [game.state]
        commands = solution("house") if world.game == "house" else ["look", "take pillow", "go hallway"]
        for command in commands:
            game.step(command)
            states.append(game.state)
        at = [f for f in world.initial.facts if f[:2] == ("at", "player")]
        rooms = [e for e in world.entities if world.entities[e].kind == "room"] or ["nowhere"]
        states.append(world.initial.advance(set(), set(at)))
        states.append(world.initial.advance({("at", "player", rooms[-1])}, set()))
        for st in states:
            for action in world.actions:
                env = {p: "nothing" for p in action.params}
                action.attempt_later(st, env)
                if "here" in env:   # a memo hit reads no room
                    assert env["here"] == style.player_room(st), action.id


@pytest.mark.slow
def test_a_state_hashed_late_hashes_as_its_facts():
    """A game's state works its hash out when first asked: from the hash of the state it was made
    from, when that was known then, else from its base and overlay. On walks that hash some states at
    once and others late or never, and on changes that delete what is not there or add what is, the
    hash must be that of a state built from the same facts."""
    world = load_world(ROOT / "worlds" / "house.yaml")
    facts = sorted(world.initial.facts)
    things = [e for e in world.entities if world.entities[e].kind == "object"]
    rooms = [e for e in world.entities if world.entities[e].kind == "room"]
    rng = random.Random(3)
    for _ in range(200):
        st = world.initial
        states = [st]
        for _ in range(rng.randint(1, 30)):
            x = rng.choice(things)
            adds = {rng.choice([("held", x), ("at", x, rng.choice(rooms)), ("open", x), rng.choice(facts)])
                    for _ in range(rng.randint(0, 2))}
            dels = {rng.choice([("held", x), ("at", x, rng.choice(rooms)), rng.choice(facts), rng.choice(sorted(adds) or facts)])
                    for _ in range(rng.randint(0, 2))}
            st = st.advance(adds, dels)
            states.append(st)
            if rng.random() < 0.4:
                hash(st)
        for st in rng.sample(states, len(states)):
            assert hash(st) == hash(State.of(st.facts)) and st == State.of(st.facts)


def test_a_rooms_passages_follow_its_exits_when_they_change():
    """The passages' sentence is kept by the exits' set: a state whose exits differ (a rule that
    opens a way, a hand-made state) must read its own, not the sentence kept for the room."""
    for name in packaged.names():
        world = packaged.world(name)
        style, st = world.style, world.initial
        room = style.player_room(st)
        exits = [r for (r,) in st.rest("exit", room)]
        if len(exits) >= 2:
            break
    names = {r: world.name_of(r) for r in exits}
    assert len(set(names.values())) == len(exits)
    for keep in (exits, exits[:1], exits[1:], exits):
        facts = {f for f in st.facts if not (f[0] == "exit" and f[1] == room)} | {("exit", room, r) for r in keep}
        text = style.room_description(State.of(facts))
        said = text[text.index(" passage"):]
        assert [r for r in exits if f"a {names[r]}" in said] == [r for r in exits if r in keep], (keep, said)
        assert said.startswith(" passage to a" if len(keep) == 1 else " passages to a")
