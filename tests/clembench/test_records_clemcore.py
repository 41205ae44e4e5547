"""Our records pass the real clemcore 3.7.2 tools: a transcript per episode, our player in the results."""

import asyncio

from clem_helpers import world
from clemcore_check import evaluate, require_clemcore, transcribe_all
from conftest import WORLDS
from tui_adventure.batch import play_episode
from tui_adventure.gamemaster.scoring import score_tree
from tui_adventure.engine.loader import load_world
from tui_adventure.players import make_player
from tui_adventure.players.programmatic import ScriptedPlayer


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
