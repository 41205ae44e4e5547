"""Huge record files stay cheap (issue 55): a live interactions.json of 60 MB is not parsed by the
watch dashboard's row nor by replay, which say so in one line; a huge scores.json, instance.json or
run.json is refused by the one records reader before a byte of it is parsed. What is asserted is what
was parsed (counted at the parser), not how long it took."""

from __future__ import annotations

import asyncio
import shutil
import types

import pytest

from conftest import TEST_WORLDS

from tui_adventure.records import files as records
from tui_adventure.cli import main
from tui_adventure.watch.episodes import ENDED_UNREAD, ERROR, RUNNING
from tui_adventure.watch.tree import RecordsTree

HUGE = 60 * 1024 * 1024       # bytes of the synthetic live interactions.json
WATCH_CAP = 8 * 1024 * 1024   # what watch and replay parse at most (docs/watch.md)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One finished episode of the oracle on mini, as a batch writes it."""
    from tui_adventure.batches.episodes import run_all

    root = tmp_path_factory.mktemp("played")
    asyncio.run(run_all([TEST_WORLDS / "mini.yaml"], "oracle", root, 1))
    return next(root.rglob("interactions.json")).parent


@pytest.fixture
def parsed(monkeypatch):
    """The sizes of every JSON text the records reader parses."""
    sizes: list[int] = []
    real = records.parse_json

    def counting(data, *args, **kwargs):
        sizes.append(len(data))
        return real(data, *args, **kwargs)
    monkeypatch.setattr(records, "parse_json", counting)
    return sizes


def huge_episode(played, root, ended: bool = False, errored: bool = False):
    """A copy of the played episode whose interactions.json is a valid 60 MB object (one long string)."""
    target = root / "oracle" / "mini" / "mini" / "instance_00000"
    shutil.copytree(played, target)
    shutil.copy(played.parent.parent.parent / "run.json", root / "oracle" / "run.json")
    if not ended:
        (target / "completed.json").unlink()
    if errored:
        (target / "error.json").write_text('{"error": "ModelError", "message": "the server gave up"}')
    with open(target / "interactions.json", "wb") as fh:
        fh.write(b'{"players": {"Player 1": {"model_name": "oracle"}}, "turns": [], "padding": "')
        block = b"x" * (1024 * 1024)
        for _ in range(HUGE // len(block)):
            fh.write(block)
        fh.write(b'"}')
    return target


@pytest.mark.parametrize("state", ["running", "ended", "errored"])
def test_watch_shows_a_huge_interactions_file_as_a_note_and_never_parses_it(played, tmp_path, parsed, state):
    root = tmp_path / "records"
    huge_episode(played, root, ended=state == "ended", errored=state == "errored")
    tree = RecordsTree(root)
    tree.tick(budget=10.0)
    (ep,) = tree.episodes.values()
    assert ep.status == {"running": RUNNING, "ended": ENDED_UNREAD, "errored": ERROR}[state]
    assert ep.problem.endswith("interactions.json is 60 MB, over the 8 MB watch reads: not read"), ep.problem
    assert max(parsed, default=0) <= WATCH_CAP   # nothing near the file's size reached the parser


def test_replay_of_a_huge_episode_is_one_line_and_nothing_is_parsed(played, tmp_path, parsed, monkeypatch, capsys):
    from tui_adventure import app

    opened = []
    monkeypatch.setattr(app, "AdventureApp", lambda **kw: types.SimpleNamespace(run=lambda: opened.append(kw)))
    episode = huge_episode(played, tmp_path / "records")
    code = main(["replay", str(episode)])
    err = capsys.readouterr().err
    assert (code, opened) == (1, [])
    assert err == (f"adventure replay: {episode / 'interactions.json'} is 60 MB, over the 8 MB limit for"
                   " reading it\n")
    assert max(parsed, default=0) <= WATCH_CAP


def test_following_a_huge_episode_from_watch_is_refused_before_parsing(played, tmp_path, parsed):
    from tui_adventure.screens.replay import ReplayScreen

    episode = huge_episode(played, tmp_path / "records")
    with pytest.raises(records.RecordsError, match="is 60 MB, over the 8 MB limit"):
        ReplayScreen(episode, follow=True)
    assert max(parsed, default=0) <= WATCH_CAP


@pytest.mark.parametrize("name", ["scores.json", "instance.json", "run.json", "experiment.json", "error.json"])
def test_a_huge_small_record_is_refused_unparsed(tmp_path, parsed, name):
    path = tmp_path / name
    path.write_text('{"padding": "' + "x" * (9 * 1024 * 1024) + '"}')
    with pytest.raises(records.RecordsError, match=f"{name} is 9 MB, over the 8 MB limit for reading it"):
        records.read_json(path)
    assert parsed == []


def test_score_scores_an_episode_beside_a_huge_instance_file_without_parsing_it(played, tmp_path, parsed, capsys):
    """``adventure score`` reads the instance.json beside each episode (for progress): a huge one is left
    unread, and the episode is still scored."""
    root = tmp_path / "records"
    target = root / "oracle" / "mini" / "mini" / "instance_00000"
    shutil.copytree(played, target)
    shutil.copy(played.parent.parent.parent / "run.json", root / "oracle" / "run.json")
    (target / "scores.json").unlink(missing_ok=True)
    (target / "instance.json").write_text('{"padding": "' + "x" * (9 * 1024 * 1024) + '"}')
    assert main(["score", str(root)]) == 0
    assert "Traceback" not in capsys.readouterr().err
    assert (target / "scores.json").is_file()
    assert max(parsed, default=0) < 1024 * 1024
