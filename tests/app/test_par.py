"""Par means one thing on screen (issue 20): the exact optimum, upstream's beside it where it differs,
and the oracle's own run reads 0 over par (a closing done is not a move); the records' moves_over_par is
the same number, clembench's turns_over_par stays beside it under its own name (issue 33)."""

import json

import asyncio

from tui_adventure.figures import par_label
from tui_adventure.session import open_session


def run_oracle(world, records=None):
    s = open_session(world, player="oracle", records=records)

    async def go():
        while not s.episode.ended:
            await s.play()
    asyncio.run(go())
    return s


def test_a_clembench_oracle_reads_par_8_upstream_10_and_0_over(tmp_path):
    from tui_adventure.gamemaster.scoring import score_tree

    s = run_oracle("clembench/home_deliver_three_basic_easy/0", records=tmp_path)
    p = s.panels(progress=True)
    assert (p.par, p.par_upstream, p.moves_over_par, p.turn_ratio) == (8, 10, 0, 1.0)
    assert par_label(p.par, p.par_upstream) == "8 (upstream 10)"
    text = asyncio.run(s.meta("score")).text
    assert "par 8 (upstream 10)" in text and "Moves over par +0" in text
    (scores,) = score_tree(tmp_path)
    episode = json.loads(scores.read_text())["episode scores"]
    assert episode["moves_over_par"] == 0                  # what the panel said
    assert episode["turns_over_par"] == 9 - 10             # clembench's: the done counted, upstream's par


def test_over_par_is_not_shown_before_the_game_is_won():
    s = open_session("house", records=None)
    asyncio.run(s.submit_line("up"))
    p = s.panels(progress=True)
    assert p.par == 21 and p.moves_over_par is None
    assert "over par" not in asyncio.run(s.meta("score")).text.lower()


def test_a_native_oracle_reads_0_over_par_and_one_par():
    s = run_oracle("house")
    p = s.panels(progress=True)
    assert p.turns == 22 and (p.par, p.moves_over_par) == (21, 0)
    assert par_label(p.par, p.par_upstream) == "21"


def test_saves_of_two_worlds_never_clash_and_a_replaced_save_says_so(tmp_path):
    house = open_session("house", records=None, saves=tmp_path / "saves")
    tutorial = open_session("tutorial", records=None, saves=tmp_path / "saves")
    asyncio.run(house.submit_line("up"))
    assert "replacing" not in asyncio.run(house.meta("save")).text
    asyncio.run(tutorial.meta("save"))
    assert "replacing" in asyncio.run(house.meta("save")).text
    restored = asyncio.run(house.meta("restore"))
    assert "turn 1" in restored.text and "Landing" in restored.text


def test_after_restore_the_panels_show_no_last_change(tmp_path):
    s = open_session("house", records=None, saves=tmp_path / "saves")
    for line in ("up", "north", "open jewellery box", "take brass key from jewellery box", "take lamp"):
        asyncio.run(s.submit_line(line))
    assert s.panels().last_goal_change == 1            # taking the lamp achieved a goal
    asyncio.run(s.meta("save", "x"))
    asyncio.run(s.meta("restore", "x"))
    p = s.panels()
    assert p.goals_achieved == 1 and p.last_goal_change == 0
