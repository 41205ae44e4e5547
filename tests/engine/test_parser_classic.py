"""What a player notices about the classic parser: it understands them, and never leaks."""

from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world_text

TWO_KEYS = """
start: hall
rooms:
  hall: {exits: {north: den}}
  den: {exits: {south: hall}}
objects:
  red_key: {name: red key, adjectives: [red], synonyms: [key], traits: [takeable], at: hall}
  brass_key: {name: brass key, adjectives: [brass, small], synonyms: [key], traits: [takeable], at: hall}
  potted_plant: {name: potted plant, synonyms: [plant, fern], traits: [takeable], at: hall}
  box: {adjectives: [wooden], traits: [container, openable], at: hall}
  coin: {adjectives: [gold], traits: [takeable], in: box}
  sword: {traits: [takeable], at: den}
goal: [held(sword)]
"""


def play(text, *commands):
    game = Game(load_world_text(TWO_KEYS, "two_keys.yaml"))
    return game, [game.step(c) for c in commands]


def test_case_determiners_and_multiword_names():
    _, (r,) = play(TWO_KEYS, "TAKE The Potted Plant")
    assert r.fail is None and r.observation == "You take the potted plant."


def test_adjectives_and_synonyms():
    game, (a, b) = play(TWO_KEYS, "take small key", "take fern")
    assert a.observation == "You take the brass key."
    assert b.observation == "You take the potted plant."


def test_ambiguity_asks_and_accepts_the_answer():
    game, (q, a) = play(TWO_KEYS, "take key", "the red one")
    assert q.observation == "Which do you mean, the red key or the brass key?"
    assert q.fail == {"phase": "parsing", "type": "ambiguous"}
    assert a.fail is None and a.observation == "You take the red key."
    assert ("held", "red_key") in game.state.facts


def test_a_new_command_instead_of_an_answer_is_obeyed():
    _, (q, r) = play(TWO_KEYS, "take key", "open box")
    assert r.observation.startswith("You open the wooden box") or r.observation.startswith("You open the box")


def test_it_refers_to_the_last_object():
    game, (a, b) = play(TWO_KEYS, "open box", "close it")
    assert b.observation == "You close the box."


def test_take_all_and_drop_all():
    game, (a, b) = play(TWO_KEYS, "take all", "drop everything")
    assert "red key: You take the red key." in a.observation
    assert "potted plant: You take the potted plant." in a.observation
    assert "box" not in a.observation.split("\n")[-1] or "can't" in a.observation
    assert all(("held", x) not in game.state.facts for x in ("red_key", "brass_key", "potted_plant"))


def test_things_out_of_sight_are_not_revealed():
    _, (hidden, nowhere, inside) = play(TWO_KEYS, "take sword", "take unicorn", "take coin")
    assert hidden.observation == nowhere.observation == inside.observation == "You can't see any such thing."


def test_unknown_verb_and_missing_object():
    _, (a, b, c) = play(TWO_KEYS, "dance wildly", "take", "")
    assert a.fail["phase"] == "parsing" and "dance" in a.observation
    assert b.observation == "What do you want to take?"
    assert c.observation == "I beg your pardon?"


def test_directions_abbreviated_and_named_rooms():
    game, (a, b, c) = play(TWO_KEYS, "n", "go to hall", "go north")
    assert a.observation.startswith("Den")
    assert b.observation.startswith("Hall")
    assert c.observation.startswith("Den")


def test_failed_command_changes_nothing():
    game, (r,) = play(TWO_KEYS, "close box")
    assert r.fail == {"phase": "resolution", "type": "already_closed"} and not r.changed


# -- issue 20: what a new player tripped over -------------------------------------------------
def _house_game():
    from conftest import WORLDS
    from tui_adventure.engine.game import Game

    return Game(load_world_text((WORLDS / "house.yaml").read_text(), "house.yaml"))


def test_a_missing_last_object_is_asked_for_and_the_answer_finishes_the_command():
    g = _house_game()
    for c in ("up", "north", "open jewellery box", "take brass key from jewellery box", "south", "down"):
        g.step(c)
    asked = g.step("unlock oak door")
    assert asked.observation == "What do you want to unlock the oak door with?"
    assert g.step("brass key").observation == "You unlock the oak door with the brass key."


def test_it_means_the_latest_thing_not_named_elsewhere_in_the_command():
    from conftest import WORLDS
    from tui_adventure.engine.game import Game

    g = Game(load_world_text((WORLDS / "tutorial.yaml").read_text(), "tutorial.yaml"))
    for c in ("take letter", "north", "open mailbox"):
        g.step(c)
    assert g.step("put it in mailbox").observation == "You put the letter in the mailbox."
