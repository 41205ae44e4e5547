"""A command of one word that reads the same in every state (north, look, i) is read once, at load
(CommandParser.once); it must be read exactly as the patterns read it, in every state."""

import random
from pathlib import Path

import pytest

from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world
from tui_adventure.engine.parsers.parser import Parsed
from tui_adventure.engine.styles.classic import DIRECTIONS

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["house", "manor", "tutorial", "labyrinth"]


def solution(name: str) -> list[str]:
    text = (ROOT / "worlds" / "solutions" / f"{name}.txt").read_text(encoding="utf-8")
    return [c.strip() for c in text.splitlines() if c.strip()]


def words_of(world) -> list[str]:
    p = world.parser
    out = set(p.by_first) | set(DIRECTIONS) | set(world.style.passages) | set(p.vocab) | {"it", "all", "the"}
    return sorted(out) + ["North", " north", "north ", "go", "xyzzy", "north east", "n e"]


@pytest.mark.parametrize("name", NAMES)
def test_a_word_read_at_load_is_read_as_the_patterns_read_it(name):
    world = load_world(ROOT / "worlds" / f"{name}.yaml")
    p = world.parser
    assert {"north", "look", "i"} <= set(p.once)
    game = Game(world)
    states = [game.state]
    for command in solution(name):
        game.step(command)
        states.append(game.state)
    for word, (action, env) in p.once.items():
        for st in states:
            got = p._parse(word, st, ("nothing",))
            assert isinstance(got, Parsed) and got.action is action and got.env == env and not got.all_slot, word


@pytest.mark.parametrize("name", NAMES)
def test_games_with_and_without_the_words_read_at_load_agree(name):
    fast, slow = (load_world(ROOT / "worlds" / f"{name}.yaml") for _ in range(2))
    slow.parser.once = {}
    rng = random.Random(name)
    words = words_of(fast)
    commands = solution(name)
    for _ in range(3):
        commands = commands + [rng.choice(words) if rng.random() < 0.7 else rng.choice(commands)
                               for _ in range(60)]
    a, b = Game(fast), Game(slow)
    for command in commands:
        ra, rb = a.step(command), b.step(command)
        assert (ra.observation, ra.fail, ra.action, ra.args, ra.done, ra.goals_achieved) == \
            (rb.observation, rb.fail, rb.action, rb.args, rb.done, rb.goals_achieved), command
    assert a.undo(40) == b.undo(40) and a.state == b.state
