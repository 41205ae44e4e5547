"""The records tree as adventure watch reads it: growing while watched, damaged files marked (never
raised), roots that cannot be watched said in one line, and ended episodes read once across openings."""

import asyncio
import json
import os
import shutil

import pytest

from conftest import TEST_WORLDS, WORLDS

from tui_adventure.watch import tree as tree_module
from tui_adventure.watch.cache import SummaryCache
from tui_adventure.watch.episodes import DAMAGED, ERROR, RUNNING, STOPPED, SUCCESS
from tui_adventure.watch.runs import run_rows
from tui_adventure.watch.tree import RecordsTree, root_problem


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One finished episode of the oracle on mini, as a batch writes it."""
    from tui_adventure.batches.episodes import run_all

    root = tmp_path_factory.mktemp("played")
    asyncio.run(run_all([TEST_WORLDS / "mini.yaml"], "oracle", root, 1))
    return next(root.rglob("interactions.json")).parent


# a tick's budget that reads every new episode: the default 0.1 s may stop after a few on a loaded machine
EVERY = 60.0


def put(played, root, run="oracle", game="mini", experiment="mini", n=0, ended=True):
    """A copy of the played episode at ``root/run/game/experiment/instance_n``; unfinished if not ``ended``."""
    target = root / run / game / experiment / f"instance_{n:05d}"
    shutil.copytree(played, target)
    if not (root / run / "run.json").exists():
        shutil.copy(played.parent.parent.parent / "run.json", root / run / "run.json")
    if not ended:
        (target / "completed.json").unlink()
    return target


def by_instance(tree):
    return {ep.instance: ep for ep in tree.episodes.values()}


def test_a_tree_that_grows_while_watched(played, tmp_path):
    root = tmp_path / "records"
    root.mkdir()
    tree = RecordsTree(root)
    assert tree.tick() is False and not tree.episodes           # empty: nothing yet, no error
    put(played, root, n=0)
    assert tree.tick()
    (ep,) = tree.episodes.values()
    assert (ep.status, ep.turns, ep.goals, ep.goal_count, ep.main_score) == (SUCCESS, 10, 1, 1, 100.0)
    assert ep.last_command == "done" and ep.world == "mini"

    running = put(played, root, n=1, ended=False)               # a new episode, still being played
    data = json.loads((running / "interactions.json").read_text())
    data["turns"] = data["turns"][:3]
    (running / "interactions.json").write_text(json.dumps(data))
    assert tree.tick()
    assert (by_instance(tree)["instance_00001"].status, by_instance(tree)["instance_00001"].turns) == (RUNNING, 3)
    assert tree.tick() is False                                  # nothing changed: nothing read
    put(played, root, run="other", game="house", experiment="house")   # a new run
    tree.tick()
    assert sorted(tree.runs) == ["oracle", "other"]

    full = json.loads((played / "interactions.json").read_text())   # the next turns land, then the end
    tmp = running / ".next.tmp"
    tmp.write_text(json.dumps({**full, "turns": full["turns"][:5]}))
    os.replace(tmp, running / "interactions.json")
    tree.tick()
    assert by_instance(tree)["instance_00001"].turns == 5
    shutil.copy(played / "interactions.json", running / "interactions.json")
    shutil.copy(played / "completed.json", running / "completed.json")
    tree.tick()
    assert by_instance(tree)["instance_00001"].status == SUCCESS
    row = {r.name: r for r in run_rows(tree.runs, tree.episodes.values())}["oracle"]
    assert (row.done, row.running, row.success, row.main_score) == (2, 0, "2/2", "100.0")

    shutil.rmtree(root / "other")                                # a run removed: gone from the rows
    tree.tick()
    assert sorted(tree.runs) == ["oracle"] and len(tree.episodes) == 2


def test_first_reads_are_bounded_per_tick_running_episodes_first(played, tmp_path):
    root = tmp_path / "records"
    for n in range(30):
        put(played, root, n=n, ended=n != 17)
    tree = RecordsTree(root)
    tree.tick(budget=0)                                          # one read a tick at the least
    assert tree.unread == 29 and len(tree.episodes) == 30
    assert [ep.instance for ep in tree.episodes.values() if ep.turns] == ["instance_00017"]
    for _ in range(40):
        tree.tick(budget=0)
    assert tree.unread == 0 and all(ep.turns == 10 for ep in tree.episodes.values())


def test_an_unfinished_episode_not_written_for_a_while_is_stopped(played, tmp_path, monkeypatch):
    root = tmp_path / "records"
    put(played, root, ended=False)
    clock = [tree_module.time.time()]
    tree = RecordsTree(root, clock=lambda: clock[0])
    tree.tick()
    (ep,) = tree.episodes.values()
    assert ep.status == RUNNING
    clock[0] += tree_module.QUIET_AFTER + 1
    tree.tick()
    assert ep.status == STOPPED
    row = run_rows(tree.runs, tree.episodes.values())[0]
    assert (row.running, row.stopped) == (0, 1)


def test_damaged_files_mark_their_episode_and_the_rest_reads(played, tmp_path):
    root = tmp_path / "records"
    put(played, root, n=0)
    bad_json = put(played, root, n=1)
    (bad_json / "interactions.json").write_text('{"meta": {}, "turns": [[{"from"')
    not_turns = put(played, root, n=2)
    (not_turns / "interactions.json").write_text('{"turns": {"0": 1}}')
    fifo = put(played, root, n=3, ended=False)
    (fifo / "interactions.json").unlink()
    os.mkfifo(fifo / "interactions.json")                      # a reader that opened it would block forever
    errored = put(played, root, n=4)
    (errored / "completed.json").unlink()
    (errored / "error.json").write_text('{"error": "ModelError", "message": "500 from the server"}')
    broken_error = put(played, root, n=5)
    (broken_error / "completed.json").unlink()
    (broken_error / "error.json").write_text("[1, 2")
    unscorable = put(played, root, n=6)
    data = json.loads((unscorable / "interactions.json").read_text())
    data["turns"][2] = [{"from": "GM", "to": "GM", "action": {"type": "goal_status", "content": 7}}, {"x": 1}]
    (unscorable / "interactions.json").write_text(json.dumps(data))
    (root / "oracle" / "run.json").write_text("{not json")
    (root / "oracle" / "mini" / "mini" / "instance_00099").write_text("a file named like an episode")
    (root / "oracle" / "notes.txt").write_text("stray")

    tree = RecordsTree(root)
    tree.tick(EVERY)
    eps = by_instance(tree)
    assert sorted(eps) == [f"instance_{n:05d}" for n in range(7)]
    assert eps["instance_00000"].status == SUCCESS
    assert eps["instance_00001"].status == DAMAGED and "not JSON" in eps["instance_00001"].problem
    assert eps["instance_00002"].status == DAMAGED and "not a clemcore interactions" in eps["instance_00002"].problem
    assert eps["instance_00003"].status == DAMAGED and "not a regular file" in eps["instance_00003"].problem
    assert (eps["instance_00004"].status, eps["instance_00004"].problem) == (ERROR, "ModelError: 500 from the server")
    assert eps["instance_00005"].status == DAMAGED and "error.json" in eps["instance_00005"].problem
    assert eps["instance_00006"].status == DAMAGED and "cannot be scored" in eps["instance_00006"].problem
    assert str(root) not in eps["instance_00001"].problem          # paths from the root, short
    row = run_rows(tree.runs, tree.episodes.values())[0]
    assert (row.done, row.errored) == (1, 6) and "run.json" in row.last_error


def test_roots_that_cannot_be_watched_are_said_in_one_line(played, tmp_path):
    assert "does not exist" in root_problem(tmp_path / "nowhere")
    (tmp_path / "file").write_text("x")
    assert "is not a folder" in root_problem(tmp_path / "file")
    assert "is one episode" in root_problem(played)
    assert "one run's folder" in root_problem(played.parent.parent.parent)
    assert "holds no clemcore records" in root_problem(WORLDS.parent / "tests")
    (tmp_path / "empty").mkdir()
    assert root_problem(tmp_path / "empty") is None              # a batch about to start: waited for
    assert root_problem(played.parent.parent.parent.parent) is None
    assert all("\n" not in p for p in [root_problem(tmp_path / "nowhere"), root_problem(played)])


def test_ended_episodes_are_read_once_across_openings(played, tmp_path, monkeypatch):
    root = tmp_path / "records"
    for n in range(5):
        put(played, root, n=n, ended=n != 4)
    cache = SummaryCache(tmp_path / "cache.json")
    first = RecordsTree(root, cache)
    first.tick(EVERY)
    cache.save()
    reads = []
    real = tree_module.read_json
    monkeypatch.setattr(tree_module, "read_json", lambda path, *a: reads.append(path.parent.name) or real(path, *a))
    second = RecordsTree(root, SummaryCache(tmp_path / "cache.json"))
    second.tick(EVERY)
    assert reads == ["instance_00004"]                             # only the unfinished one
    assert [(e.status, e.turns, e.main_score) for e in by_instance(second).values()] == \
        [(e.status, e.turns, e.main_score) for e in by_instance(first).values()]
    (root / "oracle" / "mini" / "mini" / "instance_00002" / "completed.json").unlink()   # started again
    (root / "oracle" / "mini" / "mini" / "instance_00002" / "error.json").write_text('{"error": "X"}')
    third = RecordsTree(root, SummaryCache(tmp_path / "cache.json"))
    third.tick(EVERY)
    assert by_instance(third)["instance_00002"].status == ERROR
    (tmp_path / "cache.json").write_text("[garbage")                # a damaged cache: read the files
    fourth = RecordsTree(root, SummaryCache(tmp_path / "cache.json"))
    fourth.tick(EVERY)
    assert sorted(e.status for e in fourth.episodes.values()) == ["error", "running", "success", "success", "success"]


def test_a_root_holding_only_what_eval_wrote_is_watched_as_a_batch_about_to_start(played, tmp_path):
    """Its comparison.csv and pairs.csv were taken for stray files: "holds no clemcore records, only files"."""
    from tui_adventure.evaluation.results import evaluate
    from tui_adventure.gamemaster.scoring import score_root

    root = tmp_path / "records"
    put(played, root)
    score_root(root)
    written = evaluate(root)
    shutil.move(root / "oracle", tmp_path / "elsewhere")   # the runs moved away, eval's files left behind
    assert sorted(p.name for p in root.iterdir()) == sorted(p.name for p in written)
    assert root_problem(root) is None
    (root / "notes.txt").write_text("x")                     # anything else is still named
    assert "only files (notes.txt)" in root_problem(root)


def test_a_run_finished_before_the_dashboard_saw_it_has_turns_per_minute(played, tmp_path):
    from datetime import datetime, timedelta, timezone

    from tui_adventure.watch.view import RUN_COLUMNS, run_cells

    root = tmp_path / "records"
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for n, offset in ((0, 0), (1, 66)):   # two episodes of 10 turns, 6 s apart: 20 turns in 120 s
        episode = put(played, root, n=n)
        data = json.loads((episode / "interactions.json").read_text())
        assert len(data["turns"]) == 10
        for k, turn in enumerate(data["turns"]):
            for event in turn:
                event["timestamp"] = (start + timedelta(seconds=offset + 6 * k)).isoformat()
        (episode / "interactions.json").write_text(json.dumps(data))
    tree = RecordsTree(root, cache=None)
    while tree.tick():
        pass
    (row,) = run_rows(tree.runs, tree.episodes.values())
    assert row.running == 0 and row.done == 2
    assert run_cells(row)[RUN_COLUMNS.index("turns/min")] == "10"
