"""Every classic action, through the game, as a player sees it."""

import pytest


def run(game, *commands):
    return [game.step(c) for c in commands]


def test_locked_door_needs_its_key(game):
    closed, = run(game, "n")
    assert closed.observation == "The door is locked." and closed.fail["type"] == "door_locked"
    out = run(game, "e", "open box", "take brass key", "w", "unlock door with red key")
    assert out[-1].fail["phase"] == "parsing" or "can't see" in out[-1].observation
    out = run(game, "unlock oak door with brass key", "n")
    assert out[0].observation == "You unlock the door with the key."
    assert out[1].observation == "The door is closed."
    out = run(game, "open door", "north")
    assert out[1].observation.startswith("Study")


def test_lock_again(game):
    run(game, "e", "open box", "take brass key", "w", "unlock door with key")
    assert run(game, "lock door with key")[0].observation == "You lock the door with the key."
    run(game, "unlock door with key", "open door")
    r, = run(game, "lock door with key")
    assert r.fail["type"] == "open"


def test_put_in_and_on_need_holding(game):
    r, = run(game, "put book on table")
    assert r.observation == "You need to be holding the book first."
    out = run(game, "take book", "e", "put book in box")
    assert out[-1].observation == "The box is closed."
    out = run(game, "open box", "put book in box", "x box")
    assert out[1].observation == "You put the book in the box."
    assert "In the box you see" in out[2].observation and "book" in out[2].observation


def test_take_from(game):
    out = run(game, "e", "open box", "take brass key from box")
    assert out[-1].observation == "You take the key from the box."


def test_eat_inventory_wait_done(game):
    out = run(game, "e", "eat apple", "take apple", "eat apple", "i", "wait", "done")
    assert out[1].observation == "You need to be holding the apple first."
    assert out[3].observation == "You eat the apple. Not bad."
    assert out[4].observation == "You are carrying nothing."
    assert out[5].observation == "Time passes."
    assert out[6].done and out[6].observation == "You consider yourself done."


def test_goal_score_can_go_negative(game):
    pass

    game.set_state(game.state.apply({("on", "book", "shelf"), ("at", "player", "study")},
                                    {("on", "book", "table"), ("at", "player", "hall")}))
    r, = run(game, "take book")
    assert r.goal_score == -1 and r.goals_achieved == []


def test_undo_restores_everything(game):
    start = game.state.facts
    run(game, "take book", "e", "open box", "take all")
    assert game.undo(4) == 4
    assert game.state.facts == start and game.turn == 0
    assert game.undo(1) == 0


@pytest.mark.parametrize("command", ["look", "l", "inventory", "i", "x table", "examine book"])
def test_information_commands_change_nothing(game, command):
    r, = run(game, command)
    assert r.fail is None and not r.changed
