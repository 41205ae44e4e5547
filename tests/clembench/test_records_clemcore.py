"""Our records pass the real clemcore 3.7.2 tools: a transcript per episode, our player in the results."""

import pytest
import asyncio

from clem_helpers import world
from clemcore_check import evaluate, require_clemcore, transcribe_all
from conftest import WORLDS
from tui_adventure.batches.episodes import play_episode
from tui_adventure.gamemaster.scoring import score_tree
from tui_adventure.engine.loading.loader import load_world
from tui_adventure.players import make_player
from tui_adventure.players.programmatic import ScriptedPlayer


@pytest.mark.slow
def test_recorded_episodes_are_accepted_by_clemcore(tmp_path):
    require_clemcore()
    root = tmp_path / "records"
    worlds = [world("home_deliver_three_basic_easy", 0), world("home_deliver_three_planning_easy", 1),
              world("home_deliver_three_basic_easy_invlimittwo", 2), load_world(WORLDS / "house.yaml")]

    async def play():
        for w in worlds:
            await play_episode(w, make_player("oracle", w), root)
        # an aborted one too: a reply without the ">" tag
        await play_episode(world("home_deliver_three_basic_hard", 3), ScriptedPlayer(["> go hallway", "look"]), root)

    asyncio.run(play())
    scores = score_tree(root)
    assert len(scores) == 5
    transcripts = transcribe_all(root)
    assert len(transcripts) == 5 and all(p.exists() and p.stat().st_size > 1000 for p in transcripts)
    csv, table = evaluate(root)
    text = csv.read_text()
    assert "oracle" in text and "scripted" in text
    assert "adventuregame, % Played" in text.splitlines()[0]


def test_a_run_file_rewritten_by_another_process_is_read_again(tmp_path):
    """Every episode's start asks run.json which run its folder holds; the answer is kept while the
    file is unchanged, and a file another process replaced (or removed) is read again."""
    from tui_adventure.records.files import run_json, write_json

    path = tmp_path / "run.json"
    assert run_json(path) == {}
    write_json(path, {"player_models": {"0": {"model_spec": {"mode": "text"}}}}, final=False)
    assert run_json(path)["player_models"]["0"]["model_spec"]["mode"] == "text"
    write_json(path, {"player_models": {"0": {"model_spec": {"mode": "tools"}}}}, final=False)
    assert run_json(path)["player_models"]["0"]["model_spec"]["mode"] == "tools"
    path.unlink()
    assert run_json(path) == {}
