"""Records of story-file runs read back: adventure watch's rows (turns and score), a replay of one
episode with the panels as they were, and adventure export trajectories with the score as reward (and
a model's one act tool)."""

from __future__ import annotations

import io
import json

import pytest

from conftest import adventure
from fake_llm_server import ToolCalls
from model_env import configure_fake_gpt, in_loop
from stories import STORIES, new_story_game, walkthrough

from tui_adventure.export.trajectories import export
from tui_adventure.watch.episodes import LOST, SUCCESS
from tui_adventure.watch.tree import RecordsTree
from tui_adventure.watch.view import episode_cells


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """A scripted run of the lighthouse won and of the cellar lost, scored."""
    new_story_game().close()
    folder = tmp_path_factory.mktemp("story-records")
    won, lost = folder / "won.txt", folder / "lost.txt"
    won.write_text("\n".join(walkthrough("lighthouse")) + "\n")
    lost.write_text((STORIES / "cellar.lose").read_text())
    for story, script in (("lighthouse.z5", won), ("cellar.z5", lost)):
        done = adventure("run", STORIES / story, "--player", f"scripted:{script}", "--records", folder / "r",
                         "--name", "scripted", cwd=folder)
        assert done.returncode == 0, done.stderr
    assert adventure("score", folder / "r", cwd=folder).returncode == 0
    return folder / "r"


def test_watch_rows_show_turns_and_the_games_own_score(records, tmp_path):
    tree = RecordsTree(records)
    tree.tick(budget=60.0)   # both episodes read in one tick, however loaded the machine
    rows = {ep.game: ep for ep in tree.episodes.values()}
    light, cellar = rows["lighthouse"], rows["cellar"]
    assert (light.status, light.turns, light.goals, light.goal_count, light.main_score) == \
        (SUCCESS, len(walkthrough("lighthouse")), 30, 30, 100.0)
    assert (cellar.status, cellar.goals, cellar.goal_count, cellar.main_score) == (LOST, 15, 25, 60.0)
    cells = episode_cells(light)
    assert cells[3] == "12" and cells[4] == "30/30 pts" and cells[5] == "100"
    assert episode_cells(cellar)[4] == "15/25 pts"


@pytest.mark.slow
async def test_a_story_files_episode_replays_with_its_score(records):
    from tui_adventure.app import AdventureApp
    from tui_adventure.widgets.panels import RoomPanel, ScorePanel

    episode = next((records / "scripted/lighthouse").rglob("interactions.json")).parent
    app = AdventureApp(replay=episode)
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.title == "replay: lighthouse" and len(screen.frames) == 1 + len(walkthrough("lighthouse"))
        assert screen.query_one(RoomPanel).data.room == "Beach"
        await pilot.press("right", "right")
        assert screen.query_one(ScorePanel).data.scored[:2] == (5, 30)
        await pilot.press("end")
        assert screen.query_one(ScorePanel).data.scored[:2] == (30, 30)
        assert screen.query_one(RoomPanel).data.room == "Lamp Room"


def test_export_trajectories_of_story_files_rewards_the_score(records, tmp_path):
    out = tmp_path / "t.jsonl"
    result = adventure("export", "trajectories", records, "--out", out, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = {line["game"]: line for line in map(json.loads, out.read_text().splitlines())}
    light = lines["lighthouse"]
    assert light["messages"][0]["role"] == "user" and "Beach" in light["messages"][0]["content"]
    assert [m["content"] for m in light["messages"] if m["role"] == "assistant"] == walkthrough("lighthouse")
    assert sum(light["rewards"]) == 30 and light["rewards"][1] == 5
    assert light["scores"]["Main Score"] == 100.0 and lines["cellar"]["scores"]["Lose"] == 1
    assert sum(lines["cellar"]["rewards"]) == 15


@in_loop
async def test_a_models_story_episode_in_tools_mode_exports_its_one_act_tool(monkeypatch, tmp_path, server):
    from tui_adventure.batches.episodes import run_all

    configure_fake_gpt(monkeypatch, tmp_path, server)
    server.script(ToolCalls([("act", {"command": "open chest"})]), ToolCalls([("act", {"command": "done"})]))
    root = tmp_path / "records"
    await run_all([str(STORIES / "lighthouse.z5")], "fake-gpt", root, jobs=1, mode="tools")
    out = io.StringIO()
    report = export(root, out)
    assert report.written == 1 and not report.left_out
    line = json.loads(out.getvalue())
    assert line["mode"] == "tools" and [t["function"]["name"] for t in line["tools"]] == ["act"]
    assert line["messages"][2]["tool_calls"][0]["function"]["name"] == "act"


@pytest.mark.slow
async def test_the_dashboard_shows_story_rows_and_enter_replays_one(records):
    import asyncio

    from tui_adventure.app import AdventureApp
    from tui_adventure.screens.replay import ReplayScreen
    from tui_adventure.widgets.line_table import LineTable

    app = AdventureApp(watch=records)
    async with app.run_test(size=(150, 40)) as pilot:
        shown: dict = {}
        for _ in range(400):   # bounded: the tree's first look lands within a few ticks
            await pilot.pause()
            table = app.screen.query_one("#episodes", LineTable)
            columns = app.screen.board.episode_columns
            shown = {row[1]: row for row in (columns.split(line) for line in table.lines)}
            if "lighthouse.z5" in shown and "cellar.z5" in shown:
                break
            await asyncio.sleep(0.05)
        assert shown["lighthouse.z5"][2:6] == ["success", "12", "30/30 pts", "100"]   # named by its file
        assert shown["cellar.z5"][2] == "lost" and shown["cellar.z5"][4] == "15/25 pts"
        table.focus()
        table.action_move(next(i for i, line in enumerate(table.lines) if "lighthouse" in line) - table.cursor)
        await pilot.press("enter")
        for _ in range(400):
            await pilot.pause()
            if isinstance(app.screen, ReplayScreen) and len(app.screen.frames) > 1:
                break
            await asyncio.sleep(0.05)
        assert isinstance(app.screen, ReplayScreen) and app.screen.title == "replay: lighthouse"
