"""The six whole-episode cases of upstream's game master: messages, per-turn goal scores, scores."""

import json
import math

import pytest

from clem_helpers import world
from conftest import jsonl
from tui_adventure.instances.canonical import canonical
from tui_adventure.gamemaster.episode import Episode

CASES = jsonl("sample_episodes.jsonl")


def _nan_or(value):
    return None if isinstance(value, float) and math.isnan(value) else value


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_sample_episode(case):
    ep = Episode(world(case["experiment"], case["game_id"]))
    for reply in case["replies"]:
        assert not ep.ended
        ep.submit(reply)
    assert ep.ended
    ours = [m["content"] for m in ep.messages if m["role"] == "user"]
    assert [canonical(m) for m in ours] == [canonical(m) for m in case["messages"]]
    for turn, want in zip(ep.turns, case["turns"]):
        if "if_input" not in want:      # the refused reply
            assert turn.command is None and turn.invalid_format
            continue
        assert turn.command == want["if_input"]
        assert turn.goal_score == want["goal_score"]
        assert sorted(turn.result.goals_achieved) == sorted(want["goals"])
        assert (turn.fail or {}).get("type") == want["fail_type"]
        if "plan" in want and turn.plan:
            assert turn.plan == want["plan"]
    o, s = ep.outcome, case["scores"]
    assert o.turns == s["turns"] and int(o.aborted) == s["aborted"]
    assert int(o.success) == s["success"] and int(not o.success and not o.aborted) == s["lose"]
    assert o.achieved_goal_ratio == pytest.approx(s["achieved_goal_ratio"])
    assert _nan_or(o.main_score) == (None if s["bench_score"] is None else pytest.approx(s["bench_score"]))
    assert o.invalid_format == s["invalid_format"] and o.turn_limit_reached == s["turn_limit_reached"]
    assert _nan_or(o.turns_over_par) == s["turns_over_par"]


# -- undo -----------------------------------------------------------------------------
def _without_timestamps(obj):
    if isinstance(obj, dict):
        return {k: _without_timestamps(v) for k, v in obj.items() if k not in ("timestamp", "created")}
    if isinstance(obj, list):
        return [_without_timestamps(v) for v in obj]
    return obj


def _record(world_, replies, root, undo_after=None, detour=()):
    """Play ``replies`` (with ``detour`` played after reply ``undo_after`` and taken back), recording."""
    from tui_adventure.records.recorder import Recorder

    episode = Episode(world_)
    recorder = Recorder(root, world_, "human", backend="_player_human")
    recorder.start(episode)

    def play(reply):
        turn = episode.submit(reply)
        recorder.log_turn(episode, turn)
        if episode.ended:
            recorder.finish(episode)

    for i, reply in enumerate(replies):
        play(reply)
        if i + 1 == undo_after:
            for extra in detour:
                play(extra)
            assert episode.undo(len(detour)) == len(detour)
            recorder.undo(episode, len(detour))
    files = {name: _without_timestamps(json.loads((recorder.dir / name).read_text()))
             for name in ("interactions.json", "player_1.requests.json")}
    return episode, files, recorder.dir


PLAN_REPLIES = ["> go living room\nNext actions: put book on table, take unicorn, go kitchen",
                "> put book on table\nNext actions: go kitchen, take plate, go living room",
                "> go kitchen\nNext actions: take plate, go bedroom, go living room",
                "> take plate\nNext actions: go hallway, put plate on table",
                "> go living room\nNext actions: put plate on table, go kitchen, go hallway",
                "> done"]


@pytest.mark.parametrize("experiment, game_id, replies, detour", [
    # the detour's plans leak simulated goals and exploration into later turns upstream: undo must take that back
    ("home_deliver_three_planning_easy", 3, PLAN_REPLIES,
     ["> go kitchen\nNext actions: go hallway, take unicorn", "> open cupboard\nNext actions: go pantry, go kitchen"]),
    ("home_deliver_three_basic_easy_invlimittwo", 0, ["> take pillow", "> go hallway", "> take potted plant", "> done"],
     ["> go bedroom", "> take book"]),
    ("home_deliver_three_basic_easy", 0, ["> take pillow", "> go hallway", "> go kitchen", "> done"],
     ["> go hallway", "> hello"]),
])
def test_undone_turns_are_kept_aside_and_the_episode_stays_valid(tmp_path, experiment, game_id, replies, detour):
    """Apart from one turns_discarded event, the records equal those of an episode that never took the
    detour (plan leaks included); the detour itself is kept in discarded_turns.json (issue 20)."""
    w = world(experiment, game_id)
    fresh, want, _ = _record(w, replies, tmp_path / "fresh")
    undone, got, folder = _record(w, replies, tmp_path / "undone", undo_after=1, detour=detour)
    marks = [e for t in got["interactions.json"]["turns"] for e in t if e["action"]["type"] == "turns_discarded"]
    assert [m["action"]["content"]["count"] for m in marks] == [len(detour)]
    for turn in got["interactions.json"]["turns"]:
        turn[:] = [e for e in turn if e["action"]["type"] != "turns_discarded"]
    assert got == want
    kept = json.loads((folder / "discarded_turns.json").read_text())["discarded"]
    assert [e["action"]["content"] for t in kept[0]["turns"] for e in t if e["from"] == "Player 1"] == detour
    assert [m["content"] for m in undone.messages] == [m["content"] for m in fresh.messages]
    assert undone.outcome == fresh.outcome and (folder / "completed.json").exists()


def test_undo_after_the_end_plays_on(tmp_path):
    """A person takes back the final "done" (the episode had ended and was recorded as complete) and plays on."""
    w = world("home_deliver_three_basic_easy", 0)
    replies = ["> take pillow", "> go hallway", "> go kitchen", "> done"]
    _, want, _ = _record(w, replies, tmp_path / "fresh")
    undone, got, folder = _record(w, replies, tmp_path / "undone", undo_after=2, detour=["> done"])
    for turn in got["interactions.json"]["turns"]:
        turn[:] = [e for e in turn if e["action"]["type"] != "turns_discarded"]
    assert got == want and undone.ended and (folder / "completed.json").exists()
