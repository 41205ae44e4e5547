"""Par means one thing on screen (issue 20): the exact optimum, upstream's beside it where it differs,
and the oracle's own run reads 0 over par (a closing done is not a move); the records' moves_over_par is
the same number, clembench's turns_over_par stays beside it under its own name (issue 33)."""

import pytest
import json

import asyncio

from tui_adventure.keyboard.figures import par_label
from tui_adventure.keyboard.session import open_session


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


@pytest.mark.slow
async def test_par_of_the_start_is_computed_in_a_worker_and_says_computing_meanwhile(tmp_path, monkeypatch):
    """Before the first turn, without blocking a turn: "computing…", then the exact par (issue 36)."""
    from conftest import WORLDS
    from pilot import settle, type_line

    from tui_adventure.app import make_app
    from tui_adventure.widgets.panels import ScorePanel

    monkeypatch.setattr("tui_adventure.keyboard.session.PROGRESS_SECONDS", 600)   # by nodes, not by a busy clock
    app = make_app(WORLDS / "house.yaml", records=tmp_path / "r", saves=tmp_path / "s", cursor_blink=False)
    app.session._search.acquire()   # the search waits until the test lets it go: "meanwhile" is certain
    released = False
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            text = lambda: str(app.screen.query_one("#score-text").render())   # noqa: E731
            assert "par computing…" in text()
            await type_line(pilot, "up")                 # the person plays on while it searches
            assert len(app.session.episode.turns) == 1 and "par computing…" in text()
            app.session._search.release()
            released = True
            await settle(pilot, 120)
            score = app.screen.query_one(ScorePanel).data
            assert score.par == 21 and not score.par_pending and "par 21" in text()
    finally:
        if not released:
            app.session._search.release()


def test_the_repl_toolbar_says_computing_until_par_is_known(monkeypatch):
    from tui_adventure.keyboard.figures import BLIND
    from tui_adventure.repl.loop import toolbar_text

    monkeypatch.setattr("tui_adventure.keyboard.session.PROGRESS_SECONDS", 600)

    s = open_session("house", records=None)   # a world that states no par: the search must find it
    assert "par computing…" in toolbar_text(s.panels())
    s.par(compute=True)
    assert "par 21" in toolbar_text(s.panels())
    blind = open_session("house", records=None, show=BLIND)
    assert "par" not in toolbar_text(blind.panels())


@pytest.mark.slow
async def test_a_par_that_arrives_while_the_screen_is_taken_down_is_dropped(tmp_path):
    """Quitting while par is searched: the search's answer comes after the panel's parts are gone and must
    not end the app with a traceback (seen when a session quit in its first frame)."""
    from conftest import WORLDS
    from pilot import settle

    from tui_adventure.app import make_app

    app = make_app(WORLDS / "house.yaml", records=tmp_path / "r", saves=tmp_path / "s", cursor_blink=False)
    app.session._search.acquire()   # the search waits until the panel's text is gone
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.screen.query_one("#score-text").remove()   # what the app's teardown does to it
        app.session._search.release()
        await settle(pilot, 30)
    assert app.return_code in (0, None)
