"""Upstream's reference traces replay through our engine with equal observations, goals and fails."""

import pytest

from clem_helpers import replay, traces
from tui_adventure.instances.canonical import canonical

TRACES = traces()


@pytest.mark.parametrize("trace", TRACES, ids=[f"{t['experiment']}-{t['game_id']}-{t['kind']}" for t in TRACES])
def test_trace(trace):
    ours = replay(trace)
    assert ours["first"] == canonical(trace["initial_observation"])
    for i, command in enumerate(trace["commands"]):
        want = trace["fails"][i]
        want = None if want is None else {"phase": want["phase"], "fail_type": want["fail_type"]}
        assert (command, ours["obs"][i]) == (command, trace["observations_canonical"][i])
        assert (command, ours["fails"][i]) == (command, want)
        assert (command, ours["goals"][i]) == (command, sorted(trace["goals_achieved_after_each"][i]))
