"""13,000+ steps of upstream behaviour over all 128 instances replay identically."""

import collections
import gzip
import json

import pytest

from clem_helpers import world
from tui_adventure.instances.canonical import canonical
from tui_adventure.engine.game import Game

from conftest import DATA


def _load(name):
    with gzip.open(DATA / name, "rt") as fh:
        return [json.loads(line) for line in fh]


def _two_places(st) -> bool:
    """A put left something on/in two receptacles: upstream's next `take` is hash-seed dependent."""
    counts = collections.Counter(f[1] for f in st.facts if f[0] in ("on", "in"))
    return any(v > 1 for v in counts.values())


def _compare(trace) -> tuple[int, list]:
    game = Game(world(trace["experiment"], trace["game_id"]))
    problems = []
    if "first_observation" in trace:
        if canonical(game.first_observation()) != canonical(trace["first_observation"]):
            problems.append(("first observation", game.first_observation()))
    steps = 0
    for i, command in enumerate(trace["commands"]):
        if "floor" in command or _two_places(game.state):
            break
        r = game.step(command)
        steps += 1
        want_fail = trace["fails"][i]
        want_fail = want_fail and (want_fail["phase"], want_fail["fail_type"])
        got_fail = r.fail and (r.fail["phase"], r.fail["type"])
        if canonical(r.observation) != trace["observations_canonical"][i]:
            problems.append((i, command, r.observation, trace["observations"][i]))
        elif got_fail != want_fail:
            problems.append((i, command, got_fail, want_fail))
        elif sorted(r.goals_achieved) != sorted(trace["goals_achieved_after_each"][i]):
            problems.append((i, command, r.goals_achieved, trace["goals_achieved_after_each"][i]))
        if problems:
            break
    return steps, problems


@pytest.mark.slow
@pytest.mark.parametrize("name", ["oracle_traces.jsonl.gz", "oracle_examine.jsonl.gz"])
def test_upstream_oracle(name):
    traces = _load(name)
    total = 0
    failures = []
    for trace in traces:
        steps, problems = _compare(trace)
        total += steps
        if problems:
            failures.append((trace["experiment"], trace["game_id"], trace["kind"], problems[0]))
    assert not failures, failures[:5]
    assert total > (9000 if "traces" in name else 4000)
