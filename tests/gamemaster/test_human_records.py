"""Human records say what happened (issue 20): discarded turns are kept and logged, sessions never
overwrite each other, and a clembench planning reply holds only what the person typed."""

import asyncio
import json

from conftest import WORLDS

from tui_adventure.keyboard.session import open_session


def play(session, *lines):
    async def go():
        return [await session.submit_line(line) for line in lines]
    return asyncio.run(go())


def records_of(tmp_path, run="human"):
    episode = next((tmp_path / "r" / run).rglob("instance_00000"))
    data = json.loads((episode / "interactions.json").read_text())
    discarded = episode / "discarded_turns.json"
    return data, json.loads(discarded.read_text())["discarded"] if discarded.exists() else []


def gm_events(data, kind):
    return [e["action"]["content"] for turn in data["turns"] for e in turn if e["action"]["type"] == kind]


def test_undo_restart_and_restore_keep_what_they_take_back(tmp_path):
    s = open_session(WORLDS / "house.yaml", records=tmp_path / "r", saves=tmp_path / "s")
    play(s, "up", "north", "save here", "south", "undo", "west")
    data, discarded = records_of(tmp_path)
    assert [d["kind"] for d in discarded] == ["undo"] and len(discarded[0]["turns"]) == 1
    assert gm_events(data, "turns_discarded") == [{"kind": "undo", "count": 1, "after_round": 2,
                                                    "file": "discarded_turns.json", "index": 0}]
    assert len(data["turns"]) == 3
    play(s, "restore here", "look")
    data, discarded = records_of(tmp_path)
    assert [d["kind"] for d in discarded] == ["undo", "restore"] and len(discarded[1]["turns"]) == 3
    assert len(data["turns"]) == 3          # the save's two commands replayed, then look
    play(s, "restart", "look")
    data, discarded = records_of(tmp_path)
    assert [d["kind"] for d in discarded][-1] == "restart"
    assert len(data["turns"]) == 1 and gm_events(data, "turns_discarded")[0]["kind"] == "restart"
    assert not (tmp_path / "r" / "human-2").exists()   # one session, one folder


def test_a_planning_reply_holds_the_plan_the_person_typed_or_none(tmp_path):
    s = open_session("clembench/home_deliver_three_planning_easy/0", records=tmp_path / "r", saves=tmp_path / "s")
    play(s, "go hallway | go kitchen, take apple", "go kitchen")
    data, _ = records_of(tmp_path)
    replies = [e["action"]["content"] for t in data["turns"] for e in t if e["from"] == "Player 1"]
    assert replies == ["> go hallway\nNext actions: go kitchen, take apple", "> go kitchen\nNext actions: "]
    assert "done" not in replies[1]


def test_a_scripted_or_replayed_player_follows_a_jump_back(tmp_path):
    from tui_adventure.players import make_player

    script = tmp_path / "s.json"
    script.write_text(json.dumps(["up", "north", "south", "down"]))
    s = open_session(WORLDS / "house.yaml", player=f"scripted:{script}", records=tmp_path / "r",
                     saves=tmp_path / "s")
    for _ in range(3):
        asyncio.run(s.play())
    s.undo(2, kind="jump back")
    turn = asyncio.run(s.play())
    assert turn.command == "north"               # the script's second reply, not its fourth
    assert isinstance(make_player(f"scripted:{script}"), type(s.player))


def test_score_reports_the_episode_so_far_from_the_one_metrics_module(tmp_path):
    from conftest import TEST_WORLDS

    s = open_session(TEST_WORLDS / "mini.yaml", records=tmp_path / "r", saves=tmp_path / "s")
    (score,) = play(s, "take book", "jump", "take book", "score")[-1:]
    assert "Turn ratio 1.00" in score.text and "over par" not in score.text   # not won yet: no over par
    assert "Repeated commands 33%, invalid commands 2" in score.text
