"""Models play a story file as they play our worlds: every mode, one act(command) tool, the prompt
saying what a Z-machine game is, the same fault handling; against the strict fake server."""

from __future__ import annotations

import json

import pytest

from fake_llm_server import Status, ToolCalls
from model_env import configure_fake_gpt, in_loop
from stories import LIGHTHOUSE, new_story_game
from tui_adventure.gamemaster.episode import Episode, PlayerFailed, play_turn
from tui_adventure.players import make_player, recorder_options
from tui_adventure.records.recorder import Recorder


@pytest.fixture
def story(monkeypatch, tmp_path, server):
    new_story_game().close()   # Jericho there, or the test fails naming the set-up
    from tui_adventure.catalog import open_world

    configure_fake_gpt(monkeypatch, tmp_path, server)
    return open_world(str(LIGHTHOUSE))


def model(world, mode):
    return make_player("fake-gpt", world, mode, timeout=5.0, max_retries=1, retry_delay=0.01)


async def play(story, player, tmp_path) -> tuple[Episode, Recorder]:
    episode = Episode(story)
    recorder = Recorder(tmp_path / "r", story, player.name, **recorder_options(player, episode))
    recorder.start(episode)
    while not episode.ended:
        try:
            await play_turn(episode, player, recorder)
        except PlayerFailed:
            break
    return episode, recorder


@in_loop
async def test_text_mode_is_told_what_a_story_file_is_and_how_to_answer(story, server, tmp_path):
    server.script("> open chest", "> take key from chest", "> done")
    episode, recorder = await play(story, model(story, "text"), tmp_path)
    assert [t.command for t in episode.turns] == ["open chest", "take key from chest", "done"]
    system = server.requests[0].messages[0]
    assert system["role"] == "system" and "Z-machine story file" in system["content"]
    assert "starts with >" in system["content"] and "30 points" in system["content"]
    assert "LIGHTHOUSE" in server.requests[0].messages[1]["content"]
    assert "Score:" not in json.dumps(server.requests[-1].messages)   # the status line is never sent
    assert episode.outcome.goals_achieved == 5 and episode.outcome.main_score == pytest.approx(100 * 5 / 30)


@pytest.mark.parametrize("mode", ["tool", "tools"])
@in_loop
async def test_both_tool_modes_offer_one_act_tool(story, server, tmp_path, mode):
    server.strict = "vllm"
    server.script(ToolCalls([("act", {"command": "open chest"})]), ToolCalls([("take", {"e": "key"})]),
                  ToolCalls([("act", {"command": "done"})]))
    episode, _ = await play(story, model(story, mode), tmp_path)
    tools = [t["function"]["name"] for t in server.requests[0].body["tools"]]
    assert tools == ["act"]
    # a tool the game does not have is said as the model named it, and the game answers it
    assert [t.command for t in episode.turns] == ["open chest", "take key", "done"]
    assert "act tool" in server.requests[0].messages[0]["content"]


@in_loop
async def test_a_server_that_fails_ends_the_episode_as_an_error(story, server, tmp_path):
    server.script("> open chest", Status(500), Status(500), Status(500))
    episode, recorder = await play(story, model(story, "text"), tmp_path)
    assert len(episode.turns) == 1 and episode.error is not None
    assert (recorder.dir / "error.json").is_file()
