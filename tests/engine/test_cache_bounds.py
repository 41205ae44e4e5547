"""Caches are bounded: a long run typing ever new commands keeps a bounded number of entries.

(The MB figures behind these bounds: benchmarks/bench_memory.py.)
"""

import pytest
from tui_adventure.envs.env import AdventureEnv
from tui_adventure.engine.parsers.parser import MEMO_PARSES, MEMO_PHRASES, MEMO_SIGHTED


@pytest.mark.slow
def test_distinct_commands_through_the_env_keep_bounded_memos():
    env = AdventureEnv(world="house", infos=("admissible_commands",), max_turns=1000)
    env.reset(seed=0)
    world = env.unwrapped.world
    parser = world.parser
    verbs = ["take", "examine", "open", "drop", "put"]
    sizes = []
    for i in range(12_000):
        if i % 50 == 0:   # back to the start: one state met again and again, as a model typing is
            env.reset()
        env.step(f"{verbs[i % len(verbs)]} thing{i}")
        if i in (1_999, 11_999):
            sizes.append(len(world.initial.cache))
    assert len(parser._parses) <= MEMO_PARSES
    assert len(parser._sighted) <= MEMO_SIGHTED
    assert len(parser._typed) <= MEMO_PHRASES
    assert len(parser._no_pronoun) <= MEMO_PHRASES
    # a state's own cache holds what derives from it, not one entry per command typed there
    assert sizes[1] == sizes[0] and sizes[1] < 100
