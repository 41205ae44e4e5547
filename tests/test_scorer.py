"""Our scorer gives upstream's numbers on upstream's own records."""

import json
import math

import pytest

from conftest import SHARED
from tui_adventure.clembench.scorer import score_interactions

EXAMPLE = SHARED / "clembench" / "records-example"
EPISODES = sorted(EXAMPLE.rglob("interactions.json"))


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) < 1e-9
    return a == b


@pytest.mark.parametrize("path", EPISODES, ids=[p.parent.parent.parent.parent.name for p in EPISODES])
def test_upstream_scores_from_upstream_records(path):
    want = json.loads((path.parent / "scores.json").read_text())
    got = score_interactions(json.loads(path.read_text()))
    for turn, scores in want["turn scores"].items():
        assert {k: got["turn scores"][turn][k] for k in scores} == scores
    for key, value in want["episode scores"].items():
        assert same(got["episode scores"][key], value), key
