"""adventure watch in the app: a real batch against the fake model server plays while the dashboard
shows its episodes running, then done; Enter follows one live until it becomes its replay."""

import asyncio
import json
import threading
import time

import pytest
from textual.widgets import Input, Static

from conftest import TEST_WORLDS
from model_env import configure_fake_gpt

from tui_adventure.app import AdventureApp
from tui_adventure.screens.replay import ReplayScreen
from tui_adventure.screens.request import RequestScreen
from tui_adventure.screens.watch import WatchScreen
from tui_adventure.widgets.line_table import LineTable
from tui_adventure.widgets.transcript import Transcript

PLAN = ["go east", "open box", "take brass key", "go west", "take book", "unlock door with key", "open door",
        "go north", "put book on shelf"]


def mini_worlds(folder, n=3):
    folder.mkdir()
    text = (TEST_WORLDS / "mini.yaml").read_text()
    for k in range(1, n + 1):
        world = text.replace("game: mini", f"game: mini{k}\nintro: World {k}.")
        if k == 2:   # the stuck one plays long enough to be found, filtered and followed on a busy machine
            world = world.replace("max_turns: 20", "max_turns: 60")
        (folder / f"mini{k}.yaml").write_text(world)
    return sorted(folder.glob("*.yaml"))


def model(request):
    """Worlds 1 and 3 are solved; world 2's model says ``look`` until the turn limit (stuck)."""
    said = sum(1 for m in request.messages if m["role"] == "assistant")
    if any("World 2." in str(m.get("content")) for m in request.messages):
        return "look"
    return PLAN[said] if said < len(PLAN) else "done"


def rows(app, table="#episodes", key=1):
    """The table's rows as drawn, split into their cells, by one cell (an episode's world, a run's name)."""
    t = app.screen.query_one(table, LineTable)
    columns = app.screen.board.episode_columns if table == "#episodes" else app.screen.board.run_columns
    cells = [columns.split(line) for line in t.lines]
    return {row[key]: row for row in cells}


async def until(pilot, check, timeout=30.0, what="the condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        await pilot.pause()
        if check():
            return
        await asyncio.sleep(0.05)
    shown = rows(pilot.app) if isinstance(pilot.app.screen, WatchScreen) else pilot.app.screen
    raise AssertionError(f"{what} never held; the screen showed {shown}")


@pytest.mark.slow
async def test_a_batch_is_watched_running_then_done_and_one_episode_followed(tmp_path, server, monkeypatch):
    from tui_adventure.batches import run as batch

    configure_fake_gpt(monkeypatch, tmp_path, server)
    server.responder = model
    server.delay = 0.12
    worlds = mini_worlds(tmp_path / "worlds")
    records = tmp_path / "records"
    records.mkdir()
    played = threading.Thread(target=batch.run, args=([str(w) for w in worlds], "fake-gpt"),
                              kwargs={"records": str(records), "jobs": 3}, daemon=True)
    app = AdventureApp(watch=records)
    async with app.run_test(size=(150, 40)) as pilot:
        await until(pilot, lambda: "no runs yet" in str(app.screen.query_one("#watch-status", Static).render()),
                    what="an empty folder said")
        played.start()
        await until(pilot, lambda: any(r[2] == "running" and int(r[3]) > 0 for r in rows(app).values()),
                    what="an episode shown running")
        run = rows(app, "#runs", 0)["fake-gpt"]
        assert int(run[3]) >= 1 and run[5] != "?"   # running, and what is left

        await until(pilot, lambda: "stuck" in rows(app).get("mini2", [""] * 8)[7], what="mini2 marked stuck")
        app.screen.query_one("#filter", Input).value = "stuck"
        await until(pilot, lambda: list(rows(app)) == ["mini2"], what="the stuck filter")
        app.screen.query_one("#episodes", LineTable).focus()
        await pilot.press("enter")                                  # follow it
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the followed episode")
        screen = app.screen
        assert screen.follow
        lines = screen.query_one(Transcript).lines
        assert "fake-gpt: > look" in lines                           # a model's turn, as the app draws it
        assert any(" s · tokens " in line for line in lines)         # with its latency and tokens
        seen = len(screen.frames)
        await until(pilot, lambda: len(screen.frames) > seen, what="a new turn while following")
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, RequestScreen)
        messages = [str(s.render()) for s in app.screen.query(".request-message").results(Static)]
        assert any("World 2." in m for m in messages)
        await pilot.press("escape")
        await until(pilot, lambda: not screen.follow, what="the episode's end")
        assert screen.title.startswith("replay:") and screen.at == len(screen.frames) - 1 == 60
        await pilot.press("left")                                   # now a replay: steps back
        assert screen.at == 59

        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, WatchScreen), what="the dashboard again")
        app.screen.query_one("#filter", Input).value = ""
        await until(pilot, lambda: sorted(r[2] for r in rows(app).values()) == ["aborted", "success", "success"],
                    what="every episode done")
        await until(pilot, lambda: rows(app, "#runs", 0)["fake-gpt"][2] == "3", what="the run's row done")
        run = rows(app, "#runs", 0)["fake-gpt"]
        assert run[4:7] == ["0", "0", "2/3"]                           # errored, left, success
    played.join(20)
    assert json.loads((records / "fake-gpt" / "tui_adventure.plan.json").read_text())["episodes"] == 3


@pytest.mark.slow
async def test_enter_on_a_finished_episode_opens_its_replay_at_its_latest_turn(tmp_path):
    from tui_adventure.batches.episodes import run_all

    records = tmp_path / "records"
    await run_all([TEST_WORLDS / "mini.yaml"], "oracle", records, 1)
    app = AdventureApp(watch=records)
    async with app.run_test(size=(150, 40)) as pilot:
        await until(pilot, lambda: rows(app).get("mini", [""] * 3)[2] == "success", what="the finished episode")
        app.screen.query_one("#episodes", LineTable).focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), what="its replay")
        screen = app.screen
        await until(pilot, lambda: len(screen.frames) > 1, what="its turns")
        assert screen.title.startswith("replay:") and screen.at == len(screen.frames) - 1 == 10
