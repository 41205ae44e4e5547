"""Par means one thing on screen (issue 20): the exact optimum, upstream's beside it where it differs,
and the oracle's own run reads 0 over par (a closing done is not a move)."""

import asyncio

from tui_adventure.session import open_session, par_label


def run_oracle(world):
    s = open_session(world, player="oracle", records=None)

    async def go():
        while not s.episode.ended:
            await s.play()
    asyncio.run(go())
    return s


def test_a_clembench_oracle_reads_par_8_upstream_10_and_0_over():
    s = run_oracle("clembench/home_deliver_three_basic_easy/0")
    p = s.panels(progress=True)
    assert (p.par, p.par_upstream, p.turns_over_par, p.turn_ratio) == (8, 10, 0, 1.0)
    assert par_label(p.par, p.par_upstream) == "8 (upstream 10)"
    assert "par 8 (upstream 10)" in asyncio.run(s.meta("score")).text


def test_a_native_oracle_reads_0_over_par_and_one_par():
    s = run_oracle("house")
    p = s.panels(progress=True)
    assert p.turns == 22 and (p.par, p.turns_over_par) == (21, 0)
    assert par_label(p.par, p.par_upstream) == "21"
