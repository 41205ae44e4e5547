"""The six whole-episode cases of upstream's game master: messages, per-turn goal scores, scores."""

import json
import math

import pytest

from clem_helpers import CLEM, world
from tui_adventure.clembench.canonical import canonical
from tui_adventure.episode import Episode

CASES = [json.loads(x) for x in (CLEM / "sample_episodes.jsonl").read_text().splitlines() if x.strip()]


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
